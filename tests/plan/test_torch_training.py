"""The PyTorch benchmark's identical-training parts, without PyTorch: Adam's state made as its
first step would make it (no step taken), and the check that the variants' losses agree."""
import math

from umkit.measure.probes import torch_loop as tt


class FakeTorch:
    """The few torch calls adam_state makes, on plain lists."""
    float32 = "float32"
    preserve_format = "preserve"

    @staticmethod
    def zeros(shape, dtype=None, device=None):
        return ("zeros", shape, dtype, device)

    @staticmethod
    def tensor(v, dtype=None):
        return ("tensor", v, dtype)

    @staticmethod
    def zeros_like(p, memory_format=None):
        return ("zeros_like", p, memory_format)


class FakeParam:
    device = "cuda:0"


class FakeAdam:
    def __init__(self, params, **group):
        self.param_groups = [dict(params=params, **group)]
        self.state = {}


def test_adam_state_is_made_without_a_step():
    ps = [FakeParam(), FakeParam()]
    opt = FakeAdam(ps, amsgrad=False, fused=None, capturable=False)
    assert tt.adam_state(opt, FakeTorch) == 2
    st = opt.state[ps[0]]
    assert st["step"] == ("tensor", 0.0, "float32")           # step 0: no step was taken
    assert st["exp_avg"][0] == "zeros_like" and st["exp_avg_sq"][0] == "zeros_like"
    assert "max_exp_avg_sq" not in st
    assert tt.adam_state(opt, FakeTorch) == 0                  # made once
    opt2 = FakeAdam([FakeParam()], amsgrad=True, fused=True, capturable=False)
    tt.adam_state(opt2, FakeTorch)
    st2 = next(iter(opt2.state.values()))
    assert st2["step"][0] == "zeros" and "max_exp_avg_sq" in st2


def test_losses_agree_step_by_step_or_say_where_not():
    same = {"device": [1.0, 0.5, 0.23], "managed": [1.0, 0.5, 0.23 * (1 + 1e-6)]}
    ok, worst, note = tt.losses_agree(same)
    assert ok and worst < 1e-5 and "agree" in note
    shifted = {"device": [1.0, 0.5, 0.2327], "managed": [1.0, 0.5, 0.4215]}   # the old bug
    ok, worst, note = tt.losses_agree(shifted)
    assert not ok and "managed step 2" in note
    ok, worst, _ = tt.losses_agree({"device": [1.0], "managed": [float("nan")]})
    assert not ok and math.isinf(worst)
    assert tt.losses_agree({"device": [1.0]})[0]
    assert not tt.losses_agree({"a": [1.0, 2.0], "b": [1.0]})[0]
