// advise_prefetch.hip -- the article's section 4.4: advice first, then prefetch.
//
// hipMemAdvise declares intent (it moves pages only as below); hipMemPrefetchAsync acts now.  The weights
// are advised to live on the GPU (SetPreferredLocation) and to be accessed by a device
// (SetAccessedBy: the article's example names device 1; with one GPU this program uses the
// compute device), then prefetched there, used by a kernel, and read back by the CPU.  The
// range attributes are read back with hipMemRangeGetAttribute to show what the driver recorded.
// What the advice does to later faults differs between vendors and systems (see the kit's
// notebooks); what is checked here is what the API promises on both: the recorded attributes
// and correct data.  Advice does not move pages by itself: the prefetch (or, with XNACK on, a fault)
// moves them (ledger: amd.advise.remap).  The exception on amdkfd: svm_range_set_attr runs
// svm_range_trigger_migration on every range it updates, toward the range's last prefetch location
// (ROCr SvmPrefetch sets HSA_SVM_ATTR_PREFETCH_LOC), so advice on a range prefetched earlier can move
// it back there, or to system memory if accessed-by adds a GPU outside that GPU's hive (kfd_svm.c).
//
// Where a prefetch really lands on AMD: amdkfd honours the target GPU only if every other GPU
// it checks is in the target's xGMI hive (svm_range_best_prefetch_location).  With XNACK off it
// checks every GPU with access, and hipMallocManaged grants access to all (CLR SvmAllocInit), so
// on a node of PCIe GPUs a prefetch to `dev` puts the range in system memory; with XNACK on it
// checks only the accessed-by GPUs (`reader`).  LastPrefetchLocation reports the request, `dev`, in
// every case, which is what is checked below (ledger: amd.prefetch.migrates).
//
// Porting note: the classic hipMemAdvise(ptr, bytes, advice, device) takes an int device
// (hipCpuDeviceId for the CPU).  CUDA 13's cudaMemAdvise takes a cudaMemLocation instead; the
// direct HIP port of such code is hipMemAdvise_v2(ptr, bytes, advice, hipMemLocation) (HIP 7.1
// and later only; ROCm/clr hipamd/src/hip_hmm.cpp).
//
// Prints CHECK lines and a final "RESULT advise_prefetch ok" (exit 0) or "... FAIL" (exit 1).
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(expr)                                                                   \
    do {                                                                                  \
        hipError_t hip_err_ = (expr);                                                     \
        if (hip_err_ != hipSuccess) {                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #expr, \
                         hipGetErrorString(hip_err_), hipGetErrorName(hip_err_));         \
            std::exit(EXIT_FAILURE);                                                      \
        }                                                                                 \
    } while (0)

// y = 2 * w + 1: a layer that reads the weights
__global__ void apply_weights(const float* w, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * w[i] + 1.0f;
}

static bool check_int(const char* what, int got, int want)
{
    std::printf("CHECK %s=%d expected=%d %s\n", what, got, want, got == want ? "ok" : "FAIL");
    return got == want;
}

int main()
{
    const int n = 1 << 20;                       // 4 MiB of weights
    const size_t bytes = n * sizeof(float);
    const int threads = 256, blocks = (n + threads - 1) / threads;

    int dev = 0, ndev = 0, managed = 0, concurrent = 0, pageable = 0;
    HIP_CHECK(hipGetDevice(&dev));
    HIP_CHECK(hipGetDeviceCount(&ndev));
    HIP_CHECK(hipDeviceGetAttribute(&managed, hipDeviceAttributeManagedMemory, dev));
    HIP_CHECK(hipDeviceGetAttribute(&concurrent, hipDeviceAttributeConcurrentManagedAccess, dev));
    HIP_CHECK(hipDeviceGetAttribute(&pageable, hipDeviceAttributePageableMemoryAccess, dev));
    // On ROCm concurrent managed access is the driver's SVM support and pageable memory
    // access is XNACK (ledger: amd.attr.concurrent_managed, amd.attr.pageable_xnack).  Advice
    // and prefetch on hipMallocManaged memory work either way (ledger: amd.xnack0.hints_work).
    std::printf("INFO managed_memory=%d concurrent_managed_access=%d pageable_memory_access=%d\n",
                managed, concurrent, pageable);
    if (!managed) {
        std::printf("RESULT advise_prefetch FAIL (device %d has no managed memory)\n", dev);
        return 1;
    }
    const int reader = ndev > 1 ? (dev + 1) % ndev : dev;

    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    float *w = nullptr, *y = nullptr;
    HIP_CHECK(hipMallocManaged(&w, bytes));
    HIP_CHECK(hipMallocManaged(&y, bytes));
    for (int i = 0; i < n; ++i) w[i] = static_cast<float>(i % 3);

    // 1. intent: the weights belong on the GPU, and `reader` will access them
    HIP_CHECK(hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, dev));
    HIP_CHECK(hipMemAdvise(w, bytes, hipMemAdviseSetAccessedBy, reader));
    // 2. action: move them there now, and place the output beside them
    HIP_CHECK(hipMemPrefetchAsync(w, bytes, dev, stream));
    HIP_CHECK(hipMemPrefetchAsync(y, bytes, dev, stream));
    apply_weights<<<blocks, threads, 0, stream>>>(w, y, n);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipStreamSynchronize(stream));

    // 3. what the driver recorded for the range
    int preferred = -3, last_prefetch = -3;
    HIP_CHECK(hipMemRangeGetAttribute(&preferred, sizeof(int),
                                      hipMemRangeAttributePreferredLocation, w, bytes));
    HIP_CHECK(hipMemRangeGetAttribute(&last_prefetch, sizeof(int),
                                      hipMemRangeAttributeLastPrefetchLocation, w, bytes));
    std::vector<int> accessed(ndev + 1, -3);     // one slot per GPU and one for the CPU
    HIP_CHECK(hipMemRangeGetAttribute(accessed.data(), accessed.size() * sizeof(int),
                                      hipMemRangeAttributeAccessedBy, w, bytes));
    int reader_listed = 0;
    for (int d : accessed) reader_listed |= (d == reader);
    bool ok = check_int("preferred_location", preferred, dev);
    ok = check_int("last_prefetch_location", last_prefetch, dev) && ok;
    ok = check_int("accessed_by_lists_reader", reader_listed, 1) && ok;

    // 4. the CPU reads the output (an occasional CPU access)
    double sum = 0.0;
    for (int i = 0; i < n; ++i) sum += y[i];
    double expected = 0.0;
    for (int i = 0; i < n; ++i) expected += 2.0 * (i % 3) + 1.0;
    std::printf("CHECK sum=%.1f expected=%.1f %s\n", sum, expected, sum == expected ? "ok" : "FAIL");
    ok = ok && sum == expected;

    // the advice stays until unset or freed
    HIP_CHECK(hipMemAdvise(w, bytes, hipMemAdviseUnsetAccessedBy, reader));
    HIP_CHECK(hipMemAdvise(w, bytes, hipMemAdviseUnsetPreferredLocation, dev));
    HIP_CHECK(hipFree(w));
    HIP_CHECK(hipFree(y));
    HIP_CHECK(hipStreamDestroy(stream));
    std::printf("RESULT advise_prefetch %s\n", ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
