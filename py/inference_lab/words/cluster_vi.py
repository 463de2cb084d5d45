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
                   "byte mỗi vị trí); gửi {dg[shipped]} byte, nhận {dg[received]} byte ({ok}); lâu nhất {longest:ms}; {wait}.",
    "c.equal": "bằng nhau",
    "c.differ": "KHÁC NHAU",
    "c.versus": "Cùng {n} bản sao không tách (DISAGG = off) → có tách: TTFT p99 {bttft} → {attft}; TPOT p99 {btpot} → "
                "{atpot}; khoảng ITL lớn nhất {bgap} → {agap}; thông lượng {bt} → {at} token/s.",
    "c.vllm_says": "Tài liệu vLLM (Disaggregated Prefilling): tách prefill/decode để chỉnh TTFT và ITL đuôi riêng rẽ "
                   "(decode không bị prefill chen vào), KHÔNG để tăng thông lượng; số đo ở trên là của chính lần chạy này.",
    "b1.observe_cluster": "Quan sát: router gửi từng yêu cầu, theo thứ tự đến, tới một bản sao và cổng của bản sao đó xét nó; mỗi cổng ({gateways} cổng) chứa tối đa {d[capacity]} yêu cầu (đang chạy + đang chờ), cả cụm {total}.",
    "b1.decision_replica": "{x[request]} (đến {x[arrival]:ms}) → bản sao {r}: {verdict} - {why}",
    "why.gateway_replica": "bản sao {r} đang có {f[in_system]} yêu cầu, {state} {f[slots]}+{f[queue_limit]}",
    "b3.legend_replica": "Trên một cụm, mỗi bản sao chạy các bước của riêng nó trên cùng đồng hồ mô phỏng nên các bước chồng nhau về thời gian; [rN] là bản sao đã chạy bước đó, các bước được đánh số theo thời điểm bắt đầu.",
    "b3.step_replica": "bước {i:>2} [r{st[replica]}]: {st[start]:ms} -> {st[end]:ms} | chờ={st[waiting]} chạy={st[running]} | {work}",
    "b3.observe_replica": "Quan sát: bước 1 chạy trên bản sao {st[replica]}, bắt đầu lúc {st[start]:ms} chỉ với {lone}{late}. Bộ lập lịch không đợi.",
    "b3.observe_late": "; {late} trên cùng bản sao",
    "b3.follow_wait_replica": "{fid} (bản sao {f[replica]}): sẵn sàng lúc {f[ready]:ms}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms} -> chờ chỗ chạy ở đó {f[queue]:ms}.",
    "b3.follow_wait_replica_step": "{fid} (bản sao {f[replica]}): sẵn sàng lúc {f[ready]:ms}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms} -> chờ {f[queue]:ms} cho bước đang chạy ở đó kết thúc (yêu cầu chỉ vào lô ở ranh giới giữa hai bước).",
    "lim.more_steps": "… và {n} bước nữa: chế độ xem từng bước và `--steps` cho thấy từng bước.",
    "lim.more_decisions": "… và {n} quyết định nữa: `--json` (blocks[0].data.decisions) có từng quyết định.",
    "lim.more_aborts": "… và {n} lần hủy nữa: `--json` (blocks[0].data.aborts) có từng lần.",
    "lim.more_rows": "… và {n} yêu cầu nữa: `--json` có từng yêu cầu.",
    "lim.more_items": "… và {n} mục nữa",
    "lim.more_numbers": "… và {n} mục nữa",
    "lim.more_words": "… và {n} từ nữa",
    "lim.more_prompts": "… và {n} yêu cầu nữa",
    "c.no_wait": "không lần chuyển nào phải chờ ở bản sao decode",
    "c.wait_slot": "chờ ở bản sao decode lâu nhất {us:ms} ({t[request]} ở bản sao {t[to]}, chờ chỗ chạy trống: bản sao đang chạy đủ SLOTS chuỗi)",
    "c.wait_blocks": "chờ ở bản sao decode lâu nhất {us:ms} ({t[request]} ở bản sao {t[to]}, chờ đủ block KV trống cho mọi vị trí của nó)",
    "c.gap_handoff": "Khoảng ITL lớn nhất khi tách, {g[us]:ms}, là của {g[request]} giữa token đầu (bản sao prefill {t[from]}) và token thứ hai (bản sao decode {t[to]}): chuyển KV {link:ms}, {why}, rồi {rest:ms} đến khi bước decode đầu của nó xong.",
    "c.gap_why_slot": "chờ chỗ chạy trống ở bản sao {t[to]} {us:ms}",
    "c.gap_why_blocks": "chờ block KV trống ở bản sao {t[to]} {us:ms}",
    "c.gap_why_none": "không phải chờ ở bản sao {t[to]}",
    "c.gap_decode": "Khoảng ITL lớn nhất khi tách, {g[us]:ms}, là của {g[request]} sau token thứ {g[after]}, giữa hai bước decode trên bản sao decode của nó.",
    "b6.replica": "Chỉ bản sao {r}, bản sao giữ KV của yêu cầu đang theo dõi {fid} lúc cuối (mỗi bản sao trong {n} bản sao có bể riêng; khối [11] cho KV đỉnh và prefix hit của mọi bản sao):",
    "b6.limitation_lab": "Giới hạn: lần chạy này tắt prefix cache (PREFIX_CACHE=off) và không bao giờ hết block, nên không block nào dùng chung và không chuỗi nào bị preempt; lab mô phỏng cả hai (PREFIX_CACHE=on, POOL_BLOCKS nhỏ hơn).",
    "lim.more_overtakes": "… và {n} lần vượt lên nữa: `--json` (blocks[2].data.overtakes) và chế độ xem từng bước có từng lần.",
    "lim.more_kv_waits": "… và {n} lần phải chờ block KV nữa: `--json` (blocks[2].data.kv_waits) và chế độ xem từng bước có từng lần.",
    "lim.more_preemptions": "… và {n} lần preempt nữa: `--json` (blocks[5].data.preemptions) và chế độ xem từng bước có từng lần.",
    "b10.roof_pool_cluster": "Bể của lab: POOL_BLOCKS = {cfg[POOL_BLOCKS]} block ở mỗi bản sao. POOL_BLOCKS=auto lấy min(số block vLLM ở trên, min({n} yêu cầu, SLOTS {cfg[SLOTS]}) x ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ = {cap}): một bản sao không bao giờ chạy quá SLOTS chuỗi cùng lúc, nên bể lớn hơn thì chạy y hệt.",
    "b11.step_replica": "bước {i:>2} [r{st[replica]}]: {dur:>5} µs | chờ={st[waiting]} chạy={st[running]} decode={st[decode]} prefill={st[prefill]} | KV {st[kv_used]}/{cfg[POOL_BLOCKS]} ({pct:.0f}%){mark}",
    "b11.breakdown_replica": "Phân rã TTFT (µs mô phỏng) trên bản sao đã prefill yêu cầu: chuẩn bị đầu vào + chờ được lập lịch + prefill = TTFT",
    "b11.on_replica": " | bản sao {r}",
    "b11.on_replicas": " | bản sao prefill {m[prefill_replica]} → bản sao decode {m[decode_replica]}",
    "b11.limitation_n": "Giới hạn: chỉ có {n} yêu cầu được phục vụ nên mỗi phân vị dựa trên tối đa {n} mẫu (p99 của dưới 100 mẫu chính là giá trị lớn nhất); p95/p99 đáng tin cần hàng nghìn mẫu.",
    "b11.limitation_many": "Giới hạn: các phân vị dựa trên {n} yêu cầu được phục vụ của một lần chạy, một trace, trên đồng hồ mô phỏng; benchmark thật cần khởi động, chạy lặp lại và báo độ dao động giữa các lần.",
    "b12.conclusion_n": "Kết luận: các chênh lệch này là hệ quả của mô hình chi phí giả định trên {n} yêu cầu, KHÔNG phải tốc độ GPU thật; đổi trace hoặc COST_* có thể đổi thứ hạng.",
    "summary.tokens_replayed": "2. Lưu KV theo block không đổi logits (cache khớp tính lại, khối [5]); khối [12] phát lại các chính sách khác bằng chính token của lần chạy này nên ở đây không so token giữa các chính sách; lập lịch chỉ đổi thời gian và bộ nhớ.",
    "b12.reading_disagg": "Cách đọc: khi tách prefill/decode, decode chạy trên bản sao riêng, không đoạn prompt nào chung bước với chúng, nên cột cuối không phải khoảng đứng do prompt và chia đoạn không đổi được gì với nó; hãy so các cột TTFT.",
}
