"""The cluster's sentences in Vietnamese (text_cluster.py says which, when); cluster_en.py has the same keys.

Leaves out: which sentence is said when, and every number.
"""
SAY = {
    "c.router": "Router {cfg[ROUTER]} trước {n} bản sao engine; mỗi bản sao có cổng riêng (SLOTS {cfg[SLOTS]} + "
                "QUEUE_LIMIT {cfg[QUEUE_LIMIT]}): router không biết giới hạn hàng đợi, nên mã 429 đến từ hàng đợi của "
                "bản sao router đã chọn, kể cả khi bản sao khác còn chỗ.",
    "c.disagg_roles": "Tách prefill/decode: bản sao {p} chỉ prefill, bản sao {dec} chỉ decode; router chọn trong các "
                      "bản sao prefill, bản sao decode được chọn lúc KV bắt đầu chuyển ({how}).",
    "c.decode_rr": "lần lượt",
    "c.decode_ll": "bản sao còn ít token phải tính nhất",
    "c.route_rr": "{x[request]} → bản sao {x[replica]}: đến lượt nó (round robin; ở đó còn {x[outstanding]} token phải tính).",
    "c.route_ll": "{x[request]} → bản sao {x[replica]}: ít token phải tính nhất (mỗi bản sao: {loads}).",
    "c.route_pa": "{x[request]} → bản sao {x[replica]}: {x[cached]}/{x[blocks]} block prompt đã cache ở đó, tải "
                  "{x[load]}; điểm 3 × {frac} − 2 × {x[load]} = {score} (cao nhất).",
    "c.more": "… và {n} quyết định nữa (--json: cluster.router.decisions).",
    "c.refused": "Mã 429 theo bản sao đã từ chối: {parts}.",
    "c.refused_part": "bản sao {i}: {n}",
    "c.goodput": "Goodput: {g[met]}/{g[served]} yêu cầu được phục vụ đạt cả TTFT <= {g[ttft_slo]:ms} và TPOT <= "
                 "{g[tpot_slo]:ms} ({pct}%), tức {per_s} yêu cầu/s đạt SLO.",
    "c.percentiles": "Toàn cụm: TTFT p50/p90/p99 = {ttft}; TPOT p50/p90/p99 = {tpot}.",
    "c.replica": "Bản sao {r[id]} ({role}): phục vụ {r[served]}, bận {r[busy_us]:ms} ({util}% thời gian), KV đỉnh "
                 "{r[kv_peak]}/{pool} block, prefix hit {r[prefix_hits]} token; TTFT {ttft}; TPOT {tpot}.",
    "c.role_both": "prefill + decode",
    "c.role_prefill": "prefill",
    "c.role_decode": "decode",
    "c.transfers": "Chuyển KV: {n} lần, mỗi lần {dg[latency_us]} µs + byte ÷ {dg[link_gbps]} GB/s ({dg[kv_bytes_per_position]} "
                   "byte mỗi vị trí); gửi {dg[shipped]} byte, nhận {dg[received]} byte ({ok}); lâu nhất {longest:ms}, "
                   "chờ block ở bản sao decode lâu nhất {wait:ms}.",
    "c.equal": "bằng nhau",
    "c.differ": "KHÁC NHAU",
    "c.versus": "Cùng {n} bản sao không tách (DISAGG = off) → có tách: TTFT p99 {bttft} → {attft}; TPOT p99 {btpot} → "
                "{atpot}; khoảng ITL lớn nhất {bgap} → {agap}; thông lượng {bt} → {at} token/s.",
    "c.vllm_says": "Tài liệu vLLM (Disaggregated Prefilling): tách prefill/decode để chỉnh TTFT và ITL đuôi riêng rẽ "
                   "(decode không bị prefill chen vào), KHÔNG để tăng thông lượng; số đo ở trên là của chính lần chạy này.",
}
