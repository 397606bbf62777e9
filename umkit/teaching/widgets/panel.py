"""The strategy panel: pick where the buffers live and which hints they get, press Run, watch one
bar per training step grow, compare runs side by side.

Two layers, so the logic tests without a browser (README, "How it's built": pictures draw
results and compute nothing):

* :class:`PanelModel` -- plain Python: the list of runs, the running flag, the last error, and the
  translation of control values into the one definition of a strategy
  (:class:`umkit.workloads.Strategy` + :class:`umkit.workloads.Pattern`).
* :class:`StrategyPanel` -- ipywidgets controls wired to the model, and drawing: the bars are
  HTML (one ``div.umk-bar`` per step, ``data-ms`` = step time, height on a log scale), the
  counters an HTML table (``table.umk-counters``).  Without a widget frontend (plain Python,
  nbconvert, nbval with ``UMKIT_WIDGETS=static``) it falls back to :func:`umkit.ecg.step_bars`.
"""
from __future__ import annotations

import html
import io
import math
import os
import threading
import time
from dataclasses import dataclass, field

from ... import workloads
from ...errors import InvalidArgument, InvalidType, UmkitError
from ...runtime import backend, backend_name, use, why
from ...runtime.lang import figure_fonts, for_figure, tr, tr_parts

# -- the choices the controls offer: (label shown, value of the workloads field) --------------------
MEMORY_CHOICES = (
    ("device (hipMalloc)", "device"),
    ("managed (hipMallocManaged)", "managed"),
    ("pinned host, zero-copy", "pinned"),
    ("mixed: hot in device + cold managed", "mixed"),
)
PREFETCH_CHOICES = (
    ("off", "off"),
    ("to GPU before each step", "gpu"),
    ("to GPU, back to CPU after", "gpu+back"),
)
ADVICE_CHOICES = (
    ("none", "none"),
    ("read-mostly", "read_mostly"),
    ("preferred location GPU", "preferred_gpu"),
    ("preferred CPU + accessed-by GPU", "preferred_cpu_accessed_by"),
)
PATTERN_CHOICES = (
    ("GPU only", "gpu_only"),
    ("CPU statistics every k steps", "cpu_stats"),
    ("CPU edits between epochs", "cpu_edits"),
)
DEFAULTS = dict(size_mib=64, steps=40, memory="managed", prefetch="off", advice="none",
                pattern="cpu_stats", every=10)
SETTINGS = tuple(DEFAULTS)
MAX_STEPS = 2000
MAX_MIB = 1 << 20               # 1 TiB: the panel's own bound; workloads/backends check the rest
from ...ecg import MAX_JOB_MIB  # noqa: E402 - one training step's largest job (10922 MiB)

# matplotlib's tab10, in order: the static fallback's default colour cycle draws the same colours
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")

HINTLESS = ("device", "pinned")        # memory kinds that prefetch and advice don't act on
IGNORED = " (prefetch/advice ignored)"  # a run's label says so when it set them anyway
_SHORT = {"gpu": "+prefetch", "gpu+back": "+prefetch+back", "read_mostly": "+read-mostly",
          "preferred_gpu": "+pref-gpu", "preferred_cpu_accessed_by": "+pref-cpu+accessed-by"}
COUNTER_COLUMNS = (       # (counter, header, unit divisor: 1 or bytes per MiB)
    ("gpu_faults", "GPU faults", 1),
    ("cpu_faults", "CPU faults", 1),
    ("bytes_h2d", "MiB to GPU", 1 << 20),
    ("bytes_d2h", "MiB to CPU", 1 << 20),
    ("remote_bytes", "MiB zero-copy", 1 << 20),
    ("evictions", "evictions", 1),
    ("race_flags", "race flags", 1),
)


# -- environment --------------------------------------------------------------------------------------
def has_frontend() -> bool:
    """True where widgets can be drawn: an IPython *kernel* (Jupyter, Voila).  ``UMKIT_WIDGETS``
    forces it: ``static``/``0``/``off`` (nbconvert and nbval runs, which have a kernel but no
    widget manager) or ``1``/``on``."""
    env = os.environ.get("UMKIT_WIDGETS", "").strip().lower()
    if env in ("0", "off", "static", "no", "false"):
        return False
    if env in ("1", "on", "yes", "true", "widgets"):
        return True
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def in_ipython() -> bool:
    try:
        from IPython import get_ipython
        return get_ipython() is not None
    except ImportError:
        return False


# -- hardware profiles (sim) ----------------------------------------------------------------------------
#: the cards the picker offers, in order: (sim profile, short name)
PROFILE_CHOICES = (
    ("h200-pcie5", "NVIDIA H200"),
    ("mi250x-xnack1", "AMD MI250X, XNACK on"),
    ("mi250x-xnack0", "AMD MI250X, XNACK off"),
    ("mi250x-coherent", "AMD MI250X, CPU-coherent node"),
    ("mi300x", "AMD MI300X"),
    ("mi300a-apu", "AMD MI300A APU"),
)


def current_profile() -> str:
    """The active sim profile's name ("" when the backend is a real GPU)."""
    try:
        b = backend()
    except Exception:                                   # pragma: no cover - reporting only
        return ""
    return b.model_profile().name if b.supports("model_time") else ""


def profile_provenance(name: str) -> tuple[int, int]:
    """``(estimated, total)``: how many of the profile's numbers its sources call estimates."""
    from ...sim import load_profile
    prof = load_profile(name)
    srcs = [str(v) for v in prof.sources.values()]
    return sum(1 for t in srcs if t.strip().lower().startswith("estimate")), len(srcs)


def profile_label(name: str) -> str:
    """The picker's text for a profile: the card, and whether its numbers are measured or
    (partly) estimated -- estimates are labelled wherever a learner sees them."""
    short = dict(PROFILE_CHOICES).get(name, name)
    est, total = profile_provenance(name)
    if est == 0:
        return f"{short} (fitted to measurements)"
    return f"{short} (estimate: {est} of {total} numbers)"


def backend_description(reason: str = "") -> str:
    """One line for the panel: which backend, and on sim which card is MODELLED."""
    name = backend_name()
    if name != "sim":
        return f"{name} — {reason}" if reason else name
    prof = backend().profile
    est, total = profile_provenance(prof.name)
    how = "fitted to measurements" if est == 0 else f"{est} of {total} numbers are estimates"
    return (f"sim — the MODELLED card: {prof.title} (profile {prof.name}, {how}); no GPU of this "
            "machine runs these steps, the times are model time")


def error_message(exc: BaseException) -> str:
    """A readable one-paragraph message (what went wrong, and the hint), never a traceback."""
    if isinstance(exc, UmkitError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return f"out of memory: {exc or 'the allocation did not fit'}\n  -> try a smaller buffer"
    return f"{type(exc).__name__}: {exc}"


def size_message(exc: BaseException, nbytes: int) -> str:
    """:func:`error_message`, but a buffer too large for this machine on sim says so plainly
    (the model keeps the bytes the CPU or a view touches in this machine's memory) and names
    the size that fits, not the API's internals."""
    from ...errors import OutOfMemory
    # this machine's memory (umkit/sim/pages.py, backing_bytes: no total); the modelled VRAM's
    # OutOfMemory has a total and keeps its own message
    if isinstance(exc, OutOfMemory) and backend_name() == "sim" and exc.free is not None \
            and exc.total is None:
        fits = max(1, int(exc.free * 0.9) >> 20)
        return (f"buffer size {nbytes >> 20:,} MiB is more than this machine can model: the "
                f"simulator keeps the data in this machine's memory, and it has "
                f"{exc.free / (1 << 30):.1f} GiB free\n  -> use a buffer of at most about "
                f"{min(fits, MAX_JOB_MIB):,} MiB here")
    return error_message(exc)


def strategy_name(memory: str, prefetch: str, advice: str) -> str:
    """A short name for a strategy built from the controls, e.g. ``managed+prefetch+read-mostly``.
    Prefetch and advice act on managed memory only, so a ``device`` or ``pinned`` run is named by
    its memory alone (its label says the hints were ignored)."""
    if memory in HINTLESS:
        return memory
    return memory + _SHORT.get(prefetch, "") + _SHORT.get(advice, "")


def fig_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return buf.getvalue()


# -- the model --------------------------------------------------------------------------------------------
@dataclass
class PanelRun:
    """One run of the panel: its settings, the steps so far, and the result when it ends."""
    index: int
    settings: dict
    strategy: workloads.Strategy
    pattern: workloads.Pattern
    nbytes: int
    planned: int
    color: str
    steps: list = field(default_factory=list)
    result: workloads.RunResult | None = None
    error: str | None = None
    running: bool = True
    profile: str = ""            # the sim hardware profile it ran on ("" on a real GPU)

    @property
    def label(self) -> str:
        p = self.pattern
        patt = f"cpu_stats/{p.every}" if p.name == "cpu_stats" else p.name
        s = self.strategy
        ignored = (IGNORED if s.memory in HINTLESS
                   and (s.prefetch != "off" or s.advice != "none") else "")
        return f"#{self.index} {s.name}{ignored} · {patt} · {self.nbytes >> 20} MiB"

    @property
    def step_ms(self) -> list:
        return [s.ms for s in self.steps]

    @property
    def counters(self) -> dict:
        if self.result is not None:
            return dict(self.result.counters)
        total: dict = {}
        for s in self.steps:
            for k, v in s.counters.items():
                total[k] = total.get(k, 0) + v
        return total

    @property
    def stopped(self) -> bool:
        return bool(self.result is not None and self.result.stopped)

    def summary(self) -> dict:
        """The run's step-time summary (``RunResult.summary``, also while it is still running)."""
        r = self.result or workloads.RunResult(self.strategy.name, self.pattern.name, self.nbytes,
                                               "", steps=list(self.steps))
        return r.summary()


def _settings_dict(settings) -> dict:
    if not isinstance(settings, dict) or not all(isinstance(k, str) for k in settings):
        from ... import validate as V
        raise InvalidType(f"settings={V.short(settings)} must be a dict of panel settings",
                          argument="settings", hint=f"e.g. {{'memory': 'device'}}; names: "
                                                    f"{list(SETTINGS)}")
    return settings


class PanelModel:
    """The panel's state and logic, with no widgets: runs, the running flag, the last error, and
    control values -> :class:`umkit.workloads.Strategy` / :class:`~umkit.workloads.Pattern`."""

    def __init__(self):
        self.runs: list[PanelRun] = []
        self.running = False
        self.error: str | None = None
        self.last_exception: BaseException | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._count = 0

    # settings -> the one definition of a strategy
    @staticmethod
    def settings(**overrides) -> dict:
        """DEFAULTS with ``overrides``; unknown names are an error."""
        unknown = sorted(set(overrides) - set(SETTINGS))
        if unknown:
            raise InvalidArgument(f"unknown panel setting(s) {unknown}", argument=unknown[0],
                                  hint=f"use {list(SETTINGS)}")
        return {**DEFAULTS, **overrides}

    @staticmethod
    def build(settings: dict):
        """``(Strategy, Pattern, nbytes, steps)`` from control values; raises a readable
        :class:`umkit.UmkitError` for a bad value."""
        s = PanelModel.settings(**_settings_dict(settings))
        for key, lo, hi, unit in (("size_mib", 1, MAX_MIB, "MiB"), ("steps", 1, MAX_STEPS, "steps")):
            v = s[key]
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidType(f"{key}={s[key]!r} must be a whole number of {unit}",
                                  argument=key, hint=f"use {lo} to {hi} {unit}")
            if key == "size_mib" and v > MAX_JOB_MIB:
                from ...ecg.runs import job_too_large
                raise job_too_large(v << 20, "size_mib", f"use a buffer of 1 to {MAX_JOB_MIB} MiB")
            if not lo <= v <= hi:
                what = f"buffer size {v} MiB" if key == "size_mib" else f"{v} steps"
                raise InvalidArgument(f"{what} is out of range ({key})", argument=key,
                                      hint=f"use {lo} to {hi} {unit}")
            s[key] = v
        strat = workloads.Strategy(strategy_name(s["memory"], s["prefetch"], s["advice"]),
                                   memory=s["memory"], prefetch=s["prefetch"], advice=s["advice"])
        patt = workloads.Pattern(s["pattern"], s["every"])
        return strat, patt, s["size_mib"] << 20, s["steps"]

    @staticmethod
    def notes(settings: dict) -> list[str]:
        """What a learner may not expect from these settings (hints only apply to managed)."""
        s = PanelModel.settings(**_settings_dict(settings))
        out = []
        if s["memory"] in ("device", "pinned") and (s["prefetch"] != "off" or s["advice"] != "none"):
            out.append(f"prefetch and advice only act on managed memory: with {s['memory']} "
                       "memory they change nothing")
        if s["memory"] == "mixed" and s["advice"] != "none":
            out.append("mixed: the advice applies to the managed (cold) buffer only")
        return out

    # runs
    def run(self, settings: dict, *, on_start=None, on_step=None, on_end=None, pace: float = 0.0):
        """Run once with ``settings``.  ``on_start(run)``, ``on_step(run, record)`` and
        ``on_end(run)`` let a view redraw; ``pace`` seconds are waited after each step (so a
        fast model run can be watched).  Returns the RunResult, or None on error (the message
        is in ``self.error`` and on the run)."""
        from ... import validate as V
        for n, f in (("on_start", on_start), ("on_step", on_step), ("on_end", on_end)):
            V.callback(f, n)
        pace = V.real(pace, "pace", lo=0.0, hi=10.0, hint="seconds after each step, e.g. 0.05")
        with self._lock:
            if self.running:
                self.error = "a run is already going: press Stop first"
                return None
            self.running = True
        self.error, self.last_exception = None, None
        self._stop.clear()
        entry = None
        try:
            try:
                strat, patt, nbytes, steps = self.build(settings)
            except Exception as exc:                       # bad settings: a message, no run
                self.error, self.last_exception = error_message(exc), exc
                return None
            self._count += 1
            entry = PanelRun(self._count, self.settings(**settings), strat, patt, nbytes, steps,
                             PALETTE[(self._count - 1) % len(PALETTE)], profile=current_profile())
            self.runs.append(entry)
            if on_start:
                on_start(entry)

            def step_cb(rec):
                entry.steps.append(rec)
                if on_step:
                    on_step(entry, rec)
                if pace > 0 and len(entry.steps) < steps:
                    time.sleep(pace)
            try:
                entry.result = workloads.run(strat, patt, steps, nbytes, on_step=step_cb,
                                             should_stop=self._stop.is_set)
            except Exception as exc:
                entry.error = self.error = size_message(exc, nbytes)
                self.last_exception = exc
                if not entry.steps:                          # nothing to draw: drop it
                    self.runs.remove(entry)
                    self._count -= 1
            return entry.result
        finally:
            if entry is not None:
                entry.running = False
            self.running = False
            if on_end and entry is not None:
                on_end(entry)

    def stop(self):
        """Ask the current run to end after its step (``should_stop``)."""
        self._stop.set()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    def reset(self) -> bool:
        """Forget all runs (not while one is running).  Returns whether it did."""
        if self.running:
            self.error = "stop the run before Reset"
            return False
        self.runs.clear()
        self._count = 0
        self.error = None
        return True

    @property
    def results(self) -> list:
        return [r.result for r in self.runs if r.result is not None]

    def summary_rows(self) -> list[dict]:
        """One row per run: the label, step-time summary and the counters the table shows."""
        rows = []
        for r in self.runs:
            sm = r.summary()
            c = r.counters
            row = dict(run=r.index, label=r.label, color=r.color, steps=len(r.steps),
                       planned=r.planned, median_ms=sm["median_ms"], p95_ms=sm["p95_ms"],
                       max_over_median=sm["max_over_median"], running=r.running,
                       stopped=r.stopped, error=r.error, profile=r.profile)
            for key, _, div in COUNTER_COLUMNS:
                v = c.get(key, 0)
                row[key] = v / div if div != 1 else v
            row["has_counters"] = bool(c) or not r.steps or any(s.counters for s in r.steps)
            rows.append(row)
        return rows

    def status(self) -> str:
        """One line for the status bar."""
        if self.running and self.runs:
            r = self.runs[-1]
            med = r.summary()["median_ms"] if r.steps else 0
            return (f"running #{r.index}: step {len(r.steps)} / {r.planned}"
                    + (f" · median {fmt_ms(med)}" if r.steps else "")
                    + (" · stopping..." if self.stop_requested else ""))
        if self.error:
            return "error (see the message)"
        if not self.runs:
            return "ready: pick settings and press Run"
        r = self.runs[-1]
        verb = "stopped after" if r.stopped else "done:"
        return (f"#{r.index} {verb} {len(r.steps)} steps · median {fmt_ms(r.summary()['median_ms'])}"
                f" · {len(self.runs)} run(s) on the chart")


# -- drawing (HTML strings: pure functions of the runs) -------------------------------------------------
def fmt_ms(v: float) -> str:
    if v >= 1000:
        return f"{v / 1000:.3g} s"
    if v >= 0.001:
        return f"{v:.3g} ms"
    return f"{v * 1000:.3g} µs"


def _tick_label(v: float) -> str:
    if v >= 1000:
        return f"{v / 1000:g} s"
    if v >= 0.001:
        return f"{v:g} ms"
    return f"{v * 1000:g} µs"


def log_range(values) -> tuple[float, float]:
    """Decade bounds around the positive ``values`` (at least one decade)."""
    pos = [v for v in values if v and v > 0]
    if not pos:
        return 0.01, 1.0
    lo = 10 ** math.floor(math.log10(min(pos)))
    hi = 10 ** math.ceil(math.log10(max(pos)))
    if hi <= lo * 1.0001:
        hi = lo * 10
    return lo, hi


def _pct(v: float, lo: float, hi: float) -> float:
    if not v or v <= lo:
        return 0.0
    return max(0.0, min(100.0, 100 * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))))


def _ticks(lo: float, hi: float) -> list[float]:
    out, v = [], lo
    decades = round(math.log10(hi / lo))
    for _ in range(decades + 1):
        out.append(v)
        if decades <= 2 and v < hi:
            out += [2 * v, 5 * v]
        v *= 10
    return sorted(t for t in out if lo <= t <= hi * 1.0001)


GROUP_MIN_PX = 120        # a run's group of bars is at least this wide (and starts there, growing
                          # with its steps to twice its width): more runs than fit wrap to a new row
CSS = """<style>
.umk-panel{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#222}
.umk-title h2{margin:4px 0 2px;font-size:22px}
.umk-title p{margin:0 0 6px;font-size:14px;color:#444}
.umk-backend{font-size:13px;line-height:1.4;color:#333;background:#f3f5f8;border-radius:4px;
  padding:4px 8px}
.umk-status{font-size:14px;color:#333;padding:4px 2px}
.umk-error{white-space:pre-wrap;background:#fdecea;color:#8a1c12;border:1px solid #f5c2bd;
  border-radius:4px;padding:6px 10px;font-size:14px;margin:4px 0}
.umk-note{background:#fff8e1;color:#6b4e00;border:1px solid #f1dfa0;border-radius:4px;
  padding:4px 10px;font-size:13px;margin:4px 0}
.umk-chart{display:flex;align-items:flex-start;margin:6px 0 2px;font-size:13px}
.umk-yaxis{position:relative;width:64px;flex:0 0 64px}
.umk-yaxis span{position:absolute;right:6px;transform:translateY(50%);color:#555;font-size:12px;
  white-space:nowrap}
.umk-ycap{font-size:12px;color:#555;margin:8px 0 0 0}
.umk-scroll{flex:1 1 auto;overflow-x:auto;min-width:0}
.umk-row{display:flex;flex-wrap:wrap;gap:12px 16px;align-items:flex-start}
.umk-group{display:flex;flex-direction:column;min-width:GROUP_MIN_PXpx;overflow:hidden}
.umk-bars{position:relative;display:flex;align-items:flex-end;gap:1px;
  border-left:1px solid #999;border-bottom:1px solid #999;padding:0 2px}
.umk-grid{position:absolute;left:0;right:0;border-top:1px dotted #ccc;pointer-events:none}
.umk-bar{flex:1 1 0;max-width:18px;min-width:2px;border-radius:2px 2px 0 0;position:relative;z-index:1}
.umk-bar.umk-noted{border-top:4px solid #222;box-sizing:border-box}
.umk-slot{flex:1 1 0;max-width:18px;min-width:2px;height:2px;background:#eee}
.umk-median{position:absolute;left:0;right:0;border-top:2px dashed #222;z-index:2;pointer-events:none}
.umk-label{font-size:13px;margin-top:4px;padding-top:3px;border-top:4px solid;line-height:1.3;
  overflow-wrap:anywhere;word-break:break-word;padding-right:4px}
.umk-label small{color:#555;font-size:12px}
.umk-empty{height:100%;display:flex;align-items:center;justify-content:center;color:#888;
  font-size:15px;width:100%}
.umk-table-scroll{max-width:100%;overflow-x:auto}
table.umk-counters{border-collapse:collapse;font-size:13px;margin-top:6px;line-height:1.35}
table.umk-counters th,table.umk-counters td{padding:3px 6px;border-bottom:1px solid #ddd;text-align:right;
  white-space:nowrap;vertical-align:bottom}
table.umk-counters th{background:#f3f5f8;font-weight:600}
table.umk-counters td.umk-l,table.umk-counters th.umk-l{text-align:left;white-space:normal;
  min-width:150px;max-width:340px;overflow-wrap:anywhere}
table.umk-counters i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:5px;
  vertical-align:-1px}
.umk-legend{font-size:12px;color:#555;margin:2px 0 0 64px}
</style>""".replace("GROUP_MIN_PX", str(GROUP_MIN_PX))


def labelled(choices) -> list:
    """A dropdown's ``(label, value)`` options with the labels in the learner's language (the
    values stay what the code reads)."""
    return [(tr(label), value) for label, value in choices]


def shown_label(label: str) -> str:
    """A run's label as the chart and the table show it: in the learner's language where it is
    prose (the strategy, pattern and size are names and stay)."""
    return label.replace(IGNORED, " " + tr(IGNORED.strip())) if IGNORED in label else label


def _bar_title(run: PanelRun, rec) -> str:
    bits = [tr(f"run #{run.index}, step {rec.step}: {fmt_ms(rec.ms)}")]
    if rec.note:
        bits.append(tr(rec.note))
    c = rec.counters
    for key, name, div in COUNTER_COLUMNS:
        if c.get(key):
            v = c[key] / div if div != 1 else c[key]
            bits.append(f"{tr(name)} {v:.1f}" if div != 1 else f"{tr(name)} {v}")
    return " · ".join(bits)


def bars_html(runs, height: int = 230) -> str:
    """The bar chart: one coloured group per run, one ``div.umk-bar`` per finished step
    (``data-ms``; height = step time on a log scale), grey ``div.umk-slot`` for steps to come,
    a dashed line at each run's median."""
    runs = list(runs)
    if not runs:
        body = (f'<div class="umk-row"><div class="umk-bars" style="height:{height}px;width:100%">'
                f'<div class="umk-empty">{tr("no runs yet: pick settings and press Run")}</div>'
                '</div></div>')
        return (f'<div class="umk-ycap">{tr("step time (log scale)")}</div>'
                f'<div class="umk-chart"><div class="umk-yaxis" style="height:{height}px">'
                '</div><div class="umk-scroll">' + body + "</div></div>")
    lo, hi = log_range([v for r in runs for v in r.step_ms])
    ticks = _ticks(lo, hi)
    ticks_html = "".join(f'<span style="bottom:{_pct(t, lo, hi) if t > lo else 0:.2f}%">'
                         f"{_tick_label(t)}</span>" for t in ticks)
    grid = "".join(f'<div class="umk-grid" style="bottom:{_pct(t, lo, hi):.2f}%"></div>'
                   for t in ticks if t > lo)
    groups = []
    for r in runs:
        bars = []
        for rec in r.steps:
            pct = max(1.5, _pct(rec.ms, lo, hi))
            cls = "umk-bar umk-noted" if rec.note else "umk-bar"
            bars.append(f'<div class="{cls}" data-ms="{rec.ms:.6g}" data-step="{rec.step}" '
                        f'data-run="{r.index}" title="{html.escape(_bar_title(r, rec))}" '
                        f'style="height:{pct:.2f}%;background:{r.color}"></div>')
        if r.running:
            bars += ['<div class="umk-slot"></div>'] * max(0, r.planned - len(r.steps))
        median = ""
        if r.steps:
            sm = r.summary()
            median = (f'<div class="umk-median" style="bottom:{_pct(sm["median_ms"], lo, hi):.2f}%" '
                      f'title="{html.escape(tr("median " + fmt_ms(sm["median_ms"])))}"></div>')
        if r.steps:
            sm = r.summary()
            state = ("running · " if r.running else "stopped · " if r.stopped else "") + \
                (f"median {fmt_ms(sm['median_ms'])} · max/median {sm['max_over_median']:g}")
        else:
            state = "running..." if r.running else (r.error or "")
        if r.profile:
            state += f" · modelled {r.profile}"
        state = tr_parts(state)
        slots = r.planned if r.running else max(1, len(r.steps))   # a stopped run: its steps
        width = max(GROUP_MIN_PX, 4 * slots)
        groups.append(
            f'<div class="umk-group" data-run="{r.index}" style="flex:{max(slots, 8)} 1 {GROUP_MIN_PX}px;'
            f'max-width:{2 * width}px">'
            f'<div class="umk-bars" style="height:{height}px">{grid}{median}{"".join(bars)}</div>'
            f'<div class="umk-label" style="border-color:{r.color}">'
            f'<b style="color:{r.color}">#{r.index}</b> {html.escape(shown_label(r.label).split(" ", 1)[1])}'
            f"<br><small>{html.escape(state)}</small></div></div>")
    return (f'<div class="umk-ycap">{tr("step time (log scale)")}</div>'
            f'<div class="umk-chart"><div class="umk-yaxis" style="height:{height}px">{ticks_html}'
            '</div><div class="umk-scroll"><div class="umk-row">' + "".join(groups)
            + "</div></div></div>"
            '<div class="umk-legend">' + tr_parts(
                "one bar per training step, height = step time on a log scale"
                " · dashed line = median · dark cap = the CPU touched the data in that step"
                " · hover a bar for its counters") + "</div>")


def counters_html(rows, backend: str = "") -> str:
    """The counters table (``table.umk-counters``): one row per run."""
    head = (f"<tr><th class='umk-l'>{tr('run')}</th><th>{tr('steps')}</th><th>{tr('median')}</th>"
            "<th>p95</th><th>max/<br>median</th>"
            + "".join(f"<th>{tr(h).replace(' ', '<br>', 1)}</th>" for _, h, _ in COUNTER_COLUMNS)
            + "</tr>")
    if not rows:
        body = (f"<tr><td class='umk-l' colspan='{5 + len(COUNTER_COLUMNS)}'>"
                + tr_parts("no runs yet · counters appear here as steps finish") + "</td></tr>")
    else:
        body = ""
        for r in rows:
            steps = f"{r['steps']}/{r['planned']}" if r["running"] or r["stopped"] else str(r["steps"])
            cells = []
            for key, _, div in COUNTER_COLUMNS:
                v = r[key]
                if not r["has_counters"]:
                    cells.append("<td>—</td>")
                else:
                    cells.append(f"<td>{v:,.1f}</td>" if div != 1 else f"<td>{int(v):,}</td>")
            flag = " (running)" if r["running"] else " (stopped)" if r["stopped"] else \
                " (error)" if r["error"] else ""
            flag = flag and " " + tr(flag[1:])
            card = (f"<br><small>{html.escape(tr('modelled ' + r['profile']))}</small>"
                    if r.get("profile") else "")
            body += (f"<tr><td class='umk-l'><i style='background:{r['color']}'></i>"
                     f"{html.escape(shown_label(r['label']))}{flag}{card}</td><td>{steps}</td>"
                     f"<td>{fmt_ms(r['median_ms'])}</td><td>{fmt_ms(r['p95_ms'])}</td>"
                     f"<td>{r['max_over_median']:g}</td>{''.join(cells)}</tr>")
    foot = ""
    if rows and not any(r["has_counters"] for r in rows):
        foot = ("<caption style='caption-side:bottom;text-align:left;font-size:12px;color:#666'>"
                + html.escape(tr(f"{backend} keeps these counters in the driver: "
                                 "umkit.counters_on() reads them on cuda (CUPTI); nsys / rocprof "
                                 "elsewhere")) + "</caption>")
    return f"<div class='umk-table-scroll'><table class='umk-counters'>{foot}{head}{body}</table></div>"


def summary_text(rows) -> str:
    """The runs as a fixed-width text table (text/plain fallback)."""
    if not rows:
        return tr("strategy panel: no runs yet")
    lines = [f"{'run':<52}{'steps':>6}{'median ms':>11}{'p95 ms':>10}{'max/med':>9}"
             f"{'GPU flt':>9}{'CPU flt':>9}{'MiB>GPU':>9}{'MiB>CPU':>9}"]
    for r in rows:
        lines.append(f"{r['label'][:51]:<52}{r['steps']:>6}{r['median_ms']:>11.4f}{r['p95_ms']:>10.4f}"
                     f"{r['max_over_median']:>9.2f}{int(r['gpu_faults']):>9}{int(r['cpu_faults']):>9}"
                     f"{r['bytes_h2d']:>9.1f}{r['bytes_d2h']:>9.1f}")
    return "\n".join(lines)


# -- the widget -----------------------------------------------------------------------------------------
class StrategyPanel:
    """The strategy panel.  ``StrategyPanel().widget`` is the ipywidgets tree; the panel
    displays itself in a notebook.  ``run_once(**settings)`` runs once (the Run button calls it
    too) and returns the :class:`umkit.workloads.RunResult` (None on error, see ``.error``).

    ``static``: None = auto (:func:`has_frontend`); ``pace``: seconds to wait after each step
    so the bars can be watched growing (default 0.05 s with a widget frontend, 0 without);
    ``threaded``: the Run button runs in a thread so Stop can be pressed (default True);
    ``why``: the reason shown beside the backend (default ``umkit.why()``);
    other keywords set the controls' starting values (see ``DEFAULTS``)."""

    def __init__(self, *, static: bool | None = None, pace: float | None = None,
                 threaded: bool = True, why: str | None = None, profile: str | None = None,
                 **defaults):
        import ipywidgets as W

        from ... import validate as V
        static = V.optional_flag(static, "static")
        if pace is not None:
            pace = V.real(pace, "pace", lo=0.0, hi=10.0, hint="seconds after each step, e.g. 0.05")
        threaded = V.flag(threaded, "threaded")
        V.optional_string(why, "why")
        V.optional_string(profile, "profile", hint="a sim profile name, e.g. 'h200-pcie5'")
        start = PanelModel.settings(**defaults)
        PanelModel.build(start)         # a bad starting value: a typed error, not a TraitError
        self.model = PanelModel()
        if profile is not None:                          # start on this modelled card
            self.use_profile(profile)
        self.static = (not has_frontend()) if static is None else bool(static)
        self.pace = (0.0 if self.static else 0.05) if pace is None else float(pace)
        self.threaded = threaded
        self._thread: threading.Thread | None = None
        self._last_draw = 0.0
        self.min_redraw_s = 0.05                        # unpaced runs: redraw at most this often
        self._why = why if why is not None else _why()
        self.backend_text = backend_description(self._why)
        self._gpu_backend = backend_name() if backend_name() != "sim" else None

        st = {"description_width": "112px"}
        # fixed widths that give way in a narrow column (1024 px, projector mode): a dropdown
        # keeps its arrow and a field its digits instead of being cut by the column's edge
        wide = W.Layout(width="390px", max_width="100%")
        narrow = W.Layout(width="230px", max_width="100%")
        self.controls = {
            "memory": W.Dropdown(options=labelled(MEMORY_CHOICES), value=start["memory"],
                                 description="memory", style=st, layout=wide),
            "prefetch": W.Dropdown(options=labelled(PREFETCH_CHOICES), value=start["prefetch"],
                                   description="prefetch", style=st, layout=wide),
            "advice": W.Dropdown(options=labelled(ADVICE_CHOICES), value=start["advice"],
                                 description="advice", style=st, layout=wide),
            "pattern": W.Dropdown(options=labelled(PATTERN_CHOICES), value=start["pattern"],
                                  description="access pattern", style=st, layout=wide),
            "size_mib": W.BoundedIntText(value=start["size_mib"], min=0, max=MAX_MIB,
                                         description="buffer (MiB)", style=st, layout=narrow),
            "steps": W.BoundedIntText(value=start["steps"], min=0, max=MAX_STEPS,
                                      description="steps", style=st, layout=narrow),
            "every": W.BoundedIntText(value=start["every"], min=1, max=MAX_STEPS,
                                      description="every k steps", style=st, layout=narrow),
        }
        from ...sim import available_profiles
        have = set(available_profiles())
        names = [n for n, _ in PROFILE_CHOICES if n in have]
        cur = current_profile()
        if cur and cur not in names:
            names.append(cur)
        opts = ([(tr(f"this machine's GPU ({self._gpu_backend})"), "")] if self._gpu_backend
                else []) + [(tr(profile_label(n)), n) for n in names]
        self.profile_picker = W.Dropdown(
            options=opts, value=cur if not self._gpu_backend else "", description="hardware",
            style=st, layout=W.Layout(width="470px", max_width="100%"),
            tooltip="the card the sim backend models (umkit.use('sim', profile=...))")
        self.profile_picker.add_class("umk-ctl-profile")
        self.profile_picker.observe(self._on_profile, names="value")
        # buttons carry text only: icon fonts come from a CDN, and a workshop room may be offline
        self.run_button = W.Button(description="▶ Run", button_style="success",
                                   tooltip="run the steps with these settings",
                                   layout=W.Layout(width="110px"))
        self.stop_button = W.Button(description="■ Stop", button_style="danger",
                                    disabled=True, tooltip="end the run after the current step",
                                    layout=W.Layout(width="110px"))
        self.reset_button = W.Button(description="Reset",
                                     tooltip="clear the runs from the chart",
                                     layout=W.Layout(width="110px"))
        for k, w in self.controls.items():
            w.add_class(f"umk-ctl-{k}")
        self.run_button.add_class("umk-run")
        self.stop_button.add_class("umk-stop")
        self.reset_button.add_class("umk-reset")
        self.run_button.on_click(lambda _b: self.start())
        self.stop_button.on_click(lambda _b: self.stop())
        self.reset_button.on_click(lambda _b: self.reset())
        self.controls["pattern"].observe(lambda _c: self.set_enabled(not self.model.running),
                                         names="value")
        for k in ("memory", "prefetch", "advice"):
            self.controls[k].observe(lambda _c: self._draw_notes(), names="value")

        self.title = W.HTML(
            CSS + "<div class='umk-title'><h2>Strategy panel: where should the buffers live?</h2>"
            "<p>A training-style step reads a batch and updates parameters on the GPU, while the "
            "CPU does its part. Pick a strategy, press <b>Run</b>, and compare the runs: "
            "one bar per step.</p></div>")
        self.backend_label = W.HTML()
        self.backend_label.value = self._backend_html()
        self.status = W.HTML()
        self.message = W.HTML()
        self.chart = W.HTML()
        self.table = W.HTML()
        for w, c in ((self.status, "umk-status-w"), (self.message, "umk-message-w"),
                     (self.chart, "umk-chart-w"), (self.table, "umk-table-w")):
            w.add_class(c)
        c = self.controls
        left = W.VBox([c["memory"], c["prefetch"], c["advice"], c["pattern"]],
                      layout=W.Layout(max_width="100%"))
        right = W.VBox([c["size_mib"], c["steps"], c["every"]], layout=W.Layout(max_width="100%"))
        buttons = W.HBox([self.run_button, self.stop_button, self.reset_button, self.status],
                         layout=W.Layout(align_items="center", margin="6px 0 0 0",
                                         flex_flow="row wrap"))
        self.widget = W.VBox([self.title, self.backend_label, self.profile_picker,
                              W.HBox([left, right], layout=W.Layout(margin="6px 0 0 0",
                                                                    flex_flow="row wrap")),
                              buttons, self.message, self.chart, self.table],
                             layout=W.Layout(padding="4px 10px", width="100%"))
        self.widget.add_class("umk-panel")
        self._draw(force=True)
        from ...runtime.lang import localize
        localize(self.widget)           # the learner's language: labels, buttons, help

    # the modelled card
    def use_profile(self, name: str):
        """Switch the sim backend to hardware profile ``name`` (the public API:
        ``umkit.use('sim', profile=name)``, model-only timing like the rest of the panel); ""
        goes back to this machine's GPU backend.  Refused while a run is going."""
        from ... import validate as V
        V.string(name, "name", hint="a sim profile name, e.g. 'h200-pcie5' ('' for the GPU)")
        if self.model.running:
            self.model.error = "stop the run before switching the hardware"
            return False
        gpu = getattr(self, "_gpu_backend", None)
        if name == "" and gpu:
            use(gpu, quiet=True)
        elif name == "":
            raise InvalidArgument("name='' means this machine's GPU, and this panel runs on sim",
                                  argument="name", hint="pick a sim profile, e.g. 'h200-pcie5'")
        else:
            try:
                use("sim", profile=name, compute=False, quiet=True)
            except UmkitError as e:                     # the profile's own error, for `name`
                if getattr(e, "argument", None) in (None, "profile"):
                    raise InvalidArgument(f"name={name!r}: {e.message}", argument="name",
                                          hint=e.hint) from None
                raise
        self.model.error = None
        if hasattr(self, "backend_label"):
            if self.profile_picker.value != name:
                self.profile_picker.value = name
            self._refresh_backend()
        return True

    def show_error(self, message: str):
        """Show ``message`` in the panel's status line (and redraw)."""
        from ... import validate as V
        self.model.error = V.string(message, "message", hint="a text for the status line")
        self._draw(force=True)

    def show_profile(self, name: str):
        """Show ``name`` in the profile picker without switching the backend again (it is the
        active sim profile already), and redraw the backend line."""
        from ... import validate as V
        values = tuple(o[1] if isinstance(o, tuple) else o for o in self.profile_picker.options)
        name = V.choice(name, "name", values, hint=f"one of the picker's profiles: {values}")
        self.profile_picker.unobserve(self._on_profile, names="value")
        self.profile_picker.value = name
        self.profile_picker.observe(self._on_profile, names="value")
        self._refresh_backend()

    def _refresh_backend(self):
        self.backend_text = backend_description(self._why if backend_name() != "sim" else "")
        self.backend_label.value = self._backend_html()
        self._draw(force=True)

    def _backend_html(self) -> str:
        return (f"<div class='umk-backend'><b>{html.escape(tr('backend'))}</b> "
                f"{html.escape(tr(self.backend_text))}</div>")

    def _on_profile(self, change):
        new = change["new"]
        if self.model.running:                           # the picker is disabled then; be safe
            self.profile_picker.unobserve(self._on_profile, names="value")
            self.profile_picker.value = change["old"]
            self.profile_picker.observe(self._on_profile, names="value")
            return
        try:
            self.use_profile(new)
        except Exception as exc:                         # a readable message, never a traceback
            self.model.error = error_message(exc)
            self._draw(force=True)

    # values <-> controls
    def settings(self) -> dict:
        """The controls' current values."""
        return {k: w.value for k, w in self.controls.items()}

    def set(self, **settings):
        """Set controls (same names as :data:`DEFAULTS`)."""
        PanelModel.settings(**settings)
        for k, v in settings.items():               # a choice not offered: a typed error
            opts = getattr(self.controls[k], "options", None)
            if opts is not None and isinstance(opts, (list, tuple)) and opts and \
                    v not in [o[1] if isinstance(o, tuple) else o for o in opts]:
                raise InvalidArgument(f"{k}={v!r} is not one of the panel's choices",
                                      argument=k, hint=f"use one of "
                                      f"{[o[1] if isinstance(o, tuple) else o for o in opts]}")
        for k, v in settings.items():
            self.controls[k].value = v

    def build(self):
        """``(Strategy, Pattern, nbytes, steps)`` from the controls."""
        return PanelModel.build(self.settings())

    # actions
    def run_once(self, *, on_step=None, **settings):
        """Run once with the controls' values overridden by ``settings`` (the controls are set
        to them too); synchronous, redrawing after each step.  Returns the RunResult, or None
        with the message in ``.error``.  ``on_step(run, record)`` is an extra hook."""
        from ... import validate as V
        V.callback(on_step, "on_step")
        try:
            if settings:
                self.set(**settings)
        except Exception as exc:
            self.model.error = error_message(exc)
            self._draw(force=True)
            self.set_enabled(not self.model.running)
            return None
        vals = self.settings()

        def step(entry, rec):
            self._draw()
            if on_step:
                on_step(entry, rec)
        try:
            res = self.model.run(vals, on_start=self._on_start, on_step=step, on_end=self._on_end,
                                 pace=self.pace)
        finally:
            # whatever happened (settings refused before any run began, so on_end never came;
            # an error while drawing), the panel must come back: controls, Run and Reset usable
            self._draw(force=True)
            self.set_enabled(not self.model.running)
        return res

    def start(self):
        """What the Run button does: run with the controls' values, in a thread (so Stop
        works) unless ``threaded=False`` or static."""
        if self.model.running:
            return
        if self.threaded and not self.static:
            self.set_enabled(False)         # at once, before the thread starts
            self._thread = threading.Thread(target=self.run_once, name="umkit-panel", daemon=True)
            self._thread.start()
        else:
            self.run_once()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a threaded run; True when none is running any more."""
        t = self._thread
        if t is not None:
            t.join(timeout)
        return not self.model.running

    def stop(self):
        """End the run after its current step; with no run going, make the panel usable again
        (Stop must never be a dead button)."""
        self.model.stop()
        if not self.model.running:
            self.set_enabled(True)
        self._draw(force=True)

    def reset(self):
        self.model.reset()
        self._draw(force=True)

    @property
    def runs(self) -> list:
        return self.model.runs

    @property
    def results(self) -> list:
        """The RunResults of the finished runs (the data behind the picture)."""
        return self.model.results

    @property
    def error(self) -> str | None:
        return self.model.error

    @property
    def running(self) -> bool:
        return self.model.running

    def figure(self):
        """The static picture: :func:`umkit.ecg.step_bars` of the runs (a matplotlib Figure)."""
        from ...ecg import picture as plots
        fig = plots.step_bars([{"label": r.label, "step_ms": r.step_ms, "color": r.color}
                               for r in self.model.runs if r.steps])
        ax = fig.axes[0]
        ax.set_title(for_figure(f"strategy panel: step times ({backend_name()})"), fontsize=10)
        ax.set_xlabel(for_figure("training steps, one group per run"))
        if ax.get_legend() is not None:                 # below the bars, not over them
            ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
                      frameon=False)
        return figure_fonts(fig)

    # drawing
    def _on_start(self, entry):
        self.set_enabled(False)
        self._draw(force=True)

    def _on_end(self, entry):
        self._draw(force=True)           # the final state first, then the controls come back
        self.set_enabled(True)

    def set_enabled(self, enabled: bool):
        """Enable the controls (no run going) or disable them (a run is going; Stop stays on)."""
        from ... import validate as V
        enabled = V.flag(enabled, "enabled")
        for k, w in self.controls.items():
            w.disabled = not enabled or (k == "every" and self.controls["pattern"].value != "cpu_stats")
        self.run_button.disabled = not enabled
        self.reset_button.disabled = not enabled
        self.profile_picker.disabled = not enabled
        self.stop_button.disabled = enabled

    def _draw_notes(self):
        self.message.value = self._message_html()

    def _message_html(self) -> str:
        m = self.model
        out = ""
        if m.error:
            out += (f"<div class='umk-error'><b>{html.escape(tr('Error.'))}</b> "
                    f"{html.escape(tr(m.error))}</div>")
        try:
            notes = PanelModel.notes(self.settings())
        except Exception:
            notes = []
        out += "".join(f"<div class='umk-note'>{html.escape(tr(n))}</div>" for n in notes)
        return out

    def _draw(self, force: bool = False):
        if self.static:
            return
        now = time.monotonic()
        if not force and self.pace <= 0 and now - self._last_draw < self.min_redraw_s:
            return                                      # fast runs: at most 20 redraws a second
        self._last_draw = now
        m = self.model
        rows = m.summary_rows()
        self.chart.value = bars_html(m.runs)
        self.table.value = counters_html(rows, backend_name())
        self.status.value = f"<div class='umk-status'>{html.escape(tr_parts(m.status()))}</div>"
        self.message.value = self._message_html()

    # display
    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        text = summary_text(self.model.summary_rows())
        if not self.static:
            self._draw(force=True)
            bundle = self.widget._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
            if isinstance(bundle, tuple):
                bundle = bundle[0]
            bundle = dict(bundle or {})
            bundle["text/plain"] = text
            return bundle
        bundle = {"text/plain": text + ("" if self.model.error is None
                                        else f"\nerror: {self.model.error}")}
        if any(r.steps for r in self.model.runs):
            import matplotlib.pyplot as plt
            fig = self.figure()
            bundle["image/png"] = fig_png(fig)
            plt.close(fig)
        return bundle

    def __repr__(self):
        return f"<StrategyPanel {len(self.model.runs)} run(s), {'static' if self.static else 'widgets'}>"


def _why() -> str:
    try:
        return why() or ""
    except Exception:                                    # pragma: no cover - reporting only
        return ""


def panel(*, run=None, static: bool | None = None, **kwargs) -> StrategyPanel:
    """The strategy panel.  In Jupyter/Voila: the widget (it displays itself as a cell's last
    expression).  Without a widget frontend: the runs drawn statically with
    :func:`umkit.ecg.step_bars` -- ``run`` (a settings dict or a list of them) says which;
    each one over the starting settings; by default one run with the starting settings, so the
    picture shows something.  Either way
    the returned panel holds the data: ``.results`` (RunResults), ``.model.summary_rows()``."""
    from ... import validate as V
    if isinstance(run, dict):
        run = [run]
    if run is not None:
        run = V.sequence(run, "run", hint="a settings dict, or a list of them")
        for s in run:
            V.mapping(s, "run", hint="a settings dict, e.g. {'memory': 'device'}")
            unknown = sorted(str(k) for k in set(s) - set(SETTINGS))
            if unknown:
                raise InvalidArgument(f"run has unknown setting(s) {unknown}", argument="run",
                                      hint=f"use {list(SETTINGS)}")
    p = StrategyPanel(static=static, **kwargs)
    start = p.settings()
    if run is None and p.static:
        run = [{}]
    for s in run or []:
        p.run_once(**{**start, **s})                   # each run: the starting values + its own
    return p
