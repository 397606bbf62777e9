"""Issue 10's structural promises and findings: one runtime context, a declared contract,
validation once, no wrong data under threads, freed memory not writable through old views."""
from __future__ import annotations

import ast
import pathlib
import threading

import numpy as np
import pytest

import umkit
from umkit import InvalidArgument, InvalidType, UseAfterFree
from umkit.backends.contract import FEATURES, INTERFACE_VERSION

PKG = pathlib.Path(umkit.__file__).parent


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    umkit.use("sim", quiet=True)


# -- structure ------------------------------------------------------------------------------------
def _imports(path):
    tree = ast.parse(path.read_text())
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            out.add(("." * n.level) + (n.module or ""))
            out.update(("." * n.level) + (n.module + "." if n.module else "") + a.name
                       for a in n.names)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
    return out


def test_memory_layer_does_not_import_the_api():
    for f in (PKG / "memory").glob("*.py"):
        imps = _imports(f)
        assert not any(i in ("..api", "umkit.api") or i.endswith(".api")
                       for i in imps), (f.name, imps)


def test_no_module_reads_private_runtime_state():
    for f in PKG.rglob("*.py"):
        text = f.read_text()
        assert "_state[" not in text and "runtime._state" not in text, f


def test_the_api_asks_declared_features_never_probes():
    text = (PKG / "api.py").read_text()
    assert "hasattr(" not in text and 'getattr(b' not in text


def test_backends_declare_features_and_interface_version():
    b = umkit.backend()
    assert b.interface_version == INTERFACE_VERSION
    assert set(b.features) <= set(FEATURES) and b.supports("counters")
    from umkit.backends.gpu import GPUBackend
    assert GPUBackend.interface_version == INTERFACE_VERSION


def test_one_stream_and_one_event_type_in_the_public_api():
    assert umkit.Stream is umkit.api.Stream and umkit.Event is umkit.api.Event
    names = [n for n in dir(umkit) if n.endswith("Stream") or n.endswith("Event")]
    assert sorted(names) == ["Event", "Stream"]


def test_one_allow_oversubscription():
    from umkit.backends import gpu
    assert not hasattr(gpu, "allow_oversubscription") and not hasattr(gpu, "ALLOW_OVERSUBSCRIPTION")
    with pytest.raises(InvalidType):
        umkit.allow_oversubscription("yes")
    umkit.allow_oversubscription(True)
    try:
        assert umkit.backend().allow_oversubscription is True
    finally:
        umkit.allow_oversubscription(False)
    assert umkit.backend().allow_oversubscription is False


def test_errors_module_holds_only_exceptions_and_hints_are_fields():
    from umkit import errors
    classes = [v for v in vars(errors).values() if isinstance(v, type)]
    assert all(issubclass(c, Exception) for c in classes)
    e = InvalidArgument("bad offset", hint="use 0", argument="offset")
    assert (e.message, e.hint, e.argument) == ("bad offset", "use 0", "offset")
    assert not hasattr(errors, "ERRORS")     # the §5.1 data lives in umkit.errors.table
    import pickle
    e2 = pickle.loads(pickle.dumps(e))
    assert (e2.message, e2.hint, e2.argument) == (e.message, e.hint, e.argument)


def test_oom_keeps_its_numbers():
    umkit.use("sim", vram=8 << 20, quiet=True)
    with pytest.raises(umkit.OutOfMemory) as info:
        umkit.device_array(4 << 20), umkit.device_array(5 << 20)
    assert str(info.value).startswith(info.value.message)


# -- the runtime context ----------------------------------------------------------------------------
def test_using_switches_for_a_block_and_restores():
    outer = umkit.backend()
    with umkit.using("sim", gpus=2) as b:
        assert umkit.backend() is b and umkit.device_count() == 2
        a = umkit.managed(16)
        assert a.backend is b
    assert umkit.backend() is outer and umkit.device_count() == 1


def test_using_is_per_thread():
    outer = umkit.backend()
    seen = {}
    started, release = threading.Event(), threading.Event()

    def other():
        started.wait()
        seen["other"] = umkit.backend()
        release.set()

    t = threading.Thread(target=other)
    t.start()
    with umkit.using("sim") as inner:
        started.set()
        release.wait(10)
        assert umkit.backend() is inner
    t.join()
    assert seen["other"] is outer


def test_with_pool_is_per_thread():
    pool = umkit.MemoryPool()
    got = {}

    def other():
        got["a"] = umkit.managed(64)

    with pool:
        t = threading.Thread(target=other)
        t.start()
        t.join()
        mine = umkit.managed(64)
    assert pool.owns(mine.ptr) and not pool.owns(got["a"].ptr)


# -- read_back(out=...) ----------------------------------------------------------------------------------
def _filled(shape, dtype=np.float32):
    a = umkit.managed(shape, dtype)
    ref = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    a.host[...] = ref
    return a, ref


@pytest.mark.parametrize("make", [
    lambda: np.zeros((32, 32), np.float32, order="F"),
    lambda: np.zeros((32, 32), np.float32).T,
    lambda: np.zeros((64, 32), np.float32)[::2],
], ids=["fortran", "transposed", "strided-rows"])
def test_read_back_into_any_layout(make):
    a, ref = _filled((32, 32))
    out = make()
    r = umkit.read_back(a, out=out)
    assert r is out
    np.testing.assert_array_equal(out, ref)


def test_read_back_into_a_1d_strided_out():
    a, ref = _filled(100)
    buf = np.zeros(200, np.float32)
    umkit.read_back(a, out=buf[::2])
    np.testing.assert_array_equal(buf[::2], ref)
    assert not buf[1::2].any()


def test_read_back_refuses_read_only_and_other_dtypes():
    a, ref = _filled(100)
    ro = np.zeros(100, np.float32)
    ro.flags.writeable = False
    with pytest.raises(InvalidArgument, match="read-only") as info:
        umkit.read_back(a, out=ro)
    assert info.value.argument == "out"
    with pytest.raises(InvalidArgument, match="does not\\s+convert"):
        umkit.read_back(a, out=np.zeros(100, np.int32))
    with pytest.raises(InvalidArgument):
        umkit.read_back(a, out=umkit.pinned(100, "int32"))
    assert not ro.any()


def test_staging_buffers_are_bounded_and_reused():
    from umkit import api
    b = umkit.backend()
    before = len(b.allocations())
    for n in range(1, 400):
        x = umkit.managed(n * 37, "uint8")
        umkit.read_back(x)
        x.free()
    st = api.staging_buffers(b, 0)
    assert st.cached <= api.STAGING_CACHE
    assert len(b.allocations()) - before <= 16          # power-of-two classes, not 399 sizes


# -- threads -------------------------------------------------------------------------------------------
def test_threads_reading_back_same_size_arrays_get_their_own_data():
    n, rounds, nthreads = 4096, 40, 4
    errors = []
    barrier = threading.Barrier(nthreads)

    def worker(tid):
        a = umkit.managed(n)
        barrier.wait()
        for r in range(rounds):
            val = float(tid * 1000 + r)
            a.host[:] = val
            got = umkit.read_back(a)
            if not (got == val).all():
                errors.append((tid, r, float(got[0])))
        a.free()

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(nthreads)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert errors == []


def test_threaded_randomized_against_numpy():
    """Several threads, each allocating / writing / running kernels / reading back / freeing
    its own arrays, checked against NumPy."""
    if not hasattr(umkit.backend().engine, "lock"):
        pytest.skip("needs the sim engine's lock (issue 10's simulator part)")
    nthreads, ops = 4, 120
    failures = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        live: list[tuple[umkit.Array, np.ndarray]] = []
        for _ in range(ops):
            op = rng.integers(0, 6)
            if op == 0 or not live:
                n = int(rng.integers(1, 3000))
                kind = ("managed", "pinned")[int(rng.integers(0, 2))]
                a = umkit.empty(n, "float32", kind)
                ref = rng.standard_normal(n).astype(np.float32)
                a.host[:] = ref
                live.append((a, ref))
            elif op == 1:
                a, ref = live[int(rng.integers(0, len(live)))]
                umkit.increment(a)
                umkit.synchronize()
                ref += 1
            elif op == 2:
                a, ref = live[int(rng.integers(0, len(live)))]
                v = float(rng.integers(-5, 5))
                umkit.fill(a, v)
                umkit.synchronize()
                ref[:] = v
            elif op == 3:
                a, ref = live.pop(int(rng.integers(0, len(live))))
                a.free()
            elif op == 4:
                a, ref = live[int(rng.integers(0, len(live)))]
                if a.kind == "managed":
                    a.prefetch("gpu")
                    umkit.synchronize()
            a_ref = live[int(rng.integers(0, len(live)))] if live else None
            if a_ref is not None:
                a, ref = a_ref
                got = umkit.read_back(a)
                if not np.array_equal(got, ref):
                    failures.append((seed, op))
        for a, _ in live:
            a.free()

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        def guarded(seed):
            try:
                worker(seed)
            except Exception as e:  # noqa: BLE001 - a thread's error must fail the test
                failures.append((seed, repr(e)))
        ts = [threading.Thread(target=guarded, args=(s,)) for s in range(nthreads)]
        [t.start() for t in ts]
        [t.join() for t in ts]
    assert failures == []


# -- use after free -------------------------------------------------------------------------------------
def test_a_view_kept_across_free_cannot_write_the_next_block():
    pool = umkit.MemoryPool()
    with pool:
        x = umkit.managed(1024)
        old = x.host[10:20]             # a view kept past free
        x.free()
        y = umkit.managed(1024)
        y.host[:] = 7
        try:
            old[:] = -1                 # at most into the quarantined block ...
        except UseAfterFree:            # ... or refused (sim checks views of freed memory)
            pass
        assert (umkit.read_back(y) == 7).all()
        assert y.ptr != x.ptr
        del old
        z = umkit.managed(1024)         # the last view is gone: the block is reused
        assert z.ptr == x.ptr


def test_without_views_a_freed_block_is_reused_at_once():
    pool = umkit.MemoryPool()
    with pool:
        x = umkit.managed(1024)
        x.host[:] = 1
        p = x.ptr
        x.free()
        assert umkit.managed(1024).ptr == p


def test_a_view_of_a_garbage_collected_array_stays_valid():
    b = umkit.backend()
    h = umkit.managed(4096).host        # the Array itself is gone at once
    h[:] = 3
    other = umkit.managed(4096)
    other.host[:] = 5
    assert (h == 3).all() and (umkit.read_back(other) == 5).all()
    n = len(b.allocations())
    del h
    import gc
    gc.collect()
    assert len(b.allocations()) == n - 1   # freed once the last view went


def test_pool_close_marks_its_arrays_freed():
    pool = umkit.MemoryPool()
    with pool:
        a = umkit.managed(100)
        a.host[:] = 1
    pool.close()
    assert a.freed
    with pytest.raises(UseAfterFree):
        a.host
    with pytest.raises(UseAfterFree):
        umkit.increment(a)
    assert pool.live() == []


def test_freed_arrays_are_released_promptly():
    b = umkit.backend()
    n = len(b.allocations())
    a = umkit.managed(1 << 16)
    a.host[:] = 1
    umkit.increment(a)
    del a
    assert len(b.allocations()) == n      # no synchronize needed


# -- the pool under threads ---------------------------------------------------------------------------
def test_pool_allocate_free_from_threads_never_hands_out_a_block_twice():
    pool = umkit.MemoryPool()
    held = set()
    lock = threading.Lock()
    dup = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        mine = []
        for _ in range(400):
            if mine and rng.random() < 0.5:
                p = mine.pop(int(rng.integers(0, len(mine))))
                with lock:
                    held.discard(p)
                pool.free(p)
            else:
                p = pool.allocate(int(rng.integers(1, 5000)))
                with lock:
                    if p in held:
                        dup.append(p)
                    held.add(p)
                mine.append(p)
        for p in mine:
            with lock:
                held.discard(p)
            pool.free(p)

    ts = [threading.Thread(target=worker, args=(s,)) for s in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert dup == []
    s = pool.stats
    assert s["current_bytes"] == 0 and s["allocs"] == s["frees"]
    pool.close()


def test_panel_bad_choice_is_a_typed_error():
    pytest.importorskip("ipywidgets")
    from umkit.teaching.widgets.panel import StrategyPanel
    with pytest.raises(InvalidArgument, match="memory='bogus'"):
        StrategyPanel(static=True, memory="bogus")
    p = StrategyPanel(static=True)
    with pytest.raises(InvalidArgument, match="memory='bogus'"):
        p.set(memory="bogus")


def test_residency_map_note_must_be_text():
    from umkit.teaching.widgets.residency_map import ResidencyMap
    m = ResidencyMap(umkit.managed(4096), static=True)
    with pytest.raises(InvalidType, match="note=123"):
        m.update(note=123)


def test_the_sim_notice_is_one_short_line_when_no_gpu_is_found(monkeypatch, capsys):
    """Auto-detection on a machine without a GPU says so in one line and points at
    umkit.why() for the long reason, which stays available there."""
    monkeypatch.delenv("UMKIT_BACKEND", raising=False)
    from umkit.backends import registry
    monkeypatch.setattr(registry, "probe", lambda n: (n == "sim", f"{n}: not here"))
    umkit.use()
    out = capsys.readouterr().out.strip()
    assert len(out.splitlines()) == 1 and len(out) < 200 and "umkit.why()" in out
    assert "cuda: not here" in umkit.why()
