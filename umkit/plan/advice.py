"""What to give each buffer, and what each plan would cost: the rules and the replay search.

The rules (each one the article's, and each one a test in ``tests/plan/``) decide which
choices a buffer may get:

* only the GPU touches it -> **device** memory: nothing to migrate, nothing to advise (§3.4);
* the CPU touches it again and again (every k steps, say) while the GPU uses it -> **not plain
  managed**: every CPU touch pulls pages back and the next kernel faults them in again, the
  ping-pong of §4.3;
* PyTorch's tensors are computed on by CUDA kernels -> never pinned host memory;
* the CPU produces it (writes it whole, step after step) and the GPU reads it -> pinned or
  managed + prefetch, whichever the replay finds faster (a small batch read once goes over the
  link as it is read; a large one read many times is better moved in bulk first);
* only the CPU touches it -> host memory (pinned, or managed where it started).

Among the choices a buffer may get, the replay decides (:mod:`.replay`): buffers that were
touched alike (the same sides, in the same steps, of about the same size) form a group, and
each group in turn, largest first, takes the choice whose replayed loop is fastest (a choice
must be 1 % faster to displace an earlier one of :data:`~umkit.plan.model.CHOICES`).

Predicted step times: the replay's model time under a plan, plus what the replay does not
model, taken from the recording's *rest* (``measured - replay(as recorded)``, step by step),
taken apart by :mod:`.instrumentation`: every plan carries the loop's own work per step (the
floor of the rest: the instrumentation, its switching and the host's disturbances left out),
and a step's memory cost beyond the replay (where the recorded plan faults or migrates) goes
only to a plan in the share of that memory work it still does.  Each prediction says how sure
its size is (``Recommendation.confidence``: "sized", or "order only" with the reason).
On another profile the recorded rest is assumed the same (a faster card's kernels would make
it smaller: the prediction is then for the memory side).
"""
from __future__ import annotations

import dataclasses
import math

from .. import validate as V
from ..ecg.model import display_width
from ..errors import InvalidArgument, InvalidType
from ..runtime.lang import tr
from .model import CHOICES, TORCH_ROLES, recorded_choice
from .instrumentation import confidence, estimate, plan_rest
from .replay import check_work, mean_ms, replay

DEFAULT_PROFILE = "h200-pcie5"
REPLAY_STEPS = 30
BETTER = 0.01        # a later choice must be this much faster to displace an earlier one


def profiles_of(result, profiles, name: str = "profiles") -> list[str]:
    """The profiles to predict on; ``name``: the argument the caller took them as (``profile``
    for :func:`predict`, which takes one name)."""
    from ..sim import available_profiles
    known = available_profiles()
    if profiles is None:         # the recording's own: it may name a profile this umkit lacks
        own = result.profile or DEFAULT_PROFILE
        if own not in known:
            raise InvalidArgument(f"the recording was made on profile {V.shown(own)}, which is "
                                  "not a sim profile here", argument=name,
                                  hint=f"name profiles to predict on (--profiles), one of {known}")
        return [own]
    if isinstance(profiles, str):
        profiles = [profiles]
    elif name == "profile":      # predict: one profile name
        raise InvalidType(f"profile={V.short(profiles)} must be a profile name (a string)",
                          argument="profile", hint=f"e.g. profile='h200-pcie5'; known: {known}")
    profiles = V.sequence(profiles, "profiles", hint="e.g. profiles=['h200-pcie5', 'mi300x']")
    if not profiles:
        raise InvalidArgument("profiles=[] names no profile", argument="profiles",
                              hint=f"e.g. profiles=['h200-pcie5']; known: {known}")
    for p in profiles:
        if not isinstance(p, str):
            raise InvalidType(f"{name} holds {V.short(p)}: not a profile name", argument=name,
                              hint=f"one of {known}")
        if p not in known:
            raise InvalidArgument(f"profile {V.shown(p)} is not a sim profile", argument=name,
                                  hint=f"one of {known}")
    return list(dict.fromkeys(profiles))


#: the most memory a replay simulates, all buffers together: sim keeps per-page state of what a
#: plan touches or prefetches, so a recording of a (mostly untouched) 256 TiB buffer would ask
#: for hundreds of GiB; refused up front instead, with what to do
MAX_REPLAY_BYTES = 256 << 30


def check_replayable(result) -> None:
    """A typed error, before any replay, when the recording's buffers together exceed
    :data:`MAX_REPLAY_BYTES` (names the largest buffer)."""
    total = sum(int(b.nbytes) for b in result.buffers)
    if total > MAX_REPLAY_BYTES:
        big = max(result.buffers, key=lambda b: b.nbytes)
        raise InvalidArgument(
            f"the recording's buffers hold {total / (1 << 30):,.1f} GiB (the largest, "
            f"{V.short(big.name)}, {big.nbytes / (1 << 30):,.1f} GiB); a replay simulates at "
            f"most {MAX_REPLAY_BYTES >> 30} GiB", argument="result",
            hint="record the loop with smaller buffers (the same shape of access at a smaller "
                 "size predicts the same choices), or free buffers the loop does not use")


def steps_of(result, steps) -> int:
    """How many recorded steps to replay (checks that the recording can be replayed at all,
    :func:`check_replayable`, and that a replay of them ends in seconds,
    :func:`.replay.check_work`)."""
    check_replayable(result)
    n = len(result.step_pattern)
    if steps is None:
        steps = min(n, REPLAY_STEPS)
    else:
        steps = V.integer(steps, "steps", lo=1, hi=max(1, n),
                          hint=f"how many recorded steps to replay (1..{n})")
    check_work(result, steps)        # a replay too large to end in seconds: refused up front
    return steps


def allowed(result, choices, touched=None) -> dict:
    """{buffer id: (choices it may get, why)} by the rules of the module docstring."""
    if choices is None:
        choices = CHOICES
    choices = V.names(choices, "choices", CHOICES, hint=f"a tuple of {CHOICES}")
    touched = touched or result.touch_steps()
    produced = cpu_written(result)
    out = {}
    for b in result.buffers:
        g, c = touched[b.id]
        cand = [x for x in CHOICES if x in choices]
        if b.role in TORCH_ROLES:
            cand = [x for x in cand if x != "pinned"]
            torch_note = "; PyTorch computes on it: not pinned"
        else:
            torch_note = ""
        if g and not c:
            why = "only the GPU touches it: device memory, nothing to migrate"
            cand = [x for x in cand if x == "device"] or cand
        elif c and not g:
            why = "only the CPU touches it: host memory"
            cand = [x for x in cand if x in ("pinned", "managed")] or cand
        elif c and g and produced.get(b.id, 0) >= 2:
            why = ("the CPU produces it (writes it whole, step after step) and the GPU reads "
                   "it: pinned (the GPU reads it over the link) or prefetched (moved in bulk "
                   "before the kernels), whichever the replay finds faster")
            cand = [x for x in cand if x in ("managed+prefetch", "pinned")] or \
                [x for x in cand if x in ("managed+prefetch", "device")] or cand
        elif c and g and len(c) >= 2:
            why = ("the CPU touches it again and again while the GPU uses it: not plain "
                   "managed (each CPU touch pulls pages back, the next kernel faults them in)")
            cand = [x for x in cand if x != "managed"] or cand
        elif c and g:
            why = "the CPU touches it once, the GPU uses it"
        else:
            why = "not touched in the recorded steps: left as recorded"
            cand = [recorded_choice(b)] if recorded_choice(b) in cand else cand[:1]
        out[b.id] = (cand, why + torch_note)
    return out


def cpu_written(result) -> dict:
    """{buffer id: in how many steps the CPU wrote at least half of its pages}."""
    per = []
    for ops in result.patterns:
        pages = {}
        for op in ops:
            if op[0] == "cpu":
                for bid, n, _, _, _, write in op[3]:
                    if write:
                        pages[bid] = pages.get(bid, 0) + n
        per.append(pages)
    size = {b.id: b.pages for b in result.buffers}
    out: dict = {}
    for k in result.step_pattern:
        if k < 0:
            continue
        for bid, n in per[k].items():
            if n * 2 >= size.get(bid, 1):
                out[bid] = out.get(bid, 0) + 1
    return out


def groups(result, touched) -> list[list[int]]:
    """Buffers touched alike, largest group first."""
    by = {}
    for b in result.buffers:
        g, c = touched[b.id]
        key = (b.role in TORCH_ROLES, tuple(g), tuple(c), b.kind,
               int(math.log2(max(b.nbytes, 1)) // 2))
        by.setdefault(key, []).append(b.id)
    size = {b.id: b.nbytes for b in result.buffers}
    return sorted(by.values(), key=lambda ids: -sum(size[i] for i in ids))


class Predictor:
    """Replays of one recording on one profile, remembered by plan.  ``base``: the replay of
    the recorded plan on the profile the loop was recorded on (the recording's sim profile, or
    ``recorded_on`` for a GPU run), from which the rest of each step is measured."""

    def __init__(self, result, profile: str, steps: int, base: dict | None = None, pool=None):
        self.result, self.profile, self.steps = result, profile, steps
        self.memo: dict = {}
        self.recorded = {b.id: recorded_choice(b) for b in result.buffers}
        self.replays = 0
        self.base = base
        self.est = None
        self.bases: dict = {}
        self.pool = pool

    @staticmethod
    def key(plan: dict) -> tuple:
        return tuple(sorted(plan.items()))

    def run(self, plan: dict) -> dict:
        key = self.key(plan)
        if key not in self.memo:
            self.replays += 1
            self.memo[key] = replay(self.result, plan, self.profile, self.steps)
        return self.memo[key]

    def run_many(self, plans: list) -> None:
        """Replay the plans not replayed yet, side by side in ``pool`` (a process pool) when
        there is one: each replay is a simulator of its own."""
        todo = list({self.key(p): p for p in plans if self.key(p) not in self.memo}.values())
        if self.pool is None or len(todo) < 2:
            for p in todo:
                self.run(p)
            return
        n = len(todo)
        outs = self.pool.map(replay, [self.result] * n, todo, [self.profile] * n,
                             [self.steps] * n)
        for p, out in zip(todo, outs):
            self.memo[self.key(p)] = out
        self.replays += n

    def home(self) -> str:
        return self.result.profile or self.result.meta.get("recorded_on") or DEFAULT_PROFILE

    def nomigration(self) -> dict:
        """The no-migration plan: every buffer in device memory."""
        return {b.id: "device" for b in self.result.buffers}

    def baseline(self, profile: str | None = None) -> list | None:
        """The loop's GPU work alone, replayed on ``profile`` (default: the one predicted): the
        recorded kernels with every buffer in device memory and no CPU access or copy, so no
        memory work at all; None when that does not fit."""
        profile = profile or self.profile
        if profile not in self.bases:
            gpu_only = dataclasses.replace(
                self.result, patterns=[[op for op in ops if op[0] == "gpu"]
                                       for ops in self.result.patterns])
            r = replay(gpu_only, self.nomigration(), profile, self.steps)
            self.bases[profile] = r["step_ms"] if r["fits"] else None
        return self.bases[profile]

    def estimate(self) -> dict:
        """The recording's rest taken apart (:func:`.instrumentation.estimate`), from the replays
        on the profile the loop was recorded on."""
        if self.est is None:
            home = self.home()
            if self.base is None:
                self.base = (self.run(self.recorded) if home == self.profile else
                             replay(self.result, self.recorded, home, self.steps))
            self.est = estimate(self.result, self.base["step_ms"], self.baseline(home))
        return self.est

    def rest(self, plan: dict | None = None) -> list:
        """Per step, the rest ``plan`` carries (default: the recorded plan): the loop's own work
        (the floor of the recording's rest) and the share of the recorded plan's memory cost
        beyond the replay that the plan still does (:mod:`.instrumentation`)."""
        return self._rest(self.recorded if plan is None else plan)[0]

    def _rest(self, plan: dict) -> tuple:
        est = self.estimate()
        r, rec = self.run(plan), self.run(self.recorded)
        if not r["fits"]:
            return [], []
        return plan_rest(est, r["step_ms"], rec["step_ms"] if rec["fits"] else r["step_ms"],
                         self.baseline())

    def confidence(self, prediction: dict | None = None) -> dict:
        """How sure the predicted sizes are (:func:`.instrumentation.confidence`), for the plan
        predicted as ``prediction`` (a :meth:`predict` result; default: none in particular)."""
        est = self.estimate()
        p = prediction or {}
        return confidence(est, p.get("mean_ms"), p.get("upper_bound_ms", 0.0),
                          home=self.home() == self.profile)

    def predict(self, plan: dict) -> dict:
        """Predicted step times under ``plan`` (see the module docstring); ``upper_bound_ms``:
        the part of ``mean_ms`` measured only with the counters on."""
        r = self.run(plan)
        if not r["fits"]:
            return dict(fits=False, why=r["why"], step_ms=[], mean_ms=math.inf,
                        replay_mean_ms=math.inf)
        rest, upper = self._rest(plan)
        pred = [x + (rest[i] if i < len(rest) else 0.0) for i, x in enumerate(r["step_ms"])]
        return dict(fits=True, step_ms=[round(x, 6) for x in pred], mean_ms=mean_ms(pred),
                    replay_mean_ms=mean_ms(r["step_ms"]), replay_step_ms=list(r["step_ms"]),
                    upper_bound_ms=mean_ms(upper) if upper else 0.0)


def resolve(result, plan, name: str = "plan") -> dict:
    """``plan`` ({buffer name, id or role: choice}) as {buffer id: choice}; the buffers it
    does not name keep their recorded choice."""
    V.mapping(plan, name, hint="e.g. {'parameter': 'device', 'batch': 'pinned'}")
    out = {b.id: recorded_choice(b) for b in result.buffers}
    roles = {b.role for b in result.buffers}
    for k, choice in plan.items():
        V.choice(choice, f"{name}[{V.short(k)}]", CHOICES)
        if k == "*":
            hits = [b.id for b in result.buffers]
        elif k in roles:
            hits = [b.id for b in result.buffers if b.role == k]
        else:
            hits = [b.id for b in result.buffers if b.name == k or b.id == k]
        if not hits:
            raise InvalidArgument(f"{name} names {V.shown(k)}: no buffer or role of that name",
                                  argument=name, hint=f"buffers: {[b.name for b in result.buffers][:6]}"
                                                      f"; roles: {sorted(roles)}; '*': every buffer")
        for i in hits:
            out[i] = choice
    return out


def predict(result, plan, profile=None, *, steps=None) -> dict:
    prof = profiles_of(result, profile, "profile")[0]
    return Predictor(result, prof, steps_of(result, steps)).predict(resolve(result, plan))


class Recommendation:
    """What :meth:`PlanResult.recommend` returns: per profile, the recommended choice of each
    buffer (``choices[profile][buffer id]``) and why, and the predicted step times of the
    whole loop under each plan (``predictions[profile][plan name]``: ``mean_ms``,
    ``step_ms``); ``confidence[profile]``: how sure the sizes are (``statement``, ``sized``,
    the instrumented share, the instrumentation's cost per step, the rest's spread)."""

    def __init__(self, result, profiles, choices, why, predictions, plans, replays,
                 confidence=None, ruled_out=None):
        self.confidence = confidence or {}
        #: {profile: why the rules' own plan was ruled out there} (it did not fit)
        self.ruled_out = ruled_out or {}
        self.result, self.profiles = result, profiles
        self.choices, self.why, self.predictions = choices, why, predictions
        self.plans, self.replays = plans, replays

    def plan(self, profile: str | None = None) -> dict:
        """{buffer name: choice} recommended on ``profile`` (default: the first)."""
        p = self.profile(profile)
        return {b.name: self.choices[p][b.id] for b in self.result.buffers}

    def profile(self, profile) -> str:
        if profile is None:
            return self.profiles[0]
        if profile not in self.profiles:
            raise InvalidArgument(f"profile {V.shown(profile)} was not in this recommendation",
                                  argument="profile", hint=f"one of {self.profiles}")
        return profile

    def best(self, profile: str | None = None) -> tuple[str, float]:
        """(the plan predicted fastest, its mean step ms) on ``profile``."""
        p = self.profile(profile)
        name = min(self.predictions[p], key=lambda k: self.predictions[p][k]["mean_ms"])
        return name, self.predictions[p][name]["mean_ms"]

    def table(self) -> str:
        # in the learner's language (lang.tr), padded by display width (a CJK character takes
        # two columns); buffer names, choices and profile names are values and stay as they are
        r = self.result
        touched = r.touch_steps()
        w = max([display_width(tr("buffer"))] + [display_width(b.name) for b in r.buffers])
        lines = [tr("recommended plan, per buffer ({code_profiles})").format(
                     code_profiles=", ".join(self.profiles)),
                 _pad(tr("buffer"), w) + "  " + _pad("MiB", 7, True) + "  "
                 + _pad(tr("access owner (访问主人)"), 34) + " " + _pad(tr("recorded"), 18) + " "
                 + "".join(f"{p:<20}" for p in self.profiles) + tr("why")]
        for b in r.buffers:
            lines.append(_pad(b.name, w) + f"  {b.nbytes / 2**20:>7.2f}  "
                         + _pad(tr(r.owner(b, touched)), 34) + f" {recorded_choice(b):<18} "
                         + "".join(f"{self.choices[p][b.id]:<20}" for p in self.profiles)
                         + tr(self.why[b.id]))
        lines += ["", tr("predicted step time of the whole loop (mean ms, replayed on sim)"),
                  _pad(tr("plan"), 28) + "".join(f"{p:>16}" for p in self.profiles)]
        for name in self.plans:
            cells = []
            for p in self.profiles:
                x = self.predictions[p].get(name)
                cells.append(_pad(tr("does not fit"), 16, True) if x is None or not x["fits"]
                             else f"{x['mean_ms']:>16.3f}")
            lines.append(_pad(tr(name), 28) + "".join(cells))
        for p, text in self.ruled_out.items():
            lines.append(f"{p}: " + tr(text))
        return "\n".join(lines)

    def how_sure(self, profile: str | None = None) -> str:
        """How sure the predicted sizes are on ``profile`` (default: each one), one line each:
        "sized" (the recording's instrumentation measured and taken out) or "order only"."""
        profs = self.profiles if profile is None else [self.profile(profile)]
        return "\n".join(tr(f"how sure ({p}): {self.confidence[p]['statement']}")
                         for p in profs if p in self.confidence)

    def _repr_pretty_(self, p, cycle):
        p.text(self.table())

    def to_dict(self) -> dict:
        """As JSON-ready data (a plan that does not fit has mean_ms None)."""
        preds = {p: {k: dict(v, mean_ms=None if not math.isfinite(v["mean_ms"]) else v["mean_ms"],
                             replay_mean_ms=None if not math.isfinite(v.get("replay_mean_ms", 0.0))
                             else v.get("replay_mean_ms"))
                     for k, v in d.items()} for p, d in self.predictions.items()}
        return dict(profiles=self.profiles,
                    choices={p: {self.result.buffers[i].name if i < len(self.result.buffers)
                                 else str(i): c for i, c in ch.items()}
                             for p, ch in self.choices.items()},
                    why={b.name: self.why[b.id] for b in self.result.buffers},
                    predictions=preds, plans=list(self.plans), replays=self.replays,
                    confidence=self.confidence, ruled_out=dict(self.ruled_out))

    def to_ecg(self, profile: str | None = None, plans=None) -> dict:
        """The predicted step times as an ECG dict (one curve a plan), for ``umkit.ecg.plot``."""
        from ..ecg import verdict
        import numpy as np
        p = self.profile(profile)
        if plans is None:
            names = list(self.plans)
        else:
            names = [V.string(n, "plans", hint="plan names, e.g. plans=['all device']")
                     for n in V.sequence(plans, "plans", hint="a list of plan names, e.g. "
                                                              "plans=['all device']")]
        curves, summary = {}, []
        for n in names:
            x = self.predictions[p].get(n)
            if not x or not x["fits"] or not x["step_ms"]:
                continue
            ms = x["step_ms"]
            steady = ms[1:] if len(ms) > 1 else ms
            med = float(np.median(steady))
            row = dict(strategy=n, median_ms=round(med, 4),
                       p95_ms=round(float(np.percentile(steady, 95)), 4),
                       max_over_median=round(max(steady) / med, 2) if med > 0 else 0.0)
            row["verdict"] = verdict(ms, row)
            curves[n] = ms
            summary.append(row)
        return dict(curves=curves, summary=summary, backend="sim", profile=p, device="",
                    pattern="your loop", every=None, notes={},
                    nbytes=sum(b.nbytes for b in self.result.buffers),
                    steps=max((len(c) for c in curves.values()), default=0),
                    title=f"predicted memory ECG of {self.result.meta.get('name', 'your loop')} "
                          f"under each plan ({p}, replayed on sim)")

    def plot(self, profile: str | None = None, ax=None, plans=None):
        """The predicted ECG of each plan (:func:`umkit.ecg.plot`); ``plans``: only these
        (names of the prediction table, e.g. ``["as recorded", "all device"]``)."""
        from ..ecg import plot as ecg
        if plans is not None:
            p = self.profile(profile)
            plans = V.names(plans, "plans", list(self.predictions[p]),
                            hint=f"names of the prediction table: {list(self.predictions[p])}")
        return ecg(self.to_ecg(profile, plans), ax=ax)


def main_is_guarded() -> bool:
    """Whether worker processes may be spawned: a spawned process imports the parent's
    ``__main__`` script again (as ``__mp_main__``), so a script whose work is not under
    ``if __name__ == "__main__":`` would run all of it again in every worker (its recording
    included) and then fail in Python's "bootstrapping phase".  True for an interactive session,
    a notebook, ``python -c``, ``python -m`` (a module) and a script with that guard at its top
    level; False for a script without it (or one whose source cannot be read)."""
    import ast
    import sys
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    path = getattr(main, "__file__", None)
    name = getattr(spec, "name", None) or ""
    if main is None or not path or name == "__main__" or name.endswith(".__main__"):
        return True           # not a script (a package's __main__ is not run again either)
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(4 << 20))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            t = node.test
            names = [t.left] + list(t.comparators)
            if len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) and \
                    any(isinstance(x, ast.Name) and x.id == "__name__" for x in names) and \
                    any(isinstance(x, ast.Constant) and x.value == "__main__" for x in names):
                return True
    return False


def recommend(result, profiles=None, *, choices=None, plans=None,
              steps=None, workers: int = 1) -> Recommendation:
    profs = profiles_of(result, profiles)
    n = steps_of(result, steps)
    workers = V.integer(workers, "workers", lo=1, hi=256,
                        hint="how many replays to run side by side (processes); 1: one by one")
    if not result.step_pattern or not result.buffers:
        raise InvalidArgument("this recording has no steps or no buffers to plan",
                              hint="record a loop with rec.step() after each step")
    extra = {}
    if plans is not None:
        V.mapping(plans, "plans", hint="e.g. {'weights on device': {'parameter': 'device'}}")
        for k in plans:          # the names of the prediction table (plot(plans=[...]) takes them)
            if not isinstance(k, str):
                raise InvalidType(f"plans has a key {V.short(k)}: a plan's name is text",
                                  argument="plans", hint="e.g. {'weights on device': "
                                                         "{'parameter': 'device'}}")
        extra = {k: resolve(result, v, f"plans[{V.short(k)}]") for k, v in plans.items()}
    touched = result.touch_steps()
    rules = allowed(result, choices, touched)
    why = {i: w for i, (_, w) in rules.items()}
    grp = groups(result, touched)
    chosen, predictions, replays, sure = {}, {}, 0, {}
    ruled: dict = {}           # profile -> why the rules' plan was ruled out there
    wider: dict = {}           # buffer id -> the profiles where it took the wider choices
    named = {"as recorded": {b.id: recorded_choice(b) for b in result.buffers}}
    for c in CHOICES:
        uniform = {}
        for b in result.buffers:
            cand = rules[b.id][0]
            uniform[b.id] = c if (c != "pinned" or b.role not in TORCH_ROLES) else cand[0]
        named[f"all {c}"] = uniform
    named.update(extra)
    pool = None
    if workers > 1 and not main_is_guarded():
        import warnings
        warnings.warn(tr(
            "recommend(workers>1) replays one plan at a time here: this script has no "
            "'if __name__ == \"__main__\":' guard, and each worker process would run the whole "
            "script again; put the script's work under that guard to replay side by side"),
            UserWarning, stacklevel=3)
        workers = 1
    if workers > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # spawned, not forked: the parent may hold a GPU context that a fork must not share;
        # a spawned worker imports the parent's script again (main_is_guarded)
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        for p in profs:
            pr = Predictor(result, p, n, pool=pool)
            plan = {i: rules[i][0][0] for i in rules}
            pr.run_many([pr.recorded, plan] + list(named.values()))
            cand = {i: rules[i][0] for i in rules}
            passes = 1
            first = pr.predict(plan)
            if not first["fits"]:
                # the rules' plan needs more device memory than the card has: the buffers the
                # rules put in device memory may take the other choices too (managed memory
                # oversubscribes the card), and the search goes over the groups twice (the
                # first pass finds a plan that fits, the second the fastest such)
                cand = widened(result, rules, plan, choices)
                passes = 2
                ruled[p] = ruled_out(result, plan, p)
                for i in cand:
                    if cand[i] != rules[i][0]:
                        wider.setdefault(i, []).append(p)
            best = (first["mean_ms"], device_bytes(result, plan))
            for _ in range(passes):
                for ids in grp:
                    cands = [c for c in cand[ids[0]] if c != plan[ids[0]]]
                    trials = []
                    for c in cands:
                        trial = dict(plan)
                        for i in ids:
                            trial[i] = c
                        trials.append(trial)
                    pr.run_many(trials)   # each trial differs from the plan in this group only
                    for trial in trials:
                        t = (pr.predict(trial)["mean_ms"], device_bytes(result, trial))
                        if better(t, best):
                            plan, best = trial, t
            if not pr.predict(plan)["fits"]:
                raise InvalidArgument(
                    f"no plan within the choices allowed fits on {p}: "
                    + ruled_out(result, plan, p), argument="choices",
                    hint="allow a managed choice (managed memory oversubscribes the card), e.g. "
                         "choices=None (every choice)")
            chosen[p] = plan
            mixed = len(set(plan.values())) > 1
            preds = {k: pr.predict(v) for k, v in named.items()}
            preds["recommended" + (" (mixed)" if mixed else f" ({next(iter(plan.values()))})")] \
                = pr.predict(plan)
            predictions[p] = preds
            sure[p] = c = pr.confidence(pr.predict(plan))
            m = pr.predict(plan)["mean_ms"]
            if c["rest_spread_ms"] is not None and m and math.isfinite(m):
                # the quiet steps' rest spread against the recommended plan's step time
                c["rest_spread_share"] = round(c["rest_spread_ms"] / m, 4)
            replays += pr.replays
    finally:
        if pool is not None:
            pool.shutdown()
    order = list(dict.fromkeys(k for p in profs for k in predictions[p]))
    for p in profs:
        for k in order:
            predictions[p].setdefault(k, dict(fits=False, why="not predicted", step_ms=[],
                                              mean_ms=math.inf))
    for i, ps in wider.items():
        why[i] += "; " + ("device memory does not fit on {code_profiles}: the replay weighed the "
                          "other choices too").format(code_profiles=", ".join(ps))
    return Recommendation(result, profs, chosen, why, predictions, order, replays, sure,
                          ruled_out=ruled)


def device_bytes(result, plan: dict) -> int:
    """The device memory ``plan`` allocates (the buffers it puts in device memory)."""
    return sum(int(b.nbytes) for b in result.buffers if plan.get(b.id) == "device")


def better(trial: tuple, best: tuple) -> bool:
    """Whether a trial (mean ms, device bytes) displaces the best plan so far: a plan that fits
    (a finite mean) beats one that does not; of two that fit, the trial must be :data:`BETTER`
    faster; of two that do not, the one that needs less device memory is closer to fitting."""
    t, b = trial[0], best[0]
    if math.isfinite(t) and math.isfinite(b):
        return t < b * (1 - BETTER)
    if math.isfinite(t) or math.isfinite(b):
        return math.isfinite(t)
    return trial[1] < best[1]


def widened(result, rules: dict, plan: dict, choices) -> dict:
    """{buffer id: choices it may get} when the rules' ``plan`` does not fit: a buffer the plan
    puts in device memory may also take every other allowed choice (pinned excepted for
    PyTorch's tensors); the others keep the rules' choices."""
    allow = CHOICES if choices is None else V.names(choices, "choices", CHOICES)
    out = {}
    for b in result.buffers:
        cand = list(rules[b.id][0])
        if plan[b.id] == "device":
            cand += [c for c in allow if c not in cand
                     and not (c == "pinned" and b.role in TORCH_ROLES)]
        out[b.id] = cand
    return out


def ruled_out(result, plan: dict, profile: str) -> str:
    """Why ``plan`` cannot be recommended on ``profile``: its device memory against the card's."""
    from ..sim import load_profile
    need = device_bytes(result, plan)
    vram = int(load_profile(profile).vram)
    return ("ruled out: the rules' plan puts {n} buffers ({need} GiB) in device memory, more "
            "than the {vram} GiB of {code_profile}").format(
        n=sum(1 for b in result.buffers if plan.get(b.id) == "device"),
        need=f"{need / (1 << 30):,.1f}", vram=f"{vram / (1 << 30):,.1f}", code_profile=profile)



def _pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded to ``width`` columns of a fixed-width font (a CJK character takes two)."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill
