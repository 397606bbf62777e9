"""Workloads: the one definition of "strategy", access patterns, and the training-style step
(:mod:`.training`), and the whole model's training step at real sizes (:mod:`.whole_model`).

The strategy panel, the memory ECG, ``umkit calibrate --compare`` and the notebooks all run
these, through the public API only, on whatever backend is active."""
from ..doors import door

__all__, __getattr__, __dir__ = door(__name__, {
    "MEMORY": "training",
    "PREFETCH": "training",
    "ADVICE": "training",
    "PATTERNS": "training",
    "STATS_STRIDE": "training",
    "MAX_STEPS": "training",
    "Strategy": "training",
    "STRATEGIES": "training",
    "strategy": "training",
    "Pattern": "training",
    "MAX_EVERY": "training",
    "pattern": "training",
    "StepRecord": "training",
    "RunResult": "training",
    "counter_delta": "training",
    "TrainingStep": "training",
    "run": "training",
    "epoch_loop": "training",
    "CARDS": "whole_model",
    "MODELS": "whole_model",
    "ModelSpec": "whole_model",
    "ModelStep": "whole_model",
    "Plan": "whole_model",
    "StepCost": "whole_model",
    "model_buffers": "whole_model",
    "model_step_costs": "whole_model",
    "plan_model": "whole_model",
    "whole_model": ".",
    "training": ".",
})
