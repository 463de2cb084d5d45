"""Named accelerators and real model shapes: the figures the roofline clock (roofline.py) charges.

`GPUS` holds each accelerator's DENSE peak FLOP/s per dtype, its HBM bandwidth and capacity, and the
datasheet every figure comes from. Datasheets print tensor-core peaks "with sparsity" (2:4 structured
sparsity, twice the dense figure, marked with an asterisk); serving dense weights never reaches them, so
only dense figures are written here. Capacity is what the device exposes, as `nvidia-smi` prints it
(Memory-Usage total, MiB) and `torch.cuda.mem_get_info()` returns it to vLLM, not the datasheet's rounded
decimal GB: an "80 GB" H100 exposes 81,559 MiB = 85.52 GB, an "80 GB" A100 81,920 MiB = 85.90 GB.

`MODELS` holds the shadow models' shapes, each with its config source (a Hugging Face `config.json`).
"lab" is the lab's own one-layer NumPy model (model.py); its vocabulary is the run's tokenizer's.

    >>> round(MODELS["Llama-3.1-8B"].params / 1e9, 2)
    8.03
    >>> round(MODELS["Llama-2-7B"].params / 1e9, 2), round(MODELS["Mistral-7B-v0.3"].params / 1e9, 2)
    (6.74, 7.25)
    >>> MODELS["Llama-3.1-8B"].kv_bytes_per_token(16)
    131072
    >>> round(GPUS["H100-SXM5-80GB"].ridge(16))
    295
    >>> GPUS["H100-SXM5-80GB"].hbm / MiB, round(GPUS["H100-SXM5-80GB"].hbm / G, 2)
    (81559.0, 85.52)

Each GPU also names the link its tensor-parallel group all-reduces over (`GPU.link`, bytes/s in ONE direction;
`GPU.link_latency`, seconds per ring step; `GPU.link_source`): parallel.py charges the communication.

    >>> GPUS["H100-SXM5-80GB"].link / G, GPUS["H100-SXM5-80GB"].link_latency * 1e6, GPUS["L4"].link / G
    (450.0, 1.9, 32.0)

Each GPU also has a list price per hour (`PRICES`: an always-on cloud rate, with the page and the date it was read)
and a board power (`POWER`: the datasheet's TDP, and the share of it an idle GPU with a loaded model still draws):
economics.py turns a run into dollars and joules with them; GPU_PRICE_PER_HOUR overrides the price.

    >>> PRICES["H100-SXM5-80GB"][0], POWER["H100-SXM5-80GB"][0], POWER["L4"][0]
    (3.348, 700.0, 72.0)

Leaves out: clocks, thermal limits and power capping (a datasheet peak assumes boost clock), NVSwitch and multi-node
topologies (one TP group inside one server), mixture-of-experts (every model here is dense: active = all
parameters), biases and norm weights below 0.01 % of the parameters.
"""
from __future__ import annotations

from dataclasses import dataclass

T, G, MiB = 1e12, 1e9, 2**20
GPU_MEMORY_UTILIZATION = 0.9       # vLLM's default share of HBM an engine may use (GPU_MEMORY_UTILIZATION, schema.py)
# Bytes of the activation workspace: vLLM measures it (the peak of a profiling forward pass over
# max_num_batched_tokens, plus memory allocated outside torch: CUDA context, NCCL, cuBLAS workspaces);
# 2 GB is assumed, the order vLLM logs for 8B models ("PyTorch activation peak memory" about 1-1.5 GiB,
# non-torch memory a few hundred MiB).
ACTIVATION_RESERVE = 2 * G


@dataclass(frozen=True, slots=True)
class GPU:
    """One accelerator: dense peaks (FLOP/s) at 16-bit (bf16) and 8-bit (fp8, or int8 where it has no fp8)."""
    name: str
    bf16: float                # dense FLOP/s, bf16 tensor cores (FP32 accumulate)
    fp8: float                 # dense FLOP/s, fp8 (int8 OPS on A100)
    bandwidth: float           # bytes/s of HBM (GDDR on consumer cards)
    hbm: float                 # bytes of memory the device exposes (nvidia-smi's total, MiB × 2**20)
    source: str

    def peak(self, act_bits: int) -> float:
        """Peak FLOP/s the GEMMs and attention run at: the ACTIVATIONS' precision decides (ACT_BITS). Weight-only
        quantization (int8/int4 weights, 16-bit activations: GPTQ, AWQ, gpt-fast's int8) dequantizes the weights
        inside the kernel and multiplies at the 16-bit peak; only W8A8 (FP8, or int8 on A100) uses the 8-bit units.

        >>> GPUS["H100-SXM5-80GB"].peak(16) / T, GPUS["H100-SXM5-80GB"].peak(8) / T
        (989.4, 1979.0)
        """
        return self.fp8 if act_bits == 8 else self.bf16

    def ridge(self, act_bits: int = 16) -> float:
        """The ridge point: FLOP per byte where compute and bandwidth take equal time."""
        return self.peak(act_bits) / self.bandwidth

    @property
    def link(self) -> float:
        """Bytes/s one GPU sends to its ring neighbour (one direction) in a tensor-parallel group (LINKS)."""
        return LINKS[self.name][0]

    @property
    def link_latency(self) -> float:
        """Seconds per step of a ring all-reduce on this link (LINKS)."""
        return LINKS[self.name][1]

    @property
    def link_source(self) -> str:
        return LINKS[self.name][2]


GPUS: dict[str, GPU] = {g.name: g for g in (
    GPU("A100-SXM4-80GB", 312 * T, 624 * T, 2039 * G, 81920 * MiB,
        "NVIDIA A100 Tensor Core GPU datasheet (2021): BF16 312 TFLOPS dense (624 with sparsity), INT8 624 TOPS dense "
        "(no FP8), HBM2e 80 GB, 2,039 GB/s (SXM); capacity as nvidia-smi reports it: 81,920 MiB"),
    GPU("H100-SXM5-80GB", 989.4 * T, 1979 * T, 3350 * G, 81559 * MiB,
        "NVIDIA H100 Tensor Core GPU datasheet (2023), SXM column: BF16 1,979 / FP8 3,958 TFLOPS are WITH sparsity, "
        "dense is half: 989.4 / 1,979 (H100 whitepaper: 989.4); HBM3 80 GB, 3.35 TB/s; capacity as nvidia-smi "
        "reports it (\"NVIDIA H100 80GB HBM3\"): 81,559 MiB"),
    GPU("H200-SXM-141GB", 989.4 * T, 1979 * T, 4800 * G, 143771 * MiB,
        "NVIDIA H200 Tensor Core GPU datasheet (2024), SXM column: same tensor cores as H100 SXM (BF16 989.4, FP8 "
        "1,979 dense); HBM3e 141 GB, 4.8 TB/s; capacity as nvidia-smi reports it: 143,771 MiB"),
    GPU("L4", 121 * T, 242 * T, 300 * G, 23034 * MiB,
        "NVIDIA L4 Tensor Core GPU datasheet (2023): BF16 242 / FP8 485 TFLOPS WITH sparsity, dense 121 / 242; "
        "GDDR6 24 GB, 300 GB/s; capacity as nvidia-smi reports it: 23,034 MiB"),
    GPU("RTX-4090", 165 * T, 330 * T, 1008 * G, 24564 * MiB,
        "NVIDIA Ada Lovelace GPU Architecture whitepaper v2.1 (2023), appendix table for GeForce RTX 4090: FP16/BF16 "
        "tensor with FP32 accumulate 165.2 TFLOPS dense (330.4 with sparsity; GeForce runs FP32 accumulate at half "
        "rate), FP8 with FP32 accumulate 330.3 dense; GDDR6X 24 GB, 1,008 GB/s; capacity as nvidia-smi reports it "
        "(\"NVIDIA GeForce RTX 4090\"): 24,564 MiB"),
)}


# ── tensor-parallel links (parallel.py): bytes/s per direction, seconds per ring step, source ──
# Per-step latency: NCCL's own tuning model (NVIDIA/nccl src/graph/tuning.cc, `hwLat`, Ring/LL128): 1.9 µs over
# NVLink, 2.5 µs over PCIe; NCCL picks LL/LL128 for the small messages of decode.
_NCCL = "NCCL src/graph/tuning.cc hwLat (ring, LL128): {} µs per ring step over {}"
LINKS: dict[str, tuple[float, float, str]] = {
    "A100-SXM4-80GB": (300 * G, 1.9e-6, "A100 datasheet: NVLink 3, 600 GB/s total = 300 GB/s per direction; "
                       + _NCCL.format(1.9, "NVLink")),
    "H100-SXM5-80GB": (450 * G, 1.9e-6, "H100 datasheet: NVLink 4, 900 GB/s total = 450 GB/s per direction; "
                       + _NCCL.format(1.9, "NVLink")),
    "H200-SXM-141GB": (450 * G, 1.9e-6, "H200 datasheet: NVLink 4, 900 GB/s total = 450 GB/s per direction; "
                       + _NCCL.format(1.9, "NVLink")),
    "L4": (32 * G, 2.5e-6, "L4 datasheet: PCIe Gen4 x16, 64 GB/s total = 32 GB/s per direction (no NVLink); "
           + _NCCL.format(2.5, "PCIe")),
    "RTX-4090": (32 * G, 2.5e-6, "RTX 4090: PCIe Gen4 x16, 32 GB/s per direction (no NVLink on Ada GeForce); "
                 + _NCCL.format(2.5, "PCIe")),
}


# ── what a GPU costs (economics.py): US$ per GPU-hour, source and date ──
# One provider's public page for all five kinds, so the prices compare like with like: RunPod's Serverless pricing
# table (docs.runpod.io/serverless/pricing, read 2026-12-03), "Active" workers (always running, 24/7: the rate of a
# deployment that is up whether or not requests come), US$ per second × 3,600. Its rows name GPU families ("H100
# PRO", "A100" 80 GB, "H200 PRO", "L4", "4090 PRO"), not form factors; other providers' on-demand rates differ by
# ±50 % (spot and reserved capacity far more): GPU_PRICE_PER_HOUR takes the student's own.
_RUNPOD = "RunPod Serverless pricing, Active worker, read 2026-12-03: {} US$/s × 3,600 = {} US$/h ({})"
PRICES: dict[str, tuple[float, str]] = {
    "A100-SXM4-80GB": (2.16, _RUNPOD.format("0.00060", "2.16", "row \"A100, 80 GB\"")),
    "H100-SXM5-80GB": (3.348, _RUNPOD.format("0.00093", "3.348", "row \"H100 PRO, 80 GB\"")),
    "H200-SXM-141GB": (4.464, _RUNPOD.format("0.00124", "4.464", "row \"H200 PRO, 141 GB\"")),
    "L4": (0.468, _RUNPOD.format("0.00013", "0.468", "row \"L4, A5000, 3090, 24 GB\"")),
    "RTX-4090": (0.756, _RUNPOD.format("0.00021", "0.756", "row \"4090 PRO, 24 GB\"")),
}

# ── what a GPU draws (economics.py): board power in W, and its source ──
# TDP: the datasheet's maximum board power. A GPU holding a loaded model draws IDLE_SHARE of it while no step runs
# (assumed 0.15: a CUDA context keeps an HBM GPU 26-50 W above bare idle, Vadari, "The Model Parking Tax",
# arXiv:2605.23918, 2026; an H100's idle-with-context draw is of the order of 100 W of 700).
IDLE_SHARE = 0.15
POWER: dict[str, tuple[float, str]] = {
    "A100-SXM4-80GB": (400.0, "A100 datasheet (2021): Max TDP power 400 W (SXM4)"),
    "H100-SXM5-80GB": (700.0, "H100 datasheet (2023), SXM column: Max thermal design power (TDP) up to 700 W"),
    "H200-SXM-141GB": (700.0, "H200 datasheet (2024), SXM column: Max TDP up to 700 W"),
    "L4": (72.0, "L4 datasheet (2023): Max thermal design power (TDP) 72 W"),
    "RTX-4090": (450.0, "NVIDIA GeForce RTX 4090 specifications: Total Graphics Power 450 W"),
}


@dataclass(frozen=True, slots=True)
class Shape:
    """A dense decoder-only transformer (Llama layout: GQA attention, SwiGLU FFN, RMSNorm)."""
    name: str
    layers: int
    d_model: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    tied: bool                 # the output projection shares the embedding table
    source: str
    context: int = 0           # max_position_embeddings: the longest sequence the model serves (MAX_CONTEXT's limit)

    @property
    def layer_params(self) -> int:
        d, q, kv = self.d_model, self.heads * self.head_dim, self.kv_heads * self.head_dim
        attention = d * q + 2 * d * kv + q * d          # Wq, Wk, Wv, Wo
        return attention + 3 * d * self.ffn + 2 * d     # + gate, up, down; two RMSNorm weights

    @property
    def head_params(self) -> int:
        """The output projection (LM head): only positions whose next token is sampled multiply by it."""
        return self.d_model * self.vocab

    @property
    def matmul_params(self) -> int:
        """Parameters a step reads: all layers, the final norm and the LM head (the embedding is a lookup)."""
        return self.layers * self.layer_params + self.head_params + self.d_model

    @property
    def params(self) -> int:
        """Every parameter held in HBM (the embedding table once more when it is not tied)."""
        return self.matmul_params + (0 if self.tied else self.vocab * self.d_model)

    def weight_bytes(self, bits: int) -> float:
        return self.params * bits / 8

    def kv_heads_per_gpu(self, tp: int) -> int:
        """KV heads each of tp tensor-parallel GPUs stores: split, replicated when tp > kv_heads (parallel.py)."""
        return max(1, self.kv_heads // tp)

    def kv_bytes_per_token(self, bits: int) -> int:
        """K and V of one position in every layer: 2 (K, V) × layers × kv_heads × head_dim × bits ÷ 8. MHA keeps
        one KV head per query head (Llama-2-7B: 2·32·32·128·2 B = 512 KiB at 16 bits); GQA shares one KV head
        among several query heads (Llama-3.1-8B, Mistral-7B: 8 KV heads for 32 query heads, 2·32·8·128·2 B =
        128 KiB, a quarter); 8-bit KV (vLLM's fp8 KV cache) halves either.

        >>> MODELS["Llama-2-7B"].kv_bytes_per_token(16), MODELS["Mistral-7B-v0.3"].kv_bytes_per_token(16)
        (524288, 131072)
        >>> MODELS["Llama-2-7B"].kv_bytes_per_token(8)
        262144
        """
        return 2 * self.layers * self.kv_heads * self.head_dim * bits // 8


MODELS: dict[str, Shape] = {m.name: m for m in (
    # the lab's own model: its RoPE table (model.py MAX_POSITION) covers WORKLOAD_PROMPT + WORKLOAD_OUTPUT
    Shape("lab", 1, 8, 2, 2, 4, 16, 0, False, "the lab's model.py: one layer, d_model 8, 2 heads of 4, FFN 16 "
          "(vocabulary: the run's tokenizer)", 16384),
    Shape("Llama-3.2-1B", 16, 2048, 32, 8, 64, 8192, 128256, True,
          "meta-llama/Llama-3.2-1B config.json: num_hidden_layers 16, hidden_size 2048, num_attention_heads 32, "
          "num_key_value_heads 8, head_dim 64, intermediate_size 8192, vocab_size 128256, tie_word_embeddings true, "
          "max_position_embeddings 131072", 131072),
    Shape("Llama-3.1-8B", 32, 4096, 32, 8, 128, 14336, 128256, False,
          "meta-llama/Llama-3.1-8B config.json: num_hidden_layers 32, hidden_size 4096, num_attention_heads 32, "
          "num_key_value_heads 8, head_dim 128, intermediate_size 14336, vocab_size 128256, "
          "max_position_embeddings 131072", 131072),
    Shape("Llama-3.1-70B", 80, 8192, 64, 8, 128, 28672, 128256, False,
          "meta-llama/Llama-3.1-70B config.json: num_hidden_layers 80, hidden_size 8192, num_attention_heads 64, "
          "num_key_value_heads 8, head_dim 128, intermediate_size 28672, vocab_size 128256, "
          "max_position_embeddings 131072", 131072),
    # ── attention shapes beyond Llama 3's GQA-8 (issue 40): MHA and a second GQA family ──
    Shape("Llama-2-7B", 32, 4096, 32, 32, 128, 11008, 32000, False,
          "meta-llama/Llama-2-7b-hf config.json: num_hidden_layers 32, hidden_size 4096, num_attention_heads 32, "
          "num_key_value_heads 32 (multi-head attention, no GQA), intermediate_size 11008, vocab_size 32000, "
          "max_position_embeddings 4096 (Touvron et al. 2023, Llama 2, arXiv:2307.09288: context 4k; GQA only "
          "for 34B and 70B)", 4096),
    Shape("Mistral-7B-v0.3", 32, 4096, 32, 8, 128, 14336, 32768, False,
          "mistralai/Mistral-7B-v0.3 config.json: num_hidden_layers 32, hidden_size 4096, num_attention_heads 32, "
          "num_key_value_heads 8 (GQA), head_dim 128, intermediate_size 14336, vocab_size 32768, "
          "max_position_embeddings 32768, sliding_window null (Jiang et al. 2023, Mistral 7B, arXiv:2310.06825)",
          32768),
)}


def shadow_model(name: str, lab_vocab: int = 0) -> Shape:
    """The shape the clock charges; "lab" takes the run's vocabulary."""
    shape = MODELS[name]
    if shape.vocab:
        return shape
    return Shape(shape.name, shape.layers, shape.d_model, shape.heads, shape.kv_heads, shape.head_dim, shape.ffn,
                 lab_vocab, shape.tied, shape.source, shape.context)


def kv_budget(gpu: GPU, shape: Shape, weight_bits: int, kv_bits: int, block_size: int = 1,
              utilization: float = GPU_MEMORY_UTILIZATION, tp: int = 1) -> dict:
    """The KV room as vLLM sizes it: capacity × gpu_memory_utilization − weights − ACTIVATION_RESERVE, in bytes,
    tokens and blocks of `block_size` tokens (negative room = the model does not fit). vLLM's
    `Worker.determine_available_memory` (vllm/v1/worker/gpu_worker.py) computes
    `total_gpu_memory * gpu_memory_utilization - peak_memory`, with `total_gpu_memory` from
    `torch.cuda.mem_get_info()` (the device's capacity) and `peak_memory` the weights plus the profiled
    activation peak plus non-torch allocations; the KV cache gets the rest.

    With tp GPUs (TENSOR_PARALLEL) every GPU does this with its 1/tp of the weights and its KV heads
    (max(1, kv_heads // tp): parallel.py); a token's K/V is spread over the group, so the tokens are each GPU's
    room ÷ each GPU's KV bytes per token, and the group's room (`room`) is tp times one GPU's (`room_gpu`).
    `usable` and `reserve` are one GPU's; `weights` and `per_token` the whole group's.

    >>> b = kv_budget(GPUS["H100-SXM5-80GB"], MODELS["Llama-3.1-8B"], 16, 16, 16)
    >>> round(b["usable"] / G, 2), round(b["weights"] / G, 2), b["per_token"], b["tokens"], b["blocks"]
    (76.97, 16.06, 131072, 449433, 28089)
    >>> b = kv_budget(GPUS["H100-SXM5-80GB"], MODELS["Llama-3.1-70B"], 8, 16)
    >>> round(b["room"] / G, 2), b["tokens"]          # 70B at 8 bits fits one H100, with room for 13,000 tokens
    (4.42, 13473)

    70B at 16 bits does not fit one H100 (141.1 GB of weights); on 2 H100s each holds 70.55 GB and has
    76.97 − 70.55 − 2 = 4.42 GB left, 4 of the 8 KV heads (163,840 bytes a token), so 26,947 tokens
    (on 4: 39.70 GB and 81,920 bytes each, 484,519):

    >>> [kv_budget(GPUS["H100-SXM5-80GB"], MODELS["Llama-3.1-70B"], 16, 16, tp=tp)["tokens"] for tp in (1, 2, 4)]
    [0, 26947, 484519]
    """
    usable, weights = gpu.hbm * utilization, shape.weight_bytes(weight_bits)
    room_gpu = usable - weights / tp - ACTIVATION_RESERVE
    per_token_gpu = shape.kv_bytes_per_token(kv_bits) * shape.kv_heads_per_gpu(tp) // shape.kv_heads
    tokens = int(room_gpu // per_token_gpu) if room_gpu > 0 else 0
    return dict(hbm=gpu.hbm, utilization=utilization, usable=usable, weights=weights, reserve=ACTIVATION_RESERVE,
                room=room_gpu * tp, room_gpu=room_gpu, tp=tp, weights_gpu=weights / tp, per_token_gpu=per_token_gpu,
                per_token=per_token_gpu * tp, tokens=tokens, blocks=tokens // block_size)
