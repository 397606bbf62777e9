"""The hub's Python kernel (isolated mode): ipykernel, with

* the pipe that carries the output of forked subprocesses (its IOPub "pipe") on a unix socket in
  the learner's own 0700 runtime folder: ipykernel binds it to a loopback TCP port
  (``IOPubThread._setup_pipe_in``), which every local user can connect to and send messages of
  any size into -- enough for one learner to make another's kernel run out of memory;
* no debugger: JupyterLab's debugger makes the kernel start debugpy's server on a loopback TCP
  port that asks for no password, where any local user can run code as the learner (and it stays
  open after the debugger is switched off).

Run as ``python -m umkit_kernel -f CONNECTION_FILE``."""
import atexit
import os
import uuid

import zmq
from ipykernel import iostream
from zmq.eventloop.zmqstream import ZMQStream


def _pipe_address() -> str:
    base = os.environ["JUPYTER_RUNTIME_DIR"]        # RUNTIME_BASE/<account>, the learner's, 0700
    return f"ipc://{base}/pipe-{os.getpid()}-{uuid.uuid4().hex[:12]}"


def _setup_pipe_in(self):
    """ipykernel's, bound to a unix socket instead of tcp://127.0.0.1:<random port>."""
    ctx = self.socket.context
    self._pipe_uuid = os.urandom(16)
    pipe_in = ctx.socket(zmq.PULL)
    pipe_in.linger = 0
    address = _pipe_address()
    try:
        pipe_in.bind(address)
    except zmq.ZMQError:
        self._pipe_flag = False          # as ipykernel does when it cannot bind: no pipe
        pipe_in.close()
        return
    self._umkit_pipe = address
    path = address[len("ipc://"):]
    atexit.register(lambda: os.path.exists(path) and os.unlink(path))
    self._pipe_in = ZMQStream(pipe_in, self.io_loop)
    self._pipe_in.on_recv(self._handle_pipe_msg)


def _setup_pipe_out(self):
    ctx = zmq.Context()                  # a new context after fork, as ipykernel's
    pipe_out = ctx.socket(zmq.PUSH)
    pipe_out.linger = 3000
    pipe_out.connect(self._umkit_pipe)
    return ctx, pipe_out


def main() -> None:
    from ipykernel import debugger
    debugger._is_debugpy_available = False    # read at each debug request and kernel_info
    if os.environ.get("JUPYTER_RUNTIME_DIR"):
        iostream.IOPubThread._setup_pipe_in = _setup_pipe_in
        iostream.IOPubThread._setup_pipe_out = _setup_pipe_out
    from ipykernel import kernelapp
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
