"""The rest of the standard library, fetched when first imported: a meta-path finder for the page's Python.

The build (stdlib.py, bytecode.py) ships a pruned python_stdlib.pyc.zip and adds this file to it, compiled, as
_lab_lazy_stdlib.pyc, with MODULES filled in (every module of the official zip). The worker (static/worker/
worker.js) calls `install(url, lang)` before the engine loads: the finder goes last on sys.meta_path, so it
is asked only about a module nothing else found. For a module of the official zip that the pruned one
left out (`import fractions`), it fetches the official python_stdlib.zip once (a synchronous request: an
import cannot wait; allowed in a Web Worker), writes it into Pyodide's file system and loads the module
from it with zipimport; later imports of any left-out module read the same zip. The service worker caches
that zip with the rest of the build, so this works offline after one visit; offline before that, the
ImportError says what to do.

    >>> finder = LazyStdlib("python_stdlib.zip", fetch=lambda url: (_ for _ in ()).throw(OSError("offline")),
    ...                     modules={"fractions"})
    >>> finder.find_spec("not_a_stdlib_module") is None
    True

Left out: C extension modules (they are in pyodide.asm.wasm) and Pyodide's unvendored packages (ssl,
sqlite3, lzma: micropip's business, and the page has no network for them).
"""
from __future__ import annotations

import sys
import zipimport

MODULES: frozenset = frozenset()   # @modules: replaced by the build (every dotted module of the official zip)
WHERE = "/lib/python_stdlib_full.zip"

WORDS = {
    "vi": ("Mô-đun {name} của thư viện chuẩn Python không có sẵn trong bài lab: nó nằm trong thư viện chuẩn đầy "
           "đủ (python_stdlib.zip, khoảng 2,3 MB), phải tải một lần qua mạng, nhưng không tải được ({error}). "
           "Hãy kết nối mạng rồi bấm Chạy lại (sau đó trình duyệt giữ nó để dùng cả khi offline), hoặc bỏ "
           "dòng import {name}."),
    "en": ("The standard-library module {name} is not in the lab's pruned library: it is in the full standard "
           "library (python_stdlib.zip, about 2.3 MB), which is downloaded once, and that failed ({error}). "
           "Connect to the network and press Run again (the browser then keeps it for offline use), or remove "
           "the import of {name}."),
}


def fetch_sync(url: str) -> bytes:
    """The bytes at url by a synchronous XMLHttpRequest (Pyodide in a Web Worker)."""
    from js import XMLHttpRequest  # Pyodide's bridge to the worker's JavaScript
    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.responseType = "arraybuffer"
    try:
        request.send()
    except Exception as exc:  # a network error surfaces as a JavaScript exception
        raise OSError(str(exc)) from None
    if request.status != 200:
        raise OSError(f"HTTP {request.status}")
    return request.response.to_bytes()


class LazyStdlib:
    """A meta-path finder for the official zip's modules; fetches the zip on the first one asked for."""

    def __init__(self, url: str, fetch=fetch_sync, modules=None, lang: str = "vi", where: str = WHERE):
        self.url, self.fetch, self.lang, self.where = url, fetch, lang, where
        self.modules = frozenset(MODULES if modules is None else modules)
        self.fetched = False

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname not in self.modules:
            return None
        if not self.fetched:
            self.load(fullname)
        *package, _ = fullname.split(".")
        importer = zipimport.zipimporter("/".join([self.where, *package]) + ("/" if package else ""))
        return importer.find_spec(fullname)

    def load(self, name: str) -> None:
        try:
            data = self.fetch(self.url)
        except OSError as exc:
            words = WORDS.get(self.lang, WORDS["vi"])
            raise ModuleNotFoundError(words.format(name=name, error=exc), name=name) from None
        with open(self.where, "wb") as out:
            out.write(data)
        self.fetched = True

    def invalidate_caches(self) -> None:
        pass


def install(url: str, lang: str = "vi") -> LazyStdlib:
    """The finder, last on sys.meta_path (once)."""
    for finder in sys.meta_path:
        if isinstance(finder, LazyStdlib):
            return finder
    finder = LazyStdlib(url, lang=lang)
    sys.meta_path.append(finder)
    return finder
