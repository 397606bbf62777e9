"""umkit.plan's rules on sim, one test each: a buffer the CPU reads every k steps is not left
plain managed; a buffer only the GPU touches goes to device memory; a batch the CPU produces
is pinned or prefetched, as its size and the card make one or the other faster."""
import warnings

import pytest

import umkit


@pytest.fixture(autouse=True)
def sim():
    with umkit.using("sim"), warnings.catch_warnings():
        warnings.simplefilter("ignore", umkit.RaceWarning)
        yield


def test_a_buffer_the_cpu_reads_every_k_steps_is_not_plain_managed():
    w = umkit.managed(4 << 20 >> 2)
    w.host[:] = 1.0
    with umkit.plan.recorder("stats loop") as rec:
        rec.name_buffer(w, "weights")
        for i in range(12):
            umkit.increment(w)
            if i % 4 == 3:                         # every 4 steps the CPU reads a statistic
                umkit.synchronize()
                float(w.host[::16384].sum())
            rec.step()
    r = rec.result()
    assert "CPU every 4 steps" in r.owner(r.buffer("weights"))
    adv = r.recommend()
    assert adv.plan()["weights"] != "managed"
    pred = adv.predictions[adv.profiles[0]]
    assert pred["recommended" + (" (mixed)" if "recommended (mixed)" in pred else
                                 f" ({adv.plan()['weights']})")]["mean_ms"] < \
        pred["all managed"]["mean_ms"]


def test_a_buffer_only_the_gpu_touches_goes_to_device_memory():
    a = umkit.managed(1 << 20)
    with umkit.plan.recorder() as rec:
        rec.name_buffer(a, "scratch")
        for _ in range(6):
            umkit.increment(a)
            rec.step()
    r = rec.result()
    assert r.owner(r.buffer("scratch")) == "GPU every step"
    adv = r.recommend(profiles=["h200-pcie5", "mi300x"])
    assert adv.plan("h200-pcie5")["scratch"] == "device"
    assert adv.plan("mi300x")["scratch"] == "device"
    assert "only the GPU" in adv.why[r.buffer("scratch").id]


def batch_loop(nbytes, reads):
    k = umkit.kernel("reader", sim=lambda *a: None)
    batch = umkit.managed(nbytes // 4)
    with umkit.plan.recorder("batch loop") as rec:
        rec.name_buffer(batch, "batch")
        for i in range(6):
            umkit.synchronize()
            batch.host[:] = i                      # the CPU produces the batch
            k(1, 1, (batch,), reads={batch: reads})
            rec.step()
    return rec.result()


def test_a_cpu_produced_batch_is_pinned_or_prefetched_by_size_and_profile():
    small = batch_loop(256 << 10, 16).recommend(profiles=["h200-pcie5"])
    large = batch_loop(32 << 20, 16).recommend(profiles=["h200-pcie5", "mi300a-apu"])
    assert small.plan()["batch"] == "pinned"                   # read over the link as it goes
    assert large.plan("h200-pcie5")["batch"] == "managed+prefetch"   # moved in bulk first
    assert large.plan("mi300a-apu")["batch"] == "pinned"       # one memory: nothing to move
    assert "produces" in large.why[0]
