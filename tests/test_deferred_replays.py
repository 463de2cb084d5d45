"""The page's big runs defer blocks [11]/[12]'s replays (issue 39; lab.run_deferred, web.defers, web.replays):
defers() says which runs; a deferred report marks blocks [6], [11], [12] and leaves the replays' checks waiting;
playing the replays afterwards gives the very report lab.run gives (data and lines, both languages); the command
line's run never defers; a Stop during the replays keeps the deferred run, which can be asked again."""
from __future__ import annotations

import json

import pytest

from inference_lab.core.inputs.config import Config
from inference_lab.entrypoints import lab, web

BIG = dict(WORKLOAD_REQUESTS=web.DEFER_REQUESTS + 20, WORKLOAD_PROMPT=48, WORKLOAD_OUTPUT=8, WORKLOAD_RATE=400.0,
           WORKLOAD_PREFIXES=3, WORKLOAD_SHARED=32, SLOTS=8, BLOCK_SIZE=8, POOL_BLOCKS=96, QUEUE_LIMIT=256,
           PREFIX_CACHE="on", REPLICAS=2, ROUTER="prefix_aware")


@pytest.mark.parametrize("values, deferred", [
    ({}, False),                                                          # the seed's trace: as before
    (dict(BIG, WORKLOAD_REQUESTS=web.DEFER_REQUESTS - 1), False),         # below the bound
    (dict(BIG, WORKLOAD_REQUESTS=web.DEFER_REQUESTS), True),              # at it
    (dict(BIG, SPEC_METHOD="ngram"), False),                              # speculation: its replays run the model
])
def test_defers_bounds(values, deferred):
    assert web.defers(Config.from_values(values)) is deferred


@pytest.fixture(scope="module")
def full():
    """The command line's report of BIG (lab.run: never deferred), in one process."""
    return lab.run(BIG, fork=False, narrate=False)


def test_without_the_prefix_cache_block_11_waits_for_nothing():
    report, later = lab.run_deferred(dict(BIG, PREFIX_CACHE="off"), narrate=False)
    assert [b.number for b in report.blocks if b.data.get("deferred")] == [6, 12]
    assert [c.name for c in report.checks if c.waiting] == ["same_tokens"]
    assert later.finish("en", narrate=False).to_dict() == lab.run(dict(BIG, PREFIX_CACHE="off"), "en",
                                                                  narrate=False).to_dict()


def test_the_command_line_never_defers(full):
    assert not any(b.data.get("deferred") for b in full.blocks)
    assert not any(c.waiting for c in full.checks) and full.passed
    assert "waiting" not in json.dumps([c.to_dict() for c in full.checks])


def test_deferred_report_then_replays_is_the_full_report(full):
    report, later = lab.run_deferred(BIG, narrate=False)
    deferred = lab.deferred_blocks(later.wanted)
    assert deferred == (6, 11, 12) and [b.number for b in report.blocks if b.data.get("deferred")] == list(deferred)
    assert len(report.block(12).lines) == 1                  # the comparison only: one line saying it comes when asked
    assert report.block(6).lines[:-1] == full.block(6).lines          # the main run's lines, then that line
    saved = [line for line in full.block(11).lines if line not in report.block(11).lines]
    assert report.block(11).lines[:-1] == [line for line in full.block(11).lines if line not in saved]
    assert len(saved) == 1 and saved[0].startswith("Prefix cache: ")  # the TTFT saved (the "nocache" replay)
    assert all("Tính so sánh" in report.block(n).lines[-1] for n in deferred)
    assert "ttft_saved" not in report.block(11).data and "ttft_saved" in full.block(11).data
    assert sorted(c.name for c in report.checks if c.waiting) == sorted(lab.WAITING_CHECKS)
    assert report.summary[-1].startswith("CHỜ: 2 ")
    same = [b.number for b in report.blocks if b.number not in deferred]   # the rest as before
    assert [report.block(n).lines for n in same] == [full.block(n).lines for n in same]
    assert [report.block(n).data for n in same] == [full.block(n).data for n in same]
    assert later.finish("vi", narrate=False).to_dict() == full.to_dict()
    english = later.finish("en", narrate=False)        # the replays can be played again, in either language
    assert english.to_dict() == lab.render(full, "en", narrate=False).to_dict()
    assert english.to_text() == lab.render(full, "en").to_text()


@pytest.fixture
def every_step(monkeypatch):
    """web.throttled passes every progress call (this small run's replays take less than PROGRESS_EVERY)."""
    monkeypatch.setattr(web.throttled, "__defaults__", (0,))


def test_the_page_answers_the_replays_like_a_run(full, every_step):
    heard, ran = [], []
    first = json.loads(web.run(json.dumps(BIG), lang="en", progress=lambda *a: ran.append(a[0])))
    assert ran[0] == "chunked" and ran[-1] == "report" and not {"static", "nochunk", "nocache"} & set(ran)
    assert first["ok"] and first["report"]["blocks"][11]["data"]["deferred"] is True
    answer = json.loads(web.replays(json.dumps(first["report"]["config"]), "en",
                                    progress=lambda *a: heard.append(a[0])))
    assert answer == json.loads(web.run(json.dumps(BIG), lang="en", defer=False))
    replayed = [name for name in heard if name != "report"]
    assert set(replayed) == {"static", "nochunk", "nocache"}
    assert heard[-1] == "report"        # then the blocks are written: the page's progress moves till the answer
    assert answer["report"]["passed"] and not any(b["data"].get("deferred") for b in answer["report"]["blocks"])


def test_replays_without_a_kept_run_run_it_whole(full):
    web.run("{}")                                        # another run replaced the deferred one
    answer = json.loads(web.replays(json.dumps(full.config), "vi"))
    assert answer["ok"] and answer["report"]["summary"] == full.summary


def test_a_stop_during_the_replays_keeps_the_deferred_run(full, every_step):
    first = json.loads(web.run(json.dumps(BIG)))
    seen = []

    def stop(*_):
        raise KeyboardInterrupt
    stopped = json.loads(web.replays(json.dumps(first["report"]["config"]), "vi", progress=stop,
                                     stop_seen=lambda: seen.append(1)))
    assert stopped["ok"] is False and stopped["stopped"] and seen == [1]
    assert web._later is not None                        # the page keeps its report; the button works again
    again = json.loads(web.replays(json.dumps(first["report"]["config"]), "vi"))
    assert again["ok"] and again["report"]["summary"] == full.summary and web._later is None
