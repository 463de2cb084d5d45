"""What the CLI tests share: overrides -> the equivalent `python -m inference_lab` flags, the 13 block headers
a complete run prints, and running the CLI in this process (run_cli) or in a new interpreter (run_module).
Leaves out: the configurations (tests/golden_cases.py) and the goldens' generation (tests/make_golden.py)."""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BLOCK_HEADERS = [
    "[1 · Gateway & admission]", "[2 · Input preparation]", "[3 · Iteration scheduler]", "[4 · Prefill]",
    "[5 · Transformer × N layers]", "[6 · KV state manager]", "[7 · Decode]", "[8 · Logits → sampling → stop check]",
    "[9 · KV / weight precision]", "[10 · HBM memory budget]", "[11 · Telemetry & capacity feedback]",
    "[12 · Benchmark & SLO methodology]", "[13 · Quality gates & rollout]",
]


def missing_parts(stdout: str) -> list[str]:
    """Which of the 13 block headers and the TỔNG KẾT line a run's output lacks."""
    lines = stdout.splitlines()
    missing = [h for h in BLOCK_HEADERS if not any(line.startswith(h) for line in lines)]
    return missing + ([] if any(line.startswith("TỔNG KẾT") for line in lines) else ["TỔNG KẾT"])


def flag_name(constant: str) -> str:
    return "--" + constant.lower().replace("_", "-")


def cli_args(overrides: dict, workdir: Path) -> list[str]:
    """Flags for `python -m inference_lab` equivalent to the seed overrides (REQUESTS -> a JSON file in workdir)."""
    args: list[str] = []
    for name, value in overrides.items():
        if name == "REQUESTS":
            path = Path(workdir) / "requests.json"
            path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
            args += ["--requests", str(path)]
        else:
            args += [flag_name(name), value if isinstance(value, str) else repr(value)]
    return args


def run_cli(args: list[str]) -> subprocess.CompletedProcess:
    """`python -m inference_lab ARGS` run in this process through cli.main: exit status, stdout and stderr
    as text (no interpreter start-up, and the engine's caches stay warm between tests)."""
    from inference_lab.entrypoints import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # argparse's --help
            code = exc.code or 0
    return subprocess.CompletedProcess(["python", "-m", "inference_lab", *args], code, out.getvalue(), err.getvalue())


def run_module(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """The same in a new interpreter, `python -m inference_lab ARGS`: for the few smoke tests of the real entry
    point."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "inference_lab", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout)
