"""A checker of Chrome / Perfetto trace-event JSON, written from Google's "Trace Event Format"
document (the JSON format Perfetto's legacy importer reads): the phases umkit writes and what
each requires.  It returns the problems it finds ([] for a valid document)."""
import math

PHASES = {"X", "B", "E", "i", "I", "C", "M"}
METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
            "process_labels"}


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def problems(doc) -> list:
    out = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["the document is not {'traceEvents': [...]}"]
    if doc.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        out.append(f"displayTimeUnit {doc.get('displayTimeUnit')!r}")
    for i, e in enumerate(doc["traceEvents"]):
        w = f"event {i}"
        if not isinstance(e, dict):
            out.append(f"{w} is not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            out.append(f"{w}: ph {ph!r}")
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            out.append(f"{w}: no name")
        for k in ("pid", "tid"):
            if not isinstance(e.get(k), int) or isinstance(e.get(k), bool):
                out.append(f"{w}: {k} {e.get(k)!r} is not an integer")
        if ph == "M":
            if e.get("name") not in METADATA:
                out.append(f"{w}: metadata name {e.get('name')!r}")
            args = e.get("args")
            if not isinstance(args, dict):
                out.append(f"{w}: metadata without args")
            elif e["name"].endswith("_name") and not isinstance(args.get("name"), str):
                out.append(f"{w}: {e['name']} without args.name")
            elif e["name"].endswith("sort_index") and not isinstance(args.get("sort_index"), int):
                out.append(f"{w}: {e['name']} without an integer args.sort_index")
            continue
        if not number(e.get("ts")) or e["ts"] < 0:
            out.append(f"{w}: ts {e.get('ts')!r} is not a time in microseconds >= 0")
        if ph == "X" and (not number(e.get("dur")) or e["dur"] < 0):
            out.append(f"{w}: a complete event without dur >= 0")
        if ph in ("i", "I") and e.get("s", "t") not in ("g", "p", "t"):
            out.append(f"{w}: instant scope {e.get('s')!r}")
        if ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(number(v) for v in args.values()):
                out.append(f"{w}: counter args are not numbers")
        if "args" in e and not isinstance(e["args"], dict):
            out.append(f"{w}: args is not an object")
    return out


def names(doc, kind):
    return {e["args"]["name"] for e in doc["traceEvents"]
            if e.get("ph") == "M" and e.get("name") == kind}
