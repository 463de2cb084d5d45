"""Exercises: `exercises/NN-slug.md` files with TOML front matter, read for `--exercise N` and the build.

A file opens with front matter between two `+++` lines, then Markdown sections
`## Câu hỏi`, `## Dự đoán`, `## Đáp án`:

    +++
    title = "Hàng đợi và mã 429"
    constants = { QUEUE_LIMIT = 2 }
    expect = ["D (đến 1.50 ms): nhận"]
    +++
    ## Câu hỏi
    ...

    >>> text = "+++\\ntitle = 'T'\\nconstants = { SLOTS = 3 }\\nexpect = []\\n+++\\n"
    >>> ex = parse_text(text + "## Câu hỏi\\nQ\\n## Dự đoán\\nP\\n## Đáp án\\nA\\n", "07-x.md")
    >>> ex.number, ex.constants, ex.sections["Câu hỏi"]
    (7, {'SLOTS': 3}, 'Q')

The English edition sits in the same file: front matter `title_en`, `expect_en` (lines of the
English output, `--lang en`), optional `expect_steps_en`, and the sections `## Question`,
`## Prediction`, `## Answer` after the Vietnamese ones (all three or none).

An exercise about capacity planning adds a tool to run with its constants: `sweep = "NAME=V1,V2,…"` (`--sweep`)
or `search = ["NAME=V1,…", …]` (`--search`), and `expect_tool` / `expect_tool_en`, strings of that tool's output
(`python -m inference_lab --exercise N --sweep …`; the constants' own run, what the page's button shows, is checked
by `expect` as in every exercise; its `compare` tables run the same tool too).

An exercise that needs the code adds a `[patch]` table at the end of its front matter: one key per
edited engine function, "module.function", with the function's new source as a TOML string;
`--exercise N` and the page's exercise button run the lab with it (see patch.py):

    >>> text = "+++\\ntitle = 'T'\\nconstants = {}\\nexpect = []\\n"
    >>> text += "[patch]\\n'sampler.sample' = 'def sample(): ...'\\n+++\\n"
    >>> ex = parse_text(text + "## Câu hỏi\\nQ\\n## Dự đoán\\nP\\n## Đáp án\\nA\\n", "08-y.md")
    >>> ex.patch
    {'sampler.sample': 'def sample(): ...'}

The exercises are taken in two tracks (`TRACKS`, written once here: the page's cards, the guide's learning
map and `load_all()`'s order follow it): the model (text → tokens → attention → sampling → quantization)
and serving (admission, steps, budget, KV blocks, capacity, cancellation). An exercise no track names comes
last, in number order: adding an exercise is adding one file. Leaves out: rendering Markdown to HTML
(build.py does that with a Markdown library), checking the answers (tests do that).
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

SECTIONS = ("Câu hỏi", "Dự đoán", "Đáp án")
SECTIONS_EN = ("Question", "Prediction", "Answer")   # the same sections in English (optional, all or none)
FILENAME = re.compile(r"^(\d{2})-([a-z0-9-]+)\.md$")


@dataclass(frozen=True, slots=True)
class Track:
    """An ordered path through the exercises, with its name in both languages."""
    id: str
    title: str
    title_en: str
    numbers: tuple[int, ...]


TRACKS = (
    Track("model", "Lộ trình mô hình: từ văn bản tới token sinh ra",
          "The model track: from text to generated tokens", (10, 11, 12, 16, 6, 32)),
    Track("serving", "Lộ trình phục vụ: cổng, lập lịch, KV cache, dung lượng",
          "The serving track: gateway, scheduling, KV cache, capacity",
          (2, 14, 1, 3, 15, 4, 13, 5, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 30, 31, 40, 41, 42, 43, 44, 45,
           46)),
)
OTHER = Track("other", "Bài khác", "Other exercises", ())


def track_of(number: int) -> tuple[Track, int]:
    """(the exercise's track, its 1-based place in it); OTHER and 0 when no track names it."""
    for t in TRACKS:
        if number in t.numbers:
            return t, t.numbers.index(number) + 1
    return OTHER, 0


def track_order(number: int) -> tuple[int, int, int]:
    """Sort key: the track's place in TRACKS (OTHER last), the place in the track, the number."""
    track, place = track_of(number)
    return (TRACKS.index(track) if track in TRACKS else len(TRACKS), place, number)


@dataclass(slots=True)
class Exercise:
    number: int
    slug: str
    title: str
    constants: dict
    expect: list
    sections: dict = field(default_factory=dict)    # "Câu hỏi" / "Dự đoán" / "Đáp án" -> Markdown
    expect_steps: list = field(default_factory=list)  # strings of the step narration (`--steps`)
    title_en: str = ""                                # the English edition (empty: none yet)
    expect_en: list = field(default_factory=list)     # strings of the English output (`--lang en`)
    expect_steps_en: list = field(default_factory=list)
    patch: dict = field(default_factory=dict)       # "module.function" -> new source (patch.py)
    sweep: str = ""                                   # a --sweep NAME=V1,… to run with the constants (sweep.py)
    search: list = field(default_factory=list)        # --search NAME=V1,… axes to run with them (search.py)
    expect_tool: list = field(default_factory=list)   # strings of that --sweep / --search output (and _en)
    expect_tool_en: list = field(default_factory=list)

    @property
    def has_english(self) -> bool:
        return bool(self.title_en) and all(s in self.sections for s in SECTIONS_EN)

    def __post_init__(self):
        for key, source in self.patch.items():
            if not re.fullmatch(r"[a-z_]+\.[a-z_]\w*", key) or not isinstance(source, str):
                raise ValueError(f"[patch]: mỗi khóa là 'mô-đun.hàm' (ví dụ 'scheduler.plan_tasks') với mã nguồn "
                                 f"là một chuỗi (nhận {key!r})")

    def to_dict(self) -> dict:
        track, place = track_of(self.number)
        return dict(number=self.number, slug=self.slug, title=self.title, constants=self.constants,
                    expect=self.expect, sections=self.sections, patch=self.patch, title_en=self.title_en,
                    sweep=self.sweep, search=self.search,
                    track=dict(id=track.id, title=track.title, title_en=track.title_en, place=place,
                               of=len(track.numbers)))


def split_front_matter(text: str) -> tuple[dict, str]:
    m = re.match(r"\A\+\+\+\s*\n(.*?)\n\+\+\+\s*\n(.*)\Z", text, flags=re.S)
    if not m:
        raise ValueError("thiếu phần đầu TOML giữa hai dòng +++")
    return tomllib.loads(m.group(1)), m.group(2)


def split_sections(body: str) -> dict:
    parts = re.split(r"^## +(.+?)\s*$", body, flags=re.M)
    sections = {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
    missing = [s for s in SECTIONS if s not in sections]
    if missing:
        raise ValueError(f"thiếu mục: {', '.join('## ' + s for s in missing)}")
    english = [s for s in SECTIONS_EN if s in sections]
    if english and len(english) != len(SECTIONS_EN):
        raise ValueError("English sections are all or none: "
                         f"{', '.join('## ' + s for s in SECTIONS_EN if s not in sections)} missing")
    return sections


def parse_text(text: str, filename: str) -> Exercise:
    m = FILENAME.match(filename)
    if not m:
        raise ValueError(f"tên tệp {filename!r} phải có dạng NN-ten-ngan.md")
    meta, body = split_front_matter(text)
    for key in ("title", "constants", "expect"):
        if key not in meta:
            raise ValueError(f"{filename}: phần đầu thiếu khóa {key!r}")
    return Exercise(int(m.group(1)), m.group(2), meta["title"], dict(meta["constants"]), list(meta["expect"]),
                    split_sections(body), expect_steps=list(meta.get("expect_steps", [])),
                    patch=dict(meta.get("patch", {})), title_en=str(meta.get("title_en", "")),
                    expect_en=list(meta.get("expect_en", [])), expect_steps_en=list(meta.get("expect_steps_en", [])),
                    sweep=str(meta.get("sweep", "")), search=list(meta.get("search", [])),
                    expect_tool=list(meta.get("expect_tool", [])), expect_tool_en=list(meta.get("expect_tool_en", [])))


def default_dir() -> Path:
    """LAB_EXERCISES, else the repository's exercises/ (next to py/), else ./exercises."""
    env = os.environ.get("LAB_EXERCISES")
    candidates = [Path(env)] if env else []
    candidates += [Path(__file__).resolve().parents[2] / "exercises", Path.cwd() / "exercises"]
    return next((p for p in candidates if p.is_dir()), candidates[-1])


def load_all(directory: Path | None = None) -> list[Exercise]:
    directory = Path(directory) if directory else default_dir()
    files = sorted(p for p in directory.glob("*.md") if FILENAME.match(p.name))
    return sorted((parse_file(p) for p in files), key=lambda e: track_order(e.number))


def parse_file(path: Path) -> Exercise:
    """parse_text of one file; every error names the file."""
    try:
        return parse_text(path.read_text(encoding="utf-8"), path.name)
    except ValueError as exc:  # tomllib.TOMLDecodeError included
        if path.name in str(exc):
            raise
        raise ValueError(f"{path.name}: {exc}") from exc


def find(number, directory: Path | None = None, lang: str = "vi") -> Exercise:
    """Exercise `number` (int or digit string); LookupError if there is none (message in `lang`)."""
    en = lang == "en"
    try:
        n = int(number)
    except (TypeError, ValueError):
        raise ValueError(f"the exercise number must be an integer (got {number!r})" if en
                         else f"số bài tập phải là số nguyên (nhận {number!r})") from None
    found = [e for e in load_all(directory) if e.number == n]
    if not found:
        where = directory or default_dir()
        raise LookupError(f"there is no exercise number {n} in {where}" if en else f"không có bài tập số {n} trong "
                                                                                   f"{where}")
    return found[0]


def constants_of(number, directory: Path | None = None, lang: str = "vi") -> dict:
    """The constants of exercise `number` (int or digit string); LookupError if there is none."""
    return dict(find(number, directory, lang).constants)


def patch_of(number, directory: Path | None = None, lang: str = "vi") -> dict:
    """The [patch] of exercise `number`: {"module.function": source}, {} for most exercises."""
    return dict(find(number, directory, lang).patch)
