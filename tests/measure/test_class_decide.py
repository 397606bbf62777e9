"""``umkit measure run class_decide``: a card's faultshape / context2 probe read against the leads that
docs/model-history.md wrote down before the run (issue 27, classes 2 and 3)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import umkit

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture()
def decide():
    from umkit.measure.runs import class_decide
    return class_decide


def _shapes():
    from umkit.measure.probes import classes as class_probe
    return class_probe.shapes()


def _faultshape(us, spread=(0.97, 1.0, 1.03)):
    """A faultshape section whose cost per touch is ``us[name]`` microseconds, three repeats."""
    rows = []
    for name, nbytes, stride, parts in _shapes():
        touches = sum(n // stride for _, n in parts)
        rows.append({"name": name, "bytes": nbytes, "stride": stride, "kernels": len(parts),
                     "touches": touches, "ms": [us[name] * f * touches / 1e3 for f in spread]})
    return rows


FLAT, GROWS = 4.0, 5.6          # us per touch: one_1g_64k's and one_2g_64k's on a made-up lease


def _lead_data(decide, lead):
    us = {name: FLAT for name, *_ in _shapes()}
    us.update({"one_2g_64k": GROWS, "one_1536m_64k": 5.2, "one_3g_64k": 6.5})
    for shape, call in decide.LEADS[lead].items():
        us[shape] = GROWS if call == "grows" else FLAT + 0.1
    return us


def test_the_leads_name_the_probes_shapes(decide):
    """Every shape the leads and anchors name is one class_probe.py runs (a rename in one file
    and not the other would leave a lead judged on nothing)."""
    names = {name for name, *_ in _shapes()}
    for pred in decide.LEADS.values():
        assert set(pred) <= names
    assert {decide.LOW, decide.HIGH, *decide.ALL_GROW} <= names
    from umkit.measure.probes import classes as class_probe
    assert set(decide.NUMPY_CONTEXTS + decide.MANAGED_CONTEXTS) | {"none"} \
        == set(class_probe.CONTEXTS2)


@pytest.mark.parametrize("lead", ["A: faults in flight overflow the fault buffer",
                                  "B: the allocation's size",
                                  "C: the span one kernel faults over"])
def test_data_that_follow_one_lead_leave_that_lead_standing(decide, lead):
    out = decide.faultshape({"faultshape": _faultshape(_lead_data(decide, lead))})
    assert out["verdict"].startswith(f"{lead} stands")
    for other, v in out["leads"].items():
        if other != lead:
            assert v["against"], other
    assert out["growth"] == round(GROWS / FLAT, 3)


def test_an_unclear_shape_leaves_the_leads_it_could_separate_open(decide):
    us = _lead_data(decide, "C: the span one kernel faults over")
    us["one_2g_128k"] = us["one_1g_32k"] = (FLAT + GROWS) / 2     # half way: what tells A from C
    out = decide.faultshape({"faultshape": _faultshape(us)})
    assert out["shapes"]["one_2g_128k"]["call"] == out["shapes"]["one_1g_32k"]["call"] == "unclear"
    assert out["verdict"].startswith("not decided")
    assert "A: faults" in out["verdict"] and "C: the span" in out["verdict"]
    assert "B: the allocation" not in out["verdict"]


def test_data_against_every_lead_say_so(decide):
    us = _lead_data(decide, "B: the allocation's size")
    us["one_1g_32k"] = GROWS                               # A's call, with B's others
    out = decide.faultshape({"faultshape": _faultshape(us)})
    assert out["verdict"].startswith("every lead is contradicted")


def test_no_growth_beyond_the_repeats_decides_nothing(decide):
    us = _lead_data(decide, "A: faults in flight overflow the fault buffer")
    us["one_2g_64k"] = FLAT * 1.05
    out = decide.faultshape({"faultshape": _faultshape(us, spread=(0.9, 1.0, 1.1))})
    assert out["verdict"].startswith("undecided") and not out["leads"]


def test_growth_missing_where_every_lead_wants_it_is_noted(decide):
    us = _lead_data(decide, "A: faults in flight overflow the fault buffer")
    us["one_3g_64k"] = FLAT
    out = decide.faultshape({"faultshape": _faultshape(us)})
    assert out["verdict"].startswith("A: faults") and "one_3g_64k did not grow" in out["verdict"]


def _context2(first_ms, none=0.25):
    """A context2 section: five reads per repeat, three repeats, the first read given."""
    rows = []
    for nbytes in (32 * KiB, 128 * KiB):
        for kind in ("none",) + tuple(first_ms):
            f = none if kind == "none" else first_ms[kind]
            rows.append({"bytes": nbytes, "context": kind,
                         "runs_ms": [[f * k, 0.25, 0.26, 0.25, 0.27] for k in (0.95, 1.0, 1.05)]})
    return rows


def test_context2_slow_after_large_sweeps_only_is_the_host_cache(decide):
    first = {k: 0.26 for k in decide.NUMPY_CONTEXTS + decide.MANAGED_CONTEXTS}
    first.update({"numpy_fresh_512m": 0.7, "numpy_rewrite_512m": 0.65, "numpy_rewrite_64m": 0.6,
                  "managed_cpu_512m_alive": 0.7, "managed_cpu_64m_alive": 0.6})
    out = decide.context2({"context2": _context2(first)})
    assert out["verdict"].startswith("the host's caches")
    assert out["calls"]["numpy_rewrite_8m"] == "flat"


def test_context2_slow_only_with_managed_memory_is_the_driver(decide):
    first = {k: 0.26 for k in decide.NUMPY_CONTEXTS}
    first.update({"managed_cpu_512m_alive": 0.7, "managed_cpu_64m_alive": 0.45})
    out = decide.context2({"context2": _context2(first)})
    assert out["verdict"].startswith("the driver's state")


def test_context2_sizes_that_disagree_are_unclear(decide):
    first = {k: 0.26 for k in decide.NUMPY_CONTEXTS + decide.MANAGED_CONTEXTS}
    rows = _context2(first)
    for r in rows:                          # slow at 32 KiB only
        if r["bytes"] == 32 * KiB and r["context"] == "numpy_fresh_512m":
            r["runs_ms"] = [[0.8] + x[1:] for x in r["runs_ms"]]
    out = decide.context2({"context2": rows})
    assert out["calls"]["numpy_fresh_512m"] == "unclear"
    assert out["verdict"].startswith("unclear")


def test_the_cli_reads_a_file_and_refuses_what_it_cannot_read(decide, tmp_path, capsys):
    good = tmp_path / "probe.json"
    us = _lead_data(decide, "C: the span one kernel faults over")
    good.write_text(json.dumps({"date": "d", "device": "x", "backend": "cuda", "reps": 3,
                                "faultshape": _faultshape(us)}))
    out = tmp_path / "decision.json"
    assert decide.main([str(good), "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["faultshape"]["verdict"].startswith("C: the span")
    assert got["context2"]["verdict"].startswith("not read: no 'context2' section")
    assert "class 2 (faultshape): C: the span" in capsys.readouterr().out

    assert decide.main([]) == 2
    assert decide.main([str(tmp_path / "missing.json")]) == 2
    (tmp_path / "bad.json").write_text("{")
    assert decide.main([str(tmp_path / "bad.json")]) == 2
    # run 42's probe predates both sections: nothing to read, said so
    assert decide.main([str(BENCH / "results" / "2026-12-04-h200-gpu-ci-run42"
                            / "class_probe.json")]) == 2
    assert "none of 'faultshape', 'context2', 'thrash' and 'pinning'" in capsys.readouterr().err
    (tmp_path / "rows.json").write_text(json.dumps({"faultshape": [{"name": "one_1g_64k"}]}))
    assert decide.main([str(tmp_path / "rows.json")]) == 2


def test_the_probe_on_sim_reads_as_no_growth(decide):
    """class_probe.py's own output, on sim (one fault cost whatever the buffer): the format the
    tool reads is the one the probe writes, and sim's flat cost per touch decides nothing."""
    from umkit.measure.probes import classes as class_probe
    umkit.use("sim", quiet=True)
    doc = {"faultshape": class_probe.faultshape(2, u=4 * MiB),
           "context2": class_probe.context2(2, u=4 * MiB)}
    out = decide.decide(doc)
    assert out["faultshape"]["verdict"].startswith("undecided")
    assert set(out["context2"]["calls"]) == set(class_probe.CONTEXTS2) - {"none"}


def test_the_leads_are_the_predictions_the_readme_wrote_before_the_run(decide):
    """LEADS is docs/model-history.md's table of predictions, cell for cell ("grows, less" and
    "grows (less if ...)" are growth)."""
    rows = {}
    for line in (BENCH.parent / "docs" / "model-history.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("`") and all(
                c.split()[0].rstrip(",") in ("grows", "flat") for c in cells[1:]):
            name = cells[0].split("`")[1]
            rows[name] = [c.split()[0].rstrip(",") for c in cells[1:]]
    assert set(rows) == {name for pred in decide.LEADS.values() for name in pred} \
        | set(decide.ALL_GROW)
    for i, (lead, pred) in enumerate(decide.LEADS.items()):
        assert lead[0] == "ABC"[i]
        assert {name: rows[name][i] for name in pred} == pred
    for name in decide.ALL_GROW:
        assert rows[name] == ["grows"] * 3


def test_growth_between_the_anchors_is_not_called_missing(decide):
    """The history page: one_1536m_64k "grows, less" -- half way between the anchors is that, not a miss."""
    us = _lead_data(decide, "C: the span one kernel faults over")
    us["one_1536m_64k"] = (FLAT + GROWS) / 2
    out = decide.faultshape({"faultshape": _faultshape(us)})
    assert out["verdict"].startswith("C: the span") and "did not grow" not in out["verdict"]


def test_one_repeat_decides_nothing(decide):
    us = _lead_data(decide, "C: the span one kernel faults over")
    out = decide.faultshape({"faultshape": _faultshape(us, spread=(1.0,))})
    assert out["verdict"].startswith("undecided: one repeat")


def test_context2_rows_missing_at_one_size_or_without_numpy_decide_nothing(decide):
    first = {k: 0.26 for k in decide.NUMPY_CONTEXTS}
    first.update({"managed_cpu_512m_alive": 0.7, "managed_cpu_64m_alive": 0.45})
    rows = [r for r in _context2(first)
            if not (r["bytes"] == 32 * KiB and r["context"] == "managed_cpu_512m_alive")]
    out = decide.context2({"context2": rows})
    assert out["calls"]["managed_cpu_512m_alive"] == "unclear"
    only_managed = [r for r in _context2(first) if not r["context"].startswith("numpy")]
    assert not decide.context2({"context2": only_managed})["verdict"].startswith("the driver")


def test_zero_times_and_text_sizes_are_refused_with_exit_2(decide, tmp_path):
    rows = _context2({"numpy_fresh_512m": 0.5}, none=0.0)
    (tmp_path / "zero.json").write_text(json.dumps({"context2": rows}))
    assert decide.main([str(tmp_path / "zero.json")]) == 2
    rows = _context2({"numpy_fresh_512m": 0.5})
    rows[0]["bytes"] = "32768"
    (tmp_path / "text.json").write_text(json.dumps({"context2": rows}))
    assert decide.main([str(tmp_path / "text.json")]) == 2


def _thrash_row(nbytes, trips_ms, records=None):
    """A thrash row whose timed trips take ``trips_ms`` (split write / increment / sum)."""
    row = {"bytes": nbytes, "timed": {"write": [t * 0.1 for t in trips_ms],
                                      "increment": [t * 0.6 for t in trips_ms],
                                      "sum": [t * 0.3 for t in trips_ms]}}
    if records is not None:
        row["counted"] = {"counters": records}
    return row


def test_thrash_naps_every_few_trips_read_as_the_models_throttle(decide):
    trips = [0.3] * 16
    for i in (3, 6, 9, 12, 15):                 # 0-based: trips 4, 7, 10, 13, 16
        trips[i] = 0.9
    out = decide.thrash({"thrash": [_thrash_row(128 * KiB, trips, {"thrashing": 2,
                                                                   "throttling": 5})]})
    s = out["sizes"][str(128 * KiB)]
    assert s["nap_trips"] == [4, 7, 10, 13, 16] and s["nap_share"] == round(5 / 13, 3)
    assert out["verdict"].startswith("naps every few trips")


def test_thrash_naps_on_most_trips_read_as_a_lengthened_lapse(decide):
    trips = [0.3, 0.3, 0.3] + [0.3, 0.9] * 2 + [0.9] * 9
    out = decide.thrash({"thrash": [_thrash_row(128 * KiB, trips, {"throttling": 9})]})
    assert out["verdict"].startswith("naps on most trips")


def test_thrash_without_driver_records_is_not_called_the_throttle(decide):
    trips = [0.3] * 16
    trips[5] = trips[9] = 1.0
    out = decide.thrash({"thrash": [_thrash_row(128 * KiB, trips, {"thrashing": 0,
                                                                   "throttling": 0})]})
    assert out["verdict"].startswith("no throttling or thrashing records")
    assert decide.thrash({"thrash": [_thrash_row(MiB, [0.3] * 16)]})["verdict"].startswith(
        "no naps")


def test_thrash_rows_it_cannot_read_are_refused(decide):
    with pytest.raises(decide.ProbeFileError):
        decide.thrash({"thrash": [_thrash_row(128 * KiB, [0.3] * 5)]})      # too few trips
    with pytest.raises(decide.ProbeFileError):
        decide.thrash({"thrash": [{"bytes": 1, "timed": {"write": [1.0], "increment": []}}]})
    with pytest.raises(decide.ProbeFileError):
        decide.thrash({"thrash": []})
    with pytest.raises(decide.ProbeFileError):              # nothing at all to read
        decide.decide({"thrash": []})


def test_the_thrash_probe_on_sim_reads_as_the_models_throttle(decide):
    from umkit.measure.probes import classes as class_probe
    umkit.use("sim", quiet=True)
    out = decide.thrash({"thrash": class_probe.thrash(1)})
    assert out["verdict"].startswith("naps every few trips")
    assert out["sizes"][str(128 * KiB)]["nap_trips"]


def _pin(trips_ms, remote_maps=None):
    row = _thrash_row(128 * KiB, trips_ms, None if remote_maps is None
                      else {"remote_maps": remote_maps, "throttling": 12})
    return {"pinning": [row]}


def _napping(n, every=3, free=0.3, nap=0.9):
    return [free if i < 3 or (i - 3) % every else nap for i in range(n)]


def test_pinning_read_as_pinned_when_the_later_trips_run_free(decide):
    trips = _napping(40) + [0.08] * 110             # naps, then fast trips: pinned on the CPU
    out = decide.pinning(_pin(trips, remote_maps=32))
    assert out["verdict"].startswith("pinned, and the trips run free")
    assert out["late"]["median_ms"] == 0.08 and out["remote_maps"] == 32
    # no counted trips: the same reading, said to be unconfirmed
    assert "no counted trips to confirm" in decide.pinning(_pin(trips))["verdict"]
    # faster later trips with no page mapped remotely are not called pinning
    assert decide.pinning(_pin(trips, remote_maps=0))["verdict"].startswith(
        "the later trips run faster, but")


def test_pinning_reads_the_speed_up_at_its_threshold(decide):
    early = _napping(60)                            # median of trips 4-20: 0.3 ms
    assert decide.statistics.median(early[3:20]) == 0.3
    fast = decide.pinning(_pin(early + [0.3 * 0.55] * 90, remote_maps=8))
    assert fast["verdict"].startswith("pinned, and the trips run free")
    slower = decide.pinning(_pin(early + [0.3 * 0.65] * 90, remote_maps=8))
    assert not slower["verdict"].startswith("pinned")


def test_pinning_read_as_pinned_and_napping_when_later_trips_all_nap(decide):
    out = decide.pinning(_pin(_napping(40) + [0.9] * 110))
    assert out["verdict"].startswith("pinned, and one side naps")
    # later trips that nap at 62 %: pinned where the earlier ones napped every other trip ...
    later = [0.9 if i % 50 < 31 else 0.3 for i in range(90)]
    assert decide.pinning(_pin(_napping(60, every=2) + later))["verdict"].startswith(
        "pinned, and one side naps")
    # ... not where the earlier ones napped on most trips already
    assert not decide.pinning(_pin([0.3] * 3 + [0.9, 0.9, 0.3] * 19 + later))[
        "verdict"].startswith("pinned")


def test_pinning_read_as_not_pinned_when_the_naps_go_on(decide):
    out = decide.pinning(_pin(_napping(150)))
    assert out["verdict"].startswith("not pinned in 150 trips")
    assert abs(out["early"]["nap_share"] - out["late"]["nap_share"]) < 0.05
    # the same share of naps, but every later trip 1.5x slower: not the same loop
    slow = _napping(60) + [0.9 if i % 3 == 0 else 0.45 for i in range(90)]
    out = decide.pinning(_pin(slow))
    assert abs(out["early"]["nap_share"] - out["late"]["nap_share"]) < 0.05
    assert out["verdict"].startswith("unclear")
    # naps that stop without the trips getting faster fit no reading
    assert decide.pinning(_pin(_napping(40) + [0.3] * 110))["verdict"].startswith("unclear")


def test_pinning_without_naps_in_the_earlier_trips_reads_nothing(decide):
    assert decide.pinning(_pin([0.3] * 150))["verdict"].startswith("no naps in the earlier")
    # a warm-up (slower first trips, no nap among them) is not pinning
    warm = decide.pinning(_pin([0.5] * 40 + [0.25] * 110, remote_maps=0))
    assert warm["verdict"].startswith("no naps in the earlier")
    # a trip 1.6x the free one but only 0.06 ms longer is not a nap (NAP_MS)
    small = decide.pinning(_pin(_napping(150, free=0.1, nap=0.16)))
    assert small["early"]["nap_share"] == 0 and small["verdict"].startswith("no naps")


def test_pinning_rows_it_cannot_read_are_refused(decide, tmp_path):
    with pytest.raises(decide.ProbeFileError):
        decide.pinning(_pin([0.3] * 50))                                     # too few trips
    with pytest.raises(decide.ProbeFileError):
        decide.pinning({"pinning": []})
    with pytest.raises(decide.ProbeFileError):
        decide.pinning({"pinning": [_pin([0.3] * 100)["pinning"][0]] * 2})  # one row only
    with pytest.raises(decide.ProbeFileError):
        decide.pinning(_pin([0.0] * 150))                                    # not timed
    with pytest.raises(decide.ProbeFileError):
        decide.pinning(_pin(_napping(149) + [float("inf")]))
    for bad in ("12", -1, True):
        with pytest.raises(decide.ProbeFileError):
            decide.pinning(_pin(_napping(150), remote_maps=bad))
    with pytest.raises(decide.ProbeFileError):
        decide.pinning(_pin(_napping(decide.PIN_LATE + 19)))                 # one trip short
    (tmp_path / "zeros.json").write_text(json.dumps(_pin([0.0] * 150)))
    assert decide.main([str(tmp_path / "zeros.json")]) == 2


def test_the_pinning_probe_on_sim_reads_as_not_pinned(decide):
    from umkit.measure.probes import classes as class_probe
    umkit.use("sim", quiet=True)
    out = decide.pinning({"pinning": class_probe.pinning(1)})
    assert out["verdict"].startswith("not pinned"), out
