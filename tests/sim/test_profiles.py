"""Checks for the simulator's hardware profiles (umkit/sim/profiles/*.json).

The schema is read from the JSON block in umkit/sim/profiles/README.md, so a key
added there is required here without editing this file. REQUIRED_* below is a
second, hand-kept copy; test_required_lists_match_readme fails when the two
drift apart.

Rules checked for every profile (nvidia-uvm-facts.json is not a profile):
  * all top-level keys and all params of the README schema are present, and no
    unknown params;
  * every param is exactly {value, unit, source}; unit and source are non-empty
    strings; unit equals the README's unit for that param;
  * every value is a number (not bool) and > 0, except map_cost_per_mib, which
    may be 0: it is only charged in "apu" mode, so 0 is the honest value for
    discrete GPUs (the README's own example uses 0);
  * vendor in {nvidia, amd}, mode in {migrate, zero_copy, apu};
  * "teaching": true only in teaching.json, and every teaching source starts
    with "teaching value:"; no other profile may use teaching values;
  * bandwidth sanity: prefetch_h2d_bw <= 1.2 * pinned_h2d_bw (a prefetch cannot
    beat an explicit pinned copy by much) and hbm_bw > zero_copy_bw (device
    memory is faster than reaching host memory, even on an APU where the
    "host" memory is the same HBM but fine-grained).

test_checker_catches_broken_profiles feeds broken copies to the same checker,
so the checks are shown to be able to fail.
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROFILES = ROOT / "umkit" / "sim" / "profiles"
README = PROFILES / "README.md"
FACTS = "nvidia-uvm-facts.json"

REQUIRED_TOP = ["name", "title", "vendor", "mode", "teaching", "params"]
REQUIRED_PARAMS = [
    "host_page", "gpu_page", "region", "fault_granularity", "fault_batch_max",
    "fault_batch_latency", "fault_unmap_latency", "fault_region_latency",
    "fault_bw", "prefetch_h2d_bw", "prefetch_d2h_bw", "prefetch_latency",
    "cpu_fault_latency", "cpu_region_latency", "cpu_fault_bw", "zero_copy_bw", "pinned_h2d_bw",
    "pinned_d2h_bw", "hbm_bw", "host_mem_bw", "kernel_launch", "alloc_managed",
    "alloc_device", "alloc_pinned_per_mib", "sync_device", "sync_stream",
    "sync_event", "vram", "map_cost_per_mib", "peer_bw", "first_touch_latency",
]
# Params whose value may be 0 (see module docstring).
# A per-fault / per-region / unmap cost may be 0 where a profile folds it into another term
# (its source says so: AMD's fit charges everything per 2 MiB fault; the H200 fit found no
# per-fault CPU cost beyond the per-region one).
ZERO_ALLOWED = {"advise_accessed_by_per_mib", "advise_preferred_per_mib", "map_cost_per_mib", "fault_unmap_latency", "fault_region_latency",
                "cpu_region_latency", "cpu_fault_latency",
                # fitted by non-negative least squares: a cost the data does not need is 0
                "fault_batch_latency", "fault_latency", "copy_latency", "prefetch_latency",
                "prefetch_gpu_latency", "copy_submit", "prefetch_submit", "free_managed",
                "free_device", "free_pinned_per_mib", "alloc_device_per_sqrt_mib",
                "free_device_per_sqrt_mib"}
VENDORS = {"nvidia", "amd"}
MODES = {"migrate", "zero_copy", "apu"}
#: optional top-level "platform" (umkit.sim.costs.PLATFORMS; README "Optional top-level fields")
PLATFORMS = {"pcie", "cpu-coherent", "cpu-coherent-olcf-observed", "apu"}
TEACHING_FILE = "teaching.json"
TEACHING_PREFIX = "teaching value:"


def readme_schema() -> dict:
    """The README's example profile, with its // comments stripped."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"```json\s*\n(.*?)```", text, re.S)
    assert m, "no ```json block in profiles/README.md"
    body = "\n".join(re.sub(r"\s*//.*$", "", line) for line in m.group(1).splitlines())
    return json.loads(body)


SCHEMA = readme_schema()
SCHEMA_UNITS = {k: v["unit"] for k, v in SCHEMA["params"].items()}
#: optional parameters (umkit.sim.costs.OPTIONAL) and their README units
OPTIONAL_UNITS = {"advise_latency": "us", "advise_read_mostly_cpu_per_mib": "us",
                  "advise_read_mostly_gpu_per_mib": "us", "advise_preferred_per_mib": "us",
                  "advise_accessed_by_per_mib": "us", "fp32_flops": "TFLOP/s", "copy_latency": "us", "host_copy_bw": "GB/s",
                  "fault_latency": "us", "launch_overhead": "us", "event_overhead": "us",
                  "copy_submit": "us", "prefetch_submit": "us", "prefetch_gpu_latency": "us",
                  "host_cache_bytes": "B", "host_cache_bw": "GB/s", "host_cache_copy_bw": "GB/s",
                  "host_fill_bw": "GB/s", "host_cache_fill_bw": "GB/s", "free_managed": "us",
                  "free_device": "us", "free_pinned_per_mib": "us", "dup_refault_latency": "us",
                  "fault_wakeup_latency": "us", "dup_read_bw": "GB/s", "host_call_latency": "us",
                  "fault_range_latency": "us", "fault_split_latency": "us", "map_flush_latency": "us",
                  "unmap_flush_latency": "us", "stream_first_latency": "us",
                  "copy_handoff_latency": "us", "prefetch_handoff_latency": "us",
                  "cpu_map_latency": "us", "user_launch_overhead": "us", "link_duplex": "fraction",
                  "pageable_copy_latency": "us", "dirty_refault_latency": "us",
                  "queue_restore_latency": "us", "peer_link_bw": "GB/s", "xgmi_hive_gpus": "GPUs",
                  "fault_cold_latency": "us", "fault_cold_decay": "fraction",
                  "fault_cold_bytes": "B", "thrashing_lapse": "us", "thrashing_threshold": "faults",
                  "thrashing_nap": "us", "alloc_device_per_sqrt_mib": "us",
                  "free_device_per_sqrt_mib": "us"}


def profile_files() -> list[Path]:
    return sorted(p for p in PROFILES.glob("*.json") if p.name != FACTS)


def is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_profile(doc: dict, filename: str) -> list[str]:
    """Return a list of problems; empty means the profile is fine."""
    errs: list[str] = []
    for key in SCHEMA:
        if key not in doc:
            errs.append(f"missing top-level key {key!r}")
    if errs:
        return errs
    if doc["name"] != Path(filename).stem:
        errs.append(f"name {doc['name']!r} != file stem {Path(filename).stem!r}")
    if not isinstance(doc["title"], str) or not doc["title"].strip():
        errs.append("empty title")
    if doc["vendor"] not in VENDORS:
        errs.append(f"vendor {doc['vendor']!r} not in {sorted(VENDORS)}")
    if doc["mode"] not in MODES:
        errs.append(f"mode {doc['mode']!r} not in {sorted(MODES)}")
    if "platform" in doc and doc["platform"] not in PLATFORMS:
        errs.append(f"platform {doc['platform']!r} not in {sorted(PLATFORMS)}")
    if "note" in doc and (not isinstance(doc["note"], str) or not doc["note"].strip()):
        errs.append("note must be a non-empty string")
    teaching = doc["teaching"]
    if not isinstance(teaching, bool):
        errs.append("teaching must be true/false")
    elif teaching != (filename == TEACHING_FILE):
        errs.append(f"teaching={teaching} but only {TEACHING_FILE} may (and must) be a teaching profile")

    params = doc["params"]
    if not isinstance(params, dict):
        return errs + ["params is not an object"]
    for key in SCHEMA["params"]:
        if key not in params:
            errs.append(f"missing param {key!r}")
    for key, p in params.items():
        if key not in SCHEMA["params"] and key not in OPTIONAL_UNITS:
            errs.append(f"unknown param {key!r}")
            continue
        if not isinstance(p, dict) or set(p) != {"value", "unit", "source"}:
            errs.append(f"{key}: must be exactly {{value, unit, source}}")
            continue
        v, unit, src = p["value"], p["unit"], p["source"]
        if not is_number(v):
            errs.append(f"{key}: value {v!r} is not a number")
        elif key in ZERO_ALLOWED:
            if v < 0:
                errs.append(f"{key}: value {v} < 0")
        elif not v > 0:
            errs.append(f"{key}: value {v} must be > 0")
        if not isinstance(unit, str) or not unit.strip():
            errs.append(f"{key}: empty unit")
        elif unit != {**SCHEMA_UNITS, **OPTIONAL_UNITS}[key]:
            errs.append(f"{key}: unit {unit!r} != README unit "
                        f"{ {**SCHEMA_UNITS, **OPTIONAL_UNITS}[key]!r}")
        if not isinstance(src, str) or not src.strip():
            errs.append(f"{key}: empty source")
        elif teaching is True and not src.startswith(TEACHING_PREFIX):
            errs.append(f"{key}: teaching source must start with {TEACHING_PREFIX!r}")
        elif teaching is False and src.lower().startswith(TEACHING_PREFIX):
            errs.append(f"{key}: teaching value in a non-teaching profile")
    if errs:
        return errs

    def val(k):
        return params[k]["value"]

    if not val("prefetch_h2d_bw") <= 1.2 * val("pinned_h2d_bw"):
        errs.append(f"prefetch_h2d_bw {val('prefetch_h2d_bw')} > 1.2 * pinned_h2d_bw {val('pinned_h2d_bw')}")
    if not val("hbm_bw") > val("zero_copy_bw"):
        errs.append(f"hbm_bw {val('hbm_bw')} must exceed zero_copy_bw {val('zero_copy_bw')}")
    return errs


# ---------------------------------------------------------------- schema

def test_required_lists_match_readme():
    assert list(SCHEMA) == REQUIRED_TOP
    assert sorted(SCHEMA["params"]) == sorted(REQUIRED_PARAMS)


def test_there_are_profiles():
    names = {p.name for p in profile_files()}
    for expected in ("mi250x-xnack1.json", "mi250x-xnack0.json", "mi250x-coherent.json",
                     "mi300x.json", "mi300a-apu.json", TEACHING_FILE):
        assert expected in names


# ---------------------------------------------------------------- every profile

@pytest.mark.parametrize("path", profile_files(), ids=lambda p: p.name)
def test_profile_is_valid(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert check_profile(doc, path.name) == []


def test_exactly_one_teaching_profile():
    teaching = [p.name for p in profile_files()
                if json.loads(p.read_text(encoding="utf-8")).get("teaching") is True]
    assert teaching == [TEACHING_FILE]


def test_expected_modes():
    modes = {p.stem: json.loads(p.read_text(encoding="utf-8"))["mode"] for p in profile_files()}
    assert modes.get("mi250x-xnack1") == "migrate"
    assert modes.get("mi250x-xnack0") == "zero_copy"
    assert modes.get("mi300x") == "migrate"
    assert modes.get("mi300a-apu") == "apu"
    assert modes.get("mi250x-coherent") == "migrate"


def test_amd_profiles_say_their_platform():
    platforms = {p.stem: json.loads(p.read_text(encoding="utf-8")).get("platform")
                 for p in profile_files()}
    assert platforms["mi250x-coherent"] == "cpu-coherent"
    assert platforms["mi250x-xnack1"] == platforms["mi250x-xnack0"] == "cpu-coherent-olcf-observed"
    assert platforms["mi300x"] == "pcie" and platforms["mi300a-apu"] == "apu"
    from umkit.sim.costs import PLATFORMS as LOADER
    assert set(LOADER) == PLATFORMS


def test_apu_has_mapping_cost():
    doc = json.loads((PROFILES / "mi300a-apu.json").read_text(encoding="utf-8"))
    assert doc["params"]["map_cost_per_mib"]["value"] > 0


# ---------------------------------------------------------------- the checker can fail

def _good() -> tuple[dict, str]:
    path = PROFILES / "mi250x-xnack1.json"
    return json.loads(path.read_text(encoding="utf-8")), path.name


def _broken_cases():
    def drop_param(d):
        del d["params"]["hbm_bw"]

    def drop_top(d):
        del d["mode"]

    def zero_value(d):
        d["params"]["fault_bw"]["value"] = 0

    def negative_map_cost(d):
        d["params"]["map_cost_per_mib"]["value"] = -1

    def string_value(d):
        d["params"]["vram"]["value"] = "64e9"

    def bool_value(d):
        d["params"]["fault_batch_max"]["value"] = True

    def empty_source(d):
        d["params"]["peer_bw"]["source"] = "  "

    def empty_unit(d):
        d["params"]["peer_bw"]["unit"] = ""

    def wrong_unit(d):
        d["params"]["hbm_bw"]["unit"] = "MB/s"

    def extra_key(d):
        d["params"]["hbm_bw"]["note"] = "x"

    def unknown_param(d):
        d["params"]["warp_size"] = {"value": 64, "unit": "threads", "source": "x"}

    def bad_mode(d):
        d["mode"] = "magic"

    def bad_vendor(d):
        d["vendor"] = "intel"

    def teaching_flag(d):
        d["teaching"] = True

    def teaching_source(d):
        d["params"]["hbm_bw"]["source"] = "teaching value: round number"

    def fast_prefetch(d):
        d["params"]["prefetch_h2d_bw"]["value"] = d["params"]["pinned_h2d_bw"]["value"] * 1.5

    def slow_hbm(d):
        d["params"]["hbm_bw"]["value"] = d["params"]["zero_copy_bw"]["value"]

    def bad_platform(d):
        d["platform"] = "nvlink-c2c"

    return [drop_param, drop_top, zero_value, negative_map_cost, string_value, bool_value,
            empty_source, empty_unit, wrong_unit, extra_key, unknown_param, bad_mode,
            bad_vendor, teaching_flag, teaching_source, fast_prefetch, slow_hbm, bad_platform]


@pytest.mark.parametrize("breaker", _broken_cases(), ids=lambda f: f.__name__)
def test_checker_catches_broken_profiles(breaker):
    doc, name = _good()
    assert check_profile(doc, name) == []
    broken = copy.deepcopy(doc)
    breaker(broken)
    assert check_profile(broken, name), f"{breaker.__name__} was not detected"


def test_checker_requires_teaching_flag_in_teaching_file():
    doc = json.loads((PROFILES / TEACHING_FILE).read_text(encoding="utf-8"))
    doc["teaching"] = False
    assert check_profile(doc, TEACHING_FILE)


def test_checker_allows_zero_map_cost():
    doc, name = _good()
    doc["params"]["map_cost_per_mib"]["value"] = 0
    assert check_profile(doc, name) == []


# ---------------------------------------------------------------- NVIDIA facts file

def test_nvidia_uvm_facts():
    facts = json.loads((PROFILES / FACTS).read_text(encoding="utf-8"))
    keys = {"fault_batch_max", "gpu_page", "region", "prefetch_threshold", "eviction_policy"}
    assert keys <= set(facts)
    for k in keys:
        entry = facts[k]
        assert set(entry) == {"value", "unit", "source"}, k
        assert entry["unit"].strip() and entry["source"].strip(), k
        assert "open-gpu-kernel-modules" in entry["source"], k
    assert facts["fault_batch_max"]["value"] == 256
    assert facts["gpu_page"]["value"] == 64 * 1024
    assert facts["region"]["value"] == 2 * 1024 * 1024
    assert facts["prefetch_threshold"]["value"] == 51
    assert isinstance(facts["eviction_policy"]["value"], str)


def test_optional_params_match_the_loader():
    from umkit.sim.costs import OPTIONAL
    assert set(OPTIONAL) == set(OPTIONAL_UNITS)
    text = README.read_text(encoding="utf-8")
    for k, unit in OPTIONAL_UNITS.items():
        assert f'"{k}"' in text and f'"unit": "{unit}"' in text, k
