"""NumPy twins of the kernels in ``kernels/umkit_kernels.cu``.

Each twin declares which bytes of which allocation it reads and writes (that is what the engine
charges), then computes the same result as the GPU kernel, so results on sim are real.
"""
from __future__ import annotations

import numpy as np

from .. import validate as V
from ..errors import InvalidArgument
from .pages import Access

F32 = 4
SECTOR = 32          # a GPU reads global memory in 32-byte sectors
#: a touch whose stride skips pages names each touched page apart: at most this many in one
#: kernel (1 TiB every 64 KiB; about 10 s and 2 GB of page tables here) -- larger ones are
#: refused before any work, rather than running for minutes or out of memory
MAX_SPARSE_PAGES = 1 << 24


def _f32(a, off, n):
    return a.data[off:off + n * F32].view(np.float32)


def add_kernel(find, out, a, b, n):
    """out[i] = a[i] + b[i] -- the article's §4.2 kernel."""
    (ao, oo), (aa, ao_), (ab, bo) = find(out), find(a), find(b)
    n = int(n)
    acc = [Access(aa, aa.page_range(ao_, ao_ + n * F32), False, n * F32),
           Access(ab, ab.page_range(bo, bo + n * F32), False, n * F32),
           Access(ao, ao.page_range(oo, oo + n * F32), True, n * F32)]

    def run():
        np.add(_f32(aa, ao_, n), _f32(ab, bo, n), out=_f32(ao, oo, n))
    return acc, run


def touch_kernel(find, a, n, stride, sink):
    """Read a[i] for i in range(0, n, stride); accumulate into sink[0]."""
    (aa, ao), (sa, so) = find(a), find(sink)
    n, stride = int(n), max(1, int(stride))
    V.touch_stride(stride * F32)
    count = -(-n // stride)
    if stride * F32 <= aa.host_page:        # every page in the range is touched
        pages = aa.page_range(ao, ao + n * F32)
    else:                                   # one page per touched element (sorted, distinct)
        if count > MAX_SPARSE_PAGES:
            raise InvalidArgument(
                f"a touch every {stride * F32} bytes of {n * F32} bytes reads {count:,} pages "
                f"apart; the simulator follows at most {MAX_SPARSE_PAGES:,} separate pages in "
                "one kernel (each is its own fault and its own entry in the page tables)",
                argument="stride_bytes",
                hint=f"touch a smaller array or view, or use stride_bytes <= {aa.host_page} "
                     "(every page is touched: one range, any size)")
        pages = ((ao + np.arange(0, n, stride, dtype=np.int64) * F32) // aa.host_page).astype(np.intp)
    nbytes = count * (SECTOR if stride * F32 >= SECTOR else F32)
    # the kernel adds to sink[0] with atomicAdd (block_add in kernels/umkit_kernels.cu), so
    # touches on two streams sharing one sink do not race each other
    acc = [Access(aa, pages, False, nbytes),
           Access(sa, sa.page_range(so, so + F32), True, F32, atomic=True)]

    def run():
        vals = _f32(aa, ao, n)[::stride]
        _f32(sa, so, 1)[0] += np.float32(vals.sum(dtype=np.float64))
    return acc, run


def read_kernel(find, a, n, sink):
    """sink[0] += sum(a[:n]): a streaming read (float4 loads on the GPU)."""
    return touch_kernel(find, a, n, 1, sink)


def increment_kernel(find, a, n):
    """a[i] += 1 (reads and writes every element)."""
    aa, ao = find(a)
    n = int(n)
    acc = [Access(aa, aa.page_range(ao, ao + n * F32), True, 2 * n * F32, written=n * F32)]

    def run():
        _f32(aa, ao, n)[:] += np.float32(1)
    return acc, run


def fill_kernel(find, a, v, n):
    """a[i] = v."""
    aa, ao = find(a)
    n = int(n)
    acc = [Access(aa, aa.page_range(ao, ao + n * F32), True, n * F32)]

    def run():
        _f32(aa, ao, n)[:] = np.float32(v)
    return acc, run


TWINS = {"add_kernel": add_kernel, "touch_kernel": touch_kernel, "read_kernel": read_kernel,
         "increment_kernel": increment_kernel, "fill_kernel": fill_kernel}
