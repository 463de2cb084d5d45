"""Patching engine functions (py/inference_lab/entrypoints/patch.py): `python -m inference_lab --patch MODULE=FILE.py`
and web.run(config, patches).

- An identical patch (the engine's own source) prints the seed's bytes; the originals are back after a run.
- Rewriting plan_tasks / sample changes exactly the blocks it should.
- Every student mistake is a Vietnamese lesson and exit 2 (never 3, never an engine traceback): syntax error
  (line, column), unknown function, wrong parameters, exception (only the student's lines, with the file's
  line numbers), wrong return value (named function, what it must return), an endless loop stopped by --timeout.
"""
from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from inference_lab.entrypoints import cli, lab, patch, web
from inference_lab.core.serving import engine, scheduler
from inference_lab.layout import path
from inference_lab.words import patch_vi
from inference_lab.entrypoints.lab import run
from edits import GREEDY, PREFILL_FIRST
from seed_program import GOLDEN

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "py" / "inference_lab"

def cli_run(capsys, tmp_path, *patches: tuple[str, str], extra=()) -> tuple[int, str, str]:
    """cli.main in-process with --patch MODULE=<file holding source>; (exit code, stdout, stderr)."""
    argv = list(extra)
    for i, (module, source) in enumerate(patches):
        path = tmp_path / f"patch{i}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        argv += ["--patch", f"{module}={path}"]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_lesson(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2, f"exit {code}, want 2; stderr: {err[-2000:]}"
    assert out == "", "nothing may be printed on stdout when a patch fails"
    assert "Traceback" not in err and "lỗi nội bộ" not in err, err
    assert "inference_lab/" not in err and "engine.py" not in err, f"an engine frame leaked: {err}"
    for needle in needles:
        assert needle in err, f"{needle!r} not in stderr: {err}"


def originals() -> dict:
    """Every (module name, attribute) of the package that holds a patchable function, and that function."""
    out = {}
    for module in patch.package_modules():
        for attr, value in vars(module).items():
            if callable(value) and getattr(value, "__module__", "").startswith("inference_lab."):
                out[(module.__name__, attr)] = value
    return out


# ── identical patches give the seed's bytes; originals come back ───────────
def test_identical_patch_of_every_module_prints_the_golden_bytes(capsys, tmp_path):
    patches = [(m, (PACKAGE.parent / path(m)).read_text(encoding="utf-8")) for m in patch.MODULES]
    code, out, err = cli_run(capsys, tmp_path, *patches)
    assert code == 0, err
    assert out == GOLDEN.read_text(encoding="utf-8")
    assert "scheduler.plan_tasks" in err and "sampler.sample" in err      # the note says what ran edited


def test_identical_function_through_web_run_gives_the_same_report():
    fn = scheduler.plan_tasks
    source, first = inspect.getsourcelines(fn)
    units = [dict(module="scheduler", source="".join(source), first_line=first, key="scheduler.plan_tasks")]
    patched, plain = json.loads(web.run("{}", json.dumps(units))), json.loads(web.run("{}"))
    assert patched["ok"] and patched["patched"] == ["scheduler.plan_tasks"]
    assert patched["report"] == plain["report"] and patched["trace"] == plain["trace"]


def test_every_binding_is_replaced_inside_and_restored_after():
    before = originals()
    with patch.patched([patch.Unit("scheduler", PREFILL_FIRST, "p.py")]):
        assert engine.plan_tasks is scheduler.plan_tasks is not before[("inference_lab.core.serving.scheduler",
                                                                        "plan_tasks")]
        assert not [k for k, v in originals().items() if v is before[("inference_lab.core.serving.scheduler",
                                                                      "plan_tasks")]]
        # the scheduler feeds no cache
        assert lab.quantized_for is before[("inference_lab.entrypoints.lab", "quantized_for")]
    assert originals() == before
    assert run().to_text() == GOLDEN.read_text(encoding="utf-8")


def test_a_failed_patch_restores_everything_too(capsys, tmp_path):
    before, cache = originals(), lab.quantized_for.cache_info().currsize
    code, out, err = cli_run(capsys, tmp_path, ("sampler", GREEDY),
                             ("scheduler", "def plan_tasks(r, b):\n    return 1/0\n"))
    assert_lesson(code, out, err, "ZeroDivisionError")
    assert originals() == before and lab.quantized_for.cache_info().currsize == cache


def test_patched_quantizer_does_not_touch_the_default_caches():
    cached_fn, cached = lab.quantized_for, lab.quantized_for(7, 10, 8)
    no_rounding = ("def quantize_weights(W, bits, names=LINEAR):\n    Wq, info = _orig(W, bits, names)\n    return "
                   "dict(W), info\n")
    no_rounding += "from inference_lab.core.model.quantization import quantize_weights as _orig\n"
    with patch.patched([patch.Unit("quantization", no_rounding, "q.py")]):
        assert lab.quantized_for is not cached_fn and lab.quantized_for.cache_info().currsize == 0   # fresh caches
        report = run()
    assert all(row["max_err"] == 0.0 for row in report.blocks[12].data["rows"])   # [13]: nothing was rounded
    assert lab.quantized_for(7, 10, 8) is cached
    assert run().to_text() == GOLDEN.read_text(encoding="utf-8")


# ── edits change the right blocks ──────────────────────────────────────────
def changed_blocks(units) -> list[int]:
    base, edited = run(), patch.run(units, run, None)[0]
    return [b.number for b, e in zip(base.blocks, edited.blocks) if b.lines != e.lines]


def test_prefill_first_plan_changes_scheduling_blocks_only():
    assert changed_blocks([patch.Unit("scheduler", PREFILL_FIRST, "p.py")]) == [3, 4, 6, 8, 11, 12]
    report = patch.run([patch.Unit("scheduler", PREFILL_FIRST, "p.py")], run, None)[0]
    text = report.to_text()
    assert "bước  2: 3.40 ms -> 6.30 ms | chờ=1 chạy=2 | B:p:6" in text
    assert "TTFT = 19.20 ms - 1.00 ms = 18.20 ms" in text
    assert report.passed


def test_step_narration_says_the_edited_order(capsys, tmp_path):
    """--steps with prompt chunks first: the budget is told in the order plan_tasks returned (by hand:
    step 2, B's 6 prompt tokens take the whole budget of 6 and A, ready to decode, gets nothing)."""
    code, out, _ = cli_run(capsys, tmp_path, ("scheduler", PREFILL_FIRST), extra=["--steps"])
    assert code == 0
    assert ("Ngân sách 6 token: theo thứ tự mà plan_tasks đã sửa trả về (không phải decode trước): B prompt 6; "
            "A không được decode ở bước này -> dùng 6/6, còn 0.") in out
    assert "(theo thứ tự mà plan_tasks đã sửa trả về)." in out and "decode đi trước" not in out
    code, out, _ = cli_run(capsys, tmp_path, ("scheduler", PREFILL_FIRST), extra=["--steps", "--lang", "en"])
    assert "(not decodes first): B prompt 5, A decode 1 -> used 6/6, 0 left." in out
    assert "no decode this step for A" in out


def test_greedy_sampler_changes_token_blocks_and_leaves_the_others():
    assert changed_blocks([patch.Unit("sampler", GREEDY, "g.py")]) == [3, 4, 6, 7, 8, 10, 11, 12]
    report = patch.run([patch.Unit("sampler", GREEDY, "g.py")], run, None)[0]
    assert "Lọc top-k/top-p giữ 1 token, tái chuẩn hóa tổng về 1: d=1.000" in report.to_text()


ONE_AT_A_TIME = '''
def admission_room(policy, slots, running, waiting, ready, pending):
    return 1 if not running else 0
'''


def test_admission_room_edit_reaches_admission_check_and_the_step_narration():
    """scheduler.admission_check calls admission_room through the module: the edit decides the room, and
    the step narration names it as the reason requests wait while a slot is free."""
    report = patch.run([patch.Unit("scheduler", ONE_AT_A_TIME, "a.py")], run, None)[0]
    assert "bước  2: 3.40 ms -> 4.50 ms | chờ=2 chạy=1 | A:d:1" in report.to_text()
    assert ("Hàng đợi (theo thứ tự): B, C.\nChờ vì admission_room (mã đã sửa) cho 0 chỗ dù còn chỗ trống: B, C."
            in report.steps_text())
    assert scheduler.admission_check("continuous", 2, [], [], [], []) == (2, "free_slot")   # the original is back
    assert "admission_room (mã đã sửa)" not in run().steps_text()


def test_cli_patch_changes_stdout(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", PREFILL_FIRST))
    assert code == 0 and "TTFT = 19.20 ms - 1.00 ms = 18.20 ms" in out
    assert "lưu ý: lần chạy này dùng mã đã sửa: scheduler.plan_tasks." in err


def test_editable_functions_exist_and_have_contracts():
    for names in patch.EDITABLE.values():
        for qualname in names:
            module, name = qualname.split(".")
            assert name in patch.functions_of(patch.module_of(module)), qualname
            assert qualname in patch.CONTRACTS and f"returns.{qualname}" in patch_vi.SAY, qualname


@pytest.mark.parametrize("qualname", sorted(patch.CONTRACTS))
def test_contract_parameters_are_the_originals(qualname):
    module, name = qualname.split(".")
    original = list(inspect.signature(getattr(patch.module_of(module), name)).parameters)
    contract = list(inspect.signature(patch.CONTRACTS[qualname]).parameters)
    assert contract == ["result", *original]


# ── student mistakes are lessons ───────────────────────────────────────────
def test_syntax_error_gives_line_and_column_and_runs_nothing(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", "def plan_tasks(running, budget_cap)\n    return []\n"))
    assert_lesson(code, out, err, "lỗi cú pháp ở dòng 1, cột 36", "def plan_tasks(running, budget_cap)")


def test_syntax_errors_in_two_patches_are_both_named(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", "def plan_tasks(:\n"), ("sampler", "x = = 1\n"))
    assert_lesson(code, out, err, "patch0.py: lỗi cú pháp ở dòng 1", "patch1.py: lỗi cú pháp ở dòng 1")


def test_exception_shows_only_the_students_lines(capsys, tmp_path):
    source = """\
    def plan_tasks(running, budget_cap):
        return _helper(running)


    def _helper(running):
        return running[99]
    """
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", source))
    assert_lesson(code, out, err, "lỗi khi chạy mã của bạn", "dòng 2, trong plan_tasks", "return _helper(running)",
                  "dòng 6, trong _helper", "return running[99]", "IndexError: list index out of range")


def test_exception_at_the_top_of_the_file(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("sampler", "import no_such_module_here\n"))
    assert_lesson(code, out, err, "dòng 1, trong mức ngoài cùng của tệp", "ModuleNotFoundError")


def test_first_line_shifts_the_line_numbers():
    bad = json.loads(web.run("{}",
                             [dict(module="scheduler", source="def plan_tasks(running, budget_cap):\n    return 1/0\n",
                                         first_line=37, key="scheduler.plan_tasks")]))
    assert not bad["ok"]
    [error] = bad["errors"]
    assert error["field"] == "patch:scheduler.plan_tasks" and error["kind"] == "exception"
    assert error["line"] == 38 and error["function"] == "plan_tasks"
    assert "dòng 38, trong plan_tasks" in error["message"] and "ZeroDivisionError" in error["message"]


BAD_RETURNS = [
    ("scheduler",
     "def plan_tasks(running, budget_cap):\n    return [('prefill', r, r.num_prefill_left) for r in running"
                  " if r.num_prefill_left] or [('decode', r, 1) for r in running]\n",
     ["plan_tasks trả về giá trị sai", "vượt ngân sách budget_cap = 6", "plan_tasks phải trả về"]),
    ("scheduler", "def plan_tasks(running, budget_cap):\n    return []\n",
     ["danh sách rỗng", "plan_tasks phải trả về"]),
    ("scheduler", "def plan_tasks(running, budget_cap):\n    return [('decode', r, 1) for r in running]\n",
     ["decode chỉ dành cho chuỗi đã prefill xong"]),
    ("scheduler", "def admission_room(policy, slots, running, waiting, ready, pending):\n    return -1\n",
     ["admission_room trả về giá trị sai", "số âm", "admission_room phải trả về số nguyên ≥ 0"]),
    ("scheduler", "def admission_room(policy, slots, running, waiting, ready, pending):\n    return 0\n",
     ["engine sẽ chờ mãi"]),
    ("scheduler", "def choose_victim(running, seq):\n    return None\n",
     ["choose_victim trả về giá trị sai", "không phải một chuỗi đang chạy", "choose_victim phải trả về"]),
    ("engine", "def gateway_admits(num_in_system, slots, queue_limit):\n    return 1\n",
     ["gateway_admits trả về giá trị sai", "True (cho yêu cầu vào) hoặc False"]),
    ("sampler", "def sample(logits, params, rng, vocab):\n    return vocab, {}\n",
     ["sample trả về giá trị sai", "token 22 nằm ngoài từ vựng (0..21)", "sample phải trả về cặp (token, info)"]),
    ("sampler", "def top_k_top_p(probs, top_k, top_p):\n    return probs[:3]\n",
     ["top_k_top_p trả về giá trị sai", "shape (22,)", "tổng 1"]),
    ("sampler", "def top_k_top_p(probs, top_k, top_p):\n    return probs * 2\n", ["tổng 2"]),
    ("quantization", "def quantize_weights(W, bits, names=LINEAR):\n    return W\n",
     ["quantize_weights trả về giá trị sai", "cặp (Wq, info)"]),
    ("model", "def attention(Qr, K, V, start):\n    return Qr, K\n",
     ["attention trả về giá trị sai", "ctx phải có shape"]),
]


@pytest.mark.parametrize("module,source,needles", BAD_RETURNS,
                         ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(BAD_RETURNS)])
def test_bad_return_value_names_the_function_and_its_contract(capsys, tmp_path, module, source, needles):
    extra = ["--slots", "3", "--pool-blocks", "8"] if "choose_victim" in source else []   # a run that preempts
    code, out, err = cli_run(capsys, tmp_path, (module, source), extra=extra)
    assert_lesson(code, out, err, *needles)


def test_unknown_function_name(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", "def plan_task(running, budget_cap):\n    return []\n"))
    assert_lesson(code, out, err, "không có hàm plan_task", "plan_tasks", "_plan_task")


def test_wrong_parameters(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", "def plan_tasks(running):\n    return []\n"))
    assert_lesson(code, out, err, "phải nhận các tham số như bản gốc: plan_tasks(running, budget_cap)")


def test_file_without_functions(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("sampler", "x = 1\n"))
    assert_lesson(code, out, err, "không định nghĩa hàm nào của sampler")


def test_engine_failure_outside_the_students_lines(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("metrics", "def summarize(done):\n    return {}\n"))
    assert_lesson(code, out, err, "Engine dừng vì lỗi khi chạy với mã đã sửa", "KeyError")


@pytest.mark.parametrize("argv,needle", [
    (["--patch", "router=x.py"], "không có mô-đun 'router'"),
    (["--patch", "scheduler"], "viết MODULE=FILE.py"),
    (["--patch", "scheduler=/no/such/file.py"], "không đọc được tệp"),
    (["--timeout", "3"], "--timeout: chỉ dùng cùng --patch"),
    (["--patch", "scheduler=x.py", "--timeout", "-1"], "--timeout: phải là một số giây > 0"),
])
def test_bad_patch_flags(capsys, argv, needle):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and needle in err and "Traceback" not in err, err


def test_endless_loop_is_stopped_by_timeout(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text("def plan_tasks(running, budget_cap):\n    while True:\n        pass\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8")   # a new interpreter: the
    proc = subprocess.run([sys.executable, "-m", "inference_lab", "--patch", f"scheduler={path}",   # timer stops
                           "--timeout", "1"], cwd=ROOT, env=env, capture_output=True, text=True,    # its main thread
                          encoding="utf-8", timeout=120)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "Đã dừng (--timeout 1 giây)" in proc.stderr and "loop.py, dòng " in proc.stderr
    assert "Traceback" not in proc.stderr


def test_exercise_patch_runs_from_the_cli(capsys):
    numbers = [e.number for e in __import__("inference_lab.entrypoints.exercises", fromlist=["load_all"]).load_all()
               if e.patch and not any(x.startswith("FAIL:") for x in e.expect)]   # 11's patch fails a check: exit 1
    assert numbers
    code = cli.main(["--exercise", str(numbers[0])])
    out, err = capsys.readouterr()
    assert code == 0 and "lưu ý: lần chạy này dùng mã đã sửa" in err


def test_web_run_reports_config_errors_before_patch_errors():
    bad = json.loads(web.run('{"SLOTS": 0}', {"scheduler": "def plan_tasks(:"}))
    assert [e["field"] for e in bad["errors"]] == ["SLOTS"]
    bad = json.loads(web.run("{}", "not json"))
    assert bad["errors"][0]["field"] == "patch"


def test_readme_example_is_exercise_11s_patch():
    import re
    from inference_lab.entrypoints.exercises import load_all
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```python\n# plan.py\n(.*?)```", readme, re.S).group(1)
    exercise = next(e for e in load_all() if e.patch.keys() == {"scheduler.plan_tasks"})
    assert example.strip() == "\n".join(line for line in exercise.patch["scheduler.plan_tasks"].strip().splitlines()
                                        if '"""' not in line)


def test_modules_left_unscanned_bind_no_engine_function():
    import inference_lab.entrypoints.cli
    import inference_lab.entrypoints.exercises
    engine_functions = {id(f) for m in patch.MODULES for f in patch.functions_of(patch.module_of(m)).values()}
    for module in (inference_lab.entrypoints.cli, inference_lab.entrypoints.exercises):
        assert patch.NOT_SCANNED[1:] == ("cli", "exercises")
        assert not [n for n, v in vars(module).items() if id(v) in engine_functions], module.__name__


def test_exit_in_student_code_is_a_lesson(capsys, tmp_path):
    code, out, err = cli_run(capsys, tmp_path, ("scheduler", "def plan_tasks(running, budget_cap):\n    exit(5)\n"))
    assert_lesson(code, out, err, "dòng 2, trong plan_tasks", "SystemExit: 5")


def test_prints_go_to_stderr_on_the_cli_and_back_to_the_page(capsys, tmp_path):
    source = "def gateway_admits(num_in_system, slots, queue_limit):\n    print('xét', num_in_system)\n" \
             "    return num_in_system < slots + queue_limit\n"
    code, out, err = cli_run(capsys, tmp_path, ("engine", source))
    assert code == 0 and out == GOLDEN.read_text(encoding="utf-8") and "xét 0\n" in err
    answer = json.loads(web.run("{}", {"engine": source}))
    assert answer["ok"] and answer["printed"].startswith("xét 0\nxét 1\n")


def test_an_editor_must_define_its_function():
    answer = json.loads(web.run("{}",
                                [dict(module="sampler",
                                      source="def top_k_top_p(probs, top_k, top_p):\n    return probs\n",
                                            key="sampler.sample", function="sample", first_line=48)]))
    assert [(e["field"], e["kind"]) for e in answer["errors"]] == [("patch:sampler.sample", "name")]
    assert "phải định nghĩa hàm sample" in answer["errors"][0]["message"]
