"""umkit's GPU kernels, shipped as the package ``umkit._kernels``.

``umkit_kernels.cu`` is portable device source: no includes, ``extern "C" __global__`` entry
points, compiled at run time by NVRTC (CUDA) or hiprtc (ROCm) through CuPy's ``RawModule``.
Read it with :func:`umkit.backends.kernels.source`; the parameter kinds of each kernel are in
:data:`umkit.backends.kernels.SPECS`.

``hip/*.hip`` are the article's programs as standalone HIP C++ (not used by the library), and
``cuda/*.cu`` the CUDA 13 originals of some of them: read, build and check them with
:mod:`umkit.examples`.
"""
