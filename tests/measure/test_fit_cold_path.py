"""The cold-path stage of ``umkit measure fit`` (umkit.measure.fitting.cold_path): recovers the
cold fault path from probe data made to follow it, and refuses what it cannot read."""
import json
import math

import pytest

from umkit.measure.fitting import cold_path as m

MiB = 1 << 20


def probe(tmp_path, C, r, S, base=0.2, name="p.json", noise=0.0):
    """A class_probe file whose context rows follow the model exactly (plus a fixed wobble)."""
    rows = []
    for nbytes in (32 * 1024, 128 * 1024):
        rows.append({"bytes": nbytes, "context": "none", "runs_ms": [[base] * 5] * 3})
        for ctx, (swept, between) in m.CONTEXTS.items():
            runs = []
            for rep in range(3):
                runs.append([base + C * (1 - math.exp(-swept / S)) * r ** (k + between)
                             + noise * (-1) ** (k + rep) for k in range(5)])
            rows.append({"bytes": nbytes, "context": ctx, "runs_ms": runs})
    f = tmp_path / name
    f.write_text(json.dumps({"context2": rows}))
    return f


def test_it_recovers_what_the_data_were_made_with(tmp_path):
    f = probe(tmp_path, C=0.3, r=0.45, S=64 * MiB)
    C, r, S, rms = m.fit(m.extras(f))
    assert C == pytest.approx(0.3, rel=1e-3) and r == 0.45 and S == 64 * MiB and rms < 1e-9


def test_host_speed_divides_the_times(tmp_path):
    f = probe(tmp_path, C=0.3, r=0.45, S=64 * MiB)
    C, r, S, _ = m.fit(m.extras(f, 1.5))
    assert C == pytest.approx(0.2, rel=1e-3) and r == 0.45


def test_two_files_pool_between_their_fits(tmp_path):
    a = probe(tmp_path, C=0.3, r=0.45, S=64 * MiB, name="a.json", noise=0.01)
    b = probe(tmp_path, C=0.2, r=0.45, S=64 * MiB, name="b.json", noise=0.01)
    Ca = m.fit(m.extras(a))[0]
    Cb = m.fit(m.extras(b))[0]
    C = m.fit(m.extras(a) + m.extras(b))[0]
    assert Cb < C < Ca


@pytest.mark.parametrize("content, why", [
    ("not json", "cannot read it as JSON"),
    (json.dumps({"advice": []}), "no 'context' or 'context2' section"),
    (json.dumps({"context2": [{"bytes": 1024, "context": "numpy_read_512m",
                               "runs_ms": [[1.0] * 5]}]}), "no 'none' context"),
    ("[]", "not a class_probe.py file"),
])
def test_files_it_cannot_use_are_refused_by_name(tmp_path, content, why):
    f = tmp_path / "bad.json"
    f.write_text(content)
    with pytest.raises(ValueError, match=why):
        m.fit(m.extras(f))


@pytest.mark.parametrize("hs", [-1, 0, float("nan"), float("inf"), "abc", True])
def test_a_bad_host_speed_is_named(tmp_path, hs):
    with pytest.raises(ValueError, match="host speed"):
        m.extras(probe(tmp_path, 0.3, 0.45, 64 * MiB), hs)


@pytest.mark.parametrize("rows, why", [
    ([{"bytes": 1024, "context": "none", "runs_ms": [[1.0, 1.0], [1.0]]}], "runs of the same"),
    ([{"context": "none", "runs_ms": [[1.0, 1.0]]}], "needs 'bytes'"),
    ([{"bytes": 1024, "context": "none", "runs_ms": [[1.0, float("nan")]]}], "finite"),
    ([{"bytes": 1024, "context": "none", "runs_ms": [[1.0, 1.0]]},
      {"bytes": 1024, "context": "free_device", "runs_ms": [[1.0, 1.0]]}], "nothing to fit"),
])
def test_rows_it_cannot_fit_are_refused_not_fitted_to_zero(tmp_path, rows, why):
    f = tmp_path / "rows.json"
    f.write_text(json.dumps({"context2": rows}))
    with pytest.raises(ValueError, match=why):
        m.fit(m.extras(f))
