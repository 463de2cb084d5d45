"""Browser tests of the code views and the code editor (static/tools/code.js, static/vendor/codemirror.js).

- Every block panel has a "Mã Python" fold [data-code-for="N"] whose text is the package's own source
  of the functions and classes blocks.py names, with file names and line numbers.
- Editing plan_tasks or sample in the editor and pressing Run runs the whole lab with the edit: the
  panels show what the command line prints with the same patch, the right blocks change (old → new
  marks), every panel carries the edited-code marker, the edit rides in the address and survives a
  reload; "Khôi phục" brings the seed's output back.
- A syntax error, an exception, a wrong return value and an endless loop (Dừng, and the watchdog) each
  give their message beside the editor, keep the panels' previous output and keep the edit. The page is
  cross-origin isolated here, so Stop interrupts the loop (the lesson names its line) in the same worker;
  a bare `except:` that swallows the interrupt is ended by a restart after about a second.
"""
from __future__ import annotations

import inspect
import re

import pytest

from edits import GREEDY, PREFILL_FIRST
from lab_browser import READY_MS, RUN_MS, cli_sections, editor_text, expect, open_editor

pytestmark = pytest.mark.browser

def expected_text(patches: dict | None = None) -> dict:
    """The command line's sections for the default config with these {module.function: source} edits."""
    from inference_lab.entrypoints import patch
    from inference_lab.entrypoints.lab import run
    report = patch.run(patch.units_of(patches), run, None)[0] if patches else run()
    return cli_sections(report.to_text())


def original(ref: str):
    from inference_lab.words.blocks import SourceRef
    return SourceRef(*ref.split(".", 1)).resolve()


def set_code(lab, ref: str, block: int, source: str):
    editor = open_editor(lab, ref, block)
    editor.locator(".cm-content").click()
    lab.page.keyboard.press("Control+a")
    lab.page.keyboard.press("Delete")
    lab.page.keyboard.insert_text(source)
    return editor


def run_from(editor, lab) -> str:
    editor.locator('[data-action="run-code"]').click()
    return lab.wait_status("done|error", RUN_MS)


def restore(lab, ref: str, block: int):
    editor = open_editor(lab, ref, block)
    editor.locator('[data-action="restore-code"]').click()
    return editor


def changed_blocks(lab, want: dict) -> list[int]:
    base, shown = expected_text(), lab.panels_lines()
    for n in range(1, 14):
        assert shown[n][1:] == want[n][1:], f"panel {n} differs from the command line with the same edit"
    return [n for n in range(1, 14) if want[n] != base[n]]


# ── the code views ───────────────────────────────────────────────────────────
def test_every_block_shows_the_packages_source(lab):
    import sitebuild
    views = sitebuild.code_views()
    for n in range(1, 14):
        fold = lab.page.locator(f'[data-code-for="{n}"]')
        expect(fold).to_have_count(1)
        text = fold.text_content()
        for ref in views["blocks"][n]:
            source = inspect.getsource(original(ref))
            assert source.rstrip("\n") in text, f"block {n}: the source of {ref} is not shown as is"
            entry = views["sources"][ref]
            start = inspect.getsourcelines(original(ref))[1]
            caption = fold.locator(f'[data-code-ref="{ref}"] figcaption').text_content()
            assert f"{entry['file']}, dòng {start}–{start + len(entry['lines']) - 1}" in caption
    numbers = lab.page.locator('[data-code-ref="scheduler.plan_tasks"] .code-line').evaluate_all(
        "els => els.map(e => e.dataset.line)")
    assert numbers[0] == str(inspect.getsourcelines(original("scheduler.plan_tasks"))[1])
    editable = lab.page.locator('[data-code-for="8"] [data-action="edit-code"]')
    expect(editable).to_have_count(2)                 # sample and top_k_top_p


# ── edits change the right blocks ───────────────────────────────────────────
def test_editing_plan_tasks_runs_the_whole_lab_with_it(lab):
    assert lab.run() == "done"                        # a default run first: the marks compare with it
    editor = set_code(lab, "scheduler.plan_tasks", 3, PREFILL_FIRST)
    assert run_from(editor, lab) == "done"
    want = expected_text({"scheduler.plan_tasks": PREFILL_FIRST})
    assert changed_blocks(lab, want) == [3, 4, 6, 8, 11, 12]
    assert "TTFT = 19.20 ms - 1.00 ms = 18.20 ms" in "\n".join(lab.panel_lines(4))
    olds = lab.page.locator('[data-block="4"] .changed').evaluate_all('els => els.map(e => e.dataset.changed)')
    assert "22.00" in olds, olds                     # the old → new marks of the compare tool
    expect(lab.page.locator("[data-block] > summary [data-edited-code]")).to_have_count(13)
    assert "PATCH=" in lab.page.url
    assert lab.page.evaluate("JSON.parse(localStorage.getItem('inference-lab:patches'))") == {
        "scheduler.plan_tasks": PREFILL_FIRST}


def test_the_edit_survives_a_reload_and_restore_brings_the_seed_back(lab):
    lab.page.reload()
    lab.wait_status("done", READY_MS)  # PATCH= in the address runs
    editor = lab.page.locator('[data-code-editor="scheduler.plan_tasks"]')
    expect(editor.locator('[data-editor="codemirror"]')).to_have_count(1, timeout=RUN_MS)
    assert editor_text(editor) == PREFILL_FIRST
    assert "TTFT = 19.20 ms - 1.00 ms = 18.20 ms" in "\n".join(lab.panel_lines(4))
    editor = restore(lab, "scheduler.plan_tasks", 3)
    assert editor_text(editor) == inspect.getsource(original("scheduler.plan_tasks"))
    assert run_from(editor, lab) == "done"
    assert changed_blocks(lab, expected_text()) == []
    expect(lab.page.locator("[data-edited-code]")).to_have_count(0)
    assert "PATCH=" not in lab.page.url
    assert lab.page.evaluate("localStorage.getItem('inference-lab:patches')") is None


def test_editing_sample_changes_token_blocks_and_leaves_the_others(lab):
    editor = set_code(lab, "sampler.sample", 8, GREEDY)
    assert run_from(editor, lab) == "done"
    want = expected_text({"sampler.sample": GREEDY})
    assert changed_blocks(lab, want) == [3, 4, 6, 7, 8, 10, 11, 12]
    assert "Lọc top-k/top-p giữ 1 token, tái chuẩn hóa tổng về 1: d=1.000" in "\n".join(lab.panel_lines(8))
    restore(lab, "sampler.sample", 8)


ONE_AT_A_TIME = """def admission_room(policy, slots, running, waiting, ready, pending):
    return 1 if not running else 0
"""
# Run in the page's worker: where the engine's modules came from, and whether loading them again compiles.
ENGINE_LOADED = r"""
import json, sys
engine = {n: m for n, m in sys.modules.items() if n.split(".")[0] == "inference_lab"}
compiles = []
sys.addaudithook(lambda event, args: event == "compile" and compiles.append(str(args[1])))
for name in sorted(engine):
    engine[name].__spec__.loader.get_code(name)
json.dumps({"engine": sorted(engine), "cached": sorted(n for n, m in engine.items() if m.__cached__),
            "compiles": compiles})
"""


def test_an_edit_runs_in_the_bytecode_build_and_reaches_the_step_view(lab, site):
    """The build ships the engine with its bytecode (sitebuild/bytecode.py): an edited admission_room still
    replaces the compiled original (admission_check calls it), patch.py itself loads from __pycache__,
    and the step view in block [3] says why B and C wait."""
    import json
    editor = set_code(lab, "scheduler.admission_room", 3, ONE_AT_A_TIME)
    assert run_from(editor, lab) == "done"
    assert changed_blocks(lab, expected_text({"scheduler.admission_room": ONE_AT_A_TIME})) == [3, 4, 6, 8, 10, 11, 12]
    assert "bước  2: 3.40 ms -> 4.50 ms | chờ=2 chạy=1 | A:d:1" in "\n".join(lab.panel_lines(3))
    slider = lab.page.locator("[data-step-slider]")
    slider.focus()
    slider.press("Home")
    slider.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuenow", "2")
    expect(lab.page.locator('[data-step-view] .step-wait[data-request="B"][data-why="room_rule"]')).to_contain_text(
        "admission_room (mã đã sửa) cho 0 chỗ dù còn chỗ trống")
    if json.loads((site / "build-info.json").read_text())["bytecode"]:
        [worker] = lab.page.workers
        found = json.loads(worker.evaluate("(source) => pyodide.runPython(source)", ENGINE_LOADED))
        assert "inference_lab.entrypoints.patch" in found["engine"] and found["cached"] == found["engine"]
        assert found["compiles"] == []
    restore(lab, "scheduler.admission_room", 3)


# ── mistakes are lessons; nothing is lost ───────────────────────────────────
def assert_lesson_kept_everything(lab, editor, source: str, before: list, *needles: str):
    error = editor.locator('[data-error-for="patch:scheduler.plan_tasks"], [data-error-for^="patch:"]').first
    expect(error).to_be_visible()
    for needle in needles:
        expect(error).to_contain_text(needle)
    assert editor_text(editor) == source                              # the edit stays
    assert panels(lab) == before                                      # the panels keep their output
    assert "Traceback" not in error.text_content()


def panels(lab) -> list:
    return [lines[1:] for lines in lab.panels_lines().values()]


def test_syntax_error_is_shown_beside_the_editor(lab):
    assert lab.run() == "done"
    before = panels(lab)
    start = inspect.getsourcelines(original("scheduler.plan_tasks"))[1]
    source = "def plan_tasks(running, budget_cap)\n    return []\n"
    editor = set_code(lab, "scheduler.plan_tasks", 3, source)
    assert run_from(editor, lab) == "error"
    assert_lesson_kept_everything(lab, editor, source, before, f"lỗi cú pháp ở dòng {start}, cột 36", "expected ':'")


def test_exception_shows_only_the_students_lines(lab):
    before = panels(lab)
    start = inspect.getsourcelines(original("scheduler.plan_tasks"))[1]
    source = "def plan_tasks(running, budget_cap):\n    return running[99]\n"
    editor = set_code(lab, "scheduler.plan_tasks", 3, source)
    assert run_from(editor, lab) == "error"
    assert_lesson_kept_everything(lab, editor, source, before, f"dòng {start + 1}, trong plan_tasks",
                                  "return running[99]", "IndexError")


def test_bad_return_value_names_the_function(lab):
    before = panels(lab)
    source = "def plan_tasks(running, budget_cap):\n    return []\n"
    editor = set_code(lab, "scheduler.plan_tasks", 3, source)
    assert run_from(editor, lab) == "error"
    assert_lesson_kept_everything(lab, editor, source, before, "plan_tasks trả về giá trị sai", "danh sách rỗng",
                                  "plan_tasks phải trả về")
    restore(lab, "scheduler.plan_tasks", 3)
    source = "def sample(logits, params, rng, vocab):\n    return vocab, {}\n"
    editor = set_code(lab, "sampler.sample", 8, source)
    assert run_from(editor, lab) == "error"
    error = editor.locator('[data-error-for="patch:sampler.sample"]')
    expect(error).to_contain_text("token 22 nằm ngoài từ vựng (0..21)")
    assert panels(lab) == before and editor_text(editor) == source
    restore(lab, "sampler.sample", 8)


LOOP = "def plan_tasks(running, budget_cap):\n    while True:\n        pass\n"
# The same loop, after the edited function says it is running through the worker's own progress hook (as the
# engine does: the status line then shows "bước 4242"), so a test presses Stop once Python is inside the loop,
# not while the lab is still setting the run up (a Stop there is answered without a line of the edit). The hook
# is the `progress` the worker handed web.run: found up the call stack, in web._run's frame.
ANNOUNCE = ('    import sys\n    f = sys._getframe()\n'
            '    while not {"progress", "stop_seen"} <= f.f_locals.keys(): f = f.f_back\n'
            '    f.f_locals["progress"]("chunked", 4242, 0, 1)\n')


ANNOUNCED = ANNOUNCE.count("\n")   # the lines it adds before the loop


def announced(source: str) -> str:
    head, body = source.split("\n", 1)
    return head + "\n" + ANNOUNCE + body


def run_until_inside(editor, lab):
    """Run the edit and wait until its function has said it is running (its step 4242 in the status line)."""
    editor.locator('[data-action="run-code"]').click()
    expect(lab.page.locator("#status-detail")).to_contain_text("4242", timeout=RUN_MS)


def workers(lab) -> tuple[int, int]:
    """(Web Workers the page started, workers it ended): a reboot of Python adds one to each."""
    return len(lab.page.evaluate("window.__lab.workers")), lab.page.evaluate("window.__lab.terminated")


def restart_note(lab) -> str:
    """What the page said beside the buttons (why Python was started again, when it was)."""
    return lab.page.locator("#action-note").inner_text()


def test_endless_loop_stop_button_interrupts_without_a_reboot_and_keeps_everything(lab):
    """The session's server is cross-origin isolated (COOP/COEP, as build.py serve): Stop raises
    KeyboardInterrupt through Pyodide's interrupt buffer; the same worker stays, ready at once."""
    assert lab.page.evaluate("crossOriginIsolated") is True
    lab.set_value("QUEUE_LIMIT", 2)
    before, started = panels(lab), workers(lab)
    start = inspect.getsourcelines(original("scheduler.plan_tasks"))[1]
    editor = set_code(lab, "scheduler.plan_tasks", 3, announced(LOOP))
    run_until_inside(editor, lab)
    editor.locator('[data-action="stop-code"]').click()
    lab.wait_status("ready", RUN_MS)
    assert workers(lab) == started, restart_note(lab)                       # no reboot: the same Python
    assert_lesson_kept_everything(lab, editor, announced(LOOP), before, "Đã dừng (nút Dừng) khi đang chạy mã đã sửa",
                                  re.compile(rf"dòng ({start + 1 + ANNOUNCED}|{start + 2 + ANNOUNCED}), "
                                             r"trong plan_tasks"))
    expect(lab.page.locator("#action-note")).to_contain_text("không phải khởi động lại")
    expect(lab.control("QUEUE_LIMIT")).to_have_value("2")           # the constants stay
    lab.set_value("QUEUE_LIMIT", 1)


def test_endless_loop_watchdog_interrupts_without_a_reboot_and_keeps_the_edit(lab):
    before, started = panels(lab), workers(lab)
    editor = set_code(lab, "scheduler.plan_tasks", 3, LOOP)
    editor.locator('[data-action="run-code"]').click()
    expect(lab.status).to_have_attribute("data-status", "running")
    lab.wait_status("ready", RUN_MS)      # the watchdog fired (8 s of the run; a cap, not a wait)
    assert workers(lab) == started, restart_note(lab)
    assert_lesson_kept_everything(lab, editor, LOOP, before, "quá 8 giây", "vòng lặp")


SWALLOWS = ("def plan_tasks(running, budget_cap):\n    while True:\n        try:\n            while True:\n"
            "                pass\n        except:\n            pass\n")


def test_a_bare_except_that_swallows_the_interrupt_falls_back_to_a_restart(lab):
    before, (started, ended) = panels(lab), workers(lab)
    editor = set_code(lab, "scheduler.plan_tasks", 3, announced(SWALLOWS))
    run_until_inside(editor, lab)
    editor.locator('[data-action="stop-code"]').click()
    lab.wait_status("loading", RUN_MS)    # about 1 s later (a cap, not a wait)
    lab.wait_status("ready", READY_MS)
    assert workers(lab) == (started + 1, ended + 1)
    expect(lab.page.locator("#action-note")).to_contain_text("except")
    assert_lesson_kept_everything(lab, editor, announced(SWALLOWS), before, "Đã dừng lần chạy với mã đã sửa")
    editor = restore(lab, "scheduler.plan_tasks", 3)
    assert run_from(editor, lab) == "done"
    assert changed_blocks(lab, expected_text()) == []


LAZY = """    import sys
    finders = [f for f in sys.meta_path if type(f).__name__ == "LazyStdlib"]
    print("before", "colorsys" in sys.modules)
    import colorsys
    assert colorsys.rgb_to_hsv(1.0, 0.0, 0.0) == (0.0, 1.0, 1.0)
    print("after", [f.fetched for f in finders])
"""


def test_a_module_outside_the_pruned_standard_library_is_fetched_when_imported(lab):
    """sitebuild/stdlib.py: the page loads a pruned standard library; `import colorsys` in an edit makes the
    lazy finder (sitebuild/lazy_stdlib.py) fetch the official zip, and the run goes on. (`import colorsys`: once the
    page is idle it loads micropip, whose imports may already have fetched the zip, so "fetched" is read after.)"""
    source = inspect.getsource(original("scheduler.plan_tasks"))
    head, body = source.split("\n", 1)
    editor = set_code(lab, "scheduler.plan_tasks", 3, head + "\n" + LAZY + body)
    assert run_from(editor, lab) == "done"
    assert changed_blocks(lab, expected_text()) == []                   # the same plan, with a Fraction on the way
    printed = editor.locator(".code-printed-text").inner_text().splitlines()
    # the standard library's lazy finder: colorsys was not there before; the zip it comes from is fetched
    assert printed[:2] == ["before False", "after [True]"]
    restore(lab, "scheduler.plan_tasks", 3)


def test_exercise_button_loads_its_patch_and_keeps_the_students_edit(lab):
    from inference_lab.entrypoints.exercises import load_all
    ex = next(e for e in load_all() if e.patch.keys() == {"scheduler.plan_tasks"})
    set_code(lab, "sampler.sample", 8, GREEDY)                      # the student's own edit
    lab.page.locator(f'article.exercise[data-exercise="{ex.number}"] [data-exercise-action="run"]').click()
    lab.wait_status("done", RUN_MS)
    text = "\n".join(line for lines in lab.panels_lines().values() for line in lines)
    assert [s for s in ex.expect if s not in text] == []            # exactly the exercise's patch ran
    assert editor_text(open_editor(lab, "scheduler.plan_tasks", 3)) == ex.patch["scheduler.plan_tasks"]
    assert editor_text(open_editor(lab, "sampler.sample", 8)) == inspect.getsource(original("sampler.sample"))
    unstash = lab.page.locator('[data-action="unstash-code"]')
    expect(unstash).to_be_visible()
    unstash.click()
    expect(unstash).to_be_hidden()
    assert editor_text(open_editor(lab, "sampler.sample", 8)) == GREEDY
    assert editor_text(open_editor(lab, "scheduler.plan_tasks",
                                   3)) == inspect.getsource(original("scheduler.plan_tasks"))
    restore(lab, "sampler.sample", 8)


def test_no_page_error_and_no_csp_violation(lab):
    assert lab.page_errors == []
    assert not [e for e in lab.console_errors if "Content Security Policy" in e or "Refused" in e], lab.console_errors
    assert lab.foreign == []

