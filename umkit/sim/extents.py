"""Page state as extents: runs of pages in the same state, and sets of pages as ranges.

Model-only sim (``umkit.use("sim", compute=False)``) keeps every per-page table of an allocation
(residency, advice, ...) as :class:`Runs` -- the starts of runs of equal values and those
values -- and the pages an operation touches as a :class:`PageSet` of ``[lo, hi)`` ranges.  A
sweep over a 1 TiB range is then a handful of runs; a sparse stride makes one run per touched
page, and costs accordingly.

Both types answer the NumPy operations the engine's parts use -- ufuncs (``&``, ``|``, ``~``,
comparisons, ``np.where``), ``np.count_nonzero``, ``np.unique``, ``np.intersect1d``,
``.any()``/``.all()``/``.sum()``, indexing and assignment -- with work that grows with the
number of runs, and they give the same values as the dense NumPy tables would.  Indexing a
:class:`Runs` by a :class:`PageSet` or a slice gives :class:`Runs`; by a NumPy index array, a
NumPy array (so small scratch work stays dense).  Any other operation converts them to plain
NumPy arrays first (its cost is then per page, its answer still right).
"""
from __future__ import annotations

import numpy as np

_I = np.int64
_EMPTY = np.zeros(0, dtype=_I)
#: reductions whose answer depends only on which values occur (not how often)
_IDEMPOTENT = (np.bitwise_and, np.bitwise_or, np.logical_and, np.logical_or, np.maximum,
               np.minimum)


def _dense(x):
    """``x`` with every Runs/PageSet in it (also inside lists, tuples, dicts) made a NumPy array."""
    if isinstance(x, (Runs, PageSet)):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_dense(y) for y in x)
    if isinstance(x, dict):
        return {k: _dense(v) for k, v in x.items()}
    return x


def union_sorted(arrays) -> np.ndarray:
    """``np.unique(np.concatenate(arrays))`` for arrays that are each sorted (run starts, range
    bounds): a merge sort of the sorted pieces and one pass dropping repeats (np.unique hashes
    its input first: seconds for millions of values)."""
    x = np.concatenate(arrays)
    if x.size < 2:
        return x
    x.sort(kind="stable")
    keep = np.empty(x.size, dtype=bool)
    keep[0] = True
    np.not_equal(x[1:], x[:-1], out=keep[1:])
    return x if keep.all() else x[keep]


def _norm(s: np.ndarray, v: np.ndarray, n: int) -> "Runs":
    """Runs with starts ``s`` and values ``v``, neighbours of equal value merged."""
    if v.size > 1:
        keep = np.empty(v.size, dtype=bool)
        keep[0] = True
        np.not_equal(v[1:], v[:-1], out=keep[1:])
        if not keep.all():
            s, v = s[keep], v[keep]
    return Runs(s, v, n)


def _align(items):
    """The common run starts of the Runs in ``items`` and each item's values on them (scalars
    stay scalars)."""
    runs = [x for x in items if isinstance(x, Runs)]
    u = runs[0].s
    if any(r.s is not u and (r.s.size != u.size or not np.array_equal(r.s, u))
           for r in runs[1:]):
        u = union_sorted([r.s for r in runs])
    vals = [x if not isinstance(x, Runs) else x.v if x.s.size == u.size else x.at(u)
            for x in items]
    return u, vals


class Runs:
    """A length-``n`` array stored as runs: ``s`` (int64 run starts, ``s[0] == 0``, strictly
    increasing) and ``v`` (each run's value; neighbouring runs differ)."""

    __slots__ = ("s", "v", "n")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, s: np.ndarray, v: np.ndarray, n: int):
        self.s, self.v, self.n = s, v, int(n)

    @classmethod
    def full(cls, n: int, value, dtype) -> "Runs":
        k = 1 if n else 0
        return cls(np.zeros(k, dtype=_I), np.full(k, value, dtype=dtype), n)

    @classmethod
    def from_dense(cls, x) -> "Runs":
        x = np.asarray(x).reshape(-1)
        if x.size == 0:
            return cls(_EMPTY, x.copy(), 0)
        s = np.concatenate(([0], np.flatnonzero(x[1:] != x[:-1]) + 1)).astype(_I)
        return cls(s, x[s], x.size)

    # -- what an array has -------------------------------------------------------------------
    @property
    def size(self) -> int:
        return self.n

    @property
    def shape(self) -> tuple:
        return (self.n,)

    ndim = 1

    @property
    def dtype(self):
        return self.v.dtype

    @property
    def runs(self) -> int:
        """How many runs it holds."""
        return int(self.s.size)

    def __len__(self) -> int:
        return self.n

    def lengths(self) -> np.ndarray:
        return np.diff(np.append(self.s, self.n))

    def at(self, pos) -> np.ndarray:
        """The values at positions ``pos`` (an int array, each in [0, n))."""
        return self.v[np.searchsorted(self.s, pos, "right") - 1]

    def __array__(self, dtype=None, copy=None):
        out = np.repeat(self.v, self.lengths())
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        return f"Runs(n={self.n}, runs={self.s.size}, dtype={self.v.dtype})"

    def copy(self) -> "Runs":
        return Runs(self.s.copy(), self.v.copy(), self.n)

    def astype(self, dtype) -> "Runs":
        return _norm(self.s, self.v.astype(dtype), self.n)

    def any(self) -> bool:
        return bool(self.v.any())

    def all(self) -> bool:
        return bool(self.v.all())

    def sum(self):
        """The sum, of the dtype NumPy's sum of the dense array has (integers and booleans)."""
        kind = np.zeros(1, dtype=self.v.dtype).sum().dtype
        if kind.kind not in "iub":
            return np.asarray(self).sum()
        return (self.v.astype(kind) * self.lengths().astype(kind)).sum(dtype=kind)

    def count_nonzero(self) -> int:
        return int(self.lengths()[self.v != 0].sum())

    def count_with(self, bits) -> int:
        """How many positions have any of ``bits`` set: ``count_nonzero(x & bits)`` without
        building the intermediate runs."""
        hit = (self.v & bits) != 0
        return int(self.lengths()[hit].sum()) if hit.any() else 0

    def true_set(self) -> "PageSet":
        """The positions of the non-zero values, as ranges."""
        keep = self.v != 0
        ends = np.append(self.s[1:], self.n)
        return PageSet(self.s[keep], ends[keep])

    # -- NumPy's protocols --------------------------------------------------------------------
    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        if method == "__call__" and ufunc.nout == 1 and "out" not in kw:
            n, ok = None, True
            for x in inputs:
                if isinstance(x, Runs):
                    ok &= n is None or x.n == n
                    n = x.n
                elif isinstance(x, (PageSet, list, tuple)) or np.ndim(x) > 0:
                    ok = False
            if ok and n:
                u, vals = _align(inputs)
                return _norm(u, ufunc(*vals, **kw), n)
        if method == "reduce" and len(inputs) == 1 and isinstance(inputs[0], Runs) and \
                inputs[0].n and not (set(kw) - {"axis"}) and kw.get("axis", 0) in (0, None):
            r = inputs[0]
            if ufunc in _IDEMPOTENT:
                return ufunc.reduce(r.v)
        if "out" in kw and any(isinstance(o, Runs) for o in kw["out"]):
            return NotImplemented
        return getattr(ufunc, method)(*_dense(inputs), **_dense(kw))

    def __array_function__(self, func, types, args, kwargs):
        h = _FUNCTIONS.get(func)
        if h is not None:
            r = h(*args, **kwargs)
            if r is not NotImplemented:
                return r
        return func(*_dense(args), **_dense(kwargs))

    # -- indexing ------------------------------------------------------------------------------
    def __getitem__(self, key):
        if isinstance(key, PageSet):
            return self._gather(key)
        if isinstance(key, slice):
            lo, hi, st = key.indices(self.n)
            if st == 1:
                return self._gather(PageSet.span(lo, max(lo, hi)))
        elif isinstance(key, Runs) and key.n == self.n and key.dtype == bool:
            return self._compress(key)
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            k = int(key) + (self.n if key < 0 else 0)
            if not 0 <= k < self.n:
                raise IndexError(f"index {int(key)} is out of bounds for size {self.n}")
            return self.v[np.searchsorted(self.s, k, "right") - 1]
        elif isinstance(key, np.ndarray) and key.ndim == 1:
            if key.dtype == bool:
                key = np.flatnonzero(key)
            if key.dtype.kind in "iu":
                if key.size and (int(key.min()) < 0 or int(key.max()) >= self.n):
                    raise IndexError(f"an index is out of bounds for size {self.n}")
                return self.at(key)
        return np.asarray(self)[_dense(key)]

    def __setitem__(self, key, value):
        if isinstance(key, slice):
            lo, hi, st = key.indices(self.n)
            key = PageSet.span(lo, max(lo, hi)) if st == 1 else np.arange(lo, hi, st)
        elif isinstance(key, Runs) and key.n == self.n and key.dtype == bool:
            if not (isinstance(value, (Runs, np.ndarray)) and np.ndim(value) > 0):
                key = key.true_set()
            else:
                key = np.flatnonzero(np.asarray(key))
        elif isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            k = int(key) + (self.n if key < 0 else 0)
            key = PageSet.span(k, k + 1)
        if isinstance(key, np.ndarray) and key.ndim == 1:
            if key.dtype == bool:
                key = np.flatnonzero(key)
            if key.size < 2 or bool((key[1:] > key[:-1]).all()):
                if isinstance(value, np.ndarray) and value.ndim == 1 and value.size == key.size:
                    value = Runs.from_dense(value)
                key = PageSet.from_sorted(key)
        if not isinstance(key, PageSet):
            d = np.asarray(self)
            d[_dense(key)] = _dense(value)
            r = Runs.from_dense(d)
            self.s, self.v = r.s, r.v
            return
        if isinstance(value, np.ndarray) and value.ndim == 1 and value.size == key.size \
                and key.size != 1:
            value = Runs.from_dense(value)
        elif isinstance(value, np.ndarray) and value.ndim <= 1 and value.size == 1:
            value = value.reshape(-1)[0]
        self._scatter(key, value)

    def _gather(self, ps: "PageSet") -> "Runs":
        if ps.size == 0:
            return Runs(_EMPTY, self.v[:0].copy(), 0)
        if ps.hi[-1] > self.n:
            raise IndexError(f"pages up to {int(ps.hi[-1])} are out of bounds for size {self.n}")
        lo, hi, cum = ps.lo, ps.hi, ps.cum
        a = np.searchsorted(self.s, lo[0], "right")
        b = np.searchsorted(self.s, hi[-1], "left")
        t = self.s[a:b]
        if t.size:
            i = np.searchsorted(lo, t, "right") - 1
            inside = (t < hi[i]) & (t > lo[i])
            t, i = t[inside], i[inside]
        if t.size == 0:
            return _norm(cum.copy(), self.at(lo), ps.size)
        tab = np.concatenate((lo, t))
        out = np.concatenate((cum, cum[i] + t - lo[i]))
        order = np.argsort(out, kind="stable")
        return _norm(out[order], self.at(tab[order]), ps.size)

    def _scatter(self, ps: "PageSet", value) -> None:
        if ps.size == 0:
            return
        n = self.n
        lo, hi, cum = ps.lo, ps.hi, ps.cum
        if hi[-1] > n or lo[0] < 0:
            raise IndexError(f"pages up to {int(hi[-1])} are out of bounds for size {n}")
        lo0, hi1 = lo[0], hi[-1]
        a = np.searchsorted(self.s, lo0, "left")
        b = np.searchsorted(self.s, hi1, "right")
        parts = [self.s[a:b], lo, hi[hi < n]]
        if isinstance(value, Runs):
            if value.n != ps.size:
                raise ValueError(f"cannot assign {value.n} values to {ps.size} pages")
            vi = np.searchsorted(cum, value.s, "right") - 1
            parts.append(lo[vi] + value.s - cum[vi])
        bnd = union_sorted(parts)
        bnd = bnd[bnd < n]
        i = np.searchsorted(lo, bnd, "right") - 1
        inps = (i >= 0) & (bnd < hi[np.maximum(i, 0)])
        vals = self.at(bnd).copy()
        if isinstance(value, Runs):
            ii = i[inps]
            vals[inps] = value.at(cum[ii] + bnd[inps] - lo[ii]).astype(vals.dtype, copy=False)
        else:
            vals[inps] = value
        r = _norm(np.concatenate((self.s[:a], bnd, self.s[b:])),
                  np.concatenate((self.v[:a], vals, self.v[b:])), n)
        self.s, self.v = r.s, r.v

    def _compress(self, mask: "Runs") -> "Runs":
        u, (v, m) = _align([self, mask])
        lens = np.diff(np.append(u, self.n))
        keep = m.astype(bool)
        lk = lens[keep]
        if lk.size == 0:
            return Runs(_EMPTY, v[:0].copy(), 0)
        return _norm(np.concatenate(([0], np.cumsum(lk)[:-1])).astype(_I), v[keep], int(lk.sum()))

    def window_counts(self, edges) -> np.ndarray:
        """How many non-zero values lie in each window [edges[i], edges[i + 1]) (edges sorted,
        each in [0, n])."""
        nz = (self.v != 0).astype(_I)
        before = np.concatenate(([0], np.cumsum(nz * self.lengths())))     # before run j
        e = np.asarray(edges, dtype=_I)
        j = np.searchsorted(self.s, np.clip(e - 1, 0, None), "right") - 1
        upto = np.where(e > 0, before[j] + nz[j] * (e - self.s[j]), 0)    # in [0, e)
        return np.diff(upto)

    def __bool__(self) -> bool:
        if self.n != 1:
            raise ValueError("the truth value of a Runs of more than one value is ambiguous: "
                             "use .any() or .all()")
        return bool(self.v[0])


def _op(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(other, self)
    return lambda self, other: ufunc(self, other)


for _name, _uf in (("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor),
                   ("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("floordiv", np.floor_divide), ("truediv", np.true_divide)):
    setattr(Runs, f"__{_name}__", _op(_uf))
    setattr(Runs, f"__r{_name}__", _op(_uf, True))
    setattr(Runs, f"__i{_name}__", _op(_uf))
for _name, _uf in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal)):
    setattr(Runs, f"__{_name}__", _op(_uf))
Runs.__invert__ = lambda self: np.invert(self)
Runs.__neg__ = lambda self: np.negative(self)


class PageSet:
    """Sorted, disjoint, non-adjacent page ranges ``[lo[i], hi[i])``: a set of page indices as
    ranges.  ``cum[i]``: the position of ``lo[i]`` among the set's pages; ``size``: how many."""

    __slots__ = ("lo", "hi", "cum", "size")
    __array_priority__ = 100
    ndim = 1
    dtype = np.dtype(np.intp)

    def __init__(self, lo, hi):
        lo, hi = np.asarray(lo, dtype=_I), np.asarray(hi, dtype=_I)
        if lo.size:
            keep = hi > lo
            if not keep.all():
                lo, hi = lo[keep], hi[keep]
        if lo.size > 1:
            # merge ranges that touch or overlap (inputs are sorted by lo, hi nondecreasing)
            run_hi = np.maximum.accumulate(hi)
            new = np.empty(lo.size, dtype=bool)
            new[0] = True
            np.greater(lo[1:], run_hi[:-1], out=new[1:])
            if not new.all():
                starts = np.flatnonzero(new)
                lo = lo[starts]
                hi = run_hi[np.append(starts[1:] - 1, run_hi.size - 1)]
        lens = hi - lo
        self.lo, self.hi = lo, hi
        self.cum = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(_I) if lo.size else _EMPTY
        self.size = int(lens.sum()) if lo.size else 0

    @classmethod
    def span(cls, lo: int, hi: int) -> "PageSet":
        lo, hi = int(lo), int(hi)
        if hi <= lo:
            return cls(_EMPTY, _EMPTY)
        ps = cls.__new__(cls)                   # one range: nothing to sort or merge
        ps.lo, ps.hi = np.array([lo], dtype=_I), np.array([hi], dtype=_I)
        ps.cum, ps.size = np.zeros(1, dtype=_I), hi - lo
        return ps

    @classmethod
    def from_sorted(cls, x) -> "PageSet":
        """From sorted distinct page indices."""
        x = np.asarray(x, dtype=_I).reshape(-1)
        if x.size == 0:
            return cls(_EMPTY, _EMPTY)
        cut = np.flatnonzero(x[1:] != x[:-1] + 1) + 1
        starts = np.concatenate(([0], cut))
        ends = np.append(cut, x.size)
        return cls(x[starts], x[ends - 1] + 1)

    @property
    def shape(self) -> tuple:
        return (self.size,)

    @property
    def ranges(self) -> int:
        """How many ranges it holds."""
        return int(self.lo.size)

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"PageSet(size={self.size}, ranges={self.lo.size})"

    def __array__(self, dtype=None, copy=None):
        lens = self.hi - self.lo
        out = np.repeat(self.lo - self.cum, lens) + np.arange(self.size, dtype=_I)
        return out.astype(dtype or np.intp)

    def __iter__(self):
        for lo, hi in zip(self.lo.tolist(), self.hi.tolist()):
            yield from range(lo, hi)

    def astype(self, dtype):
        return np.asarray(self).astype(dtype)

    def copy(self) -> "PageSet":
        return self

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            k = int(key) + (self.size if key < 0 else 0)
            if not 0 <= k < self.size:
                raise IndexError(f"index {int(key)} is out of bounds for size {self.size}")
            i = int(np.searchsorted(self.cum, k, "right")) - 1
            return int(self.lo[i] + k - self.cum[i])
        if isinstance(key, slice):
            p0, p1, st = key.indices(self.size)
            if st == 1:
                return self.part(p0, p1)
        elif isinstance(key, Runs) and key.n == self.size and key.dtype == bool:
            return self.compress(key)
        elif isinstance(key, np.ndarray) and key.dtype == bool and key.shape == (self.size,):
            return self.compress(Runs.from_dense(key))
        return np.asarray(self)[_dense(key)]

    def part(self, p0: int, p1: int) -> "PageSet":
        """Positions [p0, p1) of the set (in order)."""
        if p1 <= p0:
            return PageSet(_EMPTY, _EMPTY)
        i0 = int(np.searchsorted(self.cum, p0, "right")) - 1
        i1 = int(np.searchsorted(self.cum, p1, "left"))
        lo, hi = self.lo[i0:i1].copy(), self.hi[i0:i1].copy()
        hi[-1] = self.lo[i1 - 1] + (p1 - self.cum[i1 - 1])
        lo[0] += p0 - self.cum[i0]
        return PageSet(lo, hi)

    def compress(self, mask: Runs) -> "PageSet":
        """The pages where ``mask`` (one bool per page of the set) is true."""
        if self.size == 0:
            return self
        u = union_sorted((mask.s, self.cum))
        m = mask.at(u)
        i = np.searchsorted(self.cum, u, "right") - 1
        lens = np.diff(np.append(u, self.size))
        keep = m.astype(bool) & (lens > 0)
        lo = self.lo[i] + u - self.cum[i]
        return PageSet(lo[keep], (lo + lens)[keep])

    def div(self, k: int) -> "PageSet":
        """The distinct values page // k."""
        if k == 1 or self.size == 0:
            return self
        return PageSet(self.lo // k, (self.hi - 1) // k + 1)

    def times(self, k: int, limit: int) -> "PageSet":
        """Every page of the blocks of ``k`` pages this set names, below ``limit``."""
        return PageSet(self.lo * k, np.minimum(self.hi * k, limit))

    def shift(self, d: int) -> "PageSet":
        return PageSet(self.lo + d, self.hi + d)

    def intersect(self, other: "PageSet") -> "PageSet":
        if self.size == 0 or other.size == 0:
            return PageSet(_EMPTY, _EMPTY)
        j0 = np.searchsorted(other.hi, self.lo, "right")
        j1 = np.searchsorted(other.lo, self.hi, "left")
        cnt = np.maximum(j1 - j0, 0)
        ai = np.repeat(np.arange(self.lo.size), cnt)
        bj = np.repeat(j0 - np.concatenate(([0], np.cumsum(cnt)[:-1])), cnt) + np.arange(ai.size)
        return PageSet(np.maximum(self.lo[ai], other.lo[bj]), np.minimum(self.hi[ai], other.hi[bj]))

    def minus(self, other: "PageSet") -> "PageSet":
        if self.size == 0 or other.size == 0:
            return self
        lo0, hi1 = min(int(self.lo[0]), int(other.lo[0])), max(int(self.hi[-1]), int(other.hi[-1]))
        gaps = PageSet(np.concatenate(([lo0], other.hi)), np.concatenate((other.lo, [hi1])))
        return self.intersect(gaps)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        return getattr(ufunc, method)(*_dense(inputs), **_dense(kw))

    def __array_function__(self, func, types, args, kwargs):
        h = _FUNCTIONS.get(func)
        if h is not None:
            r = h(*args, **kwargs)
            if r is not NotImplemented:
                return r
        return func(*_dense(args), **_dense(kwargs))


def _dense_op(ufunc, reflected=False):
    if reflected:
        return lambda self, other: ufunc(_dense(other), np.asarray(self))
    return lambda self, other: ufunc(np.asarray(self), _dense(other))


# arithmetic on a PageSet is on its page indices, as a NumPy array
for _name, _uf in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                   ("floordiv", np.floor_divide), ("mod", np.remainder)):
    setattr(PageSet, f"__{_name}__", _dense_op(_uf))
    setattr(PageSet, f"__r{_name}__", _dense_op(_uf, True))
for _name, _uf in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                   ("ge", np.greater_equal)):
    setattr(PageSet, f"__{_name}__", _dense_op(_uf))


# -- NumPy functions answered on runs and ranges -------------------------------------------------
def _count_nonzero(a, axis=None, *, keepdims=False):
    if isinstance(a, Runs) and axis is None and not keepdims:
        return a.count_nonzero()
    return NotImplemented


def _where(condition, x=None, y=None):
    if x is None or y is None or not isinstance(condition, Runs):
        return NotImplemented
    n = condition.n
    for z in (x, y):
        if isinstance(z, Runs):
            if z.n != n:
                return NotImplemented
        elif isinstance(z, PageSet) or np.ndim(z) > 0:
            return NotImplemented
    if n == 0:
        return NotImplemented
    u, (c, xv, yv) = _align([condition, x, y])
    return _norm(u, np.where(c, xv, yv), n)


def _unique(ar, *args, **kwargs):
    if isinstance(ar, Runs) and not args and not kwargs:
        return np.unique(ar.v)
    if isinstance(ar, PageSet) and not args and not kwargs:
        return np.asarray(ar)
    return NotImplemented


def _intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if isinstance(ar1, PageSet) and isinstance(ar2, PageSet) and not return_indices:
        return ar1.intersect(ar2)
    return NotImplemented


def _array_equal(a1, a2, equal_nan=False):
    if isinstance(a1, Runs) and isinstance(a2, Runs) and not equal_nan:
        return a1.n == a2.n and a1.s.size == a2.s.size and bool(np.array_equal(a1.s, a2.s)) \
            and bool(np.array_equal(a1.v, a2.v))
    return NotImplemented


_FUNCTIONS = {np.count_nonzero: _count_nonzero, np.where: _where, np.unique: _unique,
              np.intersect1d: _intersect1d, np.array_equal: _array_equal}
