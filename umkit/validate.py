"""Validation, once, at the public API: small checks that turn what a user passes into the
values the layers below expect, or raise a typed umkit error naming the argument and the fix.

Every public function validates its arguments with these before anything else runs; the memory
layer and the backends below only assert.
"""
from __future__ import annotations

import math
import os
import re
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from .backends.contract import ADVICE, CPU, KINDS, Location
from .backends.contract import gpu as _gpu
from .errors import InvalidArgument, InvalidType  # noqa: F401  (re-exported for callers)

MAX_BYTES = 1 << 48          # 256 TiB: beyond any machine; catches unit mistakes early
MAX_DIMS = 32                # NumPy 1.x and CuPy accept 32 dimensions
ADVICE_ALIASES = {"readmostly": "read_mostly", "read-mostly": "read_mostly",
                  "preferred": "preferred_location", "preferredlocation": "preferred_location",
                  "preferred-location": "preferred_location", "accessedby": "accessed_by",
                  "accessed-by": "accessed_by", "coarsegrain": "coarse_grain",
                  "coarse-grain": "coarse_grain"}


def shown(value, limit: int = 80) -> str:
    """``repr(value)`` for a message, at most ``limit`` characters: never raises (an int of
    more than 4300 digits has no repr, a list nested 100,000 deep has none either, an object's
    ``__repr__`` may raise) and never carries a control character (a terminal escape in a
    value is shown as ``\\x1b``, not obeyed)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 14000:
        return f"<an int of about {int(value.bit_length() * 0.30103) + 1} digits>"
    if isinstance(value, str) and len(value) > 4 * limit:
        value = value[:4 * limit]              # no need to escape what is cut away
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a message must not fail on the value it names
        return f"<a {type(value).__name__} whose repr raised>"
    return clean(text, limit)


def clean(text, limit: int = 200) -> str:
    """``text`` safe to print in a message: control characters escaped (``\\x1b``, ``\\n``),
    at most ``limit`` characters (a cut one ends in ``...``).  Never raises."""
    try:
        text = str(text)
    except Exception:  # noqa: BLE001 - an int of > 4300 digits, a list nested too deep
        return shown(text, limit)
    if len(text) > 4 * limit:
        text = text[:4 * limit]
    text = _CONTROL.sub(_escaped, text)
    return text if len(text) <= limit else text[:max(limit - 3, 1)] + "..."


def printable(text: str) -> str:
    """``text`` (a message of any length) with the control characters :func:`clean` escapes
    escaped, its line breaks and tabs kept: shown on a terminal, never obeyed by it."""
    return _CONTROL_BUT_LINES.sub(_escaped, text)


def _escaped(m) -> str:
    return m.group().encode("unicode_escape").decode("ascii")


#: C1 controls, the Unicode line and paragraph separators, bidi embeddings/overrides and isolates
_NOT_C0 = r"\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(rf"[\x00-\x1f{_NOT_C0}]")
_CONTROL_BUT_LINES = re.compile(rf"[\x00-\x08\x0b-\x1f{_NOT_C0}]")   # tab and line feed kept


def finite(v) -> bool:
    """``v`` (an int or a float) is a finite float: an int beyond float's range (10**400) is not
    (``math.isfinite`` raises OverflowError on it)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def is_int(v) -> bool:
    t = type(v)
    if t is int:
        return True
    return t is not bool and isinstance(v, Integral) and not isinstance(v, np.bool_)


def integer(value, name: str, *, lo: int | None = None, hi: int | None = None,
            hint: str = "") -> int:
    """An int (Python or NumPy, not bool) within [lo, hi]."""
    if not is_int(value):
        raise InvalidType(f"{name}={shown(value)} must be an int", argument=name,
                          hint=hint or "pass a whole number, e.g. 0")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        rng = (f"between {lo} and {hi}" if lo is not None and hi is not None else
               f">= {lo}" if lo is not None else f"<= {hi}")
        raise InvalidArgument(f"{name}={shown(v)} must be {rng}", argument=name,
                              hint=hint or f"pass an int {rng}")
    return v


def optional_integer(value, name: str, **kw) -> int | None:
    return None if value is None else integer(value, name, **kw)


def flag(value, name: str) -> bool:
    """A real bool: ``"no"``, 0 or None are not accepted (``bool("no")`` is True)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidType(f"{name}={shown(value)} must be True or False", argument=name,
                          hint=f"pass {name}=True or {name}=False")
    return bool(value)


def optional_flag(value, name: str) -> bool | None:
    """None (auto) or a real bool."""
    return None if value is None else flag(value, name)


def real(value, name: str, *, finite: bool = True, lo: float | None = None,
         hi: float | None = None, hint: str = "") -> float:
    """A real number (int or float, Python or NumPy, not bool) as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise InvalidType(f"{name}={shown(value)} must be a real number", argument=name,
                          hint=hint or f"pass a number, e.g. {name}=1.0")
    try:
        v = float(value)
    except OverflowError:
        raise InvalidArgument(f"{name}={shown(value)} is too large for a float", argument=name,
                              hint=hint or "pass a number within float range") from None
    if finite and not math.isfinite(v):
        raise InvalidArgument(f"{name}={shown(value)} must be finite", argument=name,
                              hint=hint or "pass a finite number")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise InvalidArgument(f"{name}={shown(value)} must be in [{lo}, {hi}]", argument=name,
                              hint=hint or f"pass a number in [{lo}, {hi}]")
    return v


def string(value, name: str, *, hint: str = "") -> str:
    """Text as a plain ``str`` (a subclass's own methods are not called again), holding only
    characters that are text: a lone surrogate (what a file name that is not UTF-8 decodes to)
    cannot be printed, drawn or saved as UTF-8."""
    if not isinstance(value, str):
        raise InvalidType(f"{name}={shown(value)} must be a string", argument=name,
                          hint=hint or f"pass {name} as text")
    value = plain(value)
    if _SURROGATE.search(value):
        raise InvalidArgument(f"{name} holds a character that is not text (a lone surrogate, "
                              "as a file name that is not UTF-8 gives)", argument=name,
                              hint=hint or f"pass {name} as text that is valid UTF-8")
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def plain(value: str) -> str:
    """``value`` (a ``str``) as a plain ``str``: a subclass's own methods (``__eq__``, ``strip``,
    ``lower``) are not called again on the copy."""
    return value if type(value) is str else str.__getitem__(value, slice(None))


def optional_string(value, name: str, *, hint: str = "") -> str | None:
    return None if value is None else string(value, name, hint=hint)


def text(value, name: str, *, hint: str = "") -> str:
    """A non-empty string."""
    v = string(value, name, hint=hint)
    if not v.strip():
        raise InvalidArgument(f"{name}={shown(value)} is empty", argument=name,
                              hint=hint or f"pass {name} as non-empty text")
    return v


#: the longest name or label umkit keeps (a buffer's name in a table, a recording's name)
MAX_LABEL = 1000
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def has_surrogate(v: str) -> bool:
    """Whether ``v`` holds a lone surrogate (what text that is not UTF-8 decodes to): it cannot
    be printed, drawn or saved as UTF-8."""
    return _SURROGATE.search(v) is not None


def has_control(v: str) -> bool:
    """Whether ``v`` holds control characters (newlines, escape codes): a table printed to a
    terminal would act on them."""
    return CONTROL_CHARS.search(v) is not None


def _not_longer_than_a_label(v: str, name: str, hint: str) -> str:
    if len(v) > MAX_LABEL:
        raise InvalidArgument(f"{name} is {len(v)} characters long (at most {MAX_LABEL})",
                              argument=name, hint=hint or f"pass a shorter {name}")
    return v


def short_text(value, name: str, *, hint: str = "") -> str:
    """A text (empty allowed) of at most MAX_LABEL characters: a label, not a log."""
    return _not_longer_than_a_label(string(value, name, hint=hint), name, hint)


def label(value, name: str, *, hint: str = "") -> str:
    """A non-empty text of at most MAX_LABEL printable characters: a name shown in tables."""
    v = _not_longer_than_a_label(text(value, name, hint=hint), name, hint)
    if has_control(v):
        raise InvalidArgument(f"{name}={short(v)} holds control characters (newlines, escape "
                              "codes)", argument=name,
                              hint=hint or f"pass {name} as printable text on one line")
    return v


def sequence(value, name: str, *, hint: str = "") -> list:
    """A list or tuple (or a 1-D NumPy array) -- not a string, not a lazy iterable whose own
    code would run inside umkit."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return list(value)
    if not isinstance(value, (list, tuple)):
        raise InvalidType(f"{name}={short(value)} must be a list or tuple", argument=name,
                          hint=hint or f"pass {name} as a list, e.g. [...]")
    return list(value)


def reals(value, name: str, *, hint: str = "") -> list[float]:
    """A list/tuple of finite real numbers (step times, ...)."""
    out = []
    for v in sequence(value, name, hint=hint):
        try:
            ok = not isinstance(v, (bool, np.bool_)) and isinstance(v, Real) and \
                math.isfinite(float(v))
        except (OverflowError, ValueError, TypeError):     # an int too large for a float
            ok = False
        if not ok:
            raise InvalidType(f"{name} holds {short(v)}: not a finite number", argument=name,
                              hint=hint or f"{name} is a list of numbers")
        out.append(float(v))
    return out


def mapping(value, name: str, keys=(), *, hint: str = "") -> dict:
    """A dict holding at least ``keys``."""
    if not isinstance(value, dict):
        raise InvalidType(f"{name}={short(value)} must be a dict", argument=name,
                          hint=hint or f"pass the dict umkit made for {name}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise InvalidArgument(f"{name} lacks {missing}", argument=name,
                              hint=hint or f"pass the dict umkit made for {name}")
    return value


def path(value, name: str, *, hint: str = ""):
    """A file or folder path: a non-empty str or os.PathLike."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value:
        raise (InvalidArgument if isinstance(value, str) else InvalidType)(
            f"{name}={short(value)} must be a path", argument=name,
            hint=hint or f"pass {name} as a file path (str or pathlib.Path)")
    if "\x00" in value:           # Path.exists() answers False for it; os.stat raises
        raise InvalidArgument(f"{name}={short(value)} holds a NUL byte: not a usable path",
                              argument=name, hint=hint or "pick a plain path")
    try:
        os.fsencode(value)         # a lone surrogate that is no escaped byte: no file can be named so
    except UnicodeEncodeError:
        raise InvalidArgument(f"{name}={short(value)} holds a character no file name can hold "
                              "(a lone surrogate)", argument=name,
                              hint=hint or "pick a plain path") from None
    p = Path(value)
    try:
        p.exists()                 # a name too long: refused here
    except (OSError, ValueError) as e:
        raise InvalidArgument(f"{name}={short(value)} is not a usable path "
                              f"({getattr(e, 'strerror', None) or e})", argument=name,
                              hint=hint or "pick a shorter, plain path") from None
    return p


def short(value) -> str:
    """``repr(value)`` in at most 60 characters, as :func:`shown` (never raises); an ndarray
    as its dtype and shape."""
    if isinstance(value, np.ndarray):
        return clean(f"ndarray({value.dtype}{list(value.shape)})", 60)
    return shown(value, 60)


def choice(value, name: str, options, *, hint: str = ""):
    """One of ``options`` (strings), by equality."""
    if not isinstance(value, str):
        raise InvalidType(f"{name}={short(value)} must be a string", argument=name,
                          hint=hint or f"use one of {tuple(options)}")
    if value not in options:
        raise InvalidArgument(f"{name}={shown(value)} is unknown", argument=name,
                              hint=hint or f"use one of {tuple(options)}")
    return value


def names(value, name: str, options, *, hint: str = "") -> tuple[str, ...]:
    """A non-empty list/tuple of names out of ``options`` (a lone string is refused: it
    would be read letter by letter)."""
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise InvalidType(f"{name}={shown(value)} must be a list or tuple of names", argument=name,
                          hint=hint or f"e.g. {name}=({next(iter(options))!r},)")
    if not value:
        raise InvalidArgument(f"{name} is empty", argument=name,
                              hint=hint or f"use some of {tuple(options)}")
    for v in value:
        choice(v, name, options, hint=hint)
    return tuple(value)


def callback(value, name: str):
    if value is not None and not callable(value):
        raise InvalidType(f"{name}={shown(value)} is not callable", argument=name,
                          hint=f"pass a function, or leave {name} out")
    return value


# -- memory ------------------------------------------------------------------------------------------
def dtype(value) -> np.dtype:
    if value is None or isinstance(value, (bool, int, float, complex, bytes, np.generic,
                                           np.ndarray)):
        raise InvalidType(f"dtype={shown(value)} is not a dtype", argument="dtype",   # None: float64
                          hint="use e.g. 'float32', np.float16, 'int64'")
    try:
        dt = np.dtype(value)
    except Exception as e:  # noqa: BLE001 - NumPy's parser raises SyntaxError, ValueError, ...
        raise InvalidType(f"dtype={shown(value)} is not a NumPy dtype ({shown(str(e))})",
                          argument="dtype", hint="use e.g. 'float32', np.float16, 'int64'") from None
    if dt.kind not in "biufc" or dt.hasobject or dt.fields or dt.subdtype:
        raise InvalidType(f"dtype={dt} is not supported in GPU memory", argument="dtype",
                          hint="use a numeric dtype: bool, int*, uint*, float*, complex*")
    return dt


def shape(value) -> tuple[int, ...]:
    if isinstance(value, (bool, np.bool_, str, bytes, bytearray, memoryview)):
        raise InvalidType(f"shape={shown(value)} is not a size", argument="shape",
                          hint="pass an int (elements) or a tuple of ints, e.g. (1024, 1024)")
    if isinstance(value, Integral):
        value = (int(value),)
    if isinstance(value, np.ndarray):
        raise InvalidType(f"shape= got a NumPy array {value.dtype}{list(value.shape)}: a shape is "
                          "an int or a tuple of ints, not data", argument="shape",
                          hint="to put data x in managed memory: a = umkit.managed(x.shape, "
                               "x.dtype); a.host[:] = x")
    if not isinstance(value, (tuple, list)):
        raise InvalidType(f"shape={short(value)} is not a size", argument="shape",
                          hint="pass an int (elements) or a tuple of ints, e.g. (1024, 1024)")
    value = tuple(value)
    if not value:
        raise InvalidArgument("shape=() would hold a single scalar", argument="shape",
                              hint="use shape=1")
    if len(value) > MAX_DIMS:
        raise InvalidArgument(f"shape has {len(value)} dimensions; at most {MAX_DIMS}",
                              argument="shape", hint="reshape to fewer dimensions")
    for n in value:
        if not is_int(n):
            raise InvalidType(f"shape={shown(value)}: {shown(n)} is not an integer", argument="shape",
                              hint="sizes count elements: use ints, e.g. umkit.managed(2**20)")
        if n <= 0:
            raise InvalidArgument(f"shape={shown(value)}: every dimension must be > 0 (got {shown(n)})",
                                  argument="shape", hint="allocate at least one element")
    return tuple(int(n) for n in value)


def nbytes_of(shp: tuple[int, ...], dt: np.dtype) -> int:
    n = math.prod(shp) * dt.itemsize
    if n > MAX_BYTES:
        raise InvalidArgument(f"{shown(n)} B is larger than any machine's memory", argument="shape",
                              hint="sizes count elements, not bytes: check the shape")
    return n


def nbytes(value, name: str = "nbytes") -> int:
    if type(value) is int and 0 < value <= MAX_BYTES:       # the pool's hot path
        return value
    n = integer(value, name, hint="sizes are in bytes, e.g. 4096")
    if n <= 0:
        raise InvalidArgument(f"{name}={shown(n)} must be > 0", argument=name,
                              hint="allocate at least 1 byte")
    if n > MAX_BYTES:
        raise InvalidArgument(f"{name}={shown(n)} is larger than any machine's memory", argument=name,
                              hint="sizes are in bytes: check the arithmetic")
    return n


def kind(value) -> str:
    if not isinstance(value, str) or value not in KINDS:
        raise (InvalidType if not isinstance(value, str) else InvalidArgument)(
            f"kind={shown(value)} is unknown", argument="kind", hint=f"use one of {KINDS}")
    return value


def advice(value) -> str:
    if not isinstance(value, str):
        raise InvalidType(f"advice={shown(value)} must be a string", argument="advice",
                          hint=f"one of {ADVICE}")
    a = value.strip().lower().replace(" ", "_")
    for prefix in ("hipmemadviseset", "cudamemadviseset", "set"):
        if a.startswith(prefix):
            a = a[len(prefix):]
    a = ADVICE_ALIASES.get(a, a)
    if a not in ADVICE:
        raise InvalidArgument(f"advice={shown(value)} is unknown", argument="advice",
                              hint=f"use one of {ADVICE}")
    return a


def device(value, backend, name: str = "device") -> int:
    """A device number of ``backend`` (0 .. device_count-1)."""
    count = backend.device_count()
    d = integer(value, name, hint=f"use 0 for the first GPU (0..{count - 1} here)")
    if not 0 <= d < count:
        more = (" (the CPU is umkit.CPU, not a device number)" if d < 0 else
                f", or umkit.use('sim', gpus={d + 1}) to simulate more GPUs"
                if backend.name == "sim" and d < 7 else "")
        raise InvalidArgument(f"{name}={shown(d)} does not exist ({count} GPU(s) here)", argument=name,
                              hint=f"use 0..{count - 1}{more}")
    return d


def location(value, name: str, count: int) -> Location:
    loc = as_location(value, name)
    if loc.kind == "device" and loc.id >= count:
        raise InvalidArgument(f"{name}={shown(value)}: device {shown(loc.id)} does not exist "
                              f"({count} GPU(s))", argument=name,
                              hint=f"use a valid device: 'cpu', or a GPU 0..{count - 1}")
    return loc


def byte_range(total: int, offset, nbytes) -> tuple[int, int]:
    """(offset, nbytes) of a sub-range of an allocation of ``total`` bytes."""
    hint = "byte ranges are whole numbers of bytes: 0 <= offset < offset+nbytes <= arr.nbytes"
    off = integer(offset, "offset", hint=hint)
    n = total - off if nbytes is None else integer(nbytes, "nbytes", hint=hint)
    if off < 0 or n <= 0 or off + n > total:
        raise InvalidArgument(f"byte range offset={shown(off)}, nbytes={shown(n)} is outside the array's "
                              f"{total} B", argument="offset" if not 0 <= off < total else "nbytes",
                              hint=hint)
    return off, n


# -- files ------------------------------------------------------------------------------------------
def output_path(value, name: str, suffixes: tuple[str, ...]) -> Path:
    """A file path we can write, checked before any work: an existing folder, not a directory,
    a known extension, and a file that accepts bytes (``/dev/full`` does not)."""
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise (InvalidArgument if isinstance(value, str) else InvalidType)(
            f"{name}={short(value)} must be a file path", argument=name,
            hint=f"e.g. {name}=out{suffixes[0]}")
    p = path(value, name, hint=f"e.g. {name}=out{suffixes[0]}")
    if p.is_dir() or str(value).endswith(("/", os.sep)):
        raise InvalidArgument(f"{name}={shown(str(value), 200)} is a directory, not a file", argument=name,
                              hint=f"name a file in it, e.g. {clean(p / ('ecg' + suffixes[0]))}")
    if p.exists() and not p.is_file():        # /dev/full, a FIFO, a socket ...
        raise InvalidArgument(f"{name}={shown(str(value), 200)} is not a regular file", argument=name,
                              hint=f"write to a regular file, e.g. ecg{suffixes[0]}")
    if p.suffix.lower() not in suffixes:
        raise InvalidArgument(f"{name}={shown(str(value), 200)}: unknown extension {shown(p.suffix) if p.suffix else '(none)'}",
                              argument=name, hint=f"use one of {', '.join(suffixes)}")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        try:
            above = next((q for q in (parent, *parent.parents) if q.exists()), None)
        except OSError:                       # a folder above we may not look into
            above = None
        if above is not None and not above.is_dir():     # a file where a folder should be
            raise InvalidArgument(f"{name}={shown(str(value), 200)}: {shown(str(above), 200)} is a "
                                  "file, not a folder", argument=name,
                                  hint="write next to that file, not inside it, or pick another "
                                       "path")
        raise InvalidArgument(f"{name}={shown(str(value), 200)}: folder {shown(str(parent), 200)} does not exist",
                              argument=name, hint="create the folder first, or pick another path")
    if p.is_symlink():                        # the atomic writer would replace the link itself
        raise InvalidArgument(f"{name}={shown(str(value), 200)} is a symbolic link", argument=name,
                              hint="name the file it points to, or another path")
    # checked without touching the target: creating and removing a probe file here could delete
    # a file another saver has just written to the same new name
    target, mode = (p, os.W_OK) if p.exists() else (parent, os.W_OK | os.X_OK)
    if not os.access(target, mode):
        why = "read-only file system or no permission"
        raise InvalidArgument(f"{name}={shown(str(value), 200)} cannot be written ({why})",
                              argument=name, hint="pick a path you can write") from None
    return p


# -- locations: what a learner types ('gpu', 'cpu', 1, 'cuda:1', umkit.CPU) -> a Location --

_HOST = {"cpu", "host", "hipcpudeviceid", "cudacpudeviceid"}


def as_location(where, argument: str = "to") -> Location:
    if isinstance(where, Location):
        if where.kind == "host":
            return CPU
        if where.kind == "device" and isinstance(where.id, (int, np.integer)):
            return _device_location(int(where.id), argument)
        raise InvalidArgument(f"{argument}={shown(where)} is not a location",
                              hint="build locations with umkit.CPU or umkit.gpu(i)")
    if isinstance(where, bool):
        raise InvalidType(f"{argument}={shown(where)} is not a location",
                          hint="use 'cpu', 'gpu', 'gpu1' or a device number")
    if isinstance(where, (int, np.integer)):
        return CPU if where == -1 else _device_location(int(where), argument)
    if isinstance(where, str):
        w = where.strip().lower()
        if w in _HOST:
            return CPU
        m = re.fullmatch(r"(?:gpu|cuda|hip|device)?[:\s]*(\d*)", w)
        if m and (m.group(1) or w in ("gpu", "cuda", "hip", "device")):
            return _device_location(int(m.group(1) or 0), argument)
    raise InvalidArgument(f"{argument}={shown(where)} is not a location",
                          hint="use 'cpu' (the host), 'gpu' / 'gpu0' / 'cuda:1', a device "
                               "number, or umkit.CPU")


def _device_location(i: int, argument: str) -> Location:
    if i < 0:
        raise InvalidArgument(f"{argument}: device {shown(i)} does not exist",
                              hint="device numbers start at 0; -1 means the CPU")
    return _gpu(i)


def gpu(i: int = 0) -> Location:
    """The location of GPU ``i`` (``umkit.gpu(1)``), for prefetch/advise targets."""
    return _gpu(integer(i, "i", lo=0, hi=1 << 16, hint="a device number, e.g. umkit.gpu(0)"))


def touch_stride(stride_bytes: int) -> int:
    """``stride_bytes`` of a touch, refused when no array could be that large (a unit mistake:
    a GPU's kernel takes a 64-bit stride, and the touch would read the first element only)."""
    if stride_bytes > MAX_BYTES:
        raise InvalidArgument(
            f"stride_bytes={short(stride_bytes)} is larger than any array "
            f"({MAX_BYTES >> 40} TiB): the touch would read the first element only",
            argument="stride_bytes",
            hint="e.g. 4096 (one float per host page) or 65536; to read one element, "
                 "touch a one-element view")
    return stride_bytes


def not_a_file(p, name: str = "path") -> str | None:
    """None when ``p`` names a regular file (links followed); else the message that says what
    it is -- missing, a folder, a named pipe, a device, a socket, a loop of links -- so that a
    loader never calls a folder or a FIFO "no such file" (and never opens a FIFO, which would
    wait for a writer)."""
    import errno
    import stat
    at = f"{name}={shown(str(p), 200)}"
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        if os.path.islink(p):
            return f"{at} is a symbolic link to a file that does not exist"
        return f"{at}: no such file"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"{at} is a loop of symbolic links, not a file"
        return f"{at} cannot be examined ({e.strerror})"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return f"{at} is a folder, not a file"
    if stat.S_ISFIFO(mode):
        return f"{at} is a named pipe (FIFO), not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return f"{at} is a device, not a file"
    if stat.S_ISSOCK(mode):
        return f"{at} is a socket, not a file"
    return f"{at} is not a regular file"
