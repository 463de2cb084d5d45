"""The sentences of speculative decoding (SPEC_METHOD != off), in Vietnamese; text_spec.py says them, text_vi.py
merges them into its table. spec_en.py has the same keys in English.

Leaves out: which sentence is said when (text_spec.py) and the facts (entrypoints/spec_data.py).
"""
from __future__ import annotations

SAY = {
    "b11.legend_spec": " Khi giải mã suy đoán, decode=n+k: n chuỗi decode và k đề xuất chúng kiểm tra trong cùng lượt (n + k token của ngân sách).",
    "b3.legend_spec_run": "Mỗi dòng: bước (bắt đầu -> kết thúc), số yêu cầu chờ/chạy, rồi [yêu cầu:pha:số token] với p = prefill (đoạn prompt), d = decode không có đề xuất nào (chỉ token chờ, 1 token của ngân sách, sinh 1 token).",
    "b3.legend_spec": " v = kiểm tra khi giải mã suy đoán (1+k: token chờ và k đề xuất đi qua mô hình trong một lượt và tính 1 + k token của ngân sách; bước sinh ra các đề xuất được nhận cộng một token, từ 1 đến k+1 token).",
    "b7.generates_spec": "{fid} sinh {d[n_out]} token: 1 token từ prefill + {d[n_decode]} bước decode, trong đó các bước kiểm tra cho thêm {extra} token nhờ đề xuất được nhận.",
    "header.spec": "giải mã suy đoán SPEC_METHOD={cfg[SPEC_METHOD]}, K = {cfg[SPEC_TOKENS]} (theo {docs[spec]})",
    "spec.head_ngram": "Giải mã suy đoán (SPEC_METHOD=ngram, K = {s[k]}): mỗi bước, bộ đề xuất n-gram tìm n token cuối (n = 3, 2, 1) ở chỗ sớm nhất trước đó trong chính chuỗi và đề xuất tối đa K token đi sau; mô hình đích kiểm tra token chờ + các đề xuất trong MỘT lượt forward qua KV cache phân trang.",
    "spec.head_draft": "Giải mã suy đoán (SPEC_METHOD=draft, K = {s[k]}): mỗi bước, mô hình nháp (chính mô hình của lab với trọng số lượng tử hóa QUANT_BITS bit) đề xuất tối đa K token lần lượt; mô hình đích kiểm tra token chờ + các đề xuất trong MỘT lượt forward qua KV cache phân trang.",
    "spec.follow": "Các bước kiểm tra của {fid} ({n} bước): đề xuất → số token được nhận, token bị từ chối đầu tiên, token sửa (lấy từ max(0, p − q)) hoặc token thưởng (lấy từ p khi nhận hết):",
    "spec.follow_none": "{fid} không có bước kiểm tra nào: bộ đề xuất không đưa ra token nào cho nó (hoặc nó chỉ có một token).",
    "spec.step_rejected": "  bước {r[step]}: đề xuất [{proposed}] → nhận {r[accepted]}, từ chối '{r[rejected]}', token sửa '{r[token]}'",
    "spec.step_bonus": "  bước {r[step]}: đề xuất [{proposed}] → nhận cả {r[accepted]}, token thưởng '{r[token]}'",
    "spec.step_stop": "  bước {r[step]}: đề xuất [{proposed}] → nhận {r[accepted]}, dừng (eos) trước token sửa/thưởng",
    "spec.alpha": "  {rid}: đề xuất {r[proposed]}, nhận {r[accepted]}, α = {r[alpha]:.2f}; trung bình {r[per_step]:.2f} token mỗi bước kiểm tra, công thức (1 − α^(k+1)) / (1 − α) với k = {k:.2f} cho {r[expected]:.2f}",
    "spec.total": "Cả lần chạy: {s[accepted]}/{s[proposed]} đề xuất được nhận, α = {b[alpha]:.2f}; với K = {s[k]} công thức cho {b[expected]:.2f} token mỗi bước (K + 1 = {s[k]} + 1 nếu nhận hết).",
    "spec.compare": "So với cùng trace khi SPEC_METHOD=off: TPOT trung bình {c[tpot_on]:ms} so với {c[tpot_off]:ms} ({speed}), {c[steps_on]} so với {c[steps_off]} bước.",
    "spec.compare_no_tpot": "So với cùng trace khi SPEC_METHOD=off: {c[steps_on]} so với {c[steps_off]} bước (không yêu cầu nào có token thứ hai nên không có TPOT để so).",
    "spec.compare_tput": "Throughput {c[tput_on]:.1f} so với {c[tput_off]:.1f} token/s mô phỏng cho cùng {c[tokens_on]} token.",
    "spec.compare_tput_other": "Throughput {c[tput_on]:.1f} so với {c[tput_off]:.1f} token/s mô phỏng KHÔNG phải cùng một khối việc: các yêu cầu sinh {c[tokens_on]} token ở đây và {c[tokens_off]} token khi tắt suy đoán (yêu cầu lấy mẫu rút token khác và dừng ở chỗ khác), nên chênh lệch đó không chỉ đo tác dụng của suy đoán; hãy so TPOT ở trên và các yêu cầu greedy.",
    "b7.not_time_spec": "Các vị trí này gồm cả mọi đề xuất mà mô hình đích đã kiểm tra, kể cả đề xuất bị từ chối; chúng được đếm trong lần chạy, không phải thời gian.",
    "b7.conclusion_spec": "Kết luận: mỗi bước decode tính ít token nhưng vẫn phải đọc toàn bộ trọng số và cả KV cache; suy đoán dùng phần tính toán dư đó để kiểm tra các đề xuất trong cùng một lượt đọc, và chỉ có lợi khi bước còn giới hạn bởi băng thông và đủ đề xuất được nhận (các dòng trên cho biết lần chạy này có lợi hay không).",
    "summary.tokens_spec": "2. Đổi cách lập lịch hay lưu KV theo block không đổi token của các yêu cầu greedy (đã so ở 3 chính sách và so với lần chạy tắt suy đoán); với giải mã suy đoán, yêu cầu lấy mẫu rút từ cùng phân phối nhưng có thể ra token khác (khối [12]).",
    "summary.pass_spec": "PASS: đường ống phục vụ LLM thu nhỏ chạy đúng (cache khớp tính lại, block được trả đủ, token greedy không đổi theo lập lịch và theo suy đoán).",
    "b12.reading_spec": "Đọc kết quả: TTFT trung bình {nochunk[mean_ttft]:ms} khi không chia prompt, {chunked[mean_ttft]:ms} khi chia; khoảng cách lớn nhất giữa hai token gần như bằng nhau ({nochunk[worst_gap]:ms} so với {chunked[worst_gap]:ms}), nên trong lần chạy này chia prompt không làm lần khựng dài nhất ngắn đi (khi suy đoán, độ dài một bước phụ thuộc vào số đề xuất cũng như vào số token prompt).",
    "b12.roofline_mixed_draft": "Vì sao: mỗi bước đọc {gb:.2f} GB trọng số đúng một lần (Sarathi), nên một bước trộn (decode + một đoạn prompt trong MỘT lượt forward) tốn gần bằng một bước decode; các số trung bình ở đây (bước trộn {mixed_us:ms}, bước chỉ decode {decode_us:ms}) còn gồm các lượt của mô hình nháp, mỗi vị trí đề xuất một lượt, và bước có ít đề xuất hơn thì ít lượt hơn. Static không trộn bước nào ({static[steps]} bước), continuous không chia prompt trộn {nochunk[mixed]}/{nochunk[steps]} bước, continuous + chunked {chunked[mixed]}/{chunked[steps]}.",
    "spec.batch_seed": "Đồng hồ seed tính mỗi vị trí được kiểm tra như một chuỗi decode (COST_DECODE_PER_SEQ); xem --clock roofline và hình 'speculation' để thấy lúc nào suy đoán hết lợi theo cỡ batch.",
    "spec.batch": "Trên đồng hồ roofline ({gpu}, {model}), mô hình theo cỡ batch với α = {s[alpha]:.2f} và ngữ cảnh {s[context]} token: batch {small[batch]} {small_speed} ({small[off_us]:.0f} → {small[on_us]:.0f} µs mỗi bước); batch {large[batch]} {large_speed} ({large[off_us]:.0f} → {large[on_us]:.0f} µs, bước kiểm tra {large_bound}).",
    "spec.faster": "nhanh {x:.2f} lần",
    "spec.slower": "CHẬM hơn: tốc độ {x:.2f} lần",
    "spec.bound_memory": "giới hạn bởi băng thông",
    "spec.bound_compute": "giới hạn bởi tính toán",
    "spec.crossover": "Từ batch {b} trở lên suy đoán làm CHẬM hơn: K + 1 token mỗi chuỗi biến bước thành giới hạn bởi tính toán, còn lượt đọc trọng số không còn là phần đắt nhất.",
    "spec.no_crossover": "Đến batch {last[batch]} suy đoán vẫn có lợi ({last[speedup]:.2f} lần) với các hằng số này.",
    "spec.lossless": "Không mất gì: luật chấp nhận min(1, p(x)/q(x)) giữ đúng phân phối của mô hình đích; yêu cầu greedy cho cùng văn bản như khi tắt suy đoán (chỉ thời gian đổi); yêu cầu lấy mẫu rút từ cùng phân phối nhưng có thể ra token khác, vì các lần rút rơi vào chỗ khác.",
    "b12.same_greedy": "Đúng trước, nhanh sau: với giải mã suy đoán, ngân sách token cắt số đề xuất khác nhau ở mỗi chính sách nên token LẤY MẪU có thể khác (cùng phân phối, khác lần rút); vì vậy chỉ so các yêu cầu greedy: mọi yêu cầu greedy chạy ở cả 3 chính sách đều cho cùng token: {d[same]}.",
    "spec.gate_greedy": "Kiểm tra giải mã suy đoán: {g[compared]} yêu cầu greedy cho cùng token như khi SPEC_METHOD=off -> {verdict}.",
    "spec.gate_distribution": "Luật chấp nhận (rejection_sampler.accepts) rút {g[draws]} lần ở vị trí cuối prompt {g[probe]} (T = 1) với bộ đề xuất đều (q đều): chi-square {chi2} ({g[df]} bậc tự do), ngưỡng {g[critical]:.1f} với xác suất báo động nhầm {pct:.1f}% -> {verdict}.",
    "spec.gate_distribution_fail": "Luật chấp nhận đã ĐỔI phân phối đầu ra: token '{g[worst]}' ra {g[worst_seen]:.1%} số lần nhưng mô hình đích cho nó {g[worst_p]:.1%}. Luật đúng giữ token x với xác suất min(1, p(x)/q(x)) và khi từ chối thì rút từ max(0, p − q).",
    "spec.gate_greedy_fail": "Token greedy đã khác khi tắt suy đoán: luật chấp nhận giữ một đề xuất mà mô hình đích không chọn (luật đúng: p(x) = 0 thì không bao giờ nhận).",
    "spec.infinite": "vô cùng (một token mà p cấm đã xuất hiện)",
}
