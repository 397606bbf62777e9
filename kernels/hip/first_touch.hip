// first_touch.hip -- the article's section 3.1: one pointer for both sides.
//
// Allocate managed memory, write it on the CPU, run a kernel on the same pointer, synchronize,
// read the result on the CPU, free.  No hipMemcpy anywhere.  With XNACK on (and on NVIDIA) the
// first CPU write to a fresh managed page is a page fault (the pages are not mapped yet); with
// XNACK off, the MI200/MI300 default, there is no such fault: hipMallocManaged already faulted in
// and mapped every page inside the allocation call (ledger: amd.xnack0.alloc_maps), so the two
// passes cost about the same there.  The CPU pass is timed twice so that any first-touch cost
// shows against a second pass over the same, now mapped, pages.
//
// Prints CHECK lines and a final "RESULT first_touch ok" (exit 0) or "... FAIL" (exit 1).
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(expr)                                                                   \
    do {                                                                                  \
        hipError_t hip_err_ = (expr);                                                     \
        if (hip_err_ != hipSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         hipGetErrorString(hip_err_), hipGetErrorName(hip_err_));         \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

__global__ void scale_kernel(float* a, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] *= factor;
}

static double ms_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int main()
{
    const int n = 1 << 20;                       // 4 MiB of floats
    const size_t bytes = n * sizeof(float);

    int dev = 0, managed = 0, concurrent = 0;
    HIP_CHECK(hipGetDevice(&dev));
    HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, dev));
    HIP_CHECK(hipDeviceGetAttribute(&concurrent, hipDeviceAttributeConcurrentManagedAccess, dev));
    hipDeviceProp_t prop;
    HIP_CHECK(hipGetDeviceProperties(&prop, dev));
#if defined(__HIP_PLATFORM_AMD__)
    // gfx90a:sramecc+:xnack+ -- "xnack+" means GPU page faults can be retried, which on-demand
    // migration of managed memory needs (HSA_XNACK=1).
    std::printf("INFO device=%d name=%s arch=%s\n", dev, prop.name, prop.gcnArchName);
#else
    std::printf("INFO device=%d name=%s\n", dev, prop.name);
#endif
    std::printf("INFO managed_memory=%d concurrent_managed_access=%d\n", managed, concurrent);
    if (!managed) {
        std::printf("RESULT first_touch FAIL (device %d cannot allocate managed memory)\n", dev);
        return 1;
    }

    float* a = nullptr;
    HIP_CHECK(hipMallocManaged(&a, bytes));     // flags default to hipMemAttachGlobal

    // CPU writes: no hipMemcpy.  First pass = first touch of every page.
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) a[i] = 1.0f * (i % 1024);
    double first_ms = ms_since(t0);
    t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) a[i] = 1.0f * (i % 1024);
    double second_ms = ms_since(t0);
    std::printf("INFO cpu_first_touch_ms=%.3f cpu_second_pass_ms=%.3f\n", first_ms, second_ms);

    // GPU works on the same pointer: with XNACK on its first access faults the pages over (the
    // 2 MiB block around each fault on Linux 6.8 and later, the whole range on older amdkfd;
    // ledger: amd.fault.granule);
    // with XNACK off nothing faults: the range was mapped for the GPU when it was allocated
    // and the GPU reads the host pages in place (ledger: amd.xnack0.alloc_maps).
    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    hipLaunchKernelGGL(scale_kernel, dim3(blocks), dim3(threads), 0, 0, a, 2.0f, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());          // the CPU must not read before the kernel is done

    // CPU reads the result directly: on a PCIe GPU its first touch migrates the pages back; on an
    // APU, or where amdkfd maps VRAM device-coherent (connected_to_cpu, since Linux 6.0), in place
    // (OLCF reports migrate-on-touch on Frontier; ledger: amd.vram.private, amd.vram.coherent).
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += a[i];
    const double expected = 2.0 * (n / 1024) * (1023.0 * 1024.0 / 2.0);
    const bool ok = (sum == expected);
    std::printf("CHECK sum=%.1f expected=%.1f %s\n", sum, expected, ok ? "ok" : "FAIL");

    HIP_CHECK(hipFree(a));
    std::printf("RESULT first_touch %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
