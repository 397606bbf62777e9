"""Read a card's ``class_probe.json`` against the predictions ``docs/model-history.md`` wrote
before the run (issue 27, classes 2 and 3), and say which lead the card's data leave standing.

* ``faultshape`` (class 2, per-fault cost growing with the buffer): each shape's cost per touch
  (median over the probe's repeats / touches) is placed between two anchors of the same run,
  ``one_1g_64k`` (0: "flat") and ``one_2g_64k`` (1: "grows").  Below 0.35 a shape is flat, above
  0.65 it grows, between it is unclear.  If the anchors' own repeats overlap, the card showed no
  growth on this lease that its repeats can tell apart, and nothing is decided (nor with one
  repeat of an anchor).  A lead stands
  when no shape contradicts it and none is unclear; every other lead must be contradicted.
* ``context2`` (class 3, the slow first small fault): a context's first read is slow when its
  median is at least 1.5x the first read after nothing and every repeat of it is slower than every
  repeat after nothing; flat when its median is at most 1.2x; unclear between.  Both sizes of the
  probe (32 and 128 KiB) must have measured it and agree.  Slow after the large NumPy sweeps but not after 8 MiB (under
  the host cache the profile fitted): the host's caches (a CPU-written managed buffer is such a
  sweep too).  Slow with CPU-written managed memory alive and after no NumPy sweep: the driver's
  state.
* ``thrash`` (class 3, the naps in tight round trips): per size, the timed trips after the third
  that take at least 1.5x a free trip (the fastest of them) and 0.2 ms more (naps), and the driver's own records
  from the counted trips (cuda: CUPTI's thrashing and throttling).  Written before any card ran
  the section (docs/model-history.md, issue 27): the model's reading, NVIDIA UVM's throttle at a
  fixed 500 us lapse (``umkit/sim/thrashing.py``), naps every two or three trips at 32 and
  128 KiB, some CUPTI throttling records; the reading of ``adjust_thrashing_lapse`` in which
  every short vote lengthens the lapse, naps on most trips once they start (a 590 or later
  driver: the lent H200s ran 580, whose lapse is fixed).  A size decides only with enough trips;
  the records decide whether it is the driver's throttle at all.
* ``pinning`` (class 3, long tight loops): 150 trips on one buffer, trips 4-20 (the naps begin)
  against trips 61 on (past ten naps per page).  Written before any card ran the section
  (docs/model-history.md, issue 27), from ``uvm_perf_thrashing.c``: a page's throttling count
  survives its resets, so after ten naps the driver pins it.  Only where the earlier trips nap
  (every few trips, as ``thrash`` counts them) is there anything to read.  Pinned and free: the
  later trips' median is at most 0.6x the earlier one (the CPU keeps the pages, the GPU maps
  them over the link), and the counted trips, where there are any, mapped pages remotely.
  Pinned and napping: most later trips nap, where the earlier ones napped every few trips (the
  pages stay on one side and the other waits on every visit).  Not pinned: the later trips nap
  at 0.5-2x the earlier share and their median is within 1.25x -- what sim, which does not pin,
  does.

    umkit measure run class_decide results/<run>/class_probe.json [--json out.json]

Exit status 0 when it read the file (whatever it decided), 2 when it cannot.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

LOW, HIGH = "one_1g_64k", "one_2g_64k"
FLAT_BELOW, GROWS_ABOVE = 0.35, 0.65

# What each lead predicts per shape, copied from docs/model-history.md (issue 27's section),
# written there before any card ran these shapes.
LEADS = {
    "A: faults in flight overflow the fault buffer": {
        "four_512m_of_2g_64k": "flat", "first_512m_of_2g_64k": "flat",
        "one_2g_128k": "flat", "one_1g_32k": "grows"},
    "B: the allocation's size": {
        "four_512m_of_2g_64k": "grows", "first_512m_of_2g_64k": "grows",
        "one_2g_128k": "grows", "one_1g_32k": "flat"},
    "C: the span one kernel faults over": {
        "four_512m_of_2g_64k": "flat", "first_512m_of_2g_64k": "flat",
        "one_2g_128k": "grows", "one_1g_32k": "flat"},
}
# Every lead predicts growth for these: they check the effect is there at all, and decide nothing.
ALL_GROW = ("one_1536m_64k", "one_3g_64k")

SLOW_RATIO, FLAT_RATIO = 1.5, 1.2
CACHE_CONTEXTS = ("numpy_fresh_512m", "numpy_rewrite_512m")
NUMPY_CONTEXTS = ("numpy_fresh_512m", "numpy_rewrite_512m", "numpy_rewrite_64m",
                  "numpy_rewrite_8m", "numpy_read_512m")
MANAGED_CONTEXTS = ("managed_cpu_512m_alive", "managed_cpu_64m_alive")


class ProbeFileError(ValueError):
    """The file is not a class probe with the sections this reads."""


def _per_touch(row):
    vals = row.get("ms")
    touches = row.get("touches")
    if (not isinstance(vals, list) or not vals or not isinstance(touches, int) or touches <= 0
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0
                       for v in vals)):
        raise ProbeFileError(f"faultshape row {row.get('name')!r} needs positive 'ms' and "
                             "'touches'")
    return [v / touches for v in vals]


def _section(doc, name):
    """The rows of section ``name`` of a probe file, or ProbeFileError saying how to make it."""
    rows = doc.get(name) if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ProbeFileError(f"no '{name}' section: run umkit measure run classes with "
                             f"--sections {name} on a card")
    return rows


def faultshape(doc):
    rows = {}
    for r in _section(doc, "faultshape"):
        if not isinstance(r, dict) or not isinstance(r.get("name"), str):
            raise ProbeFileError(f"'faultshape' has a row without a name: {str(r)[:80]}")
        rows[r["name"]] = r
    for need in (LOW, HIGH):
        if need not in rows:
            raise ProbeFileError(f"faultshape lacks the anchor {need!r}")
    lo_v, hi_v = _per_touch(rows[LOW]), _per_touch(rows[HIGH])
    lo, hi = statistics.median(lo_v), statistics.median(hi_v)
    out = {"anchors_us_per_touch": {LOW: round(lo * 1e3, 4), HIGH: round(hi * 1e3, 4)},
           "growth": round(hi / lo, 3), "shapes": {}, "leads": {}}
    if min(len(lo_v), len(hi_v)) < 2:
        out["verdict"] = ("undecided: one repeat of an anchor cannot tell growth from the card's "
                          "own spread (run the probe with --reps 3)")
        return out
    if max(lo_v) >= min(hi_v):
        out["verdict"] = ("undecided: the anchors' repeats overlap "
                          f"({LOW} up to {max(lo_v) * 1e3:.3f} us/touch, {HIGH} from "
                          f"{min(hi_v) * 1e3:.3f}), so this lease shows no growth its repeats "
                          "can tell apart")
        return out

    def place(x):
        return (x - lo) / (hi - lo)

    for name, row in rows.items():
        if name in (LOW, HIGH):
            continue
        vals = _per_touch(row)
        p = place(statistics.median(vals))
        call = "flat" if p <= FLAT_BELOW else "grows" if p >= GROWS_ABOVE else "unclear"
        out["shapes"][name] = {"us_per_touch": round(statistics.median(vals) * 1e3, 4),
                               "position": round(p, 3), "call": call,
                               "repeat_positions": [round(place(v), 3) for v in vals]}
    absent = [s for s in ALL_GROW if s not in out["shapes"]]
    missing = [s for s in ALL_GROW if out["shapes"].get(s, {}).get("call") == "flat"]
    for lead, pred in LEADS.items():
        agree, against, open_ = [], [], []
        for shape, want in pred.items():
            call = out["shapes"].get(shape, {}).get("call", "unclear")
            (agree if call == want else open_ if call == "unclear" else against).append(shape)
        out["leads"][lead] = {"agree": agree, "against": against, "unclear": open_}
    standing = [lead for lead, v in out["leads"].items() if not v["against"]]
    if not standing:
        out["verdict"] = "every lead is contradicted by at least one shape: look for another"
    elif len(standing) == 1 and not out["leads"][standing[0]]["unclear"]:
        out["verdict"] = f"{standing[0]} stands; every other lead is contradicted"
    else:
        out["verdict"] = ("not decided: " + "; ".join(standing) + " not contradicted "
                          "(unclear shapes leave more than one reading)")
    if missing:
        out["verdict"] += ("; note: " + ", ".join(missing)
                           + " did not grow, though every lead says it should")
    if absent:
        out["verdict"] += "; note: the file lacks " + ", ".join(absent)
    return out


def _first_reads(row):
    runs = row.get("runs_ms")
    if (not isinstance(runs, list) or not runs
            or not all(isinstance(r, list) and r and isinstance(r[0], (int, float))
                       and not isinstance(r[0], bool) and r[0] > 0 for r in runs)):
        raise ProbeFileError(f"context2 row {row.get('context')!r} needs 'runs_ms' as lists of "
                             "positive read times")
    return [r[0] for r in runs]


def context2(doc):
    by_size = {}
    for r in _section(doc, "context2"):
        if (not isinstance(r, dict) or not isinstance(r.get("context"), str)
                or not isinstance(r.get("bytes"), int) or isinstance(r.get("bytes"), bool)):
            raise ProbeFileError(f"'context2' has a row without 'context' or 'bytes': "
                                 f"{str(r)[:80]}")
        by_size.setdefault(r["bytes"], {})[r["context"]] = _first_reads(r)
    calls, seen = {}, {}
    out = {"sizes": {}}
    for nbytes, ctx in sorted(by_size.items()):
        if "none" not in ctx:
            raise ProbeFileError(f"context2 at {nbytes} bytes lacks the 'none' context")
        base = ctx["none"]
        base_med = statistics.median(base)
        size = {}
        for kind, firsts in ctx.items():
            if kind == "none":
                continue
            ratio = statistics.median(firsts) / base_med
            if ratio >= SLOW_RATIO and min(firsts) > max(base):
                call = "slow"
            elif ratio <= FLAT_RATIO:
                call = "flat"
            else:
                call = "unclear"
            size[kind] = {"first_ms": round(statistics.median(firsts), 4),
                          "ratio": round(ratio, 3), "call": call}
            calls.setdefault(kind, set()).add(call)
            seen[kind] = seen.get(kind, 0) + 1
        out["sizes"][str(nbytes)] = {"none_first_ms": round(base_med, 4), "contexts": size}
    sizes = len(by_size)
    # a context decides only when every size measured it, and all sizes agree
    agreed = {k: next(iter(v)) if len(v) == 1 and seen[k] == sizes else "unclear"
              for k, v in calls.items()}
    out["calls"] = agreed

    def is_(kind, call):
        return agreed.get(kind) == call

    cache = any(is_(k, "slow") for k in CACHE_CONTEXTS) and is_("numpy_rewrite_8m", "flat")
    numpy = [k for k in NUMPY_CONTEXTS if k in agreed]
    driver = (any(is_(k, "slow") for k in MANAGED_CONTEXTS) and numpy
              and all(is_(k, "flat") for k in numpy))
    if cache:
        out["verdict"] = ("the host's caches: slow after the large NumPy sweeps, not after 8 MiB "
                          "(the model's CPU-cache working set is the place for it)")
    elif driver:
        out["verdict"] = "the driver's state: slow only with CPU-written managed memory"
    elif agreed and all(c == "flat" for c in agreed.values()):
        out["verdict"] = ("none of these contexts is slow: the slow first fault needs the free "
                          "of a CPU-written managed buffer (the 'context' section), not a sweep")
    else:
        out["verdict"] = "unclear: the calls fit neither reading (see the contexts)"
    return out


NAP_RATIO, NAP_MS = 1.5, 0.2     # a nap: >= 1.5x a free trip (the fastest later one), +0.2 ms
FREE_TRIPS = 3                   # the first trips count the events: no nap is possible yet
EVERY_FEW = (0.15, 0.6)          # the share of later trips that nap: every few / most


def _trips(r, section):
    """The timed trips (write + increment + sum, ms) of one round-trip row of ``section``."""
    timed = r.get("timed") if isinstance(r, dict) else None
    if (not isinstance(r, dict) or not isinstance(r.get("bytes"), int)
            or isinstance(r.get("bytes"), bool) or not isinstance(timed, dict)):
        raise ProbeFileError(f"'{section}' has a row without 'bytes' or 'timed': {str(r)[:80]}")
    parts = [timed.get(k) for k in ("write", "increment", "sum")]
    if not all(isinstance(p, list) and p and len(p) == len(parts[0])
               and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       and math.isfinite(v) and v >= 0 for v in p) for p in parts):
        raise ProbeFileError(f"{section} row at {r['bytes']} bytes needs 'timed' write / "
                             "increment / sum lists of times of one length")
    return [sum(v) for v in zip(*parts)]


def thrash(doc):
    out = {"sizes": {}}
    shares, records = [], []
    for r in _section(doc, "thrash"):
        trips = _trips(r, "thrash")
        later = trips[FREE_TRIPS:]
        if len(later) < 6:
            raise ProbeFileError(f"thrash row at {r['bytes']} bytes has {len(trips)} trips: "
                                 f"at least {FREE_TRIPS + 6} are needed")
        free = min(later)               # naps may be most of the trips: not their median
        naps = [i + 1 for i, t in enumerate(trips)
                if i >= FREE_TRIPS and t >= NAP_RATIO * free and t - free >= NAP_MS]
        share = len(naps) / len(later)
        counted = (r.get("counted") or {}).get("counters") if isinstance(r.get("counted"), dict) \
            else None
        rec = None
        if isinstance(counted, dict):
            rec = {k: counted.get(k) for k in ("thrashing", "throttling", "throttles")
                   if isinstance(counted.get(k), int) and not isinstance(counted.get(k), bool)}
            records.append(sum(rec.values()))
        shares.append(share)
        out["sizes"][str(r["bytes"])] = {"free_trip_ms": round(free, 4), "nap_trips": naps,
                                         "nap_share": round(share, 3), "records": rec}
    low, high = EVERY_FEW
    if records and not any(records):
        out["verdict"] = ("no throttling or thrashing records in the counted trips: not shown to "
                          "be the driver's throttle (see the sizes' nap trips)")
    elif all(s < low for s in shares):
        out["verdict"] = "no naps: tight round trips run free on this lease"
    elif any(s >= high for s in shares):
        out["verdict"] = ("naps on most trips once they start: the reading in which the driver "
                          "lengthens its lapse (adjust_thrashing_lapse), not the model's fixed "
                          "lapse")
    else:
        out["verdict"] = ("naps every few trips: the driver's throttle at a fixed lapse, as the "
                          "model has it" + ("" if records else " (no counted trips to confirm "
                                            "it is the driver's)"))
    return out


PIN_EARLY, PIN_LATE = (3, 20), 60   # trips 4-20 (naps begin), trips 61 on (past ten naps)
PIN_FAST, PIN_SAME = 0.6, 1.25


def pinning(doc):
    rows = _section(doc, "pinning")
    if len(rows) != 1:
        raise ProbeFileError(f"'pinning' needs one row, not {len(rows)}")
    trips = _trips(rows[0], "pinning")
    if len(trips) < PIN_LATE + 20:
        raise ProbeFileError(f"pinning row has {len(trips)} trips: at least {PIN_LATE + 20} "
                             "are needed")
    early, late = trips[PIN_EARLY[0]:PIN_EARLY[1]], trips[PIN_LATE:]
    free = min(early)
    me, ml = statistics.median(early), statistics.median(late)
    if free <= 0:
        raise ProbeFileError("pinning row has an early trip of 0 ms: not a timed round trip")
    counted = rows[0].get("counted")
    counters = counted.get("counters") if isinstance(counted, dict) else None
    remote = counters.get("remote_maps") if isinstance(counters, dict) else None
    if remote is not None and (not isinstance(remote, int) or isinstance(remote, bool)
                               or remote < 0):
        raise ProbeFileError(f"pinning row's remote_maps is {remote!r}, not a count")

    def share(ts):
        return sum(t >= NAP_RATIO * free and t - free >= NAP_MS for t in ts) / len(ts)

    se, sl = share(early), share(late)
    out = {"bytes": rows[0]["bytes"], "trips": len(trips), "free_trip_ms": round(free, 4),
           "early": {"median_ms": round(me, 4), "nap_share": round(se, 3)},
           "late": {"median_ms": round(ml, 4), "nap_share": round(sl, 3)},
           "remote_maps": remote}
    if se < EVERY_FEW[0]:
        out["verdict"] = "no naps in the earlier trips: nothing to pin on this lease"
    elif ml <= PIN_FAST * me:
        if remote == 0:
            out["verdict"] = ("the later trips run faster, but the counted trips mapped no page "
                              "remotely: not shown to be pinning")
        else:
            out["verdict"] = ("pinned, and the trips run free: the later trips take "
                              f"{ml / me:.2f}x the earlier ones (the driver pins after ten "
                              "naps; sim, which does not pin, keeps napping)"
                              + ("" if remote else " (no counted trips to confirm the remote "
                                                   "maps)"))
    elif sl >= EVERY_FEW[1] > se:
        out["verdict"] = ("pinned, and one side naps on every visit: most later trips nap, where "
                          "the earlier ones napped every few trips (sim does not pin)")
    elif 0.5 * se <= sl <= 2 * se and ml <= PIN_SAME * me:
        out["verdict"] = (f"not pinned in {len(trips)} trips: the naps go on at the same rate, "
                          "as in sim")
    else:
        out["verdict"] = "unclear: the later trips fit none of the readings"
    return out


def decide(doc):
    out = {}
    for name, fn in (("faultshape", faultshape), ("context2", context2), ("thrash", thrash),
                     ("pinning", pinning)):
        try:
            out[name] = fn(doc)
        except ProbeFileError as e:
            out[name] = {"verdict": f"not read: {e}"}
    if all(v["verdict"].startswith("not read") for v in out.values()):
        raise ProbeFileError("none of 'faultshape', 'context2', 'thrash' and 'pinning' could "
                             "be read: "
                             + out["faultshape"]["verdict"])
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="umkit measure run class_decide", description=__doc__.splitlines()[0])
    p.add_argument("probe", nargs="?", help="a class_probe.json from a card")
    p.add_argument("--json", help="also write the decision here")
    args = p.parse_args(argv)
    if not args.probe:
        print("class_decide: give a class_probe.json (benchmarks/results/<run>/class_probe.json)",
              file=sys.stderr)
        return 2
    from ...errors import UmkitError
    from ...validate import clean
    from .registry import output, read_json, write
    try:
        output(args.json, "--json")
        if args.json and Path(args.json).resolve() == Path(args.probe).resolve():
            raise ProbeFileError("--json names the probe file this reads: write the decision "
                                 "to its own file")
        doc = read_json(args.probe, "probe")
        if not isinstance(doc, dict):
            raise ProbeFileError("not a class probe's JSON object")
        out = decide(doc)
    except (OSError, ValueError) as e:       # ProbeFileError and JSONDecodeError are ValueErrors
        text = f"{e.message}" if isinstance(e, UmkitError) else str(e)
        print(clean(f"class_decide: {args.probe}: {text}", 2000), file=sys.stderr)
        if isinstance(e, UmkitError) and e.hint:
            print("  -> " + clean(e.hint, 2000), file=sys.stderr)
        return 2
    out["probe"] = {k: doc.get(k) for k in ("date", "device", "backend", "reps")}
    fs = out["faultshape"]
    print(f"class 2 (faultshape): {fs['verdict']}")
    if "growth" in fs:
        print(f"  per touch: {LOW} {fs['anchors_us_per_touch'][LOW]} us, {HIGH} "
              f"{fs['anchors_us_per_touch'][HIGH]} us (x{fs['growth']})")
    for name, s in fs.get("shapes", {}).items():
        print(f"  {name:<22} {s['us_per_touch']:8.3f} us/touch  position {s['position']:6.2f}  "
              f"{s['call']}")
    c2 = out["context2"]
    print(f"class 3 (context2): {c2['verdict']}")
    for kind, call in c2.get("calls", {}).items():
        print(f"  {kind:<24} {call}")
    th = out["thrash"]
    print(f"class 3 (thrash): {th['verdict']}")
    for nbytes, s in th.get("sizes", {}).items():
        print(f"  {int(nbytes) >> 10:>6} KiB  free trip {s['free_trip_ms']:.3f} ms  naps at "
              f"trips {s['nap_trips']} ({s['nap_share']:.0%})  records {s['records']}")
    pn = out["pinning"]
    print(f"class 3 (pinning): {pn['verdict']}")
    if "early" in pn:
        print(f"  {pn['bytes'] >> 10} KiB x{pn['trips']}: trips 4-20 median "
              f"{pn['early']['median_ms']:.3f} ms, naps {pn['early']['nap_share']:.0%}; trips "
              f"61 on {pn['late']['median_ms']:.3f} ms, naps {pn['late']['nap_share']:.0%}; "
              f"remote maps {pn['remote_maps']}")
    if args.json:
        write(args.json, json.dumps(out, indent=1) + "\n", "--json")
    return 0

