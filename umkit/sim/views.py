"""NumPy views that tell the engine what they touch.

``host_view`` and ``device_view`` on the sim backend return a :class:`TrackedView`: an ordinary
NumPy array whose reads and writes (indexing, ufuncs, NumPy functions) are charged to the CPU or
to a GPU before they run.  So ``a.host[:] = 1`` on sim faults pages back exactly where
``a.host[:] = 1`` on a real card would.  Printing (``repr``) is not charged.

Every Python-level way in is checked: indexing, ufuncs (``__array_ufunc__``, including
``ufunc.at``), NumPy functions (``__array_function__``; in-place ones such as ``np.copyto`` and
``np.put`` count as writes), the ndarray methods NumPy does not dispatch (``argmax``, ``dot``,
``nonzero``, ``sort``, ...), iteration, scalar conversion, pickling and copying.  Paths with no
Python hook at all -- ``np.array(v)``, ``bytes(v)``, ``memoryview(v)``, ``rng.random(out=v)``
-- are checked when the view is handed out (``Engine.host_view``).

Paths with no hook are handled where the bytes leave the view's control, while GPU work nobody
has waited for touches them (``RaceDetector.escape``): a host view handed out, or a view derived
from one (``a.host[:n]``, ``h.reshape(...)``, ``h.view(np.ndarray)``), or ``.data``, ``.flat`` and
``.base``, that goes to C code (``np.array(...)``, ``bytes(...)``, ``hashlib``, ``struct``,
``io.BytesIO``) is a read race if that work writes the bytes; writes through it are found from
a checksum of the bytes, compared when the work is waited for.  A view *stored* for later
(``h = a.host``) is live: while it lives, work launched on its allocation is watched the same
way, so a C write through it while a kernel reads -- or writes, whose result the host would
silently overwrite -- is reported at the wait.  A raw address (``.ctypes``,
``__array_interface__``, ``__array_struct__``) is refused (RaceDetected) while such work
touches the bytes, and afterwards the allocation stays watched while it lives.

Not caught: a *read* by C code through a view stored before a launch that writes the bytes
(``h = a.host``; kernel; ``np.array(h)``), or through a raw pointer taken earlier.  NumPy copies
an ndarray in C without calling any Python method, the buffer protocol of an ndarray subclass
cannot be overridden from Python before 3.12 (PEP 688), and a read leaves no trace to compare;
catching it would need ``a.host`` to be a non-ndarray proxy or page protection on the model's
memory.  The same read through any Python path on the stored view (indexing, ufuncs, NumPy
functions, methods, iteration, pickling) is flagged.
"""
from __future__ import annotations

import dis
import sys

import numpy as np

from ..errors import UseAfterFree
from .pages import Access

_CACHE_LINE = 64


# -- what the code does with a view it has just taken (``a.host``) ---------------------------------
_SUBSCRIPT = {"BINARY_SUBSCR", "STORE_SUBSCR", "DELETE_SUBSCR", "BINARY_SLICE", "STORE_SLICE"}
_KEY_OPS = {"LOAD_CONST", "LOAD_NAME", "LOAD_FAST", "LOAD_GLOBAL", "LOAD_DEREF", "LOAD_SMALL_INT",
            "LOAD_FAST_LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_FAST_CHECK", "BUILD_SLICE",
            "BUILD_TUPLE", "UNARY_NEGATIVE", "BINARY_OP", "COPY", "SWAP", "NOP",
            "EXTENDED_ARG", "CACHE"}
_STORE = {"STORE_NAME", "STORE_FAST", "STORE_GLOBAL", "STORE_DEREF"}
_uses: dict = {}


def next_use(frame) -> str:
    """How the code in ``frame`` uses the value its current instruction (``x.host``) produces:
    ``"tracked"`` -- indexed or an attribute taken, paths this view checks precisely;
    ``"kept"`` -- stored in a variable (checked when it is used); ``"unknown"`` -- anything else
    (passed to a function such as ``np.array``/``bytes``/``memoryview``, which may use the
    buffer with no hook: check it now)."""
    if frame is None:
        return "unknown"
    key = (frame.f_code, frame.f_lasti)
    use = _uses.get(key)
    if use is None:
        use = "unknown"
        try:
            ins = [i for i in dis.get_instructions(frame.f_code) if i.opname != "CACHE"]
            at = next(n for n, i in enumerate(ins) if i.offset == frame.f_lasti)
            first = ins[at + 1] if at + 1 < len(ins) else None
            if first is not None and first.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                use = "tracked"
            elif first is not None and first.opname in _STORE:
                use = "kept"
            else:                   # x.host[key] / x.host[key] = v, key built from names
                for i in ins[at + 1:at + 24]:
                    if i.opname in _SUBSCRIPT:
                        use = "tracked"
                        break
                    if i.opname not in _KEY_OPS:
                        break
        except (StopIteration, ValueError, TypeError):
            use = "unknown"
        if len(_uses) > 4096:
            _uses.clear()
        _uses[key] = use
    return use


#: the layers between a learner's ``a.host`` and the simulator: the memory layer (``Array.host``),
#: the backend's argument checks (``@checked``) and the simulator itself (the backend adapter,
#: the engine)
HANDOUT_LAYERS = ("umkit.memory", "umkit.backends.checked", "umkit.sim")


def handout_frame() -> object:
    """The frame that took ``a.host``: the innermost frame outside :data:`HANDOUT_LAYERS` (no
    module of those layers takes ``.host`` itself), or None."""
    f = sys._getframe(1)
    while f is not None:
        mod = f.f_globals.get("__name__", "")
        if not any(mod == p or mod.startswith(p + ".") for p in HANDOUT_LAYERS):
            return f
        f = f.f_back
    return None


class ViewInfo:
    """What a tracked view is a view of: ``alloc`` of ``engine``, seen from ``side`` ("cpu",
    or the GPU's id).  Every view derived from one shares its ViewInfo, so the ViewInfo lives
    exactly as long as some view of that hand-out does (the race detector holds it weakly)."""
    __slots__ = ("engine", "alloc", "side", "__weakref__")

    def __init__(self, engine, alloc, side):
        self.engine, self.alloc, self.side = engine, alloc, side


def tracked_view(data: np.ndarray, engine, alloc, side) -> "TrackedView":
    """``data`` (bytes of ``alloc``) as a :class:`TrackedView` whose accesses ``engine`` charges
    to ``side``: "cpu" or a GPU's id."""
    v = data.view(TrackedView)
    v._umk = info = ViewInfo(engine, alloc, side)
    if side == "cpu":
        with engine.lock:
            engine.detector.view_made(alloc, info)
    return v


def _raw(v: np.ndarray) -> np.ndarray:
    """The plain ndarray over a view's bytes (no check: for this module's own use)."""
    return np.ndarray.view(v, np.ndarray)


def _addr(v: np.ndarray) -> int:
    return np.ndarray.__array_interface__.__get__(v)["data"][0]


def _internal(frame) -> bool:
    """Whether ``frame`` belongs to the memory layer or the simulator (their own views)."""
    mod = frame.f_globals.get("__name__", "") if frame is not None else ""
    return any(mod == p or mod.startswith(p + ".") for p in HANDOUT_LAYERS)


def _escape(v, use, who: str) -> None:
    """The bytes of host view ``v`` reach code that may use them with no hook; ``use()`` says
    how (:func:`next_use`).  Checked against GPU work in flight (RaceDetector.escape)."""
    info = v._umk
    if info is None or info.side != "cpu" or not info.engine.detector.inflight:
        return
    if info.alloc.stale:
        return
    with info.engine.lock:
        pages, _ = _pages(v, info.alloc)
        info.engine.detector.escape(info.alloc, pages, use, who)


def _raw_pointer(v, what: str) -> None:
    """A raw address of host view ``v``'s bytes is handed out (RaceDetector.raw_pointer)."""
    info = v._umk
    if info is None or info.side != "cpu" or info.alloc.stale:
        return
    with info.engine.lock:
        pages, _ = _pages(v, info.alloc)
        info.engine.detector.raw_pointer(info.alloc, pages, what)


def _pages(v: np.ndarray, alloc) -> tuple[np.ndarray, int]:
    hp = alloc.host_page
    start = _addr(v) - alloc.data.__array_interface__["data"][0]
    if v.size == 0:
        return np.zeros(0, dtype=np.intp), 0
    if v.flags.c_contiguous or v.flags.f_contiguous:
        return alloc.page_range(start, start + v.nbytes), v.nbytes
    nbytes = v.size * min(max(v.itemsize, _CACHE_LINE), hp)
    if v.size <= (1 << 22):
        offs = np.full((1,) * v.ndim, start, dtype=np.int64)
        for d, (n, s) in enumerate(zip(v.shape, v.strides)):
            shape = [1] * v.ndim
            shape[d] = n
            offs = offs + (np.arange(n, dtype=np.int64) * s).reshape(shape)
        return np.unique(offs.ravel() // hp).astype(np.intp), nbytes
    lo = start + sum(min(0, (n - 1) * s) for n, s in zip(v.shape, v.strides))
    hi = start + sum(max(0, (n - 1) * s) for n, s in zip(v.shape, v.strides)) + v.itemsize
    return alloc.page_range(lo, hi), nbytes


def _plain(x):
    if isinstance(x, TrackedView):
        return _raw(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(y) for y in x)
    return x


def _collect(x, out: list):
    if isinstance(x, TrackedView) and x._umk is not None:
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for y in x:
            _collect(y, out)


#: host operations that run at memset/memcpy speed (the rest compute over the data, e.g. a sum)
STREAMING = frozenset({"setitem", "fill", "copy", "copyto", "astype", "tobytes", "tolist",
                       "getitem", "array", "asarray", "concatenate", "positive", "negative"})


def charge(reads: list, writes: list, name: str):
    """Charge the accesses of tracked views to the CPU (now) or their GPU (a kernel)."""
    by_side: dict = {}
    for views, write in ((reads, False), (writes, True)):
        for v in views:
            info = v._umk
            if info.alloc.stale:
                raise UseAfterFree(f"{name} through a view of freed memory (allocation "
                                   f"{info.alloc.ptr:#x})",
                                   hint="a view does not keep its array alive: keep the "
                                        "umkit.Array until you are done with its views")
            pages, nbytes = _pages(v, info.alloc)
            by_side.setdefault((id(info.engine), info.side), (info, []))[1].append(
                Access(info.alloc, pages, write, nbytes))
    for info, accs in by_side.values():
        eng = info.engine
        with eng.lock:
            if info.side == "cpu":
                eng.cpu_access(accs, streaming="fill" if name == "fill" else name in STREAMING)
            else:       # a kernel on the GPU's default stream, with no submit of its own
                eng.launch(name, eng.default_stream(info.side), lambda find: (accs, None),
                           submit=None)


def _sync_if_scalar(reads: list, result):
    """A GPU reduction that hands the host a scalar waits for the GPU (as ``float(cupy_x.sum())``
    does): the host can't have the number before the kernel has finished."""
    if np.ndim(result) != 0:
        return
    for v in reads:
        info = v._umk
        if info is not None and info.side != "cpu":
            info.engine.synchronize(info.engine.default_stream(info.side))


#: NumPy functions that write their first argument in place (name -> that argument's keyword)
_INPLACE = {"copyto": "dst", "put": "a", "place": "arr", "putmask": "a",
            "put_along_axis": "arr", "fill_diagonal": "a"}

#: ndarray methods that read the data without dispatching to __array_ufunc__ or
#: __array_function__ (checked against NumPy 2: sum/mean/max/... do dispatch, these don't)
_READERS = ("argmax", "argmin", "argpartition", "argsort", "byteswap", "choose", "compress",
            "conj", "conjugate", "dot", "dump", "dumps", "flatten", "getfield", "nonzero",
            "repeat", "searchsorted", "take", "tofile")
#: ... and the ones that write it in place
_WRITERS = ("partition", "put", "setfield", "sort")


def _method(name: str, write: bool):
    m = getattr(np.ndarray, name)

    def checked(self, *args, **kwargs):
        if self._umk is not None:
            others: list = []
            _collect(args, others)
            _collect(tuple(kwargs.values()), others)
            if write or (name == "byteswap" and (args[:1] == (True,) or kwargs.get("inplace"))):
                charge(others, [self], name)
            else:
                charge([self] + others, [], name)
        return m(_raw(self), *_plain(args), **{k: _plain(v) for k, v in kwargs.items()})
    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = m.__doc__
    return checked


class TrackedView(np.ndarray):
    def __array_finalize__(self, obj):
        info = self._umk = getattr(obj, "_umk", None)
        # a view derived by the learner's code (h.reshape(...), h.T, ...) while GPU work is in
        # flight: where it goes next decides whether C code may use its bytes with no hook
        if info is not None and info.side == "cpu" and info.engine.detector.inflight:
            f = sys._getframe(1)
            if not _internal(f):
                _escape(self, lambda: next_use(f), "the host (a view derived from a.host)")

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kw):
        reads: list = []
        writes: list = []
        if method == "at":                       # np.add.at(x, idx, v) writes x in place
            _collect(inputs[:1], writes)
            _collect(inputs[1:], reads)
        else:
            _collect(inputs, reads)
        if out is not None:
            _collect(out, writes)
            kw["out"] = tuple(_plain(o) for o in out)
        charge(reads, writes, f"{ufunc.__name__}.{method}" if method != "__call__" else ufunc.__name__)
        result = getattr(ufunc, method)(*_plain(inputs), **kw)
        if out is not None:
            return out[0] if len(out) == 1 else out
        _sync_if_scalar(reads, result)
        return result

    def __array_function__(self, func, types, args, kwargs):
        reads: list = []
        writes: list = []
        target = _INPLACE.get(func.__name__) if func.__module__.startswith("numpy") else None
        if target is not None and args:          # np.copyto(dst, ...), np.put(a, ...): writes
            _collect(args[:1], writes)
            args_read = args[1:]
        elif target is not None and target in kwargs:
            _collect(kwargs[target], writes)
            args_read = args
        else:
            target, args_read = None, args
        _collect(args_read, reads)
        _collect(tuple(v for k, v in kwargs.items() if k != "out" and k != target), reads)
        if "out" in kwargs:
            _collect(kwargs["out"], writes)
        charge(reads, writes, func.__name__)
        orig_out = kwargs.get("out")
        kwargs = {k: _plain(v) for k, v in kwargs.items()}
        result = func(*_plain(args), **kwargs)
        if orig_out is None:
            _sync_if_scalar(reads, result)
        return orig_out if isinstance(orig_out, TrackedView) else result

    def __getitem__(self, key):
        r = super().__getitem__(key)
        if isinstance(r, np.ndarray) and r.size and np.shares_memory(_raw(r), _raw(self)):
            # a view: nothing read yet -- unless it goes on to C code (np.array(a.host[:n]))
            if self._umk is not None and self._umk.side == "cpu" \
                    and self._umk.engine.detector.inflight:
                f = sys._getframe(1)
                if not _internal(f):
                    _escape(r, lambda: next_use(f), "the host (a slice of a.host)")
            return r
        if self._umk is not None:
            target = self._target(key)
            if target is not None:
                charge([target], [], "getitem")
        return _raw(r) if isinstance(r, np.ndarray) else r

    def __setitem__(self, key, value):
        reads: list = []
        _collect(value, reads)
        if self._umk is not None:
            target = self._target(key)
            # a scalar stored into a range is a memset (a fill); an array is a memcpy
            charge(reads, [target] if target is not None else [],
                   "fill" if np.ndim(value) == 0 else "setitem")
        np.ndarray.__setitem__(_raw(self), key, _plain(value))

    def _target(self, key):
        """The view of self that ``key`` addresses (whole self for fancy indexing)."""
        try:
            t = np.ndarray.__getitem__(self, key)
        except Exception:
            return self
        if isinstance(t, np.ndarray) and np.shares_memory(_raw(t), _raw(self)):
            return t
        if not isinstance(t, np.ndarray):               # a scalar: its own address
            try:
                idx = key if isinstance(key, tuple) else (key,)
                if len(idx) == self.ndim and all(isinstance(i, (int, np.integer)) for i in idx):
                    sl = tuple(slice(int(i) % n, int(i) % n + 1) for i, n in zip(idx, self.shape))
                    return np.ndarray.__getitem__(self, sl)
            except Exception:
                pass
        return self                                      # fancy index: charge the whole view

    # ndarray methods that read or write without going through indexing or ufuncs
    def fill(self, value):
        if self._umk is not None:
            charge([], [self], "fill")
        _raw(self).fill(value)

    def copy(self, order="C"):
        if self._umk is not None:
            charge([self], [], "copy")
        return _raw(self).copy(order)

    def tolist(self):
        if self._umk is not None:
            charge([self], [], "tolist")
        return _raw(self).tolist()

    def tobytes(self, order="C"):
        if self._umk is not None:
            charge([self], [], "tobytes")
        return _raw(self).tobytes(order)

    def astype(self, dtype, *args, **kwargs):
        if self._umk is not None:
            charge([self], [], "astype")
        return _raw(self).astype(dtype, *args, **kwargs)

    def item(self, *args):
        if self._umk is not None:
            charge([self._target(args if len(args) != 1 else args[0]) if args else self], [], "item")
        return _raw(self).item(*args)

    for _n in _READERS:
        locals()[_n] = _method(_n, False)
    for _n in _WRITERS:
        locals()[_n] = _method(_n, True)
    del _n

    # the ways to the bytes that no Python hook follows
    def view(self, *args, **kwargs):
        r = np.ndarray.view(self, *args, **kwargs)
        if self._umk is not None:
            f = sys._getframe(1)
            if not _internal(f):
                plain = not isinstance(r, TrackedView)
                _escape(self, (lambda: "unknown") if plain else (lambda: next_use(f)),
                        "the host (a.host.view(...))")
        return r

    @property
    def data(self):
        _escape(self, lambda: "unknown", "the host (a.host.data, a memoryview)")
        return np.ndarray.data.__get__(self)

    @property
    def flat(self):
        _escape(self, lambda: "unknown", "the host (a.host.flat)")
        return np.ndarray.flat.__get__(self)

    @flat.setter
    def flat(self, value):
        if self._umk is not None:
            reads: list = []
            _collect(value, reads)
            charge(reads, [self], "fill" if np.ndim(value) == 0 else "setitem")
        np.ndarray.flat.__set__(_raw(self), _plain(value))

    @property
    def base(self):
        _escape(self, lambda: "unknown", "the host (a.host.base)")
        return np.ndarray.base.__get__(self)

    @property
    def ctypes(self):
        _raw_pointer(self, "a.host.ctypes")
        return np.ndarray.ctypes.__get__(self)

    @property
    def __array_interface__(self):
        _raw_pointer(self, "a.host.__array_interface__")
        return np.ndarray.__array_interface__.__get__(self)

    @property
    def __array_struct__(self):
        _raw_pointer(self, "a.host.__array_struct__")
        return np.ndarray.__array_struct__.__get__(self)

    def _read_all(self, what: str):
        if self._umk is not None:
            charge([self], [], what)
        return _raw(self)

    # iteration, scalar conversion, copying and pickling read the data too
    def __iter__(self):
        return iter(self._read_all("iter"))

    def __bool__(self):
        return bool(self._read_all("bool"))

    def __float__(self):
        return float(self._read_all("float"))

    def __int__(self):
        return int(self._read_all("int"))

    def __index__(self):
        return self._read_all("index").__index__()

    def __complex__(self):
        return complex(self._read_all("complex"))

    def __copy__(self):
        return self._read_all("copy").copy()

    def __deepcopy__(self, memo=None):
        return self._read_all("deepcopy").copy()

    def __reduce_ex__(self, protocol):
        return self._read_all("pickle").__reduce_ex__(protocol)

    def __repr__(self):
        return "Tracked" + repr(_raw(self))

    def __str__(self):
        return str(_raw(self))

    def __reduce__(self):
        return self._read_all("pickle").__reduce__()
