"""Offline use: the service worker (dist/sw.js) and the classroom zip (inference-lab-<version>.zip).

dist/sw.js is static/worker/sw.js rendered with the build's file list (each with its Subresource Integrity
value), its version, its cache names and the page's ?v= query: the service worker caches the whole
build for offline use, and a new build gives a new sw.js and so a new cache. write_zip() packs a
vendored build and a Vietnamese README.txt into one folder inside a zip that works with no network.
Left out: the manifest itself (assemble.py) and what the service worker does with the list (static/worker/sw.js).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import zipfile
from pathlib import Path

from .common import MANIFEST, ROOT, BuildError, sha256_file, sri
from .pyodide import PYODIDE_PINS

SERVICE_WORKER = "worker/sw.js"  # under static/; dist/sw.js at the site root
SW_BUILD_LINE = re.compile(r"^const BUILD = null; // @build.*$", re.M)


def take_service_worker_template(dist: Path) -> str:
    """Remove static/worker/sw.js from dist (it is served from the site root, rendered) and return its text."""
    template = dist / "static" / SERVICE_WORKER
    if not template.is_file():
        raise BuildError(f"{ROOT / 'static' / SERVICE_WORKER} is missing.")
    text = template.read_text(encoding="utf-8")
    template.unlink()
    if len(SW_BUILD_LINE.findall(text)) != 1:
        raise BuildError(f"static/{SERVICE_WORKER} must contain one line 'const BUILD = null; // @build'.")
    return text


def write_service_worker(dist: Path, manifest: dict, template: str, asset_version: str = "") -> None:
    """dist/sw.js: the template with the build's files, its version and cache names (manifest["build"]).

    Any change to any file changes its hash listed here, so sw.js changes byte-wise and browsers update it.
    sw.js is derived from the manifest, like build-info.json itself, so the manifest does not list it.
    """
    files = [[path, sri(info["sha256"])] for path, info in manifest["files"].items()]
    files.append([MANIFEST, sri(sha256_file(dist / MANIFEST))])
    if manifest["pyodide"]["mode"] == "cdn":  # the CDN serves these with CORS; cache them too
        files += [[manifest["pyodide"]["indexURL"] + name, sri(PYODIDE_PINS[name])]
                  for name in manifest["pyodide"]["files"]]
    # "query": the ?v= the page puts on static/ URLs, so sw.js asks for the URLs the browser has just
    # loaded (an HTTP-cache revalidation, not a second download).
    data = {**manifest["build"], "query": f"?v={asset_version}" if asset_version else "", "files": files}
    line = "const BUILD = " + json.dumps(data, separators=(",", ":")) + "; // written by build.py"
    (dist / "sw.js").write_text(SW_BUILD_LINE.sub(lambda _: line, template), encoding="utf-8")


ZIP_README = """Inference Lab {version} — bản dùng cho lớp học không có mạng (Pyodide {pyodide}, NumPy)

Thư mục này chứa toàn bộ bài lab: trang web, Python (Pyodide), NumPy và engine. Không cần Internet.

1. Mở cửa sổ dòng lệnh trong thư mục này (thư mục có tệp index.html) và chạy:

       python3 -m http.server 8000

   (Windows: py -m http.server 8000). Cần Python 3.10 trở lên.
2. Mở trình duyệt (Chrome, Edge, Firefox hoặc Safari bản gần đây) tại địa chỉ:

       http://localhost:8000/

   Chờ dòng trạng thái báo "Sẵn sàng", rồi bấm Chạy.
3. Mọi thứ chạy ngay trong trình duyệt, không gửi dữ liệu đi đâu. Sau lần mở đầu tiên, trình duyệt
   lưu cả bài lab lại: tải lại trang vẫn chạy được kể cả khi mất mạng.

Máy khác trong mạng LAN có thể mở http://<địa-chỉ-IP-của-máy-này>:8000/ khi máy này đang chạy lệnh
trên (trình duyệt chỉ lưu bài lab để dùng offline với địa chỉ localhost hoặc https).
Không mở index.html bằng cách bấm đúp (file://): trình duyệt chặn Python trong trang mở kiểu đó.

Nút Dừng tức thì (https or localhost, with COOP/COEP headers): nút Dừng ngắt ngay một lần chạy (không
phải khởi động lại Python) chỉ khi trang được "cách ly cross-origin": mở qua https hoặc localhost, với
hai header Cross-Origin-Opener-Policy: same-origin và Cross-Origin-Embedder-Policy: require-corp.
Lệnh "python3 -m http.server" không gửi hai header này, nhưng từ lần mở thứ hai trên cùng máy
(localhost), service worker của bài lab tự thêm chúng. "python3 build.py serve" (trong mã nguồn) gửi
chúng ngay. Máy khác mở http://<địa-chỉ-IP>:8000/ (không phải https) thì không có service worker, không
được cách ly: nút Dừng vẫn dùng được nhưng phải khởi động lại Python (vài giây). Lớp học muốn nút Dừng
tức thì trên mọi máy cần một máy chủ https gửi hai header trên (ví dụ Caddy, nginx).
"""


def write_zip(dist: Path, dest_dir: Path | None = None) -> Path:
    """<dist's parent>/inference-lab-<version>.zip: one folder with the vendored build and README.txt."""
    manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    if manifest["pyodide"]["mode"] != "vendor":
        raise BuildError("--zip needs the vendored build (without --pyodide cdn): the zip must work offline.")
    version = manifest["engine"]["version"]
    folder = f"inference-lab-{version}"
    dest = (dest_dir or dist.parent) / f"{folder}.zip"
    readme = ZIP_README.format(version=version, pyodide=manifest["pyodide"]["version"])
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-", suffix=".zip")
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            entries = [(f"{folder}/README.txt", readme.encode())]
            entries += [(f"{folder}/{p.relative_to(dist).as_posix()}", p)
                        for p in sorted(dist.rglob("*")) if p.is_file()]
            for arc, content in entries:
                info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, content if isinstance(content, bytes) else content.read_bytes())
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest

