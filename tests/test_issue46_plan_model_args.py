"""plan_model validates card and vram up front: a typed error naming the argument."""
import pytest

from umkit.errors import InvalidArgument, InvalidType
from umkit.workloads import whole_model as wm


def _spec():
    return wm.MODELS["7b"]


@pytest.mark.parametrize("vram,err", [(-1, InvalidArgument), (0, InvalidArgument),
                                      (1 << 60, InvalidArgument), (1.5e9, InvalidType),
                                      ("80G", InvalidType), (True, InvalidType)])
def test_bad_vram_is_named(vram, err):
    with pytest.raises(err) as e:
        wm.plan_model(_spec(), "H200", vram=vram)
    assert e.value.argument == "vram"


@pytest.mark.parametrize("card,err", [(3, InvalidType), ("", InvalidArgument), (None, InvalidType)])
def test_bad_card_is_named(card, err):
    with pytest.raises(err) as e:
        wm.plan_model(_spec(), card)
    assert e.value.argument == "card"


def test_good_arguments_plan():
    p = wm.plan_model(_spec(), "H200", vram=80 << 30)
    assert p.vram == 80 << 30 and p.card == "H200" and p.kinds
