"""Inference Lab: a miniature LLM serving pipeline in NumPy, block by block.

    >>> from inference_lab import run
    >>> report = run({"QUEUE_LIMIT": 2})
    >>> report.passed, report.block(1).code
    (True, '1 · Gateway & admission')

Block → module map (replaces the seed's "khối 1 = hàm admit …" paragraph; written from blocks.py by
`python3 build.py docs`, tests/test_blocks.py checks it):

  [1]  Gateway & admission            engine.Engine.admit / abort; engine.gateway_admits
  [2]  Input preparation              tokenizer.BPETokenizer.train / encode; engine.Engine.input_rejected
  [3]  Iteration scheduler            engine.Engine.run / iterate / run_step; scheduler.admission_check / admission_room / admission_order / plan_tasks / step_duration; engine.Engine.step_time; roofline.step_cost; run_log.RunLog
  [4]  Prefill                        engine.Engine.prefill
  [5]  Transformer × N layers         model.forward / attention
  [6]  KV state manager               block_manager.BlockManager; kv_room.KVRoom.make_room / send_back / preempt; scheduler.preemption_victim / choose_victim; block_manager.hash_block
  [7]  Decode                         engine.Engine.decode; speculative.Speculation.verify; speculative.ngram_propose; speculative.DraftModel.propose; rejection_sampler.verify / accepts
  [8]  Logits → sampling → stop check sampler.sample; engine.Engine.emit
  [9]  KV / weight precision          quantization.quantize_weights
  [10] HBM memory budget              block_data.block10_data / shadow_budget; hardware.kv_budget
  [11] Telemetry & capacity feedback  metrics.request_metrics; block_data.block11_data
  [12] Benchmark & SLO methodology    metrics.summarize; block_data.block12_data
  [13] Quality gates & rollout        quantization.greedy_teacher_forced; block_data.block13_data

Words live apart from mechanics: text_vi.py holds every printed sentence, text_en.py the English
edition of each (`run(config, lang="en")`, `python -m inference_lab --lang en`); text.py and text_steps.py
say which sentence goes where, in either language.
"""
import os

# The lab's matrices are tiny (d_model 8, 2 heads of 4): OpenBLAS's worker threads only wait for each other, and
# on a busy 2-core machine a (2, 129, 4) × (2, 4, 2176) product took 60 ms instead of 0.4 ms (a generated
# workload's long prompts, bench/workload_scale.py). One thread, unless the user set it; it must be set
# before NumPy is first imported.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .core.inputs.config import Config, ConfigError
from .words.text_schema import describe

__all__ = ["Config", "ConfigError", "Report", "describe", "run"]


def __getattr__(name):
    """`run` and `Report` load the pipeline on first use, so `import inference_lab.entrypoints.web` stays light."""
    if name == "run":
        from .entrypoints.lab import run as value
    elif name == "Report":
        from .entrypoints.report import Report as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value
__version__ = "0.1.0"
