"""umkit.plan's recorder on sim (the engine's per-allocation accounting), its cuda attribution
by address on synthetic CUPTI records, and its file: bounded, checked, typed errors."""
import json
import warnings

import pytest

import umkit
from umkit.plan.model import MOVED
from umkit.plan.result import MAX_FILE, PlanResult
from umkit.plan.recording import Ranges, gpu_book, share


@pytest.fixture(autouse=True)
def sim():
    with umkit.using("sim"), warnings.catch_warnings():
        warnings.simplefilter("ignore", umkit.RaceWarning)
        yield


def loop(rec, w, steps=6):
    for i in range(steps):
        tmp = umkit.managed(w.size)               # a temporary, made and freed every step
        umkit.add(tmp, w, w)
        tmp.free()
        if i % 3 == 2:
            umkit.synchronize()
            float(w.host[::1024].sum())
        rec.step()


def test_buffers_add_up_to_the_runs_counters_and_temporaries_are_one_buffer():
    w = umkit.managed(1 << 20)
    w.host[:] = 2.0
    before = umkit.counters()
    with umkit.plan.recorder("toy") as rec:
        rec.name_buffer(w, "w", "parameter")
        loop(rec, w)
    after = umkit.counters()
    r = rec.result()
    for k in ("bytes_h2d", "bytes_d2h", "gpu_faults", "cpu_faults"):
        assert sum(b.moved[k] for b in r.buffers) == after[k] - before[k], k
    assert r.buffer("w").moved["cpu_faults"] > 0 and r.buffer("w").moved["bytes_h2d"] > 0
    temps = [b for b in r.buffers if b.born is not None and b.kind == "managed"]
    assert len(temps) == 1 and temps[0].instances == 6
    assert r.lifetime(temps[0]) == "one step, made 6x"
    assert r.owner(r.buffer("w")) == "GPU every step; CPU every 3 steps"
    assert r.steps == 6 and len(r.step_ms) == 6
    t = r.table()
    assert "访问主人" in t and "w " in t and "parameter" in t


def test_replaying_the_recorded_plan_gives_the_recorded_step_times(tmp_path):
    from umkit.plan.model import recorded_choice
    from umkit.plan.replay import replay
    from umkit.sim.costs import PROFILE_DIR
    # exact: on the profile without the cold fault path, whose state the CPU's write before
    # recording sets and a replay (a fresh engine) cannot know (sim/host.py FaultPathCache)
    doc = json.loads((PROFILE_DIR / "h200-pcie5.json").read_text())
    for k in ("fault_cold_latency", "fault_cold_decay", "fault_cold_bytes"):
        del doc["params"][k]
    warm = tmp_path / "h200-warm.json"
    warm.write_text(json.dumps(doc))
    with umkit.using("sim", profile=str(warm)):
        w = umkit.managed(1 << 20)
        w.host[:] = 2.0
        with umkit.plan.recorder() as rec:
            for i in range(6):
                umkit.increment(w)
                if i % 3 == 2:
                    umkit.synchronize()
                    float(w.host[::1024].sum())
                rec.step()
        r = rec.result()
        got = replay(r, {b.id: recorded_choice(b) for b in r.buffers}, str(warm),
                     r.steps)["step_ms"]
        assert got[1:] == pytest.approx(r.step_ms[1:], rel=1e-6)
    w = umkit.managed(1 << 20)
    w.host[:] = 2.0
    with umkit.plan.recorder() as rec:        # temporaries are made again at each step's start
        loop(rec, w)
    r = rec.result()
    got = replay(r, {b.id: recorded_choice(b) for b in r.buffers}, r.profile, r.steps)["step_ms"]
    assert got[1:] == pytest.approx(r.step_ms[1:], rel=0.05)


def test_following_an_ecg_recorder():
    w = umkit.managed(1 << 20)
    with umkit.ecg.recorder("mine") as ecg, umkit.plan.recorder(ecg=ecg) as rec:
        for _ in range(3):
            umkit.increment(w)
            ecg.step()
        with pytest.raises(umkit.InvalidArgument, match="ECG recorder's step"):
            rec.step()
    r = rec.result()
    assert r.steps == 3 and r.step_ms == ecg.result().step_ms
    with pytest.raises(umkit.InvalidType, match="ecg"):
        umkit.plan.recorder(ecg="nope")


def test_save_and_load_round_trip_and_bad_files_are_typed_errors(tmp_path):
    w = umkit.managed(1 << 20)
    with umkit.plan.recorder() as rec:
        loop(rec, w, 3)
    r = rec.result()
    p = r.save(tmp_path / "loop.plan.json")
    back = umkit.plan.load(p)
    assert back.table() == r.table() and back.patterns == r.patterns
    d = json.loads(p.read_text())
    for breaks, match in ((lambda d: d.update(format="x"), "format"),
                          (lambda d: d["buffers"][0].update(kind="gpu"), "kind"),
                          (lambda d: d["patterns"][0][0][3][0].__setitem__(0, 999), "buffer 999"),
                          (lambda d: d.update(step_pattern=d["step_pattern"] + [0]), "steps="),
                          (lambda d: d["step_ms"].__setitem__(0, -1), "step_ms"),
                          (lambda d: d["buffers"][0].update(nbytes=True), "nbytes")):
        bad = json.loads(json.dumps(d))
        breaks(bad)
        with pytest.raises(umkit.InvalidArgument, match=match):
            PlanResult.from_dict(bad)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(umkit.InvalidArgument, match="not JSON"):
        umkit.plan.load(tmp_path / "x.json")
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE + 1)
    with pytest.raises(umkit.InvalidArgument, match="larger than"):
        umkit.plan.load(big)
    with pytest.raises(umkit.InvalidArgument, match="no such file"):
        umkit.plan.load(tmp_path / "none.json")


def test_recorder_misuse_is_a_typed_error():
    rec = umkit.plan.recorder()
    with pytest.raises(umkit.InvalidArgument, match="outside"):
        rec.step()
    with pytest.raises(umkit.InvalidArgument, match="nothing recorded"):
        rec.result()
    with pytest.raises(umkit.InvalidType):
        rec.name_buffer(object(), "x")
    with rec:
        with pytest.raises(umkit.InvalidArgument, match="another umkit.plan"):
            with umkit.plan.recorder():
                pass
        with pytest.raises(umkit.InvalidArgument, match="inside"):
            rec.result()
    with pytest.raises(umkit.InvalidArgument, match="profile"):
        rec.result().recommend(profiles=["no-such-card"])


def test_share_splits_whole_numbers_that_add_up():
    assert share(10, [1, 1, 1]) == [4, 3, 3]
    assert share(7, [0, 0]) == [7, 0]
    assert sum(share(12345, [3, 5, 11])) == 12345


def test_cuda_records_are_attributed_by_address_and_binned_by_step():
    rg = Ranges()
    rg.add(0x10000, 1 << 20, "layer.weight", "parameter", "managed")
    rg.add(0x200000, 1 << 16, "batch", "user tensor", "managed")
    recs = [(5, "CPU_PAGE_FAULT_COUNT", 0, "UNKNOWN", 0x10000 + 4096),
            (6, "BYTES_TRANSFER_DTOH", 65536, "COHERENCE", 0x10000),
            (15, "GPU_PAGE_FAULT", 1, "UNKNOWN", 0x10000 + 8192),
            (16, "BYTES_TRANSFER_HTOD", 65536, "COHERENCE", 0x10000),
            (17, "BYTES_TRANSFER_HTOD", 65536, "USER", 0x200000),
            (18, "BYTES_TRANSFER_HTOD", 4096, "COHERENCE", 0x900000)]   # in no named range
    book = gpu_book("t", rg, recs, [10, 20, 30], [], 0)
    w = next(b for b in book.buffers if b.name == "layer.weight")
    bt = next(b for b in book.buffers if b.name == "batch")
    other = next(b for b in book.buffers if b.name == "(other managed memory)")
    assert w.moved["cpu_faults"] == 1 and w.moved["bytes_d2h"] == 65536
    assert w.moved["gpu_faults"] == 1 and w.moved["bytes_h2d"] == 65536
    assert bt.moved["prefetch_bytes_h2d"] == 65536 and other.moved["bytes_h2d"] == 4096
    assert len(book.step_pattern) == 3
    cpu_steps = [i for i, k in enumerate(book.step_pattern)
                 if any(op[0] == "cpu" for op in book.patterns[k])]
    assert cpu_steps == [0]                       # the CPU fault came before step 0's end
    assert all(MOVED)


def test_the_command_line_reads_a_saved_recording(tmp_path, capsys):
    from umkit.cli import main
    w = umkit.managed(1 << 20)
    with umkit.plan.recorder() as rec:
        loop(rec, w, 4)
    p = rec.result().save(tmp_path / "loop.json")
    assert main(["plan", str(p), "--profiles", "h200-pcie5,mi300x", "--json",
                 str(tmp_path / "adv.json")]) == 0
    out = capsys.readouterr().out
    assert "访问主人" in out and "mi300x" in out and "recommended" in out
    adv = json.loads((tmp_path / "adv.json").read_text())
    assert set(adv["choices"]) == {"h200-pcie5", "mi300x"}
    (tmp_path / "bad.json").write_text("[]")
    # a file or an argument that is not usable: exit 2 before any replay, as port-check,
    # ecg and calibrate do (1 stays for what goes wrong while a command runs)
    assert main(["plan", str(tmp_path / "bad.json")]) == 2
    assert "umkit plan:" in (err := capsys.readouterr().err) and "no recorded plan" in err
    assert main(["plan", str(p), "--steps", "99"]) == 2
    err = capsys.readouterr().err
    assert "--steps 99" in err and "1..4" in err
    assert main(["plan", str(p), "--profiles", "nope"]) == 2
    assert "--profiles" in capsys.readouterr().err


def test_umkits_own_touch_sink_is_named_as_such():
    a = umkit.managed(1 << 18)
    with umkit.plan.recorder() as rec:
        for _ in range(3):
            umkit.touch(a, 4096)
            rec.step()
    r = rec.result()
    sink = [b for b in r.buffers if b.kind == "device"]
    assert [(b.name, b.role) for b in sink] == [("umkit touch sink", "other")]
    assert "umkit touch sink" in r.table()
