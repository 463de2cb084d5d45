"""Engine profiles: how close each serving engine comes to the GPU's roofs, per precision (ENGINE_PROFILE).

A profile gives, for each precision class of the run (`precision(WEIGHT_BITS, ACT_BITS)`), the share of the
dense peak FLOP/s its GEMMs reach (FLOPS_FRACTION, the MFU of prefill) and the share of HBM bandwidth its
decode reaches (BANDWIDTH_FRACTION, the MBU), plus the fixed CPU time of a step (STEP_OVERHEAD, µs). An
explicit FLOPS_FRACTION, BANDWIDTH_FRACTION or STEP_OVERHEAD wins over the profile (config.py resolves
"auto" here). calibration.py checks every profile against published measurements of its engine.

    >>> precision(16, 16), precision(8, 16), precision(4, 16), precision(8, 8)
    ('bf16', 'weight-only', 'weight-only', 'w8a8')
    >>> PROFILES["vllm"].figures(16, 16)          # the lab's earlier defaults: seed-clock runs print the same
    (0.6, 0.8, 100)
    >>> PROFILES["gpt-fast"].figures(16, 16), PROFILES["ideal"].figures(8, 8)
    ((0.6, 0.69, 0), (1.0, 1.0, 0))

Where each figure comes from (the measurement, and what it gives):
- gpt-fast (pytorch-labs/gpt-fast README, "Benchmarks": A100-80GB power-limited to 330 W, batch 1): its
  "Memory Bandwidth" column is bytes of weights × tokens/s, so it IS the achieved bandwidth: Llama-3.1-8B
  bf16 1,410.76 GB/s of 2,039 = 0.69; int8 weight-only 1,030.89 (8B, 0.51) and 1,253.78 (70B, 0.61): 0.55
  for weight-only. torch.compile with CUDA graphs: no step overhead beyond that (the column counts all time).
- llama.cpp (XiongjieDai/GPU-Benchmarks-on-LLM-Inference, llama-bench on an RTX 4090, Llama 3 8B F16,
  May 2024): tg512 54.84 tok/s × 15.0 GB = 0.82 of 1,008 GB/s; pp512 9,382 tok/s × 14.1 GFLOP = 0.80 and
  pp4096 6,531 tok/s × 15.0 GFLOP = 0.59 of 165.2 TFLOP/s (attention grows with context): 0.7.
- tensorrt-llm (TensorRT-LLM docs/source/performance/perf-overview.md, v1.0, trtllm-bench offline
  throughput, Llama 3.1 8B / 3.3 70B FP8 on H100 and H200): the FP8 compute share that reproduces its
  compute-bound 128/128 and 2048/128 points: 0.5 (real FP8 reaches 40-55 % of its peak end to end).
- vllm (the default): at 16 bits the lab's earlier assumed figures (roofline.py: MFU 0.6, MBU 0.8,
  100 µs per step: Databricks' "LLM Inference Performance Engineering: Best Practices", 2023), kept so that
  runs print what they printed; weight-only decode at gpt-fast's measured 0.55 of bandwidth; W8A8 at
  TensorRT-LLM's measured 0.5 of the FP8 peak less a tenth (0.45: vLLM's FP8 GEMMs are the same CUTLASS
  kernels, its scheduling is Python).
- ideal: the datasheet roofs (1.0, 1.0) and no overhead: the physical floor.

Leaves out: profiles per GPU (one share per engine and precision on every GPU: llama.cpp reaches 0.82 of an
RTX 4090's bandwidth but about 0.42 of an A100's in the same table, see calibration.py), batch-size
dependence of the shares, and attention kernels' own efficiency.
"""
from __future__ import annotations

from dataclasses import dataclass


def precision(weight_bits: int, act_bits: int) -> str:
    """The precision class a profile distinguishes: "bf16", "weight-only" (fewer weight bits, 16-bit
    activations: GPTQ/AWQ/Marlin, gpt-fast's int8) or "w8a8" (8-bit activations: FP8, or int8 SmoothQuant)."""
    if act_bits == 8:
        return "w8a8"
    return "bf16" if weight_bits == 16 else "weight-only"


@dataclass(frozen=True, slots=True)
class Profile:
    """One engine: {precision class: (FLOPS_FRACTION, BANDWIDTH_FRACTION)} and STEP_OVERHEAD in µs."""
    name: str
    fractions: dict
    overhead_us: int

    def figures(self, weight_bits: int, act_bits: int) -> tuple:
        """(FLOPS_FRACTION, BANDWIDTH_FRACTION, STEP_OVERHEAD) for a run at these bits."""
        flops, bandwidth = self.fractions[precision(weight_bits, act_bits)]
        return flops, bandwidth, self.overhead_us


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("vllm", {"bf16": (0.6, 0.8), "weight-only": (0.6, 0.55), "w8a8": (0.45, 0.8)}, 100),
    Profile("ideal", {"bf16": (1.0, 1.0), "weight-only": (1.0, 1.0), "w8a8": (1.0, 1.0)}, 0),
    Profile("tensorrt-llm", {"bf16": (0.6, 0.8), "weight-only": (0.6, 0.6), "w8a8": (0.5, 0.8)}, 50),
    Profile("llama.cpp", {"bf16": (0.7, 0.82), "weight-only": (0.7, 0.7), "w8a8": (0.5, 0.7)}, 0),
    Profile("gpt-fast", {"bf16": (0.6, 0.69), "weight-only": (0.6, 0.55), "w8a8": (0.45, 0.69)}, 0),
)}
