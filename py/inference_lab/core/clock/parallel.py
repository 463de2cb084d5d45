"""Tensor parallelism: one model split across TENSOR_PARALLEL GPUs, and what the split costs in communication.

Megatron-style tensor parallelism (Shoeybi et al., "Megatron-LM: Training Multi-Billion Parameter Language
Models Using Model Parallelism", 2019, section 3) splits each attention block by heads and each MLP by its
intermediate columns: the first GEMM of each is column-parallel, the second row-parallel, so every GPU holds
1/tp of the weights and computes 1/tp of the FLOPs, and each block ends with ONE all-reduce of the hidden
states: two all-reduces per layer in the forward pass. vLLM does the same (`ColumnParallelLinear`,
`RowParallelLinear`, `tensor_model_parallel_all_reduce`; its LM head is vocab-parallel).

KV heads are split too: each GPU keeps K/V for `max(1, kv_heads // tp)` heads; when tp > kv_heads a KV head is
REPLICATED on several GPUs (vLLM's `QKVParallelLinear`: `num_kv_head_replicas = tp / total_num_kv_heads`), so a
GQA model with 8 KV heads on TP 16 would not halve its per-GPU KV again. Query heads must divide by tp (vLLM
refuses otherwise: "Total number of attention heads must be divisible by tensor parallel size").

Ring all-reduce (NCCL's ring algorithm; Patarasuk & Yuan 2009): a reduce-scatter then an all-gather, 2(tp − 1)
steps, each sending 1/tp of the message to the ring neighbour over the link:

    all-reduce time = 2(tp − 1)/tp × message bytes ÷ link bandwidth  +  2(tp − 1) × link latency
    message         = tokens in the step × d_model × 2 bytes        (hidden states stay 16-bit between layers,
                                                                     also under W8A8: FP8 lives inside the GEMMs)
    communication   = 2 × layers × all-reduce time                  per step, added after max(compute, memory)

Link bandwidth (one direction) and per-step latency are the GPU's (hardware.LINKS: NVLink 4 450 GB/s on H100,
PCIe 4 32 GB/s on L4 and RTX 4090; NCCL's tuning model's 1.9 / 2.5 µs per ring step).

Worked example: Llama-3.1-8B (32 layers, d_model 4096) on 2 × H100 decoding one token:
message = 1 × 4096 × 2 = 8,192 bytes; one all-reduce = 2·1/2 · 8192 ÷ 450e9 + 2·1 · 1.9 µs = 0.018 + 3.8 =
3.818 µs; 64 of them = 244.4 µs per step. At batch 256 the message is 2 MiB: 4.66 + 3.8 = 8.46 µs each,
541.5 µs per step. Small decode messages pay the latency, not the bandwidth.

    >>> from inference_lab.core.clock.hardware import GPUS, MODELS
    >>> h100, m = GPUS["H100-SXM5-80GB"], MODELS["Llama-3.1-8B"]
    >>> message_bytes(m, 1), round(allreduce_seconds(8192, 2, h100) * 1e6, 3)
    (8192, 3.818)
    >>> round(communication_seconds(m, 1, 2, h100) * 1e6, 1), round(communication_seconds(m, 256, 2, h100) * 1e6, 1)
    (244.4, 541.5)
    >>> communication_seconds(m, 256, 1, h100)
    0.0

Leaves out: pipeline and expert parallelism, overlap of communication with compute (vLLM and TensorRT-LLM
overlap little in decode), NCCL's tree and NVLS (NVSwitch multicast) algorithms and its per-call base latency,
custom one-shot all-reduce kernels (vLLM's `custom_all_reduce` beats NCCL on small messages), the all-gather of
the vocab-parallel logits, and multi-node groups (TP stays inside one server).
"""
from __future__ import annotations

from .hardware import GPU, Shape

TP_CHOICES = (1, 2, 4, 8)
HIDDEN_BYTES = 2                 # bf16 hidden states all-reduced between layers (see the module's docstring)


def kv_heads_per_gpu(shape: Shape, tp: int) -> int:
    """KV heads each GPU stores: kv_heads split across tp GPUs, replicated when tp > kv_heads (vLLM).

    >>> from inference_lab.core.clock.hardware import MODELS
    >>> [kv_heads_per_gpu(MODELS["Llama-3.1-70B"], tp) for tp in (1, 2, 4, 8)]
    [8, 4, 2, 1]
    """
    return shape.kv_heads_per_gpu(tp)


def message_bytes(shape: Shape, tokens: int) -> int:
    """Bytes one all-reduce sums: the step's hidden states, tokens × d_model at 16 bits."""
    return tokens * shape.d_model * HIDDEN_BYTES


def allreduce_seconds(message: float, tp: int, gpu: GPU) -> float:
    """One ring all-reduce of `message` bytes over tp GPUs on the GPU's link (0 on one GPU)."""
    if tp <= 1:
        return 0.0
    steps = 2 * (tp - 1)
    return steps / tp * message / gpu.link + steps * gpu.link_latency


def communication_seconds(shape: Shape, tokens: int, tp: int, gpu: GPU) -> float:
    """Two all-reduces per layer (Megatron: after attention, after the MLP) for a step of `tokens` tokens."""
    if tp <= 1 or tokens <= 0:
        return 0.0
    return 2 * shape.layers * allreduce_seconds(message_bytes(shape, tokens), tp, gpu)


def heads_split(shape: Shape, tp: int) -> bool:
    """True when the query heads divide evenly by tp and KV heads either divide by tp or tp by them (vLLM)."""
    kv = shape.kv_heads
    return shape.heads % tp == 0 and (kv % tp == 0 or tp % kv == 0)
