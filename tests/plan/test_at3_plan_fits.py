"""A plan that does not fit the card is never recommended: where the buffers only the GPU
touches do not fit its memory together, the rules' device-memory plan is ruled out (and the
table says why), and the replay weighs the other choices -- managed memory oversubscribes the
card.  Where device memory fits, the recommendation is the rules' own, as before."""
import warnings

import pytest

import umkit

GiB = 1 << 30


def gpu_only_loop(nbytes, steps=3):
    """Two buffers of ``nbytes`` each that only the GPU touches (one read every 2 MiB)."""
    with umkit.using("sim", profile="teaching", compute=False), warnings.catch_warnings():
        warnings.simplefilter("ignore", umkit.RaceWarning)
        a, b = umkit.managed(nbytes // 4), umkit.managed(nbytes // 4)
        with umkit.plan.recorder("oversubscribed") as rec:
            rec.name_buffer(a, "a")
            rec.name_buffer(b, "b")
            for _ in range(steps):
                umkit.touch(a, 2 << 20)
                umkit.touch(b, 2 << 20)
                umkit.synchronize()
                rec.step()
        return rec.result()


def recommended(adv, profile):
    preds = adv.predictions[profile]
    return next(v for k, v in preds.items() if k.startswith("recommended"))


@pytest.mark.slow
def test_device_memory_that_does_not_fit_is_never_recommended():
    r = gpu_only_loop(10 * GiB)                  # 20 GiB on a 16 GB card
    adv = r.recommend()
    p = adv.profiles[0]
    assert r.owner(r.buffer("a")) == "GPU every step"
    assert not adv.predictions[p]["all device"]["fits"]
    rec = recommended(adv, p)
    assert rec["fits"], adv.table()
    plan = adv.plan()
    assert sum(r.buffer(n).nbytes for n in ("a", "b") if plan[n] == "device") < 16e9
    # and it is the fastest plan that fits, among those the table shows
    fitting = [v["mean_ms"] for v in adv.predictions[p].values() if v["fits"]]
    assert rec["mean_ms"] <= min(fitting) * 1.0101
    table = adv.table()
    assert table.splitlines()[-1] == f"{p}: {adv.ruled_out[p]}"
    assert p in adv.ruled_out and "ruled out" in adv.ruled_out[p]
    assert "GiB" in adv.ruled_out[p] and p in adv.ruled_out[p]
    assert adv.to_dict()["ruled_out"] == adv.ruled_out
    assert "does not fit on teaching" in adv.why[r.buffer("a").id]


def test_device_memory_that_fits_is_still_recommended():
    r = gpu_only_loop(1 * GiB)                   # 2 GiB on a 16 GB card
    adv = r.recommend()
    plan = adv.plan()
    assert (plan["a"], plan["b"]) == ("device", "device")
    assert adv.ruled_out == {}
    assert "ruled out" not in adv.table()
    assert adv.why[r.buffer("a").id] == \
        "only the GPU touches it: device memory, nothing to migrate"


@pytest.mark.slow
def test_only_device_allowed_and_none_fits_is_a_typed_error():
    r = gpu_only_loop(10 * GiB)
    with pytest.raises(umkit.InvalidArgument, match="no plan within the choices") as e:
        r.recommend(choices=("device",))
    assert e.value.argument == "choices"
