"""umkit.plan's cuda path without a GPU: CUPTI records binned by the timeline they happen on,
PyTorch's buffers named (with fakes of the few torch objects it reads), device-memory tensors
known to be the GPU's, the predictions' replays step by step, and replays side by side in
processes."""
import warnings

import pytest

import umkit
import umkit.interop.torch as ut
from umkit.plan.recording import Ranges, Recorder, gpu_book, torch_buffers


@pytest.fixture(autouse=True)
def sim():
    with umkit.using("sim"), warnings.catch_warnings():
        warnings.simplefilter("ignore", umkit.RaceWarning)
        yield


def cpu_steps(book, name):
    b = next(x for x in book.buffers if x.name == name)
    return [i for i, k in enumerate(book.step_pattern)
            if any(op[0] == "cpu" and any(a[0] == b.id for a in op[3])
                   for op in book.patterns[k])]


def test_cpu_records_are_binned_by_the_cpus_step_ends_and_gpu_records_by_the_gpus():
    rg = Ranges()
    rg.add(0x10000, 1 << 20, "w", "parameter", "managed")
    # step 1's CPU statistic runs at t=25: after step 0's end on the GPU (20) is resolved
    # late, but before the CPU's rec.step() of step 1 (30); the GPU's refault at t=45 belongs
    # to step 2 on the GPU's timeline (step 1 ended on the GPU at 40)
    recs = [(25, "CPU_PAGE_FAULT_COUNT", 0, "UNKNOWN", 0x10000),
            (26, "BYTES_TRANSFER_DTOH", 65536, "COHERENCE", 0x10000),
            (45, "GPU_PAGE_FAULT", 1, "UNKNOWN", 0x10000),
            (46, "BYTES_TRANSFER_HTOD", 65536, "COHERENCE", 0x10000)]
    gpu_end, cpu_end = [20, 40, 60], [10, 30, 50]
    assert cpu_steps(gpu_book("t", rg, recs, gpu_end, [], 0, cpu_stamps=cpu_end), "w") == [1]
    assert cpu_steps(gpu_book("t", rg, recs, [10, 20, 60], [], 0), "w") == [2]
    # a wrong-length CPU timeline is not used
    assert cpu_steps(gpu_book("t", rg, recs, gpu_end, [], 0, cpu_stamps=[10]), "w") == [1]


def test_a_cuda_tensor_in_device_memory_is_the_gpus_every_step():
    rg = Ranges()
    rg.add(0x100000, 1 << 20, "x", "user tensor", "device")
    rg.add(0x400000, 1 << 20, "staging", "array", "pinned")
    rg.add(0x800000, 1 << 20, "batch", "user tensor", "managed")
    book = gpu_book("t", rg, [], [10, 20, 30], [], 0)
    by = {b.name: b for b in book.buffers}
    assert by["x"].gpu_ops == 3 and "device memory" in by["x"].inferred
    assert by["staging"].gpu_ops == 0 and by["batch"].gpu_ops == 0   # no records: not seen


class FakeTensor:
    def __init__(self, n, cuda=True, dim=1):
        self.n, self.is_cuda, self.ndim, self.grad = n, cuda, dim, None

    def dim(self):
        return self.ndim

    def detach(self):
        return self


class FakeModel:
    def __init__(self, params):
        self.params = params

    def named_parameters(self):
        return list(self.params.items())


class FakeOptimizer:
    def __init__(self, state):
        self.state = state


def fake_loop():
    w, b = FakeTensor(64), FakeTensor(4)
    w.grad = FakeTensor(64)
    model = FakeModel({"0.weight": w, "0.bias": b})
    opt = FakeOptimizer({w: {"step": FakeTensor(1, cuda=False, dim=0),
                             "exp_avg": FakeTensor(64), "exp_avg_sq": FakeTensor(64)},
                         b: {"step": FakeTensor(1, cuda=True, dim=0), "exp_avg": FakeTensor(4)}})
    return model, opt


def test_pytorchs_buffers_are_named_by_parameter_and_role():
    model, opt = fake_loop()
    x = FakeTensor(128)
    got = [(n, r) for n, r, _ in torch_buffers(model, opt, {"batch": x})]
    assert got == [("0.weight", "parameter"), ("0.weight.grad", "gradient"),
                   ("0.bias", "parameter"), ("0.weight.exp_avg", "optimizer state"),
                   ("0.weight.exp_avg_sq", "optimizer state"), ("0.bias.exp_avg", "optimizer state"),
                   ("batch", "user tensor")]          # Adam's scalar steps are left out
    with pytest.raises(umkit.InvalidArgument, match="tensors"):
        torch_buffers(tensors={"cpu batch": FakeTensor(4, cuda=False)})
    with pytest.raises(umkit.InvalidType, match="tensors"):
        torch_buffers(tensors=[x])


def test_name_torch_asks_the_driver_which_memory_each_tensor_is(monkeypatch):
    model, opt = fake_loop()
    x = FakeTensor(128)
    ptrs = {}

    def ranges(t):
        return [(ptrs.setdefault(id(t), 0x100000 * (len(ptrs) + 1)), t.n * 4)]
    monkeypatch.setattr(ut, "storage_ranges", ranges)
    monkeypatch.setattr(ut, "is_managed", lambda t: t is not x)
    rec = Recorder()
    assert rec.name_torch(model, opt, {"x": x}) == 7
    kinds = {name: kind for _, _, name, _, kind in rec.ranges.items}
    assert kinds["x"] == "device" and kinds["0.weight"] == "managed"
    assert rec.name_torch(model, opt, {"x": x}) == 0               # each range once


def stats_loop(steps=8, every=3):
    w = umkit.managed((1 << 20) // 4)
    batch = umkit.managed((256 << 10) // 4)
    with umkit.plan.recorder("stats") as rec:
        rec.name_buffer(w, "weights", "parameter")
        rec.name_buffer(batch, "batch")
        for i in range(steps):
            umkit.synchronize()
            batch.host[:] = i
            umkit.touch(batch, 4096)
            umkit.increment(w)
            if i % every == every - 1:
                umkit.synchronize()
                float(w.host[::4096].sum())
            rec.step()
    return rec.result()


def test_each_prediction_carries_its_replay_and_its_share_of_the_rest():
    from umkit.plan.advice import Predictor, steps_of
    r = stats_loop()
    adv = r.recommend()
    p = adv.profiles[0]
    preds = adv.predictions[p]
    est = Predictor(r, p, steps_of(r, None)).estimate()
    floor, rec = est["floor_ms"], preds["as recorded"]
    assert floor >= 0
    for name, v in preds.items():
        assert len(v["replay_step_ms"]) == len(v["step_ms"]) == r.steps, name
        # predicted = replayed + the floor + a share (0..1) of the step's excess, at least 0
        for i, (x, q) in enumerate(zip(v["step_ms"], v["replay_step_ms"])):
            lo, hi = sorted((floor, floor + est["excess"][i]))
            assert max(0.0, lo) - 1e-5 <= x - q <= max(0.0, hi) + 1e-5, (name, i)
    # the recorded plan carries all of each active step's excess (sim has no instrumentation
    # cost to take out), and nothing above the floor on a quiet step
    for i, active in enumerate(est["active"]):
        carried = rec["step_ms"][i] - rec["replay_step_ms"][i]
        want = floor + est["excess"][i] if active else floor
        assert carried == pytest.approx(max(0.0, want), abs=1e-5), i


def test_replays_side_by_side_give_the_same_recommendation():
    r = stats_loop(steps=6)
    one = r.recommend(profiles=["h200-pcie5"])
    two = r.recommend(profiles=["h200-pcie5"], workers=2)
    assert two.choices == one.choices
    assert {k: v["mean_ms"] for k, v in two.predictions["h200-pcie5"].items()} == \
        {k: v["mean_ms"] for k, v in one.predictions["h200-pcie5"].items()}
    with pytest.raises(umkit.InvalidArgument, match="workers"):
        r.recommend(workers=0)


def test_the_predicted_ecg_is_an_ecg_and_draws():
    import matplotlib
    matplotlib.use("Agg")
    from umkit.ecg.model import check, table
    r = stats_loop(steps=6)
    adv = r.recommend()
    ecg = check(adv.to_ecg())
    assert set(ecg["curves"]) == {k for k, v in adv.predictions[adv.profiles[0]].items() if v["fits"]}
    assert "recommended" in table(ecg)
    fig = adv.plot()
    assert fig.axes and fig.axes[0].get_lines()
    fig = adv.plot(plans=["as recorded"])
    assert len(fig.axes[0].get_lines()) == 1
    with pytest.raises(umkit.InvalidArgument, match="plans"):
        adv.plot(plans=["no such plan"])
