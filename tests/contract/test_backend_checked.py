"""The backend object (``umkit.backend()``) checks what its methods are given: every contract
method, each argument in turn replaced by each hostile plain value, answers with a umkit error
or a result -- never a raw AssertionError, TypeError or AttributeError out of a backend's
inside, never a hang.  Every backend class is decorated (:func:`umkit.backends.checked.checked`)."""
from __future__ import annotations

import inspect
import signal
from pathlib import Path

import numpy as np
import pytest

import umkit
from umkit.backends import checked as C
from umkit.backends.contract import UserKernel
from umkit.backends.gpu import GPUBackend, RuntimeAdapter
from umkit.errors import BackendUnavailable, InvalidArgument, InvalidType, UmkitError

HOSTILE = [None, True, False, 0, 1, -1, 7, 2**64, 10**400, -2**63, 0.5, -0.0, float("nan"),
           float("inf"), 1e308, "", "gpu", "cpu", "x" * 5000, "\x1b[31m\n", "\udcff", [], [1, 2],
           {}, (), b"", b"\xff", np.int64(3), np.float32("nan"), np.array([1, 2]), Path("/"),
           object(), 3 + 4j]


def _good(b) -> dict:
    """Valid values for every argument name of the contract's methods, on backend ``b``."""
    p = b.malloc(1 << 16, "managed", 0)
    s = b.stream_create(0)
    e1, e2 = b.event_create(0), b.event_create(0)
    b.event_record(e1, s)
    b.event_record(e2, s)
    return dict(device=0, nbytes=4096, kind="managed", ptr=p, to=umkit.gpu(0),
                where=umkit.gpu(0), advice="read_mostly", unset=False, stream=s, what=s,
                event=e1, start=e1, end=e2, dst=p, src=p, host=np.zeros(1 << 16, np.uint8),
                to_array=True, kernel="fill_kernel", grid=1, block=64, args=(p, 1.0, 16),
                on=False, stamps=None, last=3, feature="trace", owner=None,
                k=UserKernel("k", None, lambda *a: None, 1, 1, ()))


def _on_alarm(signum, frame):
    raise TimeoutError("hang")


@pytest.mark.parametrize("method", sorted(C.ARGUMENTS))
def test_hostile_plain_values_give_typed_errors(method, fresh_sim):
    signal.signal(signal.SIGALRM, _on_alarm)
    untyped = []
    b = umkit.backend()
    params = list(inspect.signature(getattr(b, method)).parameters)
    for name in params[:len(C.ARGUMENTS[method])]:
        for value in HOSTILE:
            good = _good(b)                     # fresh: a call may have freed or destroyed one
            kw = {q: good.get(q) for q in params}
            kw[name] = value
            signal.alarm(10)
            try:
                getattr(b, method)(**kw)
            except (InvalidArgument, InvalidType) as e:
                assert e.argument == name or name in str(e), (method, name, value, e)
            except UmkitError:
                pass
            except BaseException as e:      # noqa: BLE001 - the point: nothing else comes out
                untyped.append(f"{method}({name}={value!r:.20}): {type(e).__name__}: {e!s:.80}")
            finally:
                signal.alarm(0)
    assert not untyped, untyped


def test_what_was_seen_untyped_before(fresh_sim):
    b = umkit.backend()
    with pytest.raises(InvalidType) as e:
        b.synchronize(1)
    assert e.value.argument == "what"
    with pytest.raises(InvalidType) as e:
        b.trace(last=0.5)
    assert e.value.argument == "last"
    with pytest.raises(InvalidType):
        b.stream_destroy(None)                  # the default stream is not destroyed
    p = b.malloc(4096, "managed", 0)
    with pytest.raises(InvalidArgument) as e:
        b.advise(p, 4096, "preferred_location", None, False)
    assert e.value.argument == "where"
    with pytest.raises(InvalidArgument) as e:
        b.launch("fill_kernel", 1, 64, (p, 1.0), None)     # fill_kernel takes three
    assert e.value.argument == "args"
    with pytest.raises(InvalidType):
        b.launch("fill_kernel", 1, 64, (p, "1.0", 16), None)
    with pytest.raises(InvalidArgument) as e:
        b.memcpy_pageable(p, np.zeros(16, np.uint8), 4096, True, None)
    assert e.value.argument == "nbytes"
    b.advise(p, 4096, "read_mostly", None, False)           # no location needed: accepted
    assert b.range_attributes(p, 4096)["read_mostly"] is True


class _Runtime(RuntimeAdapter):
    """A stand-in runtime that fails the test if the backend ever reaches it."""
    name = "cuda"

    def call(self, cuda_name, *args):
        if cuda_name == "cudaGetDeviceCount":
            return 1
        raise AssertionError(f"reached the runtime: {cuda_name}{args}")


@pytest.mark.parametrize("call", [
    lambda b: b.synchronize(1), lambda b: b.memcpy(-1, 0, 16, None),
    lambda b: b.memcpy(0, 0, "16", None), lambda b: b.event_record(7, None),
    lambda b: b.stream_destroy(0), lambda b: b.device_name(3), lambda b: b.malloc(0, "managed", 0),
    lambda b: b.launch("fill_kernel", 0, 64, (0, 1.0, 16), None),
    lambda b: b.prefetch(1 << 20, 16, "moon", None), lambda b: b.free(2**64, None),
])
def test_a_gpu_backend_refuses_bad_values_before_the_runtime_sees_them(call):
    """On a GPU a bad handle or address reaching the runtime is undefined behaviour (a stream
    handle of 1, a host address of -1): refused first, typed."""
    with pytest.raises((InvalidArgument, InvalidType)):
        call(GPUBackend(_Runtime()))


def test_a_feature_the_backend_lacks_is_a_typed_error():
    b = GPUBackend(_Runtime())
    for method in ("trace", "snapshot", "now", "model_profile"):
        with pytest.raises(BackendUnavailable):
            getattr(b, method)(*([0] if method == "snapshot" else []))


def test_every_backend_class_is_checked():
    from umkit.backends.cuda import CudaBackend
    from umkit.backends.hip import HipBackend
    from umkit.sim.backend import SimBackend
    for cls in (SimBackend, GPUBackend, CudaBackend, HipBackend):
        assert C.is_checked(cls), cls
    # the table covers every method of the four protocols that takes an argument
    from umkit.backends import contract
    for proto in (contract.DeviceQueries, contract.Memory, contract.Migration,
                  contract.Execution, contract.Instrumented):
        for name, fn in vars(proto).items():
            if callable(fn) and not name.startswith("_") and \
                    len(inspect.signature(fn).parameters) > 1:
                assert name in C.ARGUMENTS, name


class _Knows(RuntimeAdapter):
    """A stand-in runtime: one allocation umkit made at 0x10000 (64 KiB), addresses the
    runtime knows (``known``), and the calls that reached it."""
    name = "cuda"
    oversubscription_guard = False

    def __init__(self, known=()):
        self.known, self.calls = set(known), []

    def holds(self, ptr):
        return ptr in self.known

    def call(self, cuda_name, *args):
        self.calls.append(cuda_name)
        if cuda_name in ("cudaStreamCreate", "cudaEventCreate"):
            return 0x5000 + len(self.calls)
        return {"cudaGetDeviceCount": 1, "cudaGetDevice": 0,
                "cudaMallocManaged": 0x10000}.get(cuda_name)

    def value(self, cuda_name):
        return 4

    def cupy(self):
        raise AssertionError("a refused call built a view")


def _gpu_with_allocation(known=()):
    b = GPUBackend(_Knows(known))
    assert b.malloc(1 << 16, "managed", 0) == 0x10000
    return b


@pytest.mark.parametrize("call, argument", [
    (lambda b: b.memcpy(7, 0x10000, 16, None), "dst"),
    (lambda b: b.memcpy(0x10000, 0xdead0000, 16, None), "src"),
    (lambda b: b.host_view(0x7fff0000, 16), "ptr"),
    (lambda b: b.device_view(0x7fff0000, 16, 0), "ptr"),
    (lambda b: b.memcpy(0x10000, 0x10000 + 1024, 1 << 16, None), "nbytes"),   # past the end
    (lambda b: b.host_view(0x10000 + 8, 1 << 16), "nbytes"),
    (lambda b: b.memcpy_pageable(0x20000, np.zeros(16, np.uint8), 16, True, None), "ptr"),
])
def test_a_gpu_backend_refuses_an_address_that_is_no_memory_of_the_process(call, argument):
    """A CPU view of an arbitrary address is a segmentation fault, a copy to one a crash or a
    sticky GPU error: an address outside umkit's allocations that the runtime does not know is
    refused, typed, before the runtime sees it."""
    b = _gpu_with_allocation()
    with pytest.raises(InvalidArgument) as e:
        call(b)
    assert e.value.argument == argument
    assert "cudaMemcpyAsync" not in b.rt.calls


def test_memory_the_runtime_knows_passes_to_it():
    """A PyTorch tensor's memory is not umkit's allocation, but the runtime knows it."""
    b = _gpu_with_allocation(known={0x7fff0000})
    b.memcpy(0x7fff0000, 0x10000, 16, None)
    b.memcpy(0x10000 + 16, 0x10000, 16, None)               # inside the allocation
    assert b.rt.calls.count("cudaMemcpyAsync") == 2


def test_at9_what_an_independent_attacker_found(fresh_sim):
    """AT9: a kernel launched on more elements than its array holds (an IndexError inside the
    model; on a GPU a write past the array), a copy into a read-only array, a view past the
    end (silently shortened), the default stream destroyed, a destroyed stream used,
    charge_host given a list, a negative count."""
    b = umkit.backend()
    p = b.malloc(4096, "managed", 0)
    with pytest.raises(InvalidArgument) as e:
        b.launch("increment_kernel", 1, 1, (p, 2048), None)
    assert e.value.argument == "args"
    with pytest.raises(InvalidArgument):
        b.launch("fill_kernel", 1, 1, (p + 4000, 1.0, 100), None)
    b.launch("fill_kernel", 1, 1, (p, 1.0, 1024), None)             # exactly the array: fine
    with pytest.raises(InvalidArgument) as e:
        b.launch("increment_kernel", 1, 1, (p, -5), None)
    assert e.value.argument == "args[1]"
    ro = np.zeros(4096, np.uint8)
    ro.flags.writeable = False
    with pytest.raises(InvalidArgument) as e:
        b.memcpy_pageable(p, ro, 4096, False, None)
    assert e.value.argument == "host"
    b.memcpy_pageable(p, ro, 4096, True, None)                      # reading it is fine
    for view in (lambda: b.host_view(p, 8192), lambda: b.device_view(p + 4000, 1 << 20, 0)):
        with pytest.raises(InvalidArgument) as e:
            view()
        assert e.value.argument == "nbytes"
    with pytest.raises(InvalidArgument):
        b.stream_destroy(b.default_stream(0))
    s = b.stream_create(0)
    b.stream_destroy(s)
    for use in (lambda: b.stream_destroy(s), lambda: b.prefetch(p, 4096, umkit.gpu(0), s)):
        with pytest.raises(InvalidArgument) as e:
            use()
        assert e.value.argument == "stream"
    with pytest.raises(InvalidType) as e:
        b.charge_host([])
    assert e.value.argument == "key"


def test_a_gpu_launch_on_more_elements_than_the_array_is_refused():
    b = _gpu_with_allocation()
    with pytest.raises(InvalidArgument) as e:
        b.launch("increment_kernel", 1, 64, (0x10000, (1 << 14) + 1), None)
    assert e.value.argument == "args"


def test_at10_handles_spans_and_launch_limits(fresh_sim):
    """AT10: retire at an interior address retired the whole allocation; events worked after
    event_destroy; handles of another sim backend were taken; an object-dtype host array, a
    block of 2**31-1 threads, a float32 fill beyond its range, an unaligned read_kernel."""
    b = umkit.backend()
    p = b.malloc(4096, "managed", 0)
    with pytest.raises(InvalidArgument) as e:
        b.retire(p + 100)
    assert e.value.argument == "ptr"
    s = b.stream_create(0)
    ev = b.event_create(0)
    b.event_record(ev, s)
    b.event_destroy(ev)
    for use in (lambda: b.event_record(ev, s), lambda: b.event_destroy(ev),
                lambda: b.synchronize(ev), lambda: b.event_elapsed_ms(ev, ev)):
        with pytest.raises(InvalidArgument):
            use()
    other = umkit.use("sim", quiet=True)
    q = other.malloc(4096, "managed", 0)
    with pytest.raises(InvalidArgument) as e:
        other.launch("fill_kernel", 1, 64, (q, 1.0, 4), b.default_stream(0))
    assert e.value.argument == "stream"
    with pytest.raises(InvalidArgument):
        other.event_record(b.event_create(0), None)
    with pytest.raises(InvalidType) as e:
        other.memcpy_pageable(q, np.array([object()] * 2), 16, True, None)
    assert e.value.argument == "host"
    for args, block in (((q, 1.0, 4), 2048), ((q, 1e308, 4), 64)):
        with pytest.raises(InvalidArgument):
            other.launch("fill_kernel", 1, block, args, None)
    with pytest.raises(InvalidArgument):
        other.launch("read_kernel", 1, 64, (q + 4, 4, q), None)


def test_a_gpu_stream_or_event_is_never_used_after_it_is_destroyed():
    b = _gpu_with_allocation()
    s, ev = b.stream_create(0), b.event_create(0)
    b.stream_destroy(s)
    b.event_destroy(ev)
    made = len(b.rt.calls)
    for use in (lambda: b.stream_destroy(s), lambda: b.synchronize(s),
                lambda: b.memcpy(0x10000, 0x10000, 16, s), lambda: b.event_record(ev, None),
                lambda: b.event_destroy(ev), lambda: b.synchronize(ev),
                lambda: b.stream_destroy(b.default_stream(0))):
        with pytest.raises(InvalidArgument):
            use()
    reached = [c for c in b.rt.calls[made:] if c not in ("cudaGetDeviceCount", "cudaGetDevice")]
    assert reached == []                    # only device queries: no handle reached the runtime


def test_at11_launch_size_kind_interior_and_dlpack(fresh_sim):
    """AT11: a one-element-per-thread kernel launched on fewer threads than n changed every
    element on sim (on a GPU the rest stay as they were); free with another kind, a residency
    map of an interior address and a free of one were taken or misnamed; memcpy's range error
    named no argument; the sim's __dlpack__ passed its arguments to NumPy unchecked."""
    b = umkit.backend()
    p = b.malloc(4096, "managed", 0)
    b.launch("fill_kernel", 1, 64, (p, 0.0, 1024), None)
    b.launch("increment_kernel", 1, 1, (p, 1024), None)            # one thread: one element
    b.synchronize(None)
    v = b.host_view(p, 4096).view(np.float32)
    assert v[0] == 1.0 and v[1] == 0.0 and v[1023] == 0.0
    with pytest.raises(InvalidArgument) as e:
        b.free(p, "pinned")
    assert e.value.argument == "kind"
    for call in (lambda: b.snapshot(p + 8), lambda: b.free(p + 8)):
        with pytest.raises(InvalidArgument) as e:
            call()
        assert e.value.argument == "ptr"
    q = b.malloc(64, "managed", 0)
    with pytest.raises(InvalidArgument) as e:
        b.memcpy(p, q, 2**31, None)
    assert e.value.argument == "nbytes"
    a = umkit.managed(16)
    for kw in (dict(stream=0), dict(copy=""), dict(dl_device=True), dict(max_version=0)):
        with pytest.raises((InvalidArgument, InvalidType)):
            a.__dlpack__(**kw)
    with pytest.raises(umkit.errors.DLPackUnsupported):
        a.__dlpack__(dl_device=(2, 0))
