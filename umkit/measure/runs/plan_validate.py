"""Does umkit.plan's prediction hold on a real GPU?  The PyTorch training loop of
``benchmarks/torch_training.py``, recorded with ``umkit.plan``, its four memory variants
predicted by replaying the recording on sim, then measured, and the two compared.

    umkit measure run plan_validate [--out DIR] [--steps 20] [--rounds 3] [--profile h200-pcie5]
    umkit measure run plan_validate --backend sim --width 256 --layers 2 --batch 64
    umkit measure run plan_validate --replay-from benchmarks/results/<run>/plan_validate --out DIR

1. **Record**: the ``managed`` variant of the loop (model, gradients and Adam's state in
   managed memory, the CPU statistic of the weights every ``--cpu-every`` steps) under
   ``umkit.plan.recorder()`` with CUPTI's unified-memory counters on, its tensors named with
   ``rec.name_torch``.  Without cupti-python the recording keeps only the tensors' names,
   sizes and roles (the CPU's touches are then unknown), and the output says so.
2. **Predict**: ``rec.result().recommend(profiles=[--profile], plans=the four variants)``:
   each variant's step time (the mean of the steady steps, step 0 left out) replayed on sim,
   and the recommended plan.
3. **Measure**: each variant ``--rounds`` times (counters off), in a rotating order; the
   recommended plan too when it is none of the four (each tensor placed as the plan says).
4. **Compare**: the size first: the recommended plan's predicted ms/step against its measured
   median, and whether it is within x/÷ :data:`SIZE` (1.5); the rest of each recorded step is
   taken apart -- the loop's own work, the instrumentation (CUPTI, in every other step after a
   warm-up; and switching it), the recorded plan's memory cost beyond the replay -- by
   ``umkit/plan/instrumentation.py``; the plan's own statement of how sure it is ("sized" or
   "order only") is reported with it, and what switching the counters cost the host.  With
   ``--compare-always`` (the default) the loop is recorded a second time with every step
   instrumented and that recording's recommended plan sized against the same measurement.
   Then for each
   pair of variants, the predicted order against the measured order; a
   pair whose measured difference is within the card's own repeat spread (the larger of the two
   variants' max - min over the rounds) is *not settled* and counts neither way.  And the
   recommended plan's measured time against the fastest measured variant (target: within 10 %).

Writes ``plan_validate.json`` and ``plan_validate.md`` into ``--out`` (and the recordings,
``plan_recording.json`` and ``plan_recording_always.json``, which ``umkit plan`` reads; every
round's step times are in the JSON).  ``--replay-from DIR`` re-predicts a committed run from
its recording with the code at hand, on sim and without a GPU, and compares with the run's own
measurements (and with the run's own prediction): the offline check is reproducible.  Exit 0 when every number could be
computed -- a prediction that misses is a result, not a failure; 1 when something crashed or a
result could not be computed; 2 when there is nothing to run on (no PyTorch or no GPU).

``--backend sim`` runs the same steps on the simulator with a umkit-array twin of the loop
(the same buffers, names and CPU statistic; one kernel a step), which is what the tests run.
sim's accounting costs no model time; ``--sim-instrumentation-ms X`` makes each instrumented
step of the recording X ms (model time) dearer, as CUPTI makes it on a GPU, to show the cost
measured and taken out.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import statistics
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]      # the checkout the package sits in

VARIANTS = ("device", "managed", "managed+prefetch", "optstate->cpu")
#: each variant of torch_training.py as a plan ({role: choice}; the batches stay in device
#: memory in every variant, as the benchmark keeps them)
VARIANT_PLANS = {
    "device": {"parameter": "device", "gradient": "device", "optimizer state": "device"},
    "managed": {"parameter": "managed", "gradient": "managed", "optimizer state": "managed"},
    # ut.prefetch(model, "gpu") before each step: the parameters and their gradients
    "managed+prefetch": {"parameter": "managed+prefetch", "gradient": "managed+prefetch",
                         "optimizer state": "managed"},
    "optstate->cpu": {"parameter": "managed", "gradient": "managed",
                      "optimizer state": "managed+advice-cpu"},
}
RECORDED = "managed"            # the variant that is recorded
TARGET = 0.10                   # the recommended plan within 10 % of the fastest variant
SIZE = 1.5                      # the recommended plan's predicted ms/step within x/÷ 1.5
BATCHES = ("x", "y")            # the names of the loop's batch tensors in the table


def torch_training():
    """The PyTorch loop, its variants and its checks (:mod:`umkit.measure.probes.torch_loop`)."""
    from umkit.measure.probes import torch_loop
    return torch_loop


# -- the comparison (no GPU needed) ------------------------------------------------------------------
def steady_ms(step_ms) -> float:
    """The loop's step time: the mean of the steady steps (step 0, the warm-up, left out), as
    umkit.plan predicts it."""
    from umkit.plan.replay import mean_ms
    return mean_ms(list(step_ms))


def ordering(times: dict) -> list:
    """The names of ``times`` fastest first."""
    return sorted(times, key=lambda k: (times[k], k))


def compare(predicted: dict, measured: dict, recommended: str | None = None,
            target: float = TARGET) -> dict:
    """Predicted against measured.  ``predicted``: {variant: ms}; ``measured``: {name: [ms
    of each round]} (the variants, and ``recommended`` when it is a plan of its own);
    ``recommended``: the name in ``measured`` that stands for the recommended plan.

    Returns the pairs (each with the predicted and the measured order and whether the
    measurement settles it), the two orderings, and the recommended plan's measured time
    against the fastest measured variant."""
    for name, v in predicted.items():
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"the prediction of {name} is {v!r}: not a number")
    for name, rounds in measured.items():
        if not rounds or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in rounds):
            raise ValueError(f"the measurement of {name} is {rounds!r}: no finite rounds")
    names = [v for v in predicted if v in measured]
    if len(names) < 2:
        raise ValueError("fewer than two variants both predicted and measured")
    med = {k: statistics.median(v) for k, v in measured.items()}
    spread = {k: max(v) - min(v) for k, v in measured.items()}
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p_first = a if predicted[a] <= predicted[b] else b
            m_first = a if med[a] <= med[b] else b
            diff, noise = abs(med[a] - med[b]), max(spread[a], spread[b])
            settled = diff > noise
            pairs.append(dict(a=a, b=b, predicted_faster=p_first, measured_faster=m_first,
                              predicted_ms=[predicted[a], predicted[b]],
                              measured_ms=[med[a], med[b]], measured_difference_ms=diff,
                              repeat_spread_ms=noise, settled=settled,
                              agree=(p_first == m_first) if settled else None))
    settled = [p for p in pairs if p["settled"]]
    out = dict(predicted_order=ordering({k: predicted[k] for k in names}),
               measured_order=ordering({k: med[k] for k in names}),
               pairs=pairs, settled=len(settled), agree=sum(bool(p["agree"]) for p in settled),
               not_settled=len(pairs) - len(settled),
               ordering_holds=all(p["agree"] for p in settled),
               measured_median_ms={k: med[k] for k in measured},
               repeat_spread_ms={k: spread[k] for k in measured}, rounds=min(map(len, measured.values())))
    if recommended is not None:
        if recommended not in med:
            raise ValueError(f"the recommended plan {recommended!r} was not measured")
        fastest = min(names, key=lambda k: med[k])
        ratio = med[recommended] / med[fastest] if med[fastest] > 0 else math.inf
        out["recommended"] = dict(name=recommended, measured_ms=med[recommended],
                                  fastest=fastest, fastest_ms=med[fastest],
                                  ratio=ratio, target=target, within=ratio <= 1 + target)
    return out


def size_check(predicted_ms: float, measured_rounds: list, factor: float = SIZE) -> dict:
    """The recommended plan's predicted ms/step against its measured median (of the rounds):
    the ratio predicted / measured and whether it is within x/÷ ``factor``."""
    if not isinstance(predicted_ms, (int, float)) or not math.isfinite(predicted_ms):
        raise ValueError(f"the recommended plan's prediction is {predicted_ms!r}: not a number")
    if not measured_rounds or not all(isinstance(x, (int, float)) and math.isfinite(x) and x > 0
                                      for x in measured_rounds):
        raise ValueError(f"the recommended plan's measurement is {measured_rounds!r}")
    med = statistics.median(measured_rounds)
    ratio = predicted_ms / med
    return dict(predicted_ms=predicted_ms, measured_ms=med, ratio=ratio, factor=factor,
                within=1 / factor <= ratio <= factor)


class CostlySwitch:
    """sim only: ``ms`` of the host's model time at the start of each instrumented step of the
    recording (a stand-in for CUPTI's cost on a GPU, which sim's accounting does not have)."""

    what = "sim's accounting with an injected cost"

    def __init__(self, ms: float):
        self.ms = ms

    def set(self, on: bool) -> None:
        import umkit
        if on and self.ms:
            umkit.backend().engine.clock.advance(self.ms / 1e3)

    def close(self) -> None:
        pass


def same_plan(plan: dict, variants: dict) -> str | None:
    """The variant whose plan ({buffer id: choice}) is ``plan``, or None."""
    for name, p in variants.items():
        if p == plan:
            return name
    return None


def rounds_order(names: list, k: int) -> list:
    """Round ``k``'s order: the names rotated by ``k`` (no variant always runs first)."""
    k %= max(1, len(names))
    return names[k:] + names[:k]


# -- the loop on PyTorch (cuda) -------------------------------------------------------------------------
class TorchLoop:
    """torch_training.py's loop: recorded, and run as a variant or as any plan."""

    def __init__(self, a):
        import torch
        import umkit.interop.torch as ut
        self.a, self.torch, self.ut, self.tt = a, torch, ut, torch_training()
        self.x, self.y = self.tt.batches(a, torch)

    def device(self) -> str:
        return self.torch.cuda.get_device_name(0)

    def record(self, name: str, instrument: str = "alternate"):
        """(the recording, its losses, what switching the counters cost the host: a list of
        (on, seconds waiting for the GPU, seconds in CUPTI) per switch)."""
        import umkit
        tt, torch, ut = self.tt, self.torch, self.ut
        model, opt, pool = tt.build(RECORDED, self.a, torch, ut)
        torch.cuda.synchronize()
        with umkit.plan.recorder(name, instrument=instrument) as rec:
            rec.name_torch(model, opt, dict(zip(BATCHES, (self.x, self.y))))
            losses = tt.train(model, opt, self.x, self.y, rec, self.a, torch, ut,
                              variant=RECORDED)
        del model, opt, pool
        self.release()
        return rec.result(), [float(v) for v in losses], list(getattr(rec.switch, "spent", []))

    def release(self):
        """Give the memory of the run that just ended back (its tensors are gone)."""
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()

    def run(self, variant=None, plan=None):
        """(step ms, losses) of one run of ``variant``, or of ``plan`` ({buffer name:
        choice}, as Recommendation.plan() gives it)."""
        import umkit
        tt, torch, ut = self.tt, self.torch, self.ut
        x, y = self.x, self.y
        if variant is not None:
            model, opt, pool = tt.build(variant, self.a, torch, ut)
            per_step, managed = tt.hints(variant, model, opt, ut), None
        else:
            model, opt, pool, x, y, per_step, managed = self.place(plan)
        torch.cuda.synchronize()
        with umkit.ecg.recorder(variant or "recommended") as rec:
            losses = tt.train(model, opt, x, y, rec, self.a, torch, ut,
                              variant=variant or RECORDED, before_step=per_step,
                              managed=managed)
        ms = rec.result().step_ms
        out = [float(v) for v in losses]
        del model, opt, pool, x, y, per_step, managed, losses
        self.release()
        return ms, out

    def place(self, plan: dict):
        """The loop's tensors where ``plan`` puts them: everything made in managed memory (as
        the managed variant), then each tensor the plan gives device memory copied out of it,
        and each managed one given the plan's hints."""
        from umkit.plan.recording import torch_buffers
        tt, torch, ut = self.tt, self.torch, self.ut
        model, opt, pool = tt.build(RECORDED, self.a, torch, ut)
        x, y = self.x, self.y
        for pname, p in model.named_parameters():
            if plan.get(pname) == "device":
                p.data = p.data.clone()                  # outside the pool: device memory
            if plan.get(f"{pname}.grad") == "device":
                p.grad = p.grad.clone()
        names = {id(p): n for n, p in model.named_parameters()}
        for p, st in opt.state.items():
            for k, v in list(st.items()):
                if plan.get(f"{names[id(p)]}.{k}") == "device" and v.is_cuda:
                    st[k] = v.clone()
        with ut.managed(pool):
            if plan.get(BATCHES[0], "device") != "device":
                x = x.clone()
            if plan.get(BATCHES[1], "device") != "device":
                y = y.clone()
        every = []
        for name, role, t in torch_buffers(model, opt, dict(zip(BATCHES, (x, y)))):
            choice = plan.get(name, "device" if role == "user tensor" else "managed")
            if choice == "pinned":
                raise ValueError(f"the plan gives {name} ({role}) pinned host memory: a CUDA "
                                 "tensor cannot live there")
            if choice in ("managed+prefetch", "managed+advice"):
                every.append(t)
            if choice == "managed+advice":
                ut.advise(t, "preferred_location", "gpu")
                ut.advise(t, "accessed_by", "cpu")
            elif choice == "managed+advice-cpu":
                ut.advise(t, "preferred_location", "cpu")
                ut.advise(t, "accessed_by", "gpu")
                ut.prefetch(t, "cpu")
        per_step = (lambda: ut.prefetch(every, "gpu")) if every else None
        device = {id(p) for n, p in model.named_parameters() if plan.get(n) == "device"}
        return model, opt, pool, x, y, per_step, (lambda p: id(p) not in device)


# -- the same loop on sim, with umkit arrays (the tests run it) -----------------------------------------
class SimLoop:
    """A twin of the PyTorch loop on sim: the same buffers (names, roles and sizes of the MLP's
    parameters, gradients and Adam's two moments, and the two batches), one kernel a step that
    reads the batches and updates everything, and the CPU statistic every ``cpu_every`` steps
    (one float per 64 KiB of each parameter)."""

    STRIDE = 65536

    def __init__(self, a):
        self.a = a
        shapes = []
        for i in range(a.layers):
            shapes += [(f"{2 * i}.weight", a.width * a.width), (f"{2 * i}.bias", a.width)]
        shapes += [(f"{2 * a.layers}.weight", a.width), (f"{2 * a.layers}.bias", 1)]
        self.buffers = []
        for n, size in shapes:
            self.buffers.append((n, "parameter", size))
        for n, size in shapes:
            self.buffers.append((f"{n}.grad", "gradient", size))
        for n, size in shapes:
            self.buffers += [(f"{n}.exp_avg", "optimizer state", size),
                             (f"{n}.exp_avg_sq", "optimizer state", size)]
        self.buffers += [("x", "user tensor", 8 * a.batch * a.width), ("y", "user tensor", 8 * a.batch)]
        self.flops = 6.0 * a.batch * sum(s for n, r, s in self.buffers if r == "parameter")

    def device(self) -> str:
        import umkit
        return umkit.backend().device_name(0)

    def make(self, plan: dict):
        import umkit
        arrays = {}
        for name, role, size in self.buffers:
            choice = plan.get(name, "device" if role == "user tensor" else "managed")
            if choice == "device":
                a = umkit.device_array(size)
            elif choice == "pinned":
                a = umkit.pinned(size)
            else:
                a = umkit.managed(size)
            arrays[name] = (a, choice)
        every = []
        for name, (a, choice) in arrays.items():
            if choice in ("managed+prefetch", "managed+advice"):
                every.append(a)
            if choice == "managed+advice":
                a.advise("preferred_location", "gpu")
                a.advise("accessed_by", "cpu")
            elif choice == "managed+advice-cpu":
                a.advise("preferred_location", "cpu")
                a.advise("accessed_by", "gpu")
                a.prefetch("cpu")
        return arrays, every

    def loop(self, arrays, every, rec):
        import umkit
        k = umkit.kernel("train_step", sim=lambda *args: None)
        params = [arrays[n][0] for n, r, s in self.buffers if r == "parameter"]
        batches = [arrays[n][0] for n in BATCHES]
        updated = [arrays[n][0] for n, r, s in self.buffers if r != "user tensor"]
        for i in range(self.a.steps):
            for a in every:
                a.prefetch("gpu")
            k(1, 1, tuple(batches + updated), writes=updated, flops=self.flops)
            if self.a.cpu_every and i % self.a.cpu_every == self.a.cpu_every - 1:
                umkit.synchronize()
                for p in params:
                    view = umkit.read_back(p) if p.kind == "device" else p.host
                    float(view[:: self.STRIDE // 4].sum())
            rec.step()

    def plan_of(self, variant: str) -> dict:
        roles = VARIANT_PLANS[variant]
        return {n: roles.get(r, "device") for n, r, s in self.buffers}

    def record(self, name: str, instrument: str = "alternate"):
        import umkit
        arrays, every = self.make(self.plan_of(RECORDED))
        roles = {n: r for n, r, s in self.buffers}
        ms = getattr(self.a, "sim_instrumentation_ms", 0.0) or 0.0
        with umkit.plan.Recorder(name, switch=CostlySwitch(ms) if ms else None,
                                 instrument=instrument) as rec:
            for n, (a, _) in arrays.items():
                rec.name_buffer(a, n, roles[n])
            self.loop(arrays, every, rec)
        self.free(arrays)
        return rec.result(), [], []

    def run(self, variant=None, plan=None):
        import umkit
        arrays, every = self.make(self.plan_of(variant) if variant else plan)
        with umkit.ecg.recorder(variant or "recommended") as rec:
            self.loop(arrays, every, rec)
        self.free(arrays)
        return rec.result().step_ms, []

    @staticmethod
    def free(arrays):
        for a, _ in arrays.values():
            a.free()


# -- the run ----------------------------------------------------------------------------------------
def predict(result, profile: str, workers: int):
    """(the recommendation, with the four variants among its plans; {variant: predicted ms})."""
    adv = result.recommend(profiles=[profile], plans=VARIANT_PLANS, workers=workers)
    pred = {v: adv.predictions[profile][v]["mean_ms"] for v in VARIANTS}
    return adv, pred


def rebased(adv, profile: str, step_ms: list) -> dict:
    """The variants' predictions with the rest of each step (what the replay does not model)
    taken from ``step_ms`` -- the recorded variant measured without counters -- instead of the
    recording's own step times, which CUPTI's counting made longer."""
    from umkit.plan.replay import mean_ms
    preds = adv.predictions[profile]
    base = preds["as recorded"]["replay_step_ms"]
    rest = [max(0.0, m - q) for m, q in zip(step_ms, base)]
    return {v: mean_ms([x + (rest[i] if i < len(rest) else 0.0)
                        for i, x in enumerate(preds[v]["replay_step_ms"])]) for v in VARIANTS}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="umkit measure run plan_validate", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="plan-validate-results")
    ap.add_argument("--backend", default=os.environ.get("UMKIT_BACKEND", "cuda"))
    ap.add_argument("--profile", default="h200-pcie5", help="the sim profile predicted on")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="measurements of each variant")
    ap.add_argument("--width", type=int, default=4096)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--cpu-every", type=int, default=10)
    ap.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1),
                    help="replays run side by side (processes)")
    ap.add_argument("--sim-instrumentation-ms", type=float, default=0.0,
                    help="sim only: model time added to each instrumented step of the recording")
    ap.add_argument("--compare-always", action=argparse.BooleanOptionalAction, default=True,
                    help="also record the loop with every step instrumented and size its "
                         "recommended plan against the same measurement")
    ap.add_argument("--replay-from", metavar="DIR",
                    help="re-predict a committed run (DIR holds its plan_recording.json and "
                         "plan_validate.json) with this code, on sim, and compare with the "
                         "run's measurements: no GPU")
    a = ap.parse_args(argv)
    if a.steps < 3 or a.rounds < 1:
        print("plan_validate: --steps must be at least 3 and --rounds at least 1", file=sys.stderr)
        return 2
    if a.sim_instrumentation_ms and (a.backend != "sim" or not math.isfinite(a.sim_instrumentation_ms)
                                     or a.sim_instrumentation_ms < 0):
        print("plan_validate: --sim-instrumentation-ms is a finite number >= 0, on --backend sim "
              "only", file=sys.stderr)
        return 2
    with warnings.catch_warnings():
        return run(a)


def evaluate(result, profile: str, workers: int, measured: dict, measured_steps: dict,
             measured_plan: dict | None = None, adv=None) -> dict:
    """Predict from ``result`` and compare with what was measured: the parts of the document
    that come from the prediction (``run`` and ``--replay-from`` share them).  ``measured``:
    {name: [ms/step of each round]}; ``measured_steps``: {name: [the step times of each
    round]} (may be empty); ``measured_plan``: the plan measured as "recommended", if any;
    ``adv``: the recommendation already made from ``result`` on ``profile``, if any."""
    from umkit.plan.advice import resolve
    if adv is None:
        adv, _ = predict(result, profile, workers)
    predicted = {v: adv.predictions[profile][v]["mean_ms"] for v in VARIANTS}
    variant_ids = {v: resolve(result, VARIANT_PLANS[v]) for v in VARIANTS}
    rec_is = same_plan(adv.choices[profile], variant_ids)
    rec_plan = adv.plan(profile)
    rec_name = next(k for k in adv.predictions[profile] if k.startswith("recommended"))
    rec_pred = adv.predictions[profile][rec_name]
    target = rec_is or ("recommended" if "recommended" in measured and
                        measured_plan == rec_plan else None)
    cmp = compare(predicted, {k: v for k, v in measured.items() if k in VARIANTS or
                              k == target}, target)
    if target is not None:
        size = size_check(rec_pred["mean_ms"], measured[target])
    else:
        size = dict(predicted_ms=rec_pred["mean_ms"], measured_ms=None, ratio=None,
                    factor=SIZE, within=None, error="the recommended plan was not measured")
    size["confidence"] = adv.confidence[profile]
    size["upper_bound_ms"] = rec_pred.get("upper_bound_ms", 0.0)
    steps = (measured_steps.get(RECORDED) or [None])[0]
    alt = rebased(adv, profile, steps) if steps else None
    cmp_alt = compare(alt, {v: measured[v] for v in VARIANTS}) if alt else None
    return dict(adv=adv, predicted=predicted, rec_is=rec_is, rec_plan=rec_plan, cmp=cmp,
                size=size, alt=alt, cmp_alt=cmp_alt, predicted_ms=rec_pred["mean_ms"])


def switch_summary(spent: list) -> dict:
    """What switching the counters on and off cost the host during the recording."""
    return dict(switches=len(spent), wait_s=round(sum(x[1] for x in spent), 6),
                cupti_s=round(sum(x[2] for x in spent), 6),
                on=[list(x[1:]) for x in spent if x[0]], off=[list(x[1:]) for x in spent if not x[0]])


def run(a) -> int:
    """The four steps of the module docstring, with ``a`` the parsed arguments."""
    if a.replay_from:
        return replay_from(a)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    wall, notes = {}, []
    import umkit
    if a.backend == "sim":
        umkit.use("sim", quiet=True)
        warnings.simplefilter("ignore", umkit.RaceWarning)
        loop = SimLoop(a)
        torch_version, counters = None, "sim (the engine's own accounting)"
    else:
        try:
            import torch
        except ImportError as e:
            print(f"plan_validate: PyTorch is not installed ({e})", file=sys.stderr)
            return 2
        if not torch.cuda.is_available():
            print("plan_validate: PyTorch sees no CUDA GPU", file=sys.stderr)
            return 2
        umkit.use(a.backend)
        torch_version = torch.__version__
        try:
            umkit.counters_on()
            counters = "on (CUPTI)"
        except umkit.UmkitError as e:
            counters = f"unavailable: {e}"
            notes.append("CUPTI's counters are unavailable, so the recording knows the tensors' "
                         "names, sizes and roles but not the CPU's touches: the predictions "
                         f"cannot see the CPU statistic ({e})")
            print(f"plan_validate: {notes[-1]}", file=sys.stderr)
        loop = TorchLoop(a)
    doc = dict(env=dict(date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                        device=loop.device(), backend=umkit.backend().name, torch=torch_version,
                        python=platform.python_version(), umkit=umkit.__version__,
                        counters=counters, profile=a.profile,
                        args={k: v for k, v in vars(a).items() if k != "out"}),
               notes=notes, ok=False)
    try:
        t0 = time.perf_counter()
        result, rec_losses, spent = loop.record(f"torch_training {RECORDED} (recorded)")
        result.meta["recorded_on"] = a.profile
        always = None
        if a.compare_always:           # the same loop recorded with every step instrumented
            always, _, _ = loop.record(f"torch_training {RECORDED} (recorded, every step "
                                       "instrumented)", instrument="always")
            always.meta["recorded_on"] = a.profile
        wall["record_s"] = round(time.perf_counter() - t0, 2)
        if a.backend != "sim":
            umkit.counters_off()
        result.save(out / "plan_recording.json", force=True)   # as the two files below
        if always is not None:
            always.save(out / "plan_recording_always.json", force=True)
        print(result.table(), flush=True)

        t0 = time.perf_counter()
        adv, _ = predict(result, a.profile, a.workers)
        wall["predict_s"] = round(time.perf_counter() - t0, 2)
        print(adv.table(), flush=True)
        print(adv.how_sure(), flush=True)
        from umkit.plan.advice import resolve
        variant_ids = {v: resolve(result, VARIANT_PLANS[v]) for v in VARIANTS}
        rec_is = same_plan(adv.choices[a.profile], variant_ids)
        rec_plan = adv.plan(a.profile)

        t0 = time.perf_counter()
        names = list(VARIANTS) + ([] if rec_is else ["recommended"])
        measured, steps, losses = {n: [] for n in names}, {n: [] for n in names}, {}
        for k in range(a.rounds):
            for n in rounds_order(names, k):
                ms, ls = loop.run(variant=n) if n != "recommended" else loop.run(plan=rec_plan)
                measured[n].append(steady_ms(ms))
                steps[n].append([round(float(x), 6) for x in ms])
                if k == 0:
                    losses[n] = ls
                print(f"round {k}: {n:<18} {measured[n][-1]:9.3f} ms/step", flush=True)
        wall["measure_s"] = round(time.perf_counter() - t0, 2)

        ev = evaluate(result, a.profile, a.workers, measured, steps,
                      None if rec_is else rec_plan, adv=adv)
        adv = ev["adv"]
        if always is not None:
            ev_always = evaluate(always, a.profile, a.workers, measured, steps,
                                 None if rec_is else rec_plan)
            doc["always"] = dict(recorded_step_ms=always.step_ms,
                                 recorded_mean_ms=steady_ms(always.step_ms),
                                 predicted_ms=ev_always["predicted"], size=ev_always["size"],
                                 comparison=ev_always["cmp"])
        same, worst, same_note = (loop.tt.losses_agree(losses) if hasattr(loop, "tt") and
                                  all(losses.values()) else (True, 0.0, "losses not compared (sim)"))
        doc.update(
            recording=dict(table=result.table(), steps=result.steps,
                           recorded_step_ms=result.step_ms, buffers=len(result.buffers),
                           # with the counters on; the same variant measured without them is
                           # measured_ms['managed']
                           recorded_mean_ms=steady_ms(result.step_ms),
                           instrumented=result.meta.get("instrumented"),
                           switching=switch_summary(spent),
                           notes=result.notes, losses=rec_losses),
            recommendation=dict(table=adv.table(), plan=ev["rec_plan"], is_variant=ev["rec_is"],
                                predicted_ms=ev["predicted_ms"], **adv.to_dict()),
            predicted_ms=ev["predicted"], predicted_from_uninstrumented_ms=ev["alt"],
            measured_ms=measured, measured_step_ms=steps, comparison=ev["cmp"],
            comparison_from_uninstrumented=ev["cmp_alt"], size=ev["size"],
            losses_agree=dict(ok=same, largest_relative_difference=worst, note=same_note),
            ok=ev["size"].get("error") is None)
    except Exception:  # noqa: BLE001 - a crash is reported, with what was done so far
        traceback.print_exc()
        doc["error"] = traceback.format_exc()
    wall["total_s"] = round(time.perf_counter() - t_start, 2)
    doc["wall"] = wall
    return write(out, doc)


def write(out: Path, doc: dict) -> int:
    """plan_validate.json and .md into ``out``; the exit status (0: every number computed)."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "plan_validate.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
    text = report(doc)
    (out / "plan_validate.md").write_text(text + "\n")
    print(text)
    return 0 if doc["ok"] else 1


def shown(path: Path) -> str:
    """``path`` as a committed file names it: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return path.name


def replay_from(a) -> int:
    """``--replay-from DIR``: re-predict a committed run from its recording with this code (on
    sim, no GPU) and compare with the measurements the run made.  Exit 2 when DIR lacks the
    run's files or they cannot be read."""
    src = Path(a.replay_from)
    try:
        run_doc = json.loads((src / "plan_validate.json").read_text())
        measured = run_doc["measured_ms"]
        profile = run_doc["env"]["profile"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"plan_validate: --replay-from {src}: not a plan_validate run ({e})",
              file=sys.stderr)
        return 2
    import umkit
    from umkit.errors import UmkitError
    try:
        result = umkit.plan.load(src / "plan_recording.json")
    except (UmkitError, OSError) as e:
        print(f"plan_validate: --replay-from {src}: {e}", file=sys.stderr)
        return 2
    umkit.use("sim", quiet=True)
    warnings.simplefilter("ignore", umkit.RaceWarning)
    t0 = time.perf_counter()
    env = dict(run_doc["env"])
    env["replayed"] = dict(source=shown(src), umkit=umkit.__version__,
                           date=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    doc = dict(env=env, notes=list(run_doc.get("notes", [])), ok=False)
    try:
        rec_doc = run_doc.get("recommendation") or {}
        ev = evaluate(result, profile, a.workers, measured, run_doc.get("measured_step_ms") or {},
                      rec_doc.get("plan") if not rec_doc.get("is_variant") else None)
        adv = ev["adv"]
        alt = ev["alt"] or run_doc.get("predicted_from_uninstrumented_ms")
        doc.update(
            recording=dict(run_doc.get("recording") or {}, recorded_step_ms=result.step_ms,
                           recorded_mean_ms=steady_ms(result.step_ms)),
            recommendation=dict(table=adv.table(), plan=ev["rec_plan"], is_variant=ev["rec_is"],
                                predicted_ms=ev["predicted_ms"], **adv.to_dict()),
            predicted_ms=ev["predicted"], predicted_from_uninstrumented_ms=alt,
            measured_ms=measured, comparison=ev["cmp"],
            comparison_from_uninstrumented=ev["cmp_alt"] or run_doc.get(
                "comparison_from_uninstrumented"),
            size=ev["size"], losses_agree=run_doc.get("losses_agree") or dict(note="not known"),
            run=dict(predicted_ms=run_doc.get("predicted_ms"),
                     size=run_doc.get("size") or None,
                     recommended_predicted_ms=rec_doc.get("predicted_ms")),
            ok=ev["size"].get("error") is None)
    except Exception:  # noqa: BLE001 - a crash is reported
        traceback.print_exc()
        doc["error"] = traceback.format_exc()
    doc["wall"] = dict(replay_s=round(time.perf_counter() - t0, 2))
    return write(Path(a.out), doc)


def report(doc: dict) -> str:
    """The Markdown summary of a run (the table printed at the end)."""
    env = doc["env"]
    lines = [f"# umkit.plan against the GPU: {env['device']} ({env['date']})", "",
             f"Backend {env['backend']}, predicted on sim profile {env['profile']}; counters "
             f"{env['counters']}; torch {env['torch']}; args {env['args']}.", ""]
    rp = env.get("replayed")
    if rp:
        lines += [f"**Re-predicted** from the run's recording in `{rp['source']}` by umkit "
                  f"{rp['umkit']} on sim ({rp['date']}), no GPU; the measurements are the run's.", ""]
    lines += [f"Note: {n}" for n in doc.get("notes", [])]
    if "error" in doc:
        return "\n".join(lines + ["", "The run failed:", "", "```", doc["error"].rstrip(), "```"])
    c = doc["comparison"]
    alt = doc.get("predicted_from_uninstrumented_ms") or {}
    lines += ["| variant | predicted ms/step | predicted (rest uninstrumented) | measured median "
              "ms/step | repeat spread ms | predicted rank | measured rank |",
              "|---|---|---|---|---|---|---|"]
    for v in VARIANTS:
        a_v = f"{alt[v]:.3f}" if v in alt else "-"
        lines.append(f"| {v} | {doc['predicted_ms'][v]:.3f} | {a_v} | "
                     f"{c['measured_median_ms'][v]:.3f} | {c['repeat_spread_ms'][v]:.3f} | "
                     f"{c['predicted_order'].index(v) + 1} | {c['measured_order'].index(v) + 1} |")
    lines += ["", f"The recording ({RECORDED}, counters on in its instrumented steps) ran at "
              f"{doc['recording']['recorded_mean_ms']:.3f} ms/step; each prediction is the "
              "plan's replay plus the loop's own work per step (the floor of the recording's "
              "rest) and the share of the recorded plan's memory cost beyond the replay that the "
              "plan still does (umkit/plan/instrumentation.py). The second column, a cross-check: "
              "the old rest, taken whole from the same variant measured in a run of its own "
              "without counters."]
    sw = doc["recording"].get("switching")
    if sw and sw.get("switches"):
        lines += ["", f"Switching the counters: {sw['switches']} switches cost the host "
                  f"{sw['wait_s'] * 1e3:.1f} ms waiting for the GPU and {sw['cupti_s'] * 1e3:.1f} "
                  "ms in CUPTI in all."]
    lines += ["", f"Predicted order: {' < '.join(c['predicted_order'])}; measured order: "
              f"{' < '.join(c['measured_order'])} ({c['rounds']} rounds).", "",
              "| pair | predicted faster | measured faster | measured difference ms | repeat "
              "spread ms | verdict |", "|---|---|---|---|---|---|"]
    for p in c["pairs"]:
        verdict = ("not settled" if not p["settled"] else "agree" if p["agree"] else "MISS")
        lines.append(f"| {p['a']} / {p['b']} | {p['predicted_faster']} | {p['measured_faster']} "
                     f"| {p['measured_difference_ms']:.3f} | {p['repeat_spread_ms']:.3f} | {verdict} |")
    r = c.get("recommended") or dict(measured_ms=math.nan, fastest="-", fastest_ms=math.nan,
                                     ratio=math.nan, within=False, target=TARGET)
    rec = doc["recommendation"]
    z = doc["size"]
    if z.get("error"):
        lines += ["", f"Size: the recommended plan predicted {z['predicted_ms']:.3f} ms/step; "
                  f"{z['error']}. How sure the plan is: {z['confidence']['statement']}."]
    else:
        lines += ["", f"Size: the recommended plan predicted {z['predicted_ms']:.3f} ms/step, "
                  f"measured {z['measured_ms']:.3f} ms/step: x{z['ratio']:.3f}, "
                  f"{'within' if z['within'] else 'NOT within'} x/÷{z['factor']}. How sure the "
                  f"plan is: {z['confidence']['statement']}."]
    old = (doc.get("run") or {}).get("size")
    if rp and old and old.get("ratio") is not None:
        lines += ["", f"The run's own prediction (its code): {old['predicted_ms']:.3f} ms/step, "
                  f"x{old['ratio']:.3f}."]
    elif rp and (doc.get("run") or {}).get("recommended_predicted_ms") is not None:
        lines += ["", "The run's own prediction (its code): "
                  f"{doc['run']['recommended_predicted_ms']:.3f} ms/step."]
    al = doc.get("always")
    if al and al["size"].get("ratio") is not None:
        za = al["size"]
        lines += ["", f"Recorded again with every step instrumented ({al['recorded_mean_ms']:.3f} "
                  f"ms/step): the recommended plan predicted {za['predicted_ms']:.3f} ms/step, "
                  f"x{za['ratio']:.3f}, {'within' if za['within'] else 'NOT within'} "
                  f"x/÷{za['factor']}; {za['confidence']['statement']}."]
    lines += ["", f"Ordering: {c['agree']} of {c['settled']} settled pairs agree, "
              f"{c['not_settled']} not settled: "
              f"{'the predicted ordering holds' if c['ordering_holds'] else 'the predicted ordering MISSES'}"
              ".", "",
              f"Recommended plan: {rec['is_variant'] or 'a plan of its own (run as such)'}, "
              f"predicted {rec['predicted_ms']:.3f} ms/step; measured {r['measured_ms']:.3f} ms "
              f"against the fastest variant ({r['fastest']}, {r['fastest_ms']:.3f} ms): "
              f"x{r['ratio']:.3f}, {'within' if r['within'] else 'NOT within'} "
              f"{r['target']:.0%}.", "",
              f"Identical training: {doc['losses_agree']['note']}.", "",
              f"Wall time: {doc['wall']}."]
    return "\n".join(lines)

