"""pytest-benchmark's JSON, with each target's summary beside its statistics: for the test that
set ``extra_info["key"]``, ``{key: {FIELD: value, "op": ..., "target": ..., "unit": ...,
"rounds": ..., "met": ...}}`` at the top level (FIELD: ``median_ms`` for milliseconds,
``seconds`` for seconds, else ``median_<unit>``), plus the date, the backend and the core count:
what benchmarks/targets.json names and the README's table shows."""
import os
import time

from umkit.measure.report import met


def pytest_benchmark_update_json(config, benchmarks, output_json):
    output_json.update(date=time.strftime("%Y-%m-%d"), backend="sim", cores=os.cpu_count())
    for b in output_json.get("benchmarks", []):
        info = b.get("extra_info") or {}
        if "key" not in info:
            continue
        unit = info["unit"]
        name = "median_ms" if unit == "ms" else "seconds" if unit == "s" else f"median_{unit}"
        output_json[info["key"]] = {name: info["value"], "op": info["op"], "target": info["limit"],
                                    "unit": unit, "rounds": b["stats"]["rounds"],
                                    "met": met(info["value"], info["op"], info["limit"])}
