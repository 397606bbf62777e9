// pingpong_split.hip -- the article's section 4.3: the CPU/GPU ping-pong, and its fix.
//
// A training loop updates 4 MiB of parameters on the GPU every step; every 10 steps an
// "optimizer statistic" reads a sparse sample of them (one float per 4 KiB page) on the CPU.
//   managed: the parameters are hipMallocManaged and the CPU reads them directly: where it cannot
//            map VRAM, every statistic pulls the touched blocks back (amdkfd: 2 MiB each by default)
//            and the next step faults them back -- the pages ping-pong (the article's 20x slowdown).
//   split:   the hot parameters live in hipMalloc device memory; a small kernel gathers the
//            sample into a small managed buffer (low-frequency helper data), which the CPU
//            reads.  The big array never leaves the GPU.
// Both strategies must compute the same statistics.  The wall times are printed for the eye
// (INFO), not checked: how large the gap is depends on the GPU, the link and the driver.
//
// Prints CHECK lines and a final "RESULT pingpong_split ok" (exit 0) or "... FAIL" (exit 1).
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

constexpr int kN = 1 << 20;          // parameters: 4 MiB of floats
constexpr int kStride = 1024;        // the statistic reads one float per 4 KiB page
constexpr int kSamples = kN / kStride;
constexpr int kSteps = 40;
constexpr int kStatEvery = 10;

__global__ void init_params(float* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = static_cast<float>(i % 7);
}

// one "training step": every parameter moves by 0.5 (exact in float)
__global__ void sgd_step(float* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 0.5f;
}

__global__ void gather_sample(float* sample, const float* p, int stride, int count)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) sample[k] = p[static_cast<long long>(k) * stride];
}

static double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

int main()
{
    const size_t bytes = kN * sizeof(float);
    const int threads = 256, blocks = (kN + threads - 1) / threads;
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    double stat_managed[kSteps / kStatEvery], stat_split[kSteps / kStatEvery];

    // -- 1. everything managed: the CPU reads the big array in place ----------------------------
    float* params = nullptr;
    HIP_CHECK(hipMallocManaged(&params, bytes));
    init_params<<<blocks, threads, 0, stream>>>(params, kN);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamSynchronize(stream));
    double t0 = now_ms();
    for (int step = 1; step <= kSteps; ++step) {
        sgd_step<<<blocks, threads, 0, stream>>>(params, kN);
        HIP_CHECK(hipGetLastError());
        if (step % kStatEvery == 0) {
            HIP_CHECK(hipStreamSynchronize(stream));
            double s = 0.0;
            for (int k = 0; k < kSamples; ++k) s += params[static_cast<long long>(k) * kStride];
            stat_managed[step / kStatEvery - 1] = s;
        }
    }
    HIP_CHECK(hipStreamSynchronize(stream));
    const double managed_ms = now_ms() - t0;
    HIP_CHECK(hipFree(params));

    // -- 2. split: hot parameters in device memory, the sample in a small managed buffer --------
    float* dparams = nullptr;
    float* sample = nullptr;
    HIP_CHECK(hipMalloc(&dparams, bytes));
    HIP_CHECK(hipMallocManaged(&sample, kSamples * sizeof(float)));
    init_params<<<blocks, threads, 0, stream>>>(dparams, kN);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamSynchronize(stream));
    t0 = now_ms();
    for (int step = 1; step <= kSteps; ++step) {
        sgd_step<<<blocks, threads, 0, stream>>>(dparams, kN);
        HIP_CHECK(hipGetLastError());
        if (step % kStatEvery == 0) {
            gather_sample<<<(kSamples + threads - 1) / threads, threads, 0, stream>>>(
                sample, dparams, kStride, kSamples);
            HIP_CHECK(hipGetLastError());
            HIP_CHECK(hipStreamSynchronize(stream));
            double s = 0.0;
            for (int k = 0; k < kSamples; ++k) s += sample[k];
            stat_split[step / kStatEvery - 1] = s;
        }
    }
    HIP_CHECK(hipStreamSynchronize(stream));
    const double split_ms = now_ms() - t0;
    HIP_CHECK(hipFree(dparams));
    HIP_CHECK(hipFree(sample));
    HIP_CHECK(hipStreamDestroy(stream));

    bool ok = true;
    for (int j = 0; j < kSteps / kStatEvery; ++j) {
        const int step = (j + 1) * kStatEvery;
        double expected = 0.0;
        for (int k = 0; k < kSamples; ++k)
            expected += (static_cast<long long>(k) * kStride) % 7 + 0.5 * step;
        const bool this_ok = stat_managed[j] == expected && stat_split[j] == expected;
        ok = ok && this_ok;
        std::printf("CHECK step%d_managed=%.1f step%d_split=%.1f expected=%.1f %s\n", step,
                    stat_managed[j], step, stat_split[j], expected, this_ok ? "ok" : "FAIL");
    }
    std::printf("INFO managed_ms=%.3f split_ms=%.3f (%d steps, a statistic every %d)\n",
                managed_ms, split_ms, kSteps, kStatEvery);
    std::printf("RESULT pingpong_split %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
