"""touch's stride is bounded: a stride past the largest array (a unit mistake; a GPU kernel
takes it as a 64-bit number) is a typed error, not a touch of element 0."""
import pytest

import umkit
from umkit.errors import InvalidArgument
from umkit.validate import MAX_BYTES


@pytest.mark.parametrize("stride", [MAX_BYTES + 4, 2**64, 2**66, 2**200])
def test_a_stride_past_any_array_is_refused(stride):
    umkit.use("sim", quiet=True)
    a = umkit.managed(1 << 20)
    with pytest.raises(InvalidArgument, match="larger than any array") as e:
        umkit.touch(a, stride)
    assert e.value.argument == "stride_bytes"
    umkit.synchronize()


def test_strides_up_to_the_largest_array_still_touch():
    umkit.use("sim", quiet=True)
    a = umkit.managed(1 << 20)
    a.host[:] = 1.0
    sink = umkit.managed(1)
    sink.host[:] = 0.0
    umkit.touch(a, MAX_BYTES, sink=sink)      # element 0 only
    umkit.synchronize()
    assert float(sink.host[0]) == 1.0
    umkit.touch(a, 4096, sink=sink)           # one float a page: 1024 pages of ones
    umkit.synchronize()
    assert float(sink.host[0]) == 1.0 + a.size * 4 // 4096
