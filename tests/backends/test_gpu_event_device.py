"""The GPU backend's event and stream calls run on the right device (no GPU here: a stand-in
runtime adapter records the calls and keeps the thread's current device as the runtime does).
Handle 0 is the *current* device's default stream, so an event of GPU 1 recorded with no
stream, and a synchronize of GPU 1's default stream, must switch to GPU 1 for the call."""
from __future__ import annotations

from umkit.backends.gpu import GPUBackend, RuntimeAdapter


class RecordingRuntime(RuntimeAdapter):
    name = "cuda"

    def __init__(self):
        self.calls: list = []
        self.current = 0
        self.made = 0

    def call(self, cuda_name, *args):
        self.calls.append((cuda_name, args, self.current))
        if cuda_name == "cudaGetDevice":
            return self.current
        if cuda_name == "cudaGetDeviceCount":      # two GPUs (the backend checks device numbers)
            return 2
        if cuda_name == "cudaSetDevice":
            self.current = int(args[0])
            return None
        if cuda_name in ("cudaEventCreate", "cudaStreamCreate"):
            self.made += 1
            return 0x6000 + self.made
        return None

    def on_device(self, name):
        return [dev for n, _, dev in self.calls if n == name]


def test_an_event_of_gpu1_recorded_with_no_stream_lands_on_gpu1():
    rt = RecordingRuntime()
    b = GPUBackend(rt)
    ev = b.event_create(1)
    made = rt.made
    b.event_record(ev, None)
    assert rt.on_device("cudaEventRecord") == [1]
    assert rt.made == made and not rt.on_device("cudaEventDestroy")   # not re-created
    assert rt.current == 0                                 # the thread's device given back


def test_an_event_recorded_on_a_stream_of_its_device_stays_put():
    rt = RecordingRuntime()
    b = GPUBackend(rt)
    s = b.stream_create(1)
    ev = b.event_create(1)
    made = rt.made
    b.event_record(ev, s)
    assert rt.on_device("cudaEventRecord") == [1] and rt.made == made


def test_gpu1s_default_stream_is_synchronized_on_gpu1():
    rt = RecordingRuntime()
    b = GPUBackend(rt)
    b.synchronize(b.default_stream(1))
    assert rt.on_device("cudaStreamSynchronize") == [1]
    assert rt.current == 0
