"""Every sentence of the command line itself, in Vietnamese: --help, its flags, its errors (cli.py says them).

`python -m inference_lab` (without `--lang en`) words its help and its errors with these templates
(`{name}` fields, templates.py's format specs); cli_en.py has the same keys in English. `ARGPARSE`
rewrites argparse's own error messages, (pattern, replacement) pairs tried in order. The constants'
own labels and help are schema_vi.py's, keyed by name, not here.

Leaves out: which sentence is said when (cli.py) and the lab's output (text_vi.py).
"""
from __future__ import annotations

from .templates import Words

ARGPARSE = (   # argparse's own error messages, in the lab's words
    (r"^unrecognized arguments: (.*)$", r"không có cờ (hoặc đối số) này: \1"),
    (r"^argument (\S+): expected one argument$", r"\1: thiếu giá trị sau cờ"),
    (r"^argument (\S+): (.*)$", r"\1: \2"),
)
SAY = {
    # ── --help ────────────────────────────────────────────────────────────
    "description": "Lab tổng hợp Inference Engineering: chạy đường ống phục vụ LLM thu nhỏ và in 13 khối.",
    "default": "Mặc định {default}{bounds}.",
    "switch": "Cờ không kèm giá trị = on. Mặc định {default}.",
    "requests": "Thay trace REQUESTS bằng danh sách yêu cầu trong tệp JSON.",
    "json": "In báo cáo dạng JSON thay cho văn bản.",
    "exercise": "Chạy với các hằng số của bài tập N (thư mục exercises/).",
    "trace": "Ghi timeline ra tệp Chrome trace-event JSON (mở bằng Perfetto).",
    "steps": "In từng bước của bộ lập lịch (khối [3]): ai chạy, ai chờ và vì sao, ngân sách token, block KV.",
    "lang": "Ngôn ngữ của output: vi (mặc định, đúng từng byte như chương trình gốc) hoặc en (tiếng Anh).",
    "patch": "Chạy với các hàm trong FILE.py thay cho hàm cùng tên của mô-đun engine MODULE (engine, "
             "scheduler, sampler, quantization, model, metrics); lặp lại được.",
    "seconds": "GIÂY",
    "sweep": "Chạy lại với từng giá trị của một hằng số (vd. WORKLOAD_RATE=1,2,4,8,16): mỗi điểm in thông lượng, "
             "TTFT/TPOT p50/p90/p99, goodput, điểm gãy (knee) và kiểm tra định luật Little L = λ·W.",
    "sweep_syntax": "--sweep: cần dạng TÊN=GIÁ_TRỊ1,GIÁ_TRỊ2,… với TÊN là một hằng số (nhận {raw!r}).",
    "sweep_progress": "quét: xong điểm {i}/{n}",
    "sweep_head": "QUÉT {name}: mỗi dòng một lần chạy (ms mô phỏng).",
    "points_timing_only": "Mỗi điểm chỉ chạy phần thời gian (timing-only): cùng bộ lập lịch, cùng các khối KV và cùng đồng hồ, nhưng bỏ lượt forward của mô hình (token chỉ giữ chỗ), vì ở đây giá trị token không đổi con số nào: IGNORE_EOS = on (mỗi yêu cầu sinh đúng max_new token), không suy đoán, không prefix cache. Thời gian từng bước, TTFT/TPOT từng yêu cầu và goodput đúng bằng của lần chạy đủ.",
    "points_full": "Mỗi điểm là một lần chạy đủ (mô hình tính từng token), vì ở đây giá trị token đổi được kết quả: {why}.",
    "why_eos": "IGNORE_EOS = off (token EOS quyết định lúc yêu cầu dừng)",
    "why_spec": "SPEC_METHOD = {spec} (việc chấp nhận đọc các token)",
    "why_prefix": "PREFIX_CACHE = on (bộ đệm so nội dung các khối)",
    "why_requests": "danh sách REQUESTS tự viết (không phải tải sinh ra hay trace)",
    "long_workload": "--workload-requests {n}: hơn {max} yêu cầu chỉ chạy được với --sweep hoặc --search, trên một file trace (.csv), khi các điểm là timing-only (--ignore-eos on, không suy đoán, không prefix cache); một lần chạy 13 khối hay một điểm chạy đủ với chừng ấy yêu cầu sẽ mất hàng giờ.",
    "sweep_row": "  {value:g}: thông lượng {tput:.1f} token/s; TTFT p50/p90/p99 {ttft[p50]:ms}/{ttft[p90]:ms}/{ttft[p99]:ms}; TPOT p50/p90/p99 {tpot}; goodput {good:g} yêu cầu/giây ({frac:.0f}% đạt SLO){knee}",
    "sweep_none": "  {value:g}: không yêu cầu nào xong.",
    "sweep_little": "      Little: L đo được {L:g} yêu cầu trong hệ thống; λ·W = {lam:g}/giây × {W:g} giây = {lam_W:g} (lệch {gap:.2%})",
    "sweep_money": "      Chi phí: {e[gpus]} GPU × {e[price_per_hour]:g} US$/giờ → {e[usd_per_m_output]:.2f} US$ mỗi triệu token sinh ra, {e[usd_per_m_tokens]:.2f} US$ mỗi triệu token vào + ra; năng lượng {e[joules_per_output_token]:.3f} J mỗi token sinh ra, {e[output_tokens_per_kwh]:,} token mỗi kWh",
    "sweep_clipped": "      Độ dài bị cắt cho vừa MAX_CONTEXT {max_context} ở {n} trên {of} yêu cầu của trace (prompt tối đa MAX_CONTEXT − 1 token, đầu ra lấy phần còn lại): các số trên là của những yêu cầu đã cắt; tăng --max-context để chạy đúng độ dài của trace (mặc định auto lấy vừa chúng, trong giới hạn context của SHADOW_MODEL và bể KV).",
    "sweep_knee_mark": "  ← điểm gãy",
    "sweep_knee": "ĐIỂM GÃY: {name} = {value:g}, điểm cuối thông lượng còn tăng theo tải (tăng ít hơn một nửa mức tăng của tải thì là đã gãy); sau đó thêm tải chỉ thêm chờ.",
    "sweep_no_knee": "ĐIỂM GÃY: chưa thấy, thông lượng vẫn tăng theo tải tới điểm cuối.",
    "search": "Tìm cấu hình rẻ nhất đạt SLO: mỗi --search TÊN=GIÁ_TRỊ1,… là một trục của lưới (GPU, TENSOR_PARALLEL, "
              "REPLICAS, DISAGG, PREFILL_REPLICAS, SLOTS, TOKEN_BUDGET, WEIGHT_BITS, ACT_BITS, KV_BITS), mỗi điểm một "
              "lần chạy trên cùng tải; cần --clock roofline; lặp lại được.",
    "slo_attainment": "Với --search: phần yêu cầu tối thiểu phải đạt cả TTFT_SLO và TPOT_SLO (mặc định 0.9).",
    "search_backend": "Với --search: chạy các điểm trên các tiến trình của máy này (local, mặc định) hay thành task "
                      "Ray (ray; cần pip install \"inference_lab[ray]\").",
    "ray_address": "Với --search-backend ray: địa chỉ cụm Ray có sẵn (bỏ trống: một Ray cục bộ).",
    "search_syntax": "--search: cần dạng TÊN=GIÁ_TRỊ1,GIÁ_TRỊ2,… với TÊN là một hằng số (nhận {raw!r}).",
    "search_axis": "--search: {name} không phải một trục tìm kiếm; chọn trong: {axes}.",
    "search_twice": "--search: trục {name} được cho hai lần.",
    "search_clock": "--search: cần --clock roofline (chỉ đồng hồ roofline có GPU, giá và điện năng).",
    "search_sweep": "--search và --sweep: mỗi lần chỉ dùng một.",
    "search_attainment": "--slo-attainment: phải là một số trong (0, 1] (nhận {raw!r}).",
    "search_alone": "{flag}: chỉ dùng cùng --search.",
    "search_no_ray": "--search-backend ray: chưa cài Ray (pip install \"inference_lab[ray]\").",
    "search_start": "tìm kiếm: {n} điểm trên {backend}",
    "search_head": "TÌM KIẾM: {n} điểm ({axes}), mỗi điểm một lần chạy trên cùng {requests} yêu cầu; mục tiêu: ít nhất {target:.0%} yêu cầu đạt cả TTFT ≤ {ttft:ms} (TTFT_SLO) và TPOT ≤ {tpot:ms} (TPOT_SLO).",
    "search_columns": "   #  cấu hình | số GPU | US$/giờ | US$/triệu token ra | goodput (yêu cầu/s) | đạt TTFT / TPOT / cả hai | J/token ra",
    "search_row": "  {i:>2}  {config} | {gpus} | {cost:.2f} | {usd} | {good:g} | {ttft:.0%} / {tpot:.0%} / {both:.0%} | {jpt}{mark}",
    "search_row_invalid": "  {i:>2}  {config} | không chạy được (xem BỊ LOẠI)",
    "search_mark_answer": "  ← đáp án",
    "search_answer": "ĐÁP ÁN: rẻ nhất mà đạt mục tiêu là #{i} {config}: {gpus} GPU, {cost:.2f} US$/giờ, {both:.0%} yêu cầu đạt cả hai SLO, {usd} US$ mỗi triệu token sinh ra.",
    "search_no_answer": "ĐÁP ÁN: không điểm nào đạt mục tiêu; xem lý do bên dưới (thêm GPU hay bản sao, hoặc nới SLO).",
    "search_pareto": "BIÊN PARETO (chi phí mỗi giờ và goodput: không điểm nào khác vừa rẻ hơn vừa có goodput cao hơn), từ rẻ nhất: # | cấu hình | US$/giờ | goodput (yêu cầu/s) | đạt cả hai SLO",
    "search_pareto_row": "  #{i} | {config} | {cost:.2f} | {good:g} | {both:.0%}",
    "search_rejected": "BỊ LOẠI:",
    "search_reject_slo": "  #{i} {config}: {slo} chỉ {share:.0%} yêu cầu đạt (cần {need:.0%}); yêu cầu ở p{p} {at}",
    "search_reject_at": "có {slo} {value:ms}, gấp {ratio:.1f} lần {slo}_SLO {limit:ms}",
    "search_reject_unserved": "không được phục vụ ({n} yêu cầu bị từ chối hay chưa xong)",
    "search_reject_both": "  #{i} {config}: từng SLO riêng đều đạt, nhưng chỉ {share:.0%} yêu cầu đạt cả hai (cần {need:.0%}).",
    "search_reject_invalid": "  #{i} {config}: cấu hình không hợp lệ: {problem}",
    # ── the page's sweep and search tools (web.sweep, web.search): errors beside the tool's input ──
    "page_empty": "Hãy nhập một trục dạng TÊN=GIÁ_TRỊ1,GIÁ_TRỊ2,… (vd. WORKLOAD_RATE=1,2,4).",
    "page_syntax": "Cần dạng TÊN=GIÁ_TRỊ1,GIÁ_TRỊ2,… với TÊN là một hằng số (nhận {raw!r}).",
    "page_numeric": "{name} không phải hằng số kiểu số: công cụ quét chạy một hằng số số (vd. WORKLOAD_RATE, SLOTS).",
    "page_one_axis": "Công cụ quét chạy một trục (nhận {n}); nhiều trục là việc của công cụ tìm cấu hình.",
    "page_points": "Trang chạy tối đa {max} điểm trong worker (nhận {n}); lưới lớn hơn hãy chạy trên dòng lệnh: python -m inference_lab {flag} ….",
    "page_point": "{name}={value}: {problem}",
    "page_axis": "{name} không phải một trục tìm kiếm; chọn trong: {axes}.",
    "page_twice": "Trục {name} được cho hai lần.",
    "page_clock": "Tìm cấu hình cần CLOCK = roofline (chỉ đồng hồ roofline có GPU, giá và điện năng): đặt CLOCK rồi tìm lại.",
    "page_attainment": "Tỷ lệ đạt SLO phải là một số trong (0, 1] (nhận {raw!r}).",
    "search_none": "không có",
    "timeout": "Với --patch: dừng lần chạy sau chừng này giây (mã sửa có thể lặp mãi; Ctrl-C cũng dừng được).",
    # ── a patched run ─────────────────────────────────────────────────────
    "patched": "lưu ý: lần chạy này dùng mã đã sửa: {names}.",
    "seconds_word": "giây",
    "exercise_label": "bài tập {n}:",
    # ── bad input, by flag ────────────────────────────────────────────────
    "integer": "số nguyên",
    "number": "một số",
    "not_a": "{name} phải là {what} (nhận {raw!r}).",
    "unreadable": "--requests: không đọc được tệp {path!r} ({error}).",
    "bad_json": "--requests: tệp {path!r} không phải JSON hợp lệ (dòng {line}: {msg}).",
    "timeout_alone": "--timeout: chỉ dùng cùng --patch (hoặc một bài tập có [patch]).",
    "timeout_positive": "--timeout: phải là một số giây > 0 (nhận {raw!r}).",
    "patch_form": "--patch: viết MODULE=FILE.py, ví dụ --patch scheduler=plan.py (nhận {raw!r}).",
    "patch_module": "--patch: không có mô-đun {module!r} để sửa; chọn một trong: {modules}.",
    "patch_unreadable": "--patch: không đọc được tệp {path!r} ({error}).",
    "patch_not_utf8": "--patch: tệp {path!r} không phải văn bản UTF-8.",
    # ── how an error is printed ───────────────────────────────────────────
    "error": "lỗi: {message}",
    "see": "Xem: python -m inference_lab --help",
    "internal": "lỗi nội bộ: {kind}: {error}",
}

WORDS = Words(SAY)
