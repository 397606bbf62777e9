"""``umkit measure run fit`` (fit data for the model, issue 11) runs on sim and measures what it says;
the validation set reports the median of its repeats and keeps every run."""
from __future__ import annotations

import json

import numpy as np
import pytest

import umkit
from umkit.measure import validation_set as validation



@pytest.mark.slow
def test_fit_probe_quick_on_sim(tmp_path):
    from umkit.measure.runs import fit as fit_probe
    umkit.use("sim", quiet=True)
    out = tmp_path / "fp.json"
    assert fit_probe.main(["--quick", "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["backend"] == "sim" and set(r) >= {"packing", "fresh", "host", "partial", "pingpong",
                                                "umperf"}
    # packed 128 KiB buffers: the reads that fault (the H200's pattern, see test_mechanisms)
    # take longer than the ones the prefetcher already brought in
    each = r["packing"]["32x131072"]["each_event_ms"]
    slow = {i for i, t in enumerate(each) if t > 1.5 * min(each)}
    assert slow == {0, 1, 2, 4, 8, 16, 17, 18, 20, 24}
    # a fresh stream's first operation costs more than a kept stream's, per the profile
    f = r["fresh"]["8192"]
    assert f["prefetch_read_fresh_stream_ms"] > f["prefetch_read_kept_stream_ms"]
    # the more of a buffer was prefetched, the faster the read that follows
    p = r["partial"]["16777216"]
    assert p["prefetch_0.0_then_read_ms"] > p["prefetch_0.5_then_read_ms"] > p["prefetch_1.0_then_read_ms"]
    # the edits loop: every round kept; on sim the fault-back of the written part costs more
    # than a prefetch of it, and no driver counters are read (sim has no thrashing heuristics)
    lp = r["loop"]
    assert lp["counters"] is False and all(len(lp[k]["read_ms"]) == 8 for k in lp if k != "counters")
    for part in ("262144", "1048576"):
        assert np.median(lp[f"{part}_faults_tight"]["read_ms"]) > np.median(lp[f"{part}_prefetch_tight"]["read_ms"])


def test_validation_reports_the_median_and_keeps_every_run():
    umkit.use("sim", quiet=True)
    raw: dict = {}
    got = validation.run_validation(only={"read_faults_4k", "pinned_h2d_64k"}, repeats=3, raw=raw)
    assert set(got) == set(raw) == {"read_faults_4k", "pinned_h2d_64k"}
    for k, runs in raw.items():
        assert len(runs) == 3 and got[k] == round(float(np.median(runs)), 6)
