"""Simplified Chinese (简体中文) for what umkit prints: English template -> translation, read by
``umkit.runtime.lang.tr``.  A template's ``{name}`` fields stand for the values the English message
is made with; the translation uses the same fields.  The terms follow ``i18n/zh/glossary.json``.
An English text changed at its source no longer matches its entry and is shown in English:
``tests/teaching/test_zh_messages.py`` lists the entries whose English is gone from the source."""

MESSAGES: dict[str, str] = {
    # -- the verdicts and predictions of every exercise (umkit.teaching.exercises) ------------------
    "PASS:": "通过：",
    "NOT YET:": "还没通过：",
    "PASS: ": "通过：",
    "NOT YET: ": "还没通过：",
    "ALMOST: ": "快通过了：",
    "concept": "概念",
    "answer": "答案",
    "stuck? run the check again with hint=2 for a pointer to the concept":
        "卡住了？带上 hint=2 再运行一次检查，看看概念提示",
    "still stuck? hint=3 shows the answer": "还是卡住？hint=3 会显示答案",
    "it passes: no hint needed": "已经通过：不需要提示",
    "no further hint for this one": "这道题没有更多提示了",
    "no further hint for this one: read the message again": "这道题没有更多提示了：再读一遍上面的信息",
    "hint={hint}: use hint=1 (what is wrong), 2 (the concept) or 3 (the answer)":
        "hint={hint}：请用 hint=1（哪里不对）、2（概念）或 3（答案）",
    "{call} raised {type}: {exception}": "{call} 抛出了 {type}：{exception}",
    "{call} raised {error}": "{call} 抛出了 {error}",
    "right so far; still None: {missing}": "目前都对；仍为 None 的：{missing}",
    "your guess": "你的猜测",
    "measured": "测量值",
    "comparison": "对比",
    "prediction '{name}' kept: {n} of {total} guesses written (reveal(...) shows them beside the result)":
        "预测“{name}”已记下：{total} 个猜测中写了 {n} 个（reveal(...) 会把它们和结果并排显示）",
    "no guess written": "没有写猜测",
    "not measured here": "这里没有测量",
    "exact": "完全一致",
    "off (one of them is 0)": "有偏差（其中一个为 0）",
    "close (within 25 %)": "接近（误差在 25 % 以内）",
    "{r}x the result": "是结果的 {r} 倍",
    "1/{r} of the result": "是结果的 1/{r}",
    "right": "正确",
    "different": "不同",
    "partly: {covered} of {n} right": "部分正确：{n} 项中对了 {covered} 项",
    "partly: {covered} of {n} right, {extra} not in the result":
        "部分正确：{n} 项中对了 {covered} 项，另有 {extra} 项不在结果里",
    "model ({profile})": "模型（{profile}）",
    "measured ({device})": "测量值（{device}）",
    "your {given} answers are not all right yet: check each one against the rule":
        "你的 {given} 个答案还没有全对：逐个用规则检查一遍",
    "{n_missing} of {total} still None: {missing}. The set is graded when every item has an answer":
        "{total} 项中还有 {n_missing} 项是 None：{missing}。每一项都有答案后才会整体评分",
    "{concept}. Ask of every item -- {questions}": "{concept}。对每一项都问一问——{questions}",
    "the answer was shown (hint=3): close it, write the answer in your own code and say why it is right before you run the check again":
        "答案已显示（hint=3）：先把它收起来，用你自己的代码写出答案，说清它为什么对，再运行检查",
    "the answer of this exercise was shown earlier (hint=3): passing after reading it is not the same as finding it":
        "这道题的答案之前已经显示过（hint=3）：看过答案后通过，不等于自己找到了答案",
    "each row's card": "每行各自的卡",
    "still None: {missing}. Answer every operation; the set is graded whole":
        "仍为 None 的：{missing}。每个操作都要回答；整组一起评分",
    "still None: {missing}. Choose for every buffer; the set is graded whole":
        "仍为 None 的：{missing}。每块缓冲区都要选；整组一起评分",
    "{concept}. Ask of every buffer -- {questions}": "{concept}。对每块缓冲区都问一问——{questions}",
    "prefetch_ms returned None: replace `return None` with your formula":
        "prefetch_ms 返回了 None：把 `return None` 换成你的公式",
    "your formula is the model's on {n} cards drawn for this attempt, both directions: on the MI250X 16 MiB take {a} ms to the GPU and {b} ms back -- latency + bytes / bandwidth, the direction decides the bandwidth (§3.2)":
        "你的公式在本次抽取的 {n} 块卡上、两个方向都与模型一致：在 MI250X 上 16 MiB 到 GPU 需要 {a} ms，回来需要 {b} ms——延迟 + 字节数 / 带宽，方向决定用哪个带宽（§3.2）",

    # -- notebook 00: read a profile ------------------------------------------------------------------
    "§3.2 as a formula: one prefetch costs a fixed per-call latency plus bytes / bandwidth, in the "
    "direction the pages move (host->GPU: prefetch_h2d_bw, GPU->host: prefetch_d2h_bw); the profile "
    "holds SI units (s, B, B/s), and a MiB is 2**20 bytes. umkit/sim/costs.py is that paragraph "
    "written as code":
        "把 §3.2 写成公式：一次预取的开销是固定的单次调用延迟，加上字节数 / 带宽，带宽取页面移动的方向"
        "（主机->GPU：prefetch_h2d_bw，GPU->主机：prefetch_d2h_bw）；profile 里存的是 SI 单位（s、B、B/s），"
        "1 MiB 是 2**20 字节。umkit/sim/costs.py 就是把这一段写成了代码",
    "that is the time in seconds: multiply by 1000 for milliseconds": "这是以秒为单位的时间：乘以 1000 得到毫秒",
    "that looks like microseconds: divide by 1000 for milliseconds": "这看起来是微秒：除以 1000 得到毫秒",
    "you left out the fixed per-call cost: add prefetch_latency": "你漏掉了固定的单次调用开销：加上 prefetch_latency",
    "you used prefetch_d2h_bw (GPU->host); host->GPU is prefetch_h2d_bw":
        "你用了 prefetch_d2h_bw（GPU->主机）；主机->GPU 是 prefetch_h2d_bw",
    "two slips: use prefetch_h2d_bw (host->GPU) and add prefetch_latency":
        "两处疏忽：要用 prefetch_h2d_bw（主机->GPU），并加上 prefetch_latency",
    "{mib} MiB is {mib2} * 2**20 bytes, not {mib3} * 10**6 (MiB vs MB)":
        "{mib} MiB 是 {mib2} * 2**20 字节，不是 {mib3} * 10**6（MiB 与 MB 的区别）",
    "GB/s in the profiles means 10**9 bytes per second, not 2**30":
        "profile 里的 GB/s 指每秒 10**9 字节，不是 2**30",
    "you used pinned_h2d_bw (an explicit hipMemcpy from pinned memory); a prefetch runs at prefetch_h2d_bw":
        "你用了 pinned_h2d_bw（从固定内存做显式 hipMemcpy 的带宽）；预取的速率是 prefetch_h2d_bw",
    "you used fault_bw (demand paging); a prefetch runs at prefetch_h2d_bw":
        "你用了 fault_bw（按需分页的带宽）；预取的速率是 prefetch_h2d_bw",
    "that is the 64 MiB bar of the chart above; the exercise asks for {mib} MiB, computed from the "
    "profile's parameters":
        "这是上图中 64 MiB 的那根柱子；练习要的是 {mib} MiB，而且要从 profile 的参数算出来",
    "ms={ms}: a prefetch takes a positive, finite time": "ms={ms}：一次预取的时间必须是正的有限值",
    "{ms} ms: prefetch_latency ({lat} us) + {mib} MiB / prefetch_h2d_bw ({bw} GB/s) = {want} ms":
        "{ms} ms：prefetch_latency（{lat} us）+ {mib} MiB / prefetch_h2d_bw（{bw} GB/s）= {want} ms",
    "{ms} ms: {why}": "{ms} ms：{why}",
    "{ms} ms is not what the model charges: check each term against the profile's parameters "
    "(the call's fixed cost, the bytes, the bandwidth of this direction)":
        "{ms} ms 不是模型给出的开销：请对照 profile 的参数逐项检查（调用的固定开销、字节数、这个方向的带宽）",
    "{argument} is None: compute the time of a {mib} MiB host->GPU prefetch on the '{profile}' "
    "profile, in milliseconds":
        "{argument} 是 None：算出在“{profile}” profile 上，一次 {mib} MiB 主机->GPU 预取的时间，单位毫秒",
    "{argument} should be a number of milliseconds, got {type} {value}":
        "{argument} 应该是一个毫秒数，得到的是 {type} {value}",
    "that is the time in seconds, not milliseconds": "这是以秒为单位的时间，不是毫秒",
    "that looks like microseconds, not milliseconds": "这看起来是微秒，不是毫秒",
    "is every part of a prefetch's cost there? Think of what one call costs before its first byte moves "
    "(§3.2)":
        "预取开销的每一部分都算进去了吗？想想一次调用在它的第一个字节移动之前要花多少（§3.2）",
    "{mib} MiB is not {mib2} * 10**6 bytes": "{mib} MiB 不是 {mib2} * 10**6 字节",
    "the profiles' bandwidths are in bytes per second already (GB/s = 10**9 B/s)":
        "profile 里的带宽本来就是字节每秒（GB/s = 10**9 B/s）",
    "that bandwidth is not a prefetch's: which mechanism moves the pages of a prefetch?":
        "这个带宽不是预取的：预取的页面是靠哪种机制移动的？",
    "{call} returned {got}; return a number of milliseconds": "{call} 返回了 {got}；请返回一个毫秒数",
    "{call} returned {got}: a prefetch takes a positive, finite time": "{call} 返回了 {got}：一次预取的时间必须是正的有限值",
    "{call} returned {got} ms: {why}": "{call} 返回了 {got} ms：{why}",
    "{call} returned {got} ms, which is not what the model charges: check each term (the fixed cost "
    "per call, the bytes, the bandwidth of this direction)":
        "{call} 返回了 {got} ms，这不是模型给出的开销：逐项检查（每次调用的固定开销、字节数、这个方向的带宽）",
    "{argument} is None: write def prefetch_ms(p, mib, to_gpu=True): ... and return milliseconds":
        "{argument} 是 None：写出 def prefetch_ms(p, mib, to_gpu=True): ...，并返回毫秒数",
    "{argument} should be a function (p, mib, to_gpu), got {type}":
        "{argument} 应该是一个函数（参数为 p, mib, to_gpu），得到的是 {type}",
    "{call} called umkit and got {type} -- compute from the profile's parameters (prefetch_latency, "
    "prefetch_h2d_bw, prefetch_d2h_bw, ...), not with the model's own methods or a simulator run":
        "{call} 调用了 umkit，得到 {type}——请用 profile 的参数计算（prefetch_latency、prefetch_h2d_bw、"
        "prefetch_d2h_bw 等），不要调用模型自己的方法，也不要运行模拟器",
    "{call} raised AttributeError: {exception} -- compute from the profile's parameters "
    "(prefetch_latency, prefetch_h2d_bw, prefetch_d2h_bw, ...), not with the model's own methods":
        "{call} 抛出了 AttributeError：{exception}——请用 profile 的参数计算"
        "（prefetch_latency、prefetch_h2d_bw、prefetch_d2h_bw 等），不要调用模型自己的方法",

    # -- notebook 01: UMD and KMD ---------------------------------------------------------------------
    "hipMallocManaged creates no physical page, but on ROCm it does reach the kernel driver: with HMM "
    "support the runtime reserves address space and registers it as an SVM range with KFD (ROCm/clr "
    "rocclr/device/rocm/rocmemory.cpp Buffer::create -> Device::SvmAllocInit -> "
    "hsa_amd_svm_attributes_set -> the AMDKFD_IOC_SVM ioctl, kfd_svm.c svm_range_set_attr); without "
    "HMM it becomes pinned host memory (Device::hostAlloc), also a kernel-driver call. The article's "
    "'the UMD records the range, the KMD maps pages later' describes the pages, not the call":
        "hipMallocManaged 不创建物理页，但在 ROCm 上它确实会进入内核驱动：有 HMM 支持时，运行时预留地址空间，"
        "并把它作为一个 SVM 范围注册到 KFD（ROCm/clr rocclr/device/rocm/rocmemory.cpp Buffer::create -> "
        "Device::SvmAllocInit -> hsa_amd_svm_attributes_set -> AMDKFD_IOC_SVM ioctl，kfd_svm.c "
        "svm_range_set_attr）；没有 HMM 时它变成固定的主机内存（Device::hostAlloc），同样是一次内核驱动调用。"
        "专栏说的“UMD 先维护逻辑地址记录，KMD 之后再映射物理页”，说的是页面，而不是这个调用",
    "hipMalloc maps real VRAM: only the kernel driver owns VRAM and the page tables":
        "hipMalloc 映射真正的显存：只有内核驱动掌管显存和页表",
    "the first CPU touch of a fresh page is a page fault (缺页): the OS kernel zero-fills a physical "
    "page and maps it":
        "CPU 对一个新页的首次访问是一次缺页：操作系统内核把一个物理页清零并映射它",
    "a kernel launch is a packet written into a command queue in user memory and a doorbell write: "
    "no trap into the kernel":
        "一次 kernel 启动就是往用户内存里的命令队列写一个命令包，再写一次门铃（doorbell）：不陷入内核",
    "GPU page faults are serviced by the kernel driver: it migrates pages and updates the GPU page "
    "table (amdkfd svm_range_restore_pages)":
        "GPU 缺页由内核驱动处理：它迁移页面并更新 GPU 页表（amdkfd svm_range_restore_pages）",
    "the migration behind hipMemPrefetchAsync moves physical pages and edits page tables: "
    "kernel-driver work (the API call itself is queued in the UMD)":
        "hipMemPrefetchAsync 背后的迁移要移动物理页、修改页表：这是内核驱动的工作（API 调用本身在 UMD 里排队）",
    "hipMemAdvise stores the policy with the range in the kernel driver (ROCm/clr "
    "Device::SetSvmAttributes -> hsa_amd_svm_attributes_set -> the KFD SVM ioctl), moving no page yet":
        "hipMemAdvise 把策略和范围一起存进内核驱动（ROCm/clr Device::SetSvmAttributes -> "
        "hsa_amd_svm_attributes_set -> KFD SVM ioctl），此时还不移动任何页",
    "the rule (§1.1): a call that ends in a system call into the kernel driver (an ioctl on /dev/kfd), "
    "a page fault or a page-table edit reaches the KMD; one that only writes into the process's own "
    "memory (a queue packet, a table entry) stays in the UMD. Run the trace cell and read each line's layer":
        "规则（§1.1）：最终落到一次进入内核驱动的系统调用（对 /dev/kfd 的 ioctl）、一次缺页或一次页表修改的调用，"
        "会进入 KMD；只往进程自己的内存里写东西（一个队列命令包、一条表项）的调用，停留在 UMD。"
        "运行 trace 单元格，读一读每一行所在的层",
    "malloc_managed is KMD: {why}": "malloc_managed 属于 KMD：{why}",
    "malloc_device is KMD: {why}": "malloc_device 属于 KMD：{why}",
    "first_touch is KMD: {why}": "first_touch 属于 KMD：{why}",
    "increment_kernel is UMD: {why}": "increment_kernel 属于 UMD：{why}",
    "fault_batch is KMD: {why}": "fault_batch 属于 KMD：{why}",
    "prefetch is KMD: {why}": "prefetch 属于 KMD：{why}",
    "advise is KMD: {why}": "advise 属于 KMD：{why}",
    "all seven right: launches and queue writes stay in user space (UMD); everything that touches "
    "physical pages, page tables or the driver's range policy reaches the KMD.":
        "七个全对：kernel 启动和队列写入停留在用户态（UMD）；凡是涉及物理页、页表或驱动的范围策略的，都会进入 KMD。",
    "all seven right: launches and queue writes stay in user space (UMD); everything that touches "
    "physical pages, page tables or the driver's range policy reaches the KMD. One nuance: you put "
    "hipMallocManaged in the UMD, as the article does (with XNACK on no page is created). On ROCm the call "
    "still ends "
    "in one KFD ioctl that registers the range -- 'kmd' is the stricter answer: {why}.":
        "七个全对：kernel 启动和队列写入停留在用户态（UMD）；凡是涉及物理页、页表或驱动的范围策略的，都会进入 KMD。"
        "有一个细微之处：你和专栏一样，把 hipMallocManaged 放在了 UMD（XNACK 打开时它不创建页）。在 ROCm 上，这个调用最终仍落到一次"
        "注册范围的 KFD ioctl——更严格的答案是“kmd”：{why}。",
    "{argument} should be a dict like {{'malloc_managed': 'umd', ...}}, got {type}":
        "{argument} 应该是一个形如 {{'malloc_managed': 'umd', ...}} 的 dict，得到的是 {type}",
    "{argument} should be a dict like {'malloc_managed': 'umd', ...}, got {type}":
        "{argument} 应该是一个形如 {'malloc_managed': 'umd', ...} 的 dict，得到的是 {type}",
    "unknown operations {unknown}: use the keys {items}": "未知的操作 {unknown}：请使用这些键 {items}",
    "every answer is still None: write 'umd' or 'kmd' for each operation":
        "所有答案都还是 None：为每个操作写上 'umd' 或 'kmd'",
    "{item}: {value} is neither 'umd' nor 'kmd'": "{item}：{value} 既不是 'umd' 也不是 'kmd'",
    "§3.2 and section 4 of the notebook: one trip into the kernel carries up to batch_max faults, a "
    "partly filled batch still costs a whole trip, and no fault costs no trip":
        "§3.2 和本 notebook 第 4 节：一次进入内核最多处理 batch_max 个缺页，没装满的一批仍要花一整次，"
        "没有缺页就不用进内核",
    "{call} returned {got}; return how many trips into the kernel the driver makes":
        "{call} 返回了 {got}；请返回驱动进入内核的趟数",
    "{call} returned {got}, expected {want}: {hint}": "{call} 返回了 {got}，应为 {want}：{hint}",
    "{call} returned {got} trips: {hint}": "{call} 返回了 {got} 趟：{hint}",
    "no faults, no trip into the kernel": "没有缺页，就不用进内核",
    "that is one trip per fault: the driver batches up to batch_max faults":
        "这是每个缺页进一次：驱动会把最多 batch_max 个缺页合成一批",
    "count the batches the driver sends": "数一数驱动送出了多少批",
    "{argument} is None: write def transitions(n_faults, batch_max): ...":
        "{argument} 是 None：写出 def transitions(n_faults, batch_max): ...",
    "{argument} should be a function, got {type}": "{argument} 应该是一个函数，得到的是 {type}",
    "ceil(n_faults / batch_max): 16384 faults cost {trips} trips into the kernel in batches of 256, "
    "but 16384 trips one by one":
        "ceil(n_faults / batch_max)：16384 个缺页按每批 256 个处理要进 {trips} 次内核，逐个处理则要 16384 次",

    # -- notebook 02: allocation -------------------------------------------------------------------------
    "the tokenizer's vocabulary, 50 MB, read only by the CPU data loader; no kernel touches it.":
        "分词器的词表，50 MB，只有 CPU 数据加载器读它；没有 kernel 碰它。",
    "No kernel ever touches it: ordinary pageable host memory (malloc / new / NumPy). Pinning or "
    "managing it buys nothing and pinned pages are taken from the whole machine.":
        "没有任何 kernel 碰它：用普通的可分页主机内存（malloc / new / NumPy）。固定它或托管它都得不到任何好处，"
        "而且被固定的页是从整台机器那里拿走的。",
    "200 MB of file offsets the CPU data loader uses to find each sample on disk.":
        "200 MB 的文件偏移量，CPU 数据加载器用它在磁盘上找到每个样本。",
    "Only the CPU reads it: plain pageable memory. The GPU never sees it, so there is nothing to "
    "migrate, pin or copy.":
        "只有 CPU 读它：普通的可分页内存就行。GPU 从来看不到它，所以没有什么需要迁移、固定或拷贝。",
    "the text of the training log the CPU appends a line to every 100 steps.":
        "训练日志的文本，CPU 每 100 步往里追加一行。",
    "CPU-only data: pageable host memory, like any Python string or NumPy array.":
        "只有 CPU 用的数据：可分页主机内存，和任何 Python 字符串或 NumPy 数组一样。",
    "{part_msg}. The buffers are drawn again: print nb02.BUFFERS to see the new set, and choose for "
    "those":
        "{part_msg}。缓冲区重新抽过了：打印 nb02.BUFFERS 看看新的一组，为它们选择",
    "ask of each buffer: who touches it (CPU, GPU, both), how often, and for how long (§3.4 table, "
    "§4.4 pinned memory, §6.1 'the heart', §6.3 the inference service); the allocator follows from its "
    "access owner and lifetime (§7)":
        "对每块缓冲区都问一问：谁访问它（CPU、GPU、两者），多频繁，持续多久（§3.4 的表格、§4.4 的固定内存、"
        "§6.1 的“心脏”、§6.3 的推理服务）；分配器由它的访问主人和生命周期决定（§7）",
    "{argument} should be a dict like {'fc_weights': 'device', ...}, got {type}":
        "{argument} 应该是一个形如 {'fc_weights': 'device', ...} 的 dict，得到的是 {type}",
    "unknown buffers {unknown}: use the keys {items}": "未知的缓冲区 {unknown}：请使用这些键 {items}",
    "every choice is still None: write 'device', 'managed', 'pinned' or 'pageable' for each buffer":
        "所有选择都还是 None：为每块缓冲区写上 'device'、'managed'、'pinned' 或 'pageable'",
    "{item}: {value} is not an allocator; use 'device', 'managed', 'pinned' or 'pageable'":
        "{item}：{value} 不是一种分配器；请用 'device'、'managed'、'pinned' 或 'pageable'",
    "mix allocators by each buffer's access owner and lifetime (§7): hot and latency-critical data in "
    "device memory, data both sides touch now and then managed, tiny data the CPU touches every step "
    "pinned, CPU-only data in plain pageable memory":
        "按每块缓冲区的访问主人和生命周期混合使用分配器（§7）：热数据和延迟敏感的数据放设备内存，两边时不时都碰的数据放托管内存，"
        "CPU 每一步都碰的小数据放固定内存，只有 CPU 用的数据放普通的可分页内存",
    "load(data) returned {type}; return the umkit array the GPU will read (umkit.device_array / "
    "managed / pinned)":
        "load(data) 返回了 {type}；请返回 GPU 将要读取的 umkit 数组（umkit.device_array / managed / pinned）",
    "the data is read 8 times by the GPU: where should it live, and what is the fastest way to get it "
    "there on this card? Compare the profile's prefetch_h2d_bw, pinned_h2d_bw and zero_copy_bw (§3.4: "
    "hot data in hipMalloc + explicit copies; notebook 00 reads a profile)":
        "这份数据要被 GPU 读 8 遍：它应该住在哪里？在这块卡上，把它送到那里最快的办法是什么？比较 profile 的 "
        "prefetch_h2d_bw、pinned_h2d_bw 和 zero_copy_bw（§3.4：热数据放 hipMalloc 加显式拷贝；notebook 00 "
        "讲了怎么读 profile）",
    "def load(data):\n"
    "    d = umkit.device_array(data.size)\n"
    "    stage = umkit.pinned(data.size)     # staged through pinned memory ...\n"
    "    stage.host[:] = data\n"
    "    umkit.copy(d, stage)                # ... one explicit copy into VRAM\n"
    "    umkit.synchronize()\n"
    "    stage.free()\n"
    "    return d\n"
    "# on the MI250X a hipMemcpyAsync from pinned memory runs at 26-28 GB/s, a managed\n"
    "# prefetch at about 5 (Pearson, Frontier: 26.5 and 5.0 GB/s at 32 MiB, 28.3 and 6.1\n"
    "# at 1 GiB). umkit.copy(d, data) straight from the NumPy array passes too, and is\n"
    "# faster in this model: the runtime copies pageable memory itself (by default ROCm/clr's\n"
    "# writeBuffer pins the source for the copy, or stages one of 1 MiB or less), while a\n"
    "# pinned buffer of yours costs its allocation (here about 0.1 ms per MiB, an\n"
    "# estimate) and pays off when you reuse it, load after load.":
        "def load(data):\n"
        "    d = umkit.device_array(data.size)\n"
        "    stage = umkit.pinned(data.size)     # 经固定内存中转……\n"
        "    stage.host[:] = data\n"
        "    umkit.copy(d, stage)                # ……一次显式拷贝进显存\n"
        "    umkit.synchronize()\n"
        "    stage.free()\n"
        "    return d\n"
        "# 在 MI250X 上，从固定内存做 hipMemcpyAsync 是 26-28 GB/s，托管内存的预取约 5 GB/s\n"
        "# （Pearson，Frontier：32 MiB 时分别是 26.5 和 5.0 GB/s，1 GiB 时是 28.3 和 6.1）。\n"
        "# 直接用 umkit.copy(d, data) 从 NumPy 数组拷贝也能通过，而且在这个模型里更快：\n"
        "# 运行时自己处理可分页内存的拷贝（ROCm/clr 的 writeBuffer 默认为这次拷贝把源内存临时固定，\n"
        "# 1 MiB 及以下的则经中转缓冲区拷贝）；你自己的固定内存缓冲区要付出分配的开销（这里约每 MiB\n"
        "# 0.1 ms，是估计值），要在一次次加载中反复复用才划算。",
    "the array the GPU read does not hold the data: all of `data` must arrive in the array you return":
        "GPU 读到的数组里没有这份数据：`data` 的全部内容都必须到达你返回的数组里",
    "{ms} ms of model time on {profile} (budget {budget} ms) with '{kind}' memory: one explicit copy "
    "at hipMemcpy speed, then every read at HBM speed (§3.4: hot data in hipMalloc + explicit copies)":
        "在 {profile} 上用 '{kind}' 内存花了 {ms} ms 模型时间（预算 {budget} ms）：一次以 hipMemcpy 速度进行的"
        "显式拷贝，之后每次读取都是 HBM 速度（§3.4：热数据放 hipMalloc 加显式拷贝）",
    "{ms} ms of model time on {profile} (budget {budget} ms) with '{kind}' memory: the data reached VRAM "
    "before the reads, then every read ran at HBM speed (§3.4 puts such hot data in hipMalloc, where no "
    "CPU touch pulls a page back)":
        "在 {profile} 上用 '{kind}' 内存花了 {ms} ms 模型时间（预算 {budget} ms）：数据在读取之前就到了显存，"
        "之后每次读取都是 HBM 速度（§3.4 把这样的热数据放进 hipMalloc，那里 CPU 的访问不会把页拉回）",
    "the CPU wrote the data into device memory through its host view ({ms} ms of model time on "
    "{profile}): that works only where the CPU can map VRAM, and it is not one of the allowed calls. "
    "Fill device memory the portable way: what moves host data into it?":
        "CPU 通过主机视图把数据直接写进了设备内存（在 {profile} 上花了 {ms} ms 模型时间）：这只在 CPU 能映射显存的地方"
        "行得通，而且它不在允许使用的调用之列。请用可移植的办法填充设备内存：什么能把主机上的数据搬进去？",
    "{ms} ms of model time on {profile}, over the {budget} ms budget ('{kind}' memory; {mib} MiB "
    "migrated, {remote} MiB read over the link, {faults} GPU faults)":
        "在 {profile} 上花了 {ms} ms 模型时间，超出 {budget} ms 的预算（'{kind}' 内存；迁移了 {mib} MiB，"
        "经链路读取 {remote} MiB，GPU 缺页 {faults} 次）",
    "{ms} ms of model time on {profile}, over the {budget} ms budget ('{kind}' memory)":
        "在 {profile} 上花了 {ms} ms 模型时间，超出 {budget} ms 的预算（'{kind}' 内存）",
    "{argument} is None: write def load(data): ... and return a umkit array":
        "{argument} 是 None：写出 def load(data): ...，并返回一个 umkit 数组",
    "{argument} should be a function of the data, got {type}": "{argument} 应该是一个以数据为参数的函数，得到的是 {type}",

    # -- notebook 03: migration, prefetch, advice ---------------------------------------------------------
    "read_mostly + prefetch to the GPU: each side keeps its own copy (faults not counted on a real GPU; "
    "run on sim to see them)":
        "read_mostly + 预取到 GPU：两侧各保留一份自己的副本（真 GPU 上不统计缺页；在 sim 上运行才能看到）",
    "{argument} is None: write def prepare(a, w): ... (advice and/or prefetch)":
        "{argument} 是 None：写出 def prepare(a, w): ...（建议和/或预取）",
    "{argument} should be a function of two arrays, got {type}": "{argument} 应该是一个以两个数组为参数的函数，得到的是 {type}",

    # -- notebook 04: synchronization --------------------------------------------------------------------
    "§3.3: a kernel launch returns at once, and work on one stream runs in the order it was queued; the "
    "CPU may read what a kernel writes only after something has waited for that kernel. "
    "hipDeviceSynchronize waits for every stream on the device, hipStreamSynchronize for everything "
    "queued on one stream so far, hipEventSynchronize for the work queued before one event (notebook "
    "section 2, 'three ways to wait')":
        "§3.3：kernel 启动立即返回，同一个流上的工作按入队的顺序运行；只有在某个东西等过那个 kernel 之后，"
        "CPU 才能读 kernel 写的内容。hipDeviceSynchronize 等待设备上的每一个流，hipStreamSynchronize "
        "等待一个流上到此为止入队的全部工作，hipEventSynchronize 等待某个事件之前入队的工作"
        "（本 notebook 第 2 节“三种等待方式”）",
    "step returned None: return the CPU's sum of a, e.g. float(a.host.sum())":
        "step 返回了 None：请返回 CPU 对 a 求的和，例如 float(a.host.sum())",
    "step returned {got}; return a number (the sum)": "step 返回了 {got}；请返回一个数（那个和）",
    "the CPU read a while the kernel could still be writing it (a race, §3.3) -- on a real card the sum "
    "may be wrong, with no error (§5.1): nothing waited for the kernel before the CPU's sum":
        "CPU 在 kernel 可能还在写 a 的时候读了它（数据竞争，§3.3）——在真卡上，这个和可能是错的，而且不报错"
        "（§5.1）：CPU 求和之前，没有任何东西等待 kernel",
    "the sum came back before the kernel on `stream` had finished: nothing waited for your kernel. (A "
    "GPU reduction such as float(a.device.sum()) runs on the default stream, not on yours: on a real "
    "card it waits either for every stream, like hipDeviceSynchronize, or for none.)":
        "在 `stream` 上的 kernel 完成之前，和就回来了：没有任何东西等待你的 kernel。（像 float(a.device.sum()) 这样的 "
        "GPU 归约运行在默认流上，而不是你的流上：在真卡上，它要么像 hipDeviceSynchronize 那样等待每一个流，"
        "要么一个都不等。）",
    "sum {got} = the array before the kernel: the CPU read too early, or the kernel never ran on a -- "
    "call umkit.increment(a, stream=stream) and wait for it":
        "和为 {got} = kernel 之前的数组：CPU 读得太早，或者 kernel 根本没在 a 上运行——调用 "
        "umkit.increment(a, stream=stream) 并等待它",
    "right sum, but the host waited {code_a} ms (model time): until the other stream's job, which your "
    "sum does not need, had ended -- it waited for every stream (re-read section 2, §3.3).":
        "求和结果是对的，但主机等了 {code_a} ms（模型时间）：一直等到另一个流上的任务（你的求和并不需要它）"
        "结束——它等了每一个流（重读第 2 节，§3.3）。",
    "right sum, but the host waited {code_a} ms (model time): until the next batch's copy-in, queued on "
    "your stream after your kernel, had ended. Your sum needs only your kernel (re-read section 2, §3.3).":
        "求和结果是对的，但主机等了 {code_a} ms（模型时间）：一直等到下一批数据的拷入（在你的流上、排在你的 "
        "kernel 之后）结束。你的求和只需要你的 kernel（重读第 2 节，§3.3）。",
    "right sum, but next_batch() was queued only after the host had waited for your kernel (it ended at "
    "{code_a} ms, model time): the GPU had nothing queued while the host waited. Queue the next batch "
    "before you wait.":
        "求和结果是对的，但 next_batch() 是在主机等完你的 kernel 之后才入队的（kernel 在 {code_a} ms 结束，"
        "模型时间）：主机等待的时候 GPU 没有排着的活。请在等待之前把下一批数据排进队列。",
    "your kernel on a ran on another stream than `stream`, the one the step is given (and the one "
    "next_batch() queues on): launch it there, umkit.increment(a, stream=stream)":
        "你在 a 上的 kernel 跑在了另一个流上，而不是 step 得到的 `stream`（也就是 next_batch() 排队的那个流）："
        "请在那里启动它，umkit.increment(a, stream=stream)",
    "step never called next_batch(): queue the next batch's copy-in on your stream (call next_batch() "
    "once, after your kernel) so that the GPU has work while the CPU reads the sum":
        "step 从没调用 next_batch()：请把下一批数据的拷入排进你的流（在你的 kernel 之后调用一次 "
        "next_batch()），这样 CPU 读和的时候 GPU 还有活干",
    "step called next_batch() {code_n} times: call it once, after your kernel":
        "step 调用了 {code_n} 次 next_batch()：请在你的 kernel 之后只调用一次",
    "next_batch() was called before your kernel was queued: one stream runs its work in the order it was "
    "queued, so your kernel would start only after the next batch's copy-in. Queue your kernel first.":
        "next_batch() 在你的 kernel 入队之前就被调用了：同一个流按入队顺序运行它的工作，所以你的 kernel "
        "要等下一批数据拷入完才会开始。请先把你的 kernel 排进队列。",
    "sum {got} (on a real GPU the check can't see what you waited for; run it on sim to check that too)":
        "和为 {got}（在真 GPU 上，检查看不到你等待了什么；在 sim 上运行才能把这一点也检查了）",
    "sum {got}, and the host waited {ms} ms (model time): only for your kernel, while the next batch's "
    "copy-in and the other stream's job went on":
        "和为 {got}，主机等了 {ms} ms（模型时间）：只等了你的 kernel，下一批数据的拷入和另一个流上的任务都在继续",
    "right -- but an earlier set was wrong, so one more set must be right in a row. A new set is "
    "drawn: print it again and answer it":
        "对了——但之前有一组答错了，所以还要再连续答对一组。已经抽了新的一组：把它再打印出来，回答这一组",
    "{argument} is None: write def step(a, stream, next_batch): ... and return the CPU's sum":
        "{argument} 是 None：写出 def step(a, stream, next_batch): ...，并返回 CPU 求的和",
    "{argument} should be a function (a, stream, next_batch) -> float, got {type}":
        "{argument} 应该是一个函数 (a, stream, next_batch) -> float，得到的是 {type}",
    "the CPU touched the array while the kernel was running: {exception}":
        "CPU 在 kernel 运行时访问了这个数组：{exception}",

    # -- notebook 05: concurrent access and ping-pong ------------------------------------------------------
    "§4.3: the spikes come from *where the parameters live*, not from how they are moved: as long as "
    "the CPU's statistic touches GPU-resident managed pages, the driver migrates them back (on the "
    "MI250X model and on the H200 alike, whatever the placement advice; on the H200 read-mostly makes the "
    "CPU read a copy instead, on AMD it is only a flag). Split the buffers by access frequency: what the GPU uses every step in one kind of memory, "
    "the CPU's helper data in another":
        "§4.3：毛刺来自*参数住在哪里*，而不是它们怎么被搬运：只要 CPU 的统计访问驻留在 GPU 上的托"
        "管页，驱动就会把它们迁移回来（在 MI250X 模型和 H200 上都一样，不论放置建议是什么；在 H200 上，以读为主的建议让 CPU 读一份副本，在 AMD 上它只是一个标志）。按访问频率"
        "拆分缓冲区：GPU 每一步都用的放一种内存，CPU 的辅助数据放另一种",
    "workloads.Strategy('split', memory='mixed', prefetch='gpu', advice='none'): parameters in device "
    "memory (hipMalloc), the statistic computed on the GPU, only the batch managed and prefetched":
        "workloads.Strategy('split', memory='mixed', prefetch='gpu', advice='none')：参数放设备内存"
        "（hipMalloc），统计量在 GPU 上计算，只有批次放托管内存并做预取",
    "that is not a strategy: {error}": "这不是一个策略：{error}",
    "still spiky: step {k} takes {peak} ms against a median of {med} ms ({x}x). On that step your prefetch "
    "moved {mib} MiB back into VRAM: on the step before, the CPU statistic pulled the parameters' pages to "
    "the host ({cf} CPU faults), so each statistic costs a prefetch back.":
        "仍然有毛刺：第 {k} 步用了 {peak} ms，而中位数是 {med} ms（{x} 倍）。那一步你的预取把 {mib} MiB 搬回显存："
        "前一步 CPU 的统计把参数页拉回了主机（{cf} 次 CPU 缺页），所以每次统计都要再预取一次。",
    "still spiky: step {k} takes {peak} ms against a median of {med} ms ({x}x). On that step {mib} MiB "
    "moved (cpu_faults={cf}, gpu_faults={gf}): the CPU statistic still pulls the parameters' pages back "
    "to the host and the next kernel faults them in again.":
        "仍然有毛刺：第 {k} 步用了 {peak} ms，而中位数是 {med} ms（{x} 倍）。那一步搬了 {mib} MiB"
        "（cpu_faults={cf}，gpu_faults={gf}）：CPU 的统计仍然把参数页拉回主机，下一个 kernel 再把它们缺页迁回。",
    "flat, but slow: {steps} steps take {total} ms, {x}x all-device memory ({ref} ms).{why}":
        "曲线平坦，但慢：{steps} 步用了 {total} ms，是全部放设备内存（{ref} ms）的 {x} 倍。{why}",
    " Every step moves pages back to the host (prefetch 'gpu+back') and the next step brings them in again.":
        "每一步都把页面搬回主机（预取 'gpu+back'），下一步再把它们搬进来。",
    "Send the hipMallocManaged pointer value to process B (a pipe, a socket) and use it there.":
        "把 hipMallocManaged 指针的值发给进程 B（管道、套接字），在那边使用它。",
    "Allocate with hipMalloc, export it with hipIpcGetMemHandle, send the handle, and open it in process "
    "B with hipIpcOpenMemHandle.":
        "用 hipMalloc 分配，用 hipIpcGetMemHandle 导出，发送句柄，在进程 B 里用 hipIpcOpenMemHandle 打开它。",
    "Send the managed pointer, and have process B call hipMemPrefetchAsync(ptr, bytes, 0, s) before "
    "using it so that the pages get mapped in B.":
        "发送托管指针，并让进程 B 在使用前调用 hipMemPrefetchAsync(ptr, bytes, 0, s)，好让页面在 B 里被映射。",
    "Put the data in a file (or shared memory) that both processes map with mmap, and let each process "
    "copy what it needs to its own GPU memory.":
        "把数据放进一个文件（或共享内存），两个进程都用 mmap 映射它，再让每个进程把需要的东西拷进自己的 GPU 内存。",
    "Send the managed pointer and call hipDeviceSynchronize in both processes first.":
        "发送托管指针，并先在两个进程里都调用 hipDeviceSynchronize。",
    "Allocate with hipMalloc, export it with hipIpcGetMemHandle, send the handle, and in process B use the "
    "handle's bytes as a device pointer without opening it.":
        "用 hipMalloc 分配，用 hipIpcGetMemHandle 导出，发送句柄，在进程 B 里不打开它，直接把句柄的字节当作设备指针使用。",
    "mmap a file in process A only, send the address mmap returned to process B, and copy from that address "
    "there.":
        "只在进程 A 里用 mmap 映射一个文件，把 mmap 返回的地址发给进程 B，在那边从这个地址拷贝。",
    "Allocate with hipMalloc and send that pointer value itself (not a handle) to process B to use there.":
        "用 hipMalloc 分配，把这个指针的值本身（不是句柄）发给进程 B，在那边使用。",
    "a handle is not an address: only hipIpcOpenMemHandle maps the memory into process B and gives it a "
    "pointer of its own":
        "句柄不是地址：只有 hipIpcOpenMemHandle 才会把这块内存映射进进程 B，并给它一个自己的指针",
    "the address mmap returned is process A's: process B has mapped nothing there":
        "mmap 返回的地址属于进程 A；进程 B 在那里什么都没有映射",
    "a hipMalloc pointer is a virtual address of process A too: process B's page tables have nothing at "
    "that address":
        "hipMalloc 指针同样是进程 A 的虚拟地址：进程 B 的页表在那个地址上什么都没有",
    "{code_x} and {code_y} work: {part_1}; {part_2}.": "{code_x} 和 {code_y} 行得通：{part_1}；{part_2}。",
    "Options that work: {code_x} -- {part_1}.": "行得通的选项：{code_x}——{part_1}。",
    "Options that work: {code_x} and {code_y} -- {part_1}; {part_2}.":
        "行得通的选项：{code_x} 和 {code_y}——{part_1}；{part_2}。",
    "Options that work: {code_x} and {code_y} and {code_z} -- {part_1}; {part_2}; {part_3}.":
        "行得通的选项：{code_x}、{code_y} 和 {code_z}——{part_1}；{part_2}；{part_3}。",
    "The others don't:": "其余的不行：",
    "({k}) {part_why}": "（{k}）{part_why}",
    "that set is not the one. For each option you chose, ask whether process B's page tables would know the "
    "address it uses; for each you left out, whether it could work after all. The options are drawn again "
    "(new letters, some new options): run the cell again to print them, and answer those":
        "这组答案不对。对你选的每一项，问问进程 B 的页表是否认得它用的地址；对你没选的每一项，问问它"
        "是否其实行得通。选项已经重新抽取（字母变了，也有新的选项）：再运行一次这个单元格把它们打印出来，回答新的这些",
    "a virtual address is only meaningful inside the process that made it: process B's page tables have "
    "nothing at that address (the column's HSA_STATUS_ERROR_INVALID_MEMORY, §5.1; ROCm reports a "
    "memory-access fault or the process gets SIGSEGV)":
        "虚拟地址只在创建它的进程里才有意义：进程 B 的页表在那个地址上什么都没有（专栏说的 HSA_STATUS_ERROR_INVALID_MEMORY，§5.1；"
        "ROCm 报告的是内存访问错误，或者进程收到 SIGSEGV）",
    "prefetch moves pages of a range this process owns; in process B the range doesn't exist":
        "预取搬动的是本进程拥有的范围里的页；在进程 B 里，这段范围并不存在",
    "synchronizing orders work inside one process; it doesn't create a mapping in another":
        "同步只给一个进程内部的工作排序；它不会在另一个进程里创建映射",
    "IPC handles are how the runtime shares device memory between processes (managed memory can't be "
    "exported this way: allocate the shared buffer with hipMalloc)":
        "IPC 句柄是运行时在进程之间共享设备内存的方式（托管内存不能这样导出：请用 hipMalloc 分配共享缓冲区）",
    "a file or shared-memory mapping is the other route the article names (§4.3)":
        "文件或共享内存映射是专栏提到的另一条路（§4.3）",
    "§4.3 and §5.1: a managed pointer is a virtual address in one process's page tables; another process "
    "needs the runtime's IPC handles or a mapping the operating system shares (a file, shared memory)":
        "§4.3 和 §5.1：托管指针是一个进程页表里的虚拟地址；另一个进程需要运行时的 IPC 句柄，"
        "或者操作系统共享的映射（文件、共享内存）",
    "give a set of letters such as {'a'}, not {answer}": "请给出一个字母集合，例如 {'a'}，而不是 {answer}",
    "{unknown} are not options: choose among {options}": "{unknown} 不是选项：请从 {options} 中选择",
    "def transitions(n_faults, batch_max):\n    return -(-n_faults // batch_max)   # ceiling division (math.ceil works too)":
        "def transitions(n_faults, batch_max):\n    return -(-n_faults // batch_max)   # 向上取整的除法（用 math.ceil 也行）",
    "def prepare(a):\n    a.advise('read_mostly')   # advice first ...\n    a.prefetch('gpu')         # ... then prefetch: the GPU gets its own copy\n(on a machine where the GPU may read host memory in place, a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') also passes: nothing moves, the GPU reads across the link)":
        "def prepare(a):\n    a.advise('read_mostly')   # 先建议……\n    a.prefetch('gpu')         # ……再预取：GPU 得到它自己的副本\n（在 GPU 可以原地读取主机内存的机器上，a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') 也能通过：什么都不搬，GPU 经链路读取）",
    "def prepare(a, w):\n    a.advise('read_mostly')   # advice first ...\n    a.prefetch('gpu')         # ... then prefetch: the GPU gets its own copy\n    w.prefetch('gpu')         # w: only the GPU reads it -- inhale it once\n# for a, a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') also\n# passes: nothing moves, the GPU reads across the link on every round":
        "def prepare(a, w):\n    a.advise('read_mostly')   # 先建议……\n    a.prefetch('gpu')         # ……再预取：GPU 得到它自己的副本\n    w.prefetch('gpu')         # w：只有 GPU 读它——吸进来一次\n# 对 a 来说，a.advise('preferred_location', 'cpu'); a.advise('accessed_by', 'gpu') 也能通过：\n# 什么都不搬，每一轮 GPU 都经链路读取",
    "def prepare(a, w):\n    a.advise('preferred_location', 'cpu')   # a: the pages stay in host memory ...\n    a.advise('accessed_by', 'gpu')          # ... and the GPU maps them where they are\n    w.prefetch('gpu')                       # w: only the GPU reads it -- inhale it once\n# either advice alone also passes for a on AMD; where a CPU touch migrates pages back (this\n# notebook's mi250x-xnack1 model, after OLCF's Frontier table; a PCIe AMD GPU) a prefetch of a\n# to the GPU would be undone by the CPU's first read":
        "def prepare(a, w):\n    a.advise('preferred_location', 'cpu')   # a：页面留在主机内存里……\n    a.advise('accessed_by', 'gpu')          # ……GPU 在原处映射它们\n    w.prefetch('gpu')                       # w：只有 GPU 读它——吸进来一次\n# 在 AMD 上，对 a 单独用其中任一条建议也能通过；在 CPU 一碰页就会迁回的地方（本 notebook 的\n# mi250x-xnack1 模型，依据 OLCF 的 Frontier 表格；PCIe 的 AMD GPU），把 a 预取到 GPU 会被 CPU 的第一次读取抵消",
    "def step(a, stream, next_batch):\n    umkit.increment(a, stream=stream)\n    done = umkit.Event().record(stream)   # hipEventRecord: marks the end of my kernel\n    next_batch()                          # queued behind it: the GPU keeps working\n    done.synchronize()                    # hipEventSynchronize: wait for my kernel only\n    return float(a.host.sum())":
        "def step(a, stream, next_batch):\n    umkit.increment(a, stream=stream)\n    done = umkit.Event().record(stream)   # hipEventRecord：标出我的 kernel 的结束\n    next_batch()                          # 排在它后面：GPU 继续干活\n    done.synchronize()                    # hipEventSynchronize：只等我的 kernel\n    return float(a.host.sum())",
    "{argument} is still None: give the set of letters that work, e.g. {'x', 'y'} (read nb05.IPC_OPTIONS).":
        "{argument} 仍然是 None：请给出行得通的字母集合，例如 {'x', 'y'}（读一读 nb05.IPC_OPTIONS）。",
    "§4.3 and section 3: on this card (VRAM the CPU cannot map) whatever reads the parameters on the CPU "
    "makes the driver migrate them to the host. Let the GPU compute the statistic where the data lives, "
    "and bring back only the number: beside its .host view an array has a GPU view (notebook 03 sliced "
    "it): slicing and .mean() on that view run on the GPU, and float(...) brings back only the result":
        "§4.3 和第 3 节：在这块卡上（CPU 映射不了显存），凡是在 CPU 上读参数的操作，都会让驱动把它们迁移到主机。"
        "让 GPU 在数据所在的地方计算统计量，只把那个数字带回来：数组除了 .host 视图，还有一个 GPU 一侧的视图"
        "（notebook 03 对它切过片）：在那个视图上切片、做 .mean() 都在 GPU 上执行，float(...) 只把结果取回来",
    "def statistic(params):\n    return float(params.device[::16384].mean())   # a GPU reduction; only "
    "the scalar crosses the link":
        "def statistic(params):\n    return float(params.device[::16384].mean())   # GPU 上的归约；只有这个"
        "标量经过链路",
    "statistic(params) returned {got}; return a float": "statistic(params) 返回了 {got}；请返回一个 float",
    "{argument} is None: write def statistic(params): ... and return a float":
        "{argument} 是 None：写出 def statistic(params): ...，并返回一个 float",
    "{argument} should be a function of the array, got {type}": "{argument} 应该是一个以数组为参数的函数，得到的是 {type}",
    # -- umkit.explain: the article's §5.1 table (umkit.diagnostics.explain, umkit.errors.table) -----
    "What it means:": "含义：",
    "Note:": "注：",
    "What to do:": "怎么办：",
    "Article:": "专栏：",
    "Also called:": "别名：",
    "Likely cause:": "可能原因：",
    "Tools:": "工具：",
    "See also:": "另见：",
    "Symptom: {title}": "症状：{title}",
    "Wrong results, no error": "结果错误，但不报错",
    "The CPU and the GPU wrote the same managed pages at the same time, or the CPU read before the "
    "kernel finished: a missing synchronization (§3.3). Usually nothing fails (on ROCm, and on NVIDIA "
    "GPUs with concurrentManagedAccess; where that attribute is 0 the CPU access segfaults): the data is "
    "whatever won the race.":
        "CPU 和 GPU 同时写了同样的托管页，或者 CPU 在 kernel 完成之前就读了：缺了一次同步（§3.3）。"
        "通常什么都不会失败（在 ROCm 上，以及 concurrentManagedAccess 为真的 NVIDIA GPU 上；该属性为 0 时，"
        "CPU 的访问会引发段错误）：数据是数据竞争中胜出的那一方写的东西。",
    "Synchronize before the CPU touches data a kernel may still use: hipStreamSynchronize / "
    "hipEventSynchronize on the stream that ran it (hipDeviceSynchronize is the safe, slow hammer) "
    "(§3.3, §5.1). Check that no CPU access lags behind a launch. Run the same code on the sim backend "
    "in strict mode: it raises RaceDetected naming the pages and the kernel in flight.":
        "在 CPU 访问 kernel 可能还在用的数据之前先同步：在运行它的流上用 hipStreamSynchronize / "
        "hipEventSynchronize（hipDeviceSynchronize 是安全但慢的大锤）（§3.3、§5.1）。检查有没有 CPU 访问"
        "落在 kernel 启动之后、完成之前。在 sim 后端的严格模式下运行同样的代码：它会抛出 RaceDetected，"
        "指出相关的页和正在运行的 kernel。",
    "sim strict mode (RaceDetected); hipDeviceSynchronize after each launch as a quick test":
        "sim 的严格模式（RaceDetected）；作为快速测试，在每次启动后加 hipDeviceSynchronize",
    "Erratic step time (fast, then slow, then fast)": "性能忽快忽慢（step 时间时快、时慢、又快）",
    "Pages thrash: the CPU and the GPU take turns on one big managed array, so the driver migrates the "
    "same pages back and forth (§2.3, §4.3: an optimizer doing CPU statistics every ten steps made later "
    "epochs 20x slower).":
        "页面颠簸：CPU 和 GPU 轮流访问同一个大的托管数组，于是驱动把同样的页面来回迁移（§2.3、§4.3："
        "一个每十步在 CPU 上做一次统计的优化器，让后面的 epoch 慢了 20 倍）。",
    "Split buffers by access frequency: hot training data in device memory, low-frequency helper data "
    "managed (§4.3); give advice first, then prefetch before each epoch (§4.4); consider pinned memory "
    "for small CPU-heavy data (§4.4). Run the memory ECG (§7): 50 steps each with device, managed and "
    "mixed strategies; a smooth curve wins.":
        "按访问频率拆分缓冲区：热的训练数据放设备内存，低频的辅助数据放托管内存（§4.3）；先给建议，再在每个 "
        "epoch 之前预取（§4.4）；CPU 访问频繁的小数据考虑用固定内存（§4.4）。跑一次显存心电图（§7）："
        "device、managed 和 mixed 三种策略各跑 50 步；曲线平滑的胜出。",
    "on ROCm rocprofv3's KFD page-migrate and page-fault records (implicit migrations are the driver's "
    "own SDMA copies, never memcpy rows), nsys on NVIDIA; timestamps with hipGetLastError + "
    "hipDeviceSynchronize (§5.2)":
        "在 ROCm 上看 rocprofv3 的 KFD 页迁移和缺页记录（隐式迁移是驱动自己的 SDMA 拷贝，从不表现为 memcpy 行），"
        "NVIDIA 上用 nsys；再配合 hipGetLastError + hipDeviceSynchronize 打时间戳（§5.2）",
    "umkit.explain('slow') (managed memory slow everywhere, old cards)":
        "umkit.explain('slow')（托管内存处处都慢、老卡）",
    "Managed memory very slow on old cards": "老卡上托管内存极慢",
    "The GPU cannot take recoverable page faults: gfx906 (MI50) and gfx908 (MI100) can't turn XNACK on "
    "per process, and on MI200/MI300 it is off unless HSA_XNACK=1. Then managed memory stays in system "
    "memory, which a discrete GPU reads over the link, and pages move only when you prefetch them; a "
    "kernel without amdgpu's SVM support makes hipMallocManaged plain pinned host memory. On AMD page "
    "migration is always run by the driver (amdkfd decides and remaps, the SDMA engine copies), never a "
    "hardware page-migration feature: the column's 'weak "
    "hardware page migration' is the wrong cause (§2.2, §5.1; docs/article.md, Errata E7).":
        "GPU 不能处理可恢复缺页：gfx906（MI50）和 gfx908（MI100）无法按进程打开 XNACK，而在 MI200/MI300 上，"
        "除非设了 HSA_XNACK=1，否则它是关闭的。这时托管内存留在系统内存里，独立 GPU 要经链路去读它，页面只有在你"
        "预取时才会移动；内核若没有 amdgpu 的 SVM 支持，hipMallocManaged 就只是普通的固定主机内存。在 AMD 上，"
        "页迁移始终由驱动来做（amdkfd 决定并重新映射，SDMA 引擎负责拷贝），从来不是一项硬件页迁移功能：专栏说的“硬件页迁移能力弱”不是原因"
        "（§2.2、§5.1；docs/article.md，勘误 E7）。",
    "Turn XNACK on where the GPU supports it (CDNA2 and later: HSA_XNACK=1 before the first HIP call, "
    "target xnack+; umkit.doctor() reads it from pageable_memory_access), prefetch the hot data before "
    "each epoch, or use explicit hipMalloc + hipMemcpy for it (§5.1, §6.3); upgrading ROCm helps only "
    "where the kernel driver lacked SVM.":
        "在 GPU 支持的地方打开 XNACK（CDNA2 及之后：在第一个 HIP 调用之前设 HSA_XNACK=1，目标显示 xnack+；"
        "umkit.doctor() 从 pageable_memory_access 读取它），在每个 epoch 之前预取热数据，或者对它改用显式的 "
        "hipMalloc + hipMemcpy（§5.1、§6.3）；只有在内核驱动缺少 SVM 的地方，升级 ROCm 才有帮助。",
    "A managed-memory example hangs or dies with a memory access fault":
        "托管内存的示例卡住不动，或者因内存访问错误（memory access fault）而退出",
    "The GPU is not taking recoverable page faults. ROCm supports XNACK on Instinct (MI) GPUs only, so "
    "Radeon cards and consumer APUs run with it off; on MI200 and MI300 it is off by default; under "
    "SR-IOV an MI200 refuses it; and a kernel without the amdgpu SVM (HMM) API cannot migrate at all. "
    "With XNACK off a GPU page fault is not recoverable: the driver maps nothing and the kernel dies "
    "('Memory access fault by GPU'); users report examples that hang instead.":
        "GPU 没有在处理可恢复缺页。ROCm 只在 Instinct（MI）系列 GPU 上支持 XNACK，所以 Radeon 显卡和消费级 APU "
        "都是在 XNACK 关闭的状态下运行；在 MI200 和 MI300 上它默认关闭；MI200 在 SR-IOV 下拒绝打开它；而内核若没有 "
        "amdgpu 的 SVM（HMM）接口，就根本无法迁移。XNACK 关闭时，GPU 缺页不可恢复：驱动什么也不映射，kernel 直接退出"
        "（'Memory access fault by GPU'）；也有用户报告示例会卡住不动。",
    "Run umkit.doctor() (or `rocminfo | grep xnack`): it reads whether XNACK is on, whether the kernel "
    "has the SVM API and whether the node is virtualised. On an Instinct GPU set HSA_XNACK=1 before the "
    "process starts. Where XNACK cannot be on, keep managed memory prefetched to the GPU before each "
    "kernel, or use hipMalloc with explicit copies.":
        "运行 umkit.doctor()（或 `rocminfo | grep xnack`）：它会读出 XNACK 是否打开、内核有没有 SVM 接口、"
        "节点是不是虚拟化的。在 Instinct GPU 上，在进程启动之前设 HSA_XNACK=1。在 XNACK 打不开的地方，"
        "每个 kernel 之前都先把托管内存预取到 GPU，或者改用 hipMalloc 加显式拷贝。",
    "umkit doctor; rocminfo (xnack+ / xnack- in the ISA name); "
    "/sys/class/kfd/kfd/topology/nodes/*/properties":
        "umkit doctor；rocminfo（ISA 名称里的 xnack+ / xnack-）；/sys/class/kfd/kfd/topology/nodes/*/properties",
    "Only part of the memory is visible (e.g. 15.5 GiB of a 128 GB APU)":
        "只能看到一部分内存（例如 128 GB 的 APU 上只有 15.5 GiB）",
    "On consumer APUs (Strix Halo gfx1151, Strix Point gfx1150) ROCm and PyTorch report the BIOS VRAM "
    "carve-out as the device's memory, not the system memory the GPU can also map (GTT).":
        "在消费级 APU（Strix Halo gfx1151、Strix Point gfx1150）上，ROCm 和 PyTorch 把 BIOS 划出的显存"
        "（carve-out）报告为设备的内存，而不是 GPU 同样能映射的系统内存（GTT）。",
    "Raise the carve-out (UMA frame buffer size) in the BIOS if the job needs device memory; otherwise "
    "allocate host-visible memory the GPU maps from system RAM. A user's report says hipMalloc falls back "
    "to GTT on APUs since ROCm 6.4 (an estimate: not read in AMD's source). On gfx1150, hipMallocManaged "
    "returned hipErrorNotSupported with ROCm 7.2 (a user's report). umkit.doctor() shows the carve-out "
    "and GTT sizes.":
        "如果作业需要设备内存，就在 BIOS 里调大划出的显存（UMA frame buffer size）；否则就分配 GPU 从系统内存映射的、"
        "主机可见的内存。有用户报告说，从 ROCm 6.4 起 APU 上的 hipMalloc 会退回到 GTT（这是估计：没有在 AMD 的源码里"
        "读到）。在 gfx1150 上，ROCm 7.2 的 hipMallocManaged 返回了 hipErrorNotSupported（一位用户的报告）。"
        "umkit.doctor() 会显示划出显存和 GTT 的大小。",
    "umkit doctor; rocminfo; /sys/class/drm/card*/device/mem_info_vram_total and mem_info_gtt_total":
        "umkit doctor；rocminfo；/sys/class/drm/card*/device/mem_info_vram_total 和 mem_info_gtt_total",
    "umkit.doctor() (XNACK: pageable_memory_access), HSA_XNACK=1 rocminfo | grep -i gfx (xnack+ when it "
    "is on)":
        "umkit.doctor()（XNACK：pageable_memory_access），HSA_XNACK=1 rocminfo | grep -i gfx（打开时显示 xnack+）",
    "other slow-downs: umkit.explain('erratic') (step time jumps), umkit.explain('slow after porting'), "
    "umkit.explain('slow host access')":
        "其他变慢的情况：umkit.explain('erratic')（step 时间跳变）、umkit.explain('slow after porting')、"
        "umkit.explain('slow host access')",
    "Slower after porting CUDA to HIP": "从 CUDA 移植到 HIP 之后变慢",
    "NVIDIA's UVM prefetches more aggressively on some architectures; AMD relies more on explicit hints, "
    "so code that leaned on automatic migration loses speed (§5.3: a missing hipMemPrefetchAsync cost "
    "one team a third of its throughput).":
        "NVIDIA 的 UVM 在某些架构上预取更激进；AMD 更依赖显式提示，所以依赖自动迁移的代码会变慢"
        "（§5.3：漏了一个 hipMemPrefetchAsync，让一个团队的吞吐掉了三分之一）。",
    "Renaming cudaMallocManaged is only step one: add hipMemPrefetchAsync and hipMemAdvise where the "
    "CUDA code relied on the driver, and on day one draw a table of every buffer's memory budget, "
    "lifetime and access owner (§5.3).":
        "把 cudaMallocManaged 改名只是第一步：在 CUDA 代码依赖驱动的地方加上 hipMemPrefetchAsync 和 "
        "hipMemAdvise，并在第一天就为每块缓冲区画一张显存预算、生命周期和访问主人的表（§5.3）。",
    "the porting notebook's HIP<->CUDA table; the memory ECG (§7)": "移植 notebook 里的 HIP<->CUDA 对照表；显存心电图（§7）",
    "Host (CPU) access to managed memory is slow": "主机（CPU）访问托管内存很慢",
    "The pages live on the GPU and every CPU touch faults them back, or the slowness is in the platform: "
    "IOMMU page granularity or NUMA affinity, not your code (§1.3, §3.1).":
        "页面住在 GPU 上，CPU 每次访问都要把它们缺页迁回；或者慢在平台上：IOMMU 页粒度或 NUMA 亲和性，"
        "而不是你的代码（§1.3、§3.1）。",
    "Prefetch to the CPU before a CPU-heavy phase (hipMemPrefetchAsync to hipCpuDeviceId), keep "
    "CPU-heavy small data in pinned memory (§4.4), and check IOMMU mode and NUMA placement (numactl "
    "--hardware) before rewriting code (§1.3).":
        "在 CPU 密集的阶段之前预取到 CPU（hipMemPrefetchAsync 到 hipCpuDeviceId），把 CPU 访问频繁的小数据放在"
        "固定内存里（§4.4），并在改写代码之前检查 IOMMU 模式和 NUMA 放置（numactl --hardware）（§1.3）。",
    "umkit.doctor(); numactl --hardware; the residency map on sim": "umkit.doctor()；numactl --hardware；sim 上的驻留图",
    "No error: the call completed.": "没有错误：调用已完成。",
    "Nothing to fix. If the numbers are still wrong, there is no error code for that: see "
    "umkit.explain('wrong result').":
        "没有要修的。如果数字仍然不对，那是没有错误码的：见 umkit.explain('wrong result')。",
    "The runtime could not allocate enough memory (device memory, or the managed mapping behind "
    "hipMallocManaged / cudaMallocManaged).":
        "运行时无法分配足够的内存（设备内存，或 hipMallocManaged / cudaMallocManaged 背后的托管映射）。",
    "hipErrorMemoryAllocation is HIP's deprecated alias of hipErrorOutOfMemory (both 2).":
        "hipErrorMemoryAllocation 是 HIP 中 hipErrorOutOfMemory 已弃用的别名（两者都是 2）。",
    "The article's §5.1: your device allocations (hipMalloc / cudaMalloc) exceed the VRAM left on the "
    "GPU, or managed allocations exceed what the host can back: on ROCm hipMallocManaged reserves no "
    "VRAM, and with XNACK off amdkfd (since about Linux 6.0, 2022) charges it to a system-memory limit. "
    "Check free memory with "
    "umkit.doctor() (rocm-smi / nvidia-smi also show other processes holding VRAM, which limits device "
    "allocations), allocate in smaller blocks, split the hot data into device memory and let "
    "cold data breathe out to the host with managed memory (§2.1, §4.3). umkit's guard against "
    "oversubscribing managed memory applies on the cuda backend (umkit.allow_oversubscription(True) "
    "lifts it); sim models a smaller card with umkit.use('sim', vram=...) so you can watch pages breathe "
    "out.":
        "专栏 §5.1：你的设备内存分配（hipMalloc / cudaMalloc）超出了 GPU 上剩余的显存，或者托管内存分配超出了主机能提供的内存："
        "在 ROCm 上 hipMallocManaged 不预留显存，XNACK 关闭时 amdkfd（约从 Linux 6.0、2022 年起）把它计入系统内存的上限。用 umkit.doctor() 查看空闲内存"
        "（rocm-smi / nvidia-smi 还会显示占用显存的其他进程，它们限制的是设备内存分配），换成小块分配，把热数据拆到设备内存里，"
        "让冷数据借助托管内存呼气到主机（§2.1、§4.3）。umkit 防止托管内存超额订阅的保护只在 cuda 后端生效"
        "（umkit.allow_oversubscription(True) 解除它）；sim 可以用 umkit.use('sim', vram=...) 模拟一块更小的卡，让你看着页面呼气出去。",
    "A memory call in the HSA runtime underneath HIP failed.": "HIP 底下的 HSA 运行时中的一个内存调用失败了。",
    "CUDA has no such code; HIP adds 1052/1053 for failures in the HSA runtime.":
        "CUDA 没有这个错误码；HIP 为 HSA 运行时中的失败额外加了 1052/1053。",
    "The real cause is in ROCm's HSA layer: look for an HSA_STATUS_… message on stderr and explain that "
    "name; for multi-process sharing see umkit.explain('HSA_STATUS_ERROR_INVALID_MEMORY'). Check dmesg "
    "for amdgpu messages.":
        "真正的原因在 ROCm 的 HSA 层：在 stderr 上找 HSA_STATUS_… 信息，再 explain 那个名字；多进程共享的情况见 "
        "umkit.explain('HSA_STATUS_ERROR_INVALID_MEMORY')。检查 dmesg 里的 amdgpu 信息。",
    "The driver's page tables and this pointer disagree: the memory isn't valid here. The article's §5.1 "
    "sees it most often when processes share a managed pointer.":
        "驱动的页表和这个指针对不上：这块内存在这里无效。专栏 §5.1 认为它最常出现在多个进程共享一个托管指针的时候。",
    "The name the article uses. ROCm's hsa_status_t has no value with exactly this name; a GPU access to "
    "a foreign address is a memory fault: ROCr raises a memory-fault event and, unless the program handles "
    "it, prints 'Memory access fault by GPU node-N' and aborts (the status HSA_STATUS_ERROR_MEMORY_FAULT "
    "(43) is not passed to the queue's error callback), or HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION (41), each explained on its own (hsa_ext_amd.h). A CPU "
    "dereference gives SIGSEGV or silently reads whatever is mapped there, and with XNACK on a GPU access "
    "to an address that is valid in the receiving process succeeds silently (amdkfd creates a range for "
    "it).":
        "这是专栏用的名字。ROCm 的 hsa_status_t 里没有恰好叫这个名字的值（本工具包在这里更正了专栏）；GPU 访问一个外来地址时，"
        "是一次内存访问错误：ROCr 发出一个内存错误事件，除非程序处理了它，否则打印 'Memory access fault by GPU node-N' 并中止"
        "（状态 HSA_STATUS_ERROR_MEMORY_FAULT（43）不会交给队列的错误回调），或者是 HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION（41），各有各的解释"
        "（hsa_ext_amd.h）。CPU 解引用它会得到 SIGSEGV，或者悄悄读到那里碰巧映射着的东西；XNACK 打开时，GPU 访问一个在接收进程里"
        "恰好有效的地址会悄无声息地成功（amdkfd 为它创建一个范围）。",
    "Managed pointers don't cross processes (§4.3, §5.1): an address from hipMallocManaged in one process "
    "means nothing in another. Share memory with IPC (hipIpcGetMemHandle / hipIpcOpenMemHandle, "
    "cudaIpcGetMemHandle on NVIDIA) or a file mapping, or copy explicitly.":
        "托管指针不能跨进程（§4.3、§5.1）：一个进程里 hipMallocManaged 得到的地址，在另一个进程里毫无意义。"
        "用 IPC（hipIpcGetMemHandle / hipIpcOpenMemHandle，NVIDIA 上是 cudaIpcGetMemHandle）或文件映射共享内存，"
        "或者显式拷贝。",
    "The HSA runtime refused an allocation request as invalid.": "HSA 运行时认为一个分配请求无效，拒绝了它。",
    "Check the size and flags: a zero or huge size, or a pool that can't serve this agent. If memory is "
    "simply short, see the out-of-memory row: {hint}":
        "检查大小和标志：大小为零或极大，或者一个无法为这个 agent 服务的内存池。如果只是内存不够，见内存不足那一行：{hint}",
    "The HSA runtime could not get the memory (or threads, queues, events) it needed.":
        "HSA 运行时拿不到它需要的内存（或线程、队列、事件）。",
    "The memory pool (region of memory an agent allocates from) is invalid.":
        "内存池（agent 从中分配内存的区域）无效。",
    "An argument error of ROCr's memory-pool calls (hsa_amd_memory_pool_allocate, "
    "hsa_amd_memory_pool_get_info, hsa_amd_memory_pool_can_migrate, ...): the pool handle passed is not a "
    "pool ROCr knows. It has nothing to do with sharing a pointer: take the pool from "
    "hsa_amd_agent_iterate_memory_pools for the agent you allocate on.":
        "这是 ROCr 内存池调用（hsa_amd_memory_pool_allocate、hsa_amd_memory_pool_get_info、"
        "hsa_amd_memory_pool_can_migrate 等）的参数错误：传入的内存池句柄不是 ROCr 认识的内存池。"
        "它与共享指针毫无关系：请用 hsa_amd_agent_iterate_memory_pools 为你要在其上分配的 agent 取得内存池。",
    "hsa_ext_amd.h: 'The memory pool is invalid.' ROCr returns it when MemoryRegion::Convert of the handle "
    "fails or the region is not valid (hsa_ext_amd.cpp).":
        "hsa_ext_amd.h：“The memory pool is invalid.”（内存池无效）。当句柄经 MemoryRegion::Convert 转换失败，"
        "或者该区域无效时，ROCr 返回它（hsa_ext_amd.cpp）。",
    "A GPU agent accessed memory beyond the largest legal address.": "一个 GPU agent 访问了超出最大合法地址的内存。",
    "A kernel used a garbage pointer: foreign (another process's address), freed, or computed past the "
    "end of an allocation. {hint} This error is sticky: the context is broken, so every later call fails "
    "too; fix the cause and restart the process (or the notebook kernel).":
        "一个 kernel 用了一个垃圾指针：外来的（另一个进程的地址）、已释放的，或者算到了分配末尾之外。{hint} "
        "这是一个粘性错误（sticky error）：上下文已经损坏，之后的每个调用也都会失败；先修好原因，再重启进程（或 notebook 的内核）。",
    "A GPU agent touched an address it can't access. ROCm prints 'Memory access fault by GPU node-N ... "
    "Reason:' and the reason: page not present, a write to a read-only page, host access only, ...":
        "一个 GPU agent 访问了它无权访问的地址。ROCm 会打印 'Memory access fault by GPU node-N ... Reason:' "
        "和原因：页不存在、写了只读页、仅限主机访问……",
    "The AMD form of an illegal address: an index past the end, freed or foreign memory. With XNACK off "
    "it is also what a kernel touching malloc'd (system) memory gets: register that memory with "
    "hipHostRegister, run with HSA_XNACK=1 (set before the first HIP call, on a GPU that supports it; "
    "umkit.doctor() shows both), or use hipMalloc + hipMemcpy. hipMallocManaged memory does not fault "
    "this way: with XNACK off it is mapped for the GPU when it is allocated (§2.2, §5.1). This error is "
    "sticky: the context is broken, so every later call fails too; fix the cause and restart the process "
    "(or the notebook kernel).":
        "非法地址在 AMD 上的形式：索引越界、已释放或外来的内存。XNACK 关闭时，kernel 访问 malloc 出来的（系统）内存也会"
        "报这个错：用 hipHostRegister 注册那块内存，以 HSA_XNACK=1 运行（在第一个 HIP 调用之前设置，并且 GPU 要支持；"
        "umkit.doctor() 会显示两者），或者改用 hipMalloc + hipMemcpy。hipMallocManaged 的内存不会这样缺页："
        "XNACK 关闭时，它在分配时就为 GPU 映射好了（§2.2、§5.1）。这是一个粘性错误（sticky error）：上下文已经损坏，之后的每个调用"
        "也都会失败；先修好原因，再重启进程（或 notebook 的内核）。",
    # the rest of the table (umkit.errors.table.ERRORS): every row's meaning, note and what to do;
    # texts several rows share (_HINT_KMD, _HINT_PEER, _HINT_CAPTURE, the sticky and locate
    # sentences) are entries of their own, joined by {hint} templates
    "The article's §4.1: HSA errors at start-up usually mean the kernel driver (KMD: amdgpu / ROCk) "
    "isn't loaded or /dev/kfd isn't accessible. Run umkit.doctor(), then `rocminfo` (a gfx… GPU agent "
    "must be listed), `lsmod | grep amdgpu`, `ls -l /dev/kfd /dev/dri`; add your user to the render and "
    "video groups; in a container pass --device=/dev/kfd --device=/dev/dri.":
        "专栏 §4.1：启动时出现 HSA 错误，通常意味着内核驱动（KMD：amdgpu / ROCk）没有加载，或者 /dev/kfd 无法访问。"
        "先运行 umkit.doctor()，再运行 `rocminfo`（必须列出一个 gfx… GPU agent）、`lsmod | grep amdgpu`、"
        "`ls -l /dev/kfd /dev/dri`；把你的用户加入 render 和 video 组；在容器里要传 --device=/dev/kfd --device=/dev/dri。",
    "The article's §6.2: migrating one managed pointer between GPUs is a double-edged sword. Check the "
    "topology (nvidia-smi topo -m / rocm-smi --showtopo), enable peer access once per device pair, and "
    "keep managed memory for start-up broadcast and rare checkpoints, not the hot loop.":
        "专栏 §6.2：让一个托管指针在多块 GPU 之间迁移是一把双刃剑。先查看拓扑（nvidia-smi topo -m / rocm-smi --showtopo），"
        "每对设备只启用一次 peer access（P2P），托管内存只用于启动时的广播和偶尔的 checkpoint，不要放进热循环。",
    "A stream that is being captured into a graph can't synchronize, allocate, or prefetch managed "
    "memory in a way the graph can't record. Do allocations and prefetches before BeginCapture, "
    "synchronize only after EndCapture, and keep other streams out of the capture (or use the relaxed "
    "capture mode).":
        "正在被捕获成图（graph）的流，不能做图无法记录的同步、分配或托管内存预取。把分配和预取放在 BeginCapture 之前，"
        "只在 EndCapture 之后同步，并让其他流不参与这次捕获（或者使用宽松（relaxed）捕获模式）。",
    "{hint} This error is sticky: the context is broken, so every later call fails too; fix the cause "
    "and restart the process (or the notebook kernel).":
        "{hint}这是一个粘性错误（sticky error）：上下文已经损坏，之后的每个调用也都会失败；先修好原因，再重启进程（或 notebook 的内核）。",
    "{hint} This error is sticky: the context is broken, so every later call fails too; fix the cause "
    "and restart the process (or the notebook kernel). To find the kernel: rerun with "
    "CUDA_LAUNCH_BLOCKING=1 (NVIDIA) or AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=3 (AMD), or run "
    "compute-sanitizer; the cheapest check is the article's §5.2: hipGetLastError + hipDeviceSynchronize "
    "with a timestamp around each step.":
        "{hint}这是一个粘性错误（sticky error）：上下文已经损坏，之后的每个调用也都会失败；先修好原因，再重启进程（或 notebook 的内核）。"
        "要找出是哪个 kernel：设置 CUDA_LAUNCH_BLOCKING=1（NVIDIA）或 AMD_SERIALIZE_KERNEL=3 AMD_LOG_LEVEL=3（AMD）重新运行，"
        "或者运行 compute-sanitizer；最省事的检查是专栏 §5.2 的做法：在每一步前后加 hipGetLastError + hipDeviceSynchronize，并打上时间戳。",
    "{hint} Without peer access, data goes through host memory.": "{hint}没有 peer access 时，数据要经过主机内存中转。",
    "One or more arguments are out of range (a NULL pointer, a zero or too-large size, an unknown flag "
    "or advice value).":
        "有一个或多个参数超出了范围（NULL 指针、大小为零或过大、未知的标志或建议值）。",
    "Check sizes and pointers: the range must lie inside one allocation; prefetch/advise need managed "
    "memory and a valid device id (the CPU is hipCpuDeviceId / cudaCpuDeviceId, -1) (§3.2). umkit checks "
    "these before calling and raises InvalidArgument or NotManaged with the argument's name.":
        "检查大小和指针：范围必须落在同一次分配之内；prefetch/advise 需要托管内存和一个有效的设备 ID（CPU 是 hipCpuDeviceId / cudaCpuDeviceId，"
        "即 -1）（§3.2）。umkit 在调用之前会检查这些，并抛出 InvalidArgument 或 NotManaged，指明是哪个参数。",
    "The driver and runtime could not be initialized.": "驱动和运行时无法初始化。",
    "The driver isn't usable from this process. {hint} On NVIDIA run nvidia-smi; in a container use "
    "--gpus all. umkit falls back to the sim backend and umkit.doctor() says why.":
        "这个进程用不了驱动。{hint}在 NVIDIA 上运行 nvidia-smi；在容器里要加 --gpus all。umkit 会退回 sim 后端，"
        "umkit.doctor() 会说明原因。",
    "hipErrorInitializationError is HIP's deprecated alias of hipErrorNotInitialized.":
        "hipErrorInitializationError 是 HIP 中 hipErrorNotInitialized 已弃用的别名。",
    "The call came while the runtime was shutting down (after the driver was unloaded).":
        "这个调用发生在运行时正在关闭的时候（驱动已经卸载之后）。",
    "Usually a destructor freeing GPU memory at interpreter exit. Free memory explicitly (or with a "
    "`with` block) before the program ends; at exit itself it is harmless.":
        "通常是解释器退出时某个析构函数在释放 GPU 内存。在程序结束之前显式释放内存（或者用 `with` 代码块）；"
        "如果发生在退出的那一刻，它本身是无害的。",
    "The kernel launch asked for a grid/block shape or shared memory the device can't give.":
        "kernel 启动所要求的 grid/block 形状或共享内存超出了设备能提供的范围。",
    "Keep the block at most 1024 threads (256 is the article's choice) and the grid at (n + threads - 1) "
    "// threads blocks (§4.2).":
        "每个 block 最多 1024 个线程（专栏用的是 256），grid 取 (n + threads - 1) // threads 个 block（§4.2）。",
    "A pointer is not a valid device (or managed) pointer for this runtime.": "这个指针对当前运行时来说不是有效的设备（或托管）指针。",
    "The pointer was freed already, came from another process or another runtime, or is a plain host "
    "pointer where device memory was expected. {hint}":
        "这个指针已经被释放了、来自另一个进程或另一个运行时，或者是在需要设备内存的地方传入了一个普通的主机指针。{hint}",
    "The copy direction (HostToDevice, DeviceToHost, ...) doesn't match the pointers.":
        "拷贝方向（HostToDevice、DeviceToHost……）与指针不符。",
    "With managed memory one pointer lives on both sides, so pass the Default kind (hipMemcpyDefault / "
    "cudaMemcpyDefault) and let the runtime infer the direction; umkit's memcpy always does (§3.1).":
        "托管内存的一个指针两端通用，所以传 Default 类型（hipMemcpyDefault / cudaMemcpyDefault），让运行时推断方向；"
        "umkit 的 memcpy 总是这样做（§3.1）。",
    "The CUDA driver library loaded is a stub (libcuda.so from the toolkit), not a real driver.":
        "加载的 CUDA 驱动库是一个桩库（stub，CUDA Toolkit 自带的 libcuda.so），而不是真正的驱动。",
    "No NVIDIA driver is installed on this machine, or the stub shadows it on LD_LIBRARY_PATH; run "
    "nvidia-smi and umkit.doctor().":
        "这台机器上没有安装 NVIDIA 驱动，或者 LD_LIBRARY_PATH 里的桩库遮住了真正的驱动；运行 nvidia-smi 和 umkit.doctor()。",
    "HIP has no such code; a missing AMD driver shows up as hipErrorNoDevice or an HSA error.":
        "HIP 没有这个错误码；缺少 AMD 驱动时表现为 hipErrorNoDevice 或某个 HSA 错误。",
    "The installed driver is older than the runtime this program uses.": "已安装的驱动比这个程序使用的运行时旧。",
    "Upgrade the driver, or install runtime packages that match it: the CUDA version in nvidia-smi's "
    "header must be at least cuda-bindings'/CuPy's CUDA major; on AMD the ROCm user space, the installed "
    "one and the copy inside a PyTorch ROCm wheel alike, must be one the amdgpu kernel driver supports: AMD "
    "supports them up to two releases apart (§4.1). umkit.doctor() prints both sides.":
        "升级驱动，或者安装与它匹配的运行时软件包：nvidia-smi 表头里的 CUDA 版本不能低于 cuda-bindings / CuPy 所用的 CUDA 主版本；"
        "在 AMD 上，ROCm 用户态软件——无论是已安装的那套，还是 PyTorch ROCm wheel 里自带的那份——都必须是 amdgpu 内核驱动支持的版本：AMD 支持两者相差最多两个版本（§4.1）。"
        "umkit.doctor() 会把两边都打印出来。",
    "All devices are busy or unavailable right now.": "所有设备此刻都忙或不可用。",
    "The GPU is in an exclusive compute mode and another process holds it (nvidia-smi shows the compute "
    "mode and the processes); wait for it, or ask for a different GPU with CUDA_VISIBLE_DEVICES.":
        "GPU 处于独占计算模式，并且被另一个进程占着（nvidia-smi 会显示计算模式和进程）；等它释放，或者用 CUDA_VISIBLE_DEVICES 换一块 GPU。",
    "HIP has no such code; an AMD GPU that can't be opened shows up as hipErrorNoDevice or an HSA error.":
        "HIP 没有这个错误码；打不开的 AMD GPU 表现为 hipErrorNoDevice 或某个 HSA 错误。",
    "No GPU is visible to this process.": "这个进程看不到任何 GPU。",
    "Check that CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES aren't empty or -1, "
    "that nvidia-smi or rocminfo lists the GPU, and that a container was given the devices (--gpus all, "
    "or --device=/dev/kfd --device=/dev/dri) (§4.1). umkit then uses the sim backend; umkit.doctor() says why.":
        "检查 CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES 既不是空的也不是 -1，nvidia-smi 或 rocminfo 列出了这块 GPU，"
        "并且容器拿到了设备（--gpus all，或 --device=/dev/kfd --device=/dev/dri）（§4.1）。此时 umkit 会改用 sim 后端；"
        "umkit.doctor() 会说明原因。",
    "The device number doesn't name a visible GPU.": "这个设备编号对应不到任何可见的 GPU。",
    "Device ids run from 0 to device_count - 1 after *_VISIBLE_DEVICES renumbering. To prefetch to the "
    "host, pass the CPU location (hipCpuDeviceId / cudaCpuDeviceId), not a GPU number (§3.2).":
        "经过 *_VISIBLE_DEVICES 重新编号之后，设备 ID 从 0 到 device_count - 1。要预取到主机，传 CPU 的位置（hipCpuDeviceId / cudaCpuDeviceId），"
        "而不是某个 GPU 编号（§3.2）。",
    "No valid context is current on this thread (or it belongs to another device).":
        "这个线程上当前没有有效的上下文（或者它属于另一个设备）。",
    "Often a process that forked after the GPU was initialized: start worker processes with the 'spawn' "
    "method and initialize the GPU inside each one.":
        "常见原因是进程在 GPU 初始化之后 fork 了：用 'spawn' 方式启动工作进程，并在每个进程里各自初始化 GPU。",
    "Mapping a buffer failed (HIP's header documents it for hipIpcGetMemHandle and hipIpcCloseMemHandle).":
        "映射缓冲区失败（HIP 的头文件把它记在 hipIpcGetMemHandle 和 hipIpcCloseMemHandle 名下）。",
    "{hint} Open an IPC handle once per process, on the same node. ROCm's runtime returns other codes in "
    "practice: a failed attach (hipIpcOpenMemHandle) gives hipErrorInvalidDevicePointer, and a failed "
    "hipIpcGetMemHandle hipErrorInvalidValue -- which is what we expect for managed memory, whose SVM "
    "ranges ROCR's IPC export does not know (inferred from the source, not run).":
        "{hint}每个进程只打开一次 IPC 句柄，而且要在同一个节点上。ROCm 的运行时实际返回的是别的错误码：附加失败（hipIpcOpenMemHandle）返回 hipErrorInvalidDevicePointer，"
        "hipIpcGetMemHandle 失败返回 hipErrorInvalidValue——对托管内存我们预计会是后者，因为 ROCR 的 IPC 导出不认识托管内存的 SVM 范围（这是从源码推断的，没有实际运行过）。",
    "hipErrorMapBufferObjectFailed is HIP's deprecated alias of hipErrorMapFailed.":
        "hipErrorMapBufferObjectFailed 是 HIP 中 hipErrorMapFailed 已弃用的别名。",
    "The program has no kernel code built for this GPU's architecture.": "程序里没有为这块 GPU 的架构编译的 kernel 代码。",
    "Rebuild for this GPU (--offload-arch=gfx… on AMD, -arch=sm_… on NVIDIA); `rocminfo | grep -i gfx` "
    "shows the target. On AMD a binary built only for gfx90a (MI200) won't load on gfx942 (MI300), and "
    "the xnack± feature is part of the target: a binary built for xnack- won't load with HSA_XNACK=1 and "
    "the other way round (no suffix loads in both).":
        "为这块 GPU 重新编译（AMD 上用 --offload-arch=gfx…，NVIDIA 上用 -arch=sm_…）；`rocminfo | grep -i gfx` 会显示目标架构。"
        "在 AMD 上，只为 gfx90a（MI200）编译的二进制在 gfx942（MI300）上加载不了；而且 xnack± 特性是目标的一部分："
        "为 xnack- 编译的二进制在 HSA_XNACK=1 时加载不了，反过来也一样（不带后缀的在两种情况下都能加载）。",
    "The GPU memory reported an uncorrectable ECC error.": "GPU 显存报告了一个不可纠正的 ECC 错误。",
    "A hardware fault, not your code: note the GPU (nvidia-smi -q -d ECC / rocm-smi --showrasinfo), "
    "reset or drain it, and move the job elsewhere.":
        "这是硬件故障，不是你的代码的问题：记下是哪块 GPU（nvidia-smi -q -d ECC / rocm-smi --showrasinfo），"
        "重置它或让它停止接收任务（drain），把作业挪到别处。",
    "These two GPUs can't access each other's memory directly.": "这两块 GPU 不能直接访问对方的显存。",
    "A stream, event or other handle is invalid (destroyed, or from another device).":
        "某个流、事件或其他句柄无效（已被销毁，或者来自另一个设备）。",
    "Don't use a stream or event after destroying it, and create it on the device you use it with.":
        "流或事件销毁之后就不要再用；在哪个设备上用，就在哪个设备上创建它。",
    "hipErrorInvalidResourceHandle is HIP's deprecated alias of hipErrorInvalidHandle.":
        "hipErrorInvalidResourceHandle 是 HIP 中 hipErrorInvalidHandle 已弃用的别名。",
    "Not an error: work queued earlier hasn't finished yet (event or stream query).":
        "不是错误：之前排队的工作还没有完成（事件或流的查询结果）。",
    "Synchronize on the stream or event before reading results or timings (§3.3): the GPU runs "
    "asynchronously, and the CPU must wait before it touches the data.":
        "在读取结果或计时之前，先在流或事件上同步（§3.3）：GPU 是异步运行的，CPU 必须等它完成才能访问数据。",
    "A kernel read or wrote memory at an address it doesn't own.": "kernel 读写了一个不属于它的地址。",
    "A kernel touched memory it doesn't own: an index past the end (guard with `if (idx < n)`, §4.2), a "
    "pointer from another process, or freed managed memory (use after free; umkit raises UseAfterFree "
    "before the kernel on every backend, and sim shows which pages).":
        "kernel 访问了不属于它的内存：索引越界（用 `if (idx < n)` 做保护，§4.2）、来自另一个进程的指针，或者已释放的托管内存（释放后使用；"
        "umkit 在每个后端上都会在 kernel 运行之前抛出 UseAfterFree，sim 还会指出是哪些页）。",
    "On AMD a GPU page fault usually does not come back as this code: ROCm prints 'Memory access fault "
    "by GPU node-N' and aborts the process (umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT')).":
        "在 AMD 上，非法访问引起的 GPU 缺页通常不会以这个错误码返回：ROCm 会打印 'Memory access fault by GPU node-N' 并中止进程（见 umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT')）。",
    "The kernel launch needs more registers, shared memory or threads than the device has.":
        "这次 kernel 启动需要的寄存器、共享内存或线程数超出了设备所能提供的。",
    "Use a smaller block (256 threads) or fewer registers per thread.": "用更小的 block（256 个线程），或者减少每个线程用的寄存器。",
    "A kernel ran longer than the watchdog allows.": "一个 kernel 的运行时间超过了看门狗（watchdog）允许的上限。",
    "On a GPU that also drives a display the watchdog kills long kernels. A kernel that page-faults "
    "through a large managed array can be slowed far past that: prefetch the data before launching "
    "(§3.2), or split the work.":
        "在同时驱动显示器的 GPU 上，看门狗会杀掉运行时间过长的 kernel。一个靠缺页一路走完一个大托管数组的 kernel，"
        "可能被拖慢到远远超过这个上限：在启动之前先预取数据（§3.2），或者把工作拆开。",
    "Peer access from this device was already enabled.": "这个设备的 peer access 已经启用过了。",
    "Harmless: enable peer access once per device pair and ignore this code (§6.2).":
        "无害：每对设备启用一次 peer access，忽略这个错误码即可（§6.2）。",
    "Peer access between these devices was never enabled.": "这两个设备之间从未启用过 peer access。",
    "Enable it first (hipDeviceEnablePeerAccess / cudaDeviceEnablePeerAccess). {hint}":
        "先启用它（hipDeviceEnablePeerAccess / cudaDeviceEnablePeerAccess）。{hint}",
    "The context this call needs was already destroyed (device reset).": "这个调用需要的上下文已经被销毁了（设备被重置过）。",
    "Something reset the device (hipDeviceReset / cudaDeviceReset) while memory or streams were still in "
    "use; reset only at the very end.":
        "有代码在内存或流还在使用时重置了设备（hipDeviceReset / cudaDeviceReset）；只在最后才重置设备。",
    "A device-side assert() failed inside a kernel.": "kernel 里的一个设备端 assert() 失败了。",
    "Read the assert's message printed on stderr and fix the kernel's input.":
        "读一读 stderr 上打印的 assert 信息，修正 kernel 的输入。",
    "This host memory range is already page-locked (registered).": "这段主机内存已经是锁页的（已注册）。",
    "Register each host buffer once; pinned memory from hipHostMalloc / cudaMallocHost is already "
    "page-locked (§4.4).":
        "每块主机缓冲区只注册一次；hipHostMalloc / cudaMallocHost 分配的固定内存本来就是锁页的（§4.4）。",
    "This host memory range was never page-locked (registered).": "这段主机内存从未被锁页（注册）过。",
    "Only unregister what you registered; free pinned memory with its own free call (hipHostFree / "
    "cudaFreeHost) (§4.4).":
        "只注销你注册过的内存；固定内存要用它自己的释放调用来释放（hipHostFree / cudaFreeHost）（§4.4）。",
    "The GPU hit an illegal instruction while running a kernel.": "GPU 在运行 kernel 时遇到了一条非法指令。",
    "Usually code built for a different GPU architecture or a corrupted binary: rebuild for this GPU.":
        "通常是为另一种 GPU 架构编译的代码，或者二进制文件已损坏：为这块 GPU 重新编译。",
    "HIP has no such code: ROCm reports HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION (42) and the HIP call fails "
    "with hipErrorLaunchFailure (719) or the process aborts.":
        "HIP 没有这个错误码：ROCm 报告 HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION（42），HIP 调用以 hipErrorLaunchFailure（719）失败，或者进程直接中止。",
    "An exception occurred on the device while a kernel was running.": "kernel 运行期间，设备上发生了异常。",
    "Most often a bad memory access, as with illegal address: an index past the end, a freed or foreign "
    "pointer. On AMD look for 'Memory access fault by GPU node' on stderr (see "
    "umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT')).":
        "最常见的是一次错误的内存访问，和非法地址一样：索引越界、已释放或外来的指针。在 AMD 上，到 stderr 里找 'Memory access fault by GPU node'（见 umkit.explain('HSA_STATUS_ERROR_MEMORY_FAULT')）。",
    "The operation is not supported on this system or device.": "这个系统或设备不支持这项操作。",
    "For memory work on NVIDIA: prefetch or advice on a device without concurrent managed access "
    "(Windows, pre-Pascal GPUs). On AMD: hipMemPrefetchAsync of memory HIP did not allocate (malloc'd) "
    "on a GPU without XNACK; prefetch and advice on hipMallocManaged memory work with XNACK off, and a "
    "failed hipMemAdvise returns hipErrorInvalidValue. Some advice (coarse_grain) exists on AMD only. "
    "umkit.doctor() lists the device's capabilities; the sim backend shows what would happen (§3.2, "
    "§4.4, §5.3).":
        "就内存操作而言，在 NVIDIA 上：在不支持并发托管访问的设备上（Windows、Pascal 之前的 GPU）做预取或建议。"
        "在 AMD 上：在没有 XNACK 的 GPU 上，对不是 HIP 分配的内存（malloc 出来的）调用 hipMemPrefetchAsync；"
        "对 hipMallocManaged 内存做预取和建议，在 XNACK 关闭时也能用，而 hipMemAdvise 失败时返回的是 hipErrorInvalidValue。"
        "有些建议（coarse_grain）只有 AMD 才有。umkit.doctor() 会列出设备的能力；sim 后端会演示会发生什么（§3.2、§4.4、§5.3）。",
    "The driver's user-space library and kernel module have different versions.": "驱动的用户态库和内核模块版本不一致。",
    "Typically after a driver upgrade without a reboot: reboot, or reload the nvidia kernel module; "
    "nvidia-smi then works again.":
        "通常发生在升级驱动之后没有重启：重启机器，或者重新加载 nvidia 内核模块；之后 nvidia-smi 就又能用了。",
    "HIP has no such code; on AMD a mismatched ROCm and amdgpu driver shows up as HSA errors at start-up (§4.1).":
        "HIP 没有这个错误码；在 AMD 上，ROCm 与 amdgpu 驱动不匹配时，表现为启动时的 HSA 错误（§4.1）。",
    "This operation is not permitted while the stream is being captured.": "流正在被捕获时，不允许这项操作。",
    "The capture on this stream was invalidated by an earlier error.": "这个流上的捕获已被之前的一个错误作废。",
    "Find the first failing call inside the capture (it returned its own error), fix it, and capture "
    "again. {hint}":
        "找到捕获过程中第一个失败的调用（它返回了自己的错误），修好它，再重新捕获。{hint}",
    "The operation would merge two independent capture sequences.": "这项操作会把两个相互独立的捕获序列合并在一起。",
    "The capture was not started on this stream.": "捕获不是在这个流上开始的。",
    "End the capture on the stream that began it. {hint}": "在开始捕获的那个流上结束捕获。{hint}",
    "The captured work forked onto another stream that was never joined back.": "被捕获的工作分叉到了另一个流上，却始终没有汇合回来。",
    "Record an event on the forked stream and make the origin stream wait on it before EndCapture. {hint}":
        "在分叉出去的流上记录一个事件，并在 EndCapture 之前让原来的流等待它。{hint}",
    "A dependency would cross the boundary of the capture.": "有一个依赖关系会越过捕获的边界。",
    "The operation would add an implicit dependency on the legacy default stream while capturing.":
        "这项操作会在捕获期间引入对旧式默认流（legacy default stream）的隐式依赖。",
    "Capture on a stream created non-blocking, and don't use the legacy default stream (stream 0) during "
    "the capture. {hint}":
        "在以非阻塞方式创建的流上捕获，捕获期间不要使用旧式默认流（流 0）。{hint}",
    "The operation is not allowed on an event last recorded in a capturing stream.":
        "对一个最后在正被捕获的流里记录的事件，不允许做这项操作。",
    "Query or synchronize on that event only after EndCapture. {hint}": "只在 EndCapture 之后再查询或同步那个事件。{hint}",
    "The capture was ended from a different thread than the one that started it.": "结束捕获的线程不是开始捕获的那个线程。",
    "End the capture on the thread that began it, or begin it in the relaxed mode.":
        "在开始捕获的那个线程上结束捕获，或者以宽松模式开始捕获。",
    "The runtime hit an error it has no code for.": "运行时遇到了一个没有对应错误码的错误。",
    "Run umkit.doctor(), check the kernel log (`dmesg | grep -i -e amdgpu -e xid`) for driver faults, "
    "and narrow it down with the article's §5.2: hipGetLastError + hipDeviceSynchronize with a timestamp "
    "around each step.":
        "运行 umkit.doctor()，查看内核日志（`dmesg | grep -i -e amdgpu -e xid`）里有没有驱动故障，再用专栏 §5.2 的办法缩小范围："
        "在每一步前后加 hipGetLastError + hipDeviceSynchronize，并打上时间戳。",
    "A non-memory call in the HSA runtime underneath HIP failed.": "HIP 底下的 HSA 运行时中一个与内存无关的调用失败了。",
    "Look for the HSA_STATUS_… message on stderr and explain that name. {hint}":
        "在 stderr 上找 HSA_STATUS_… 信息，再 explain 那个名字。{hint}",
    "A generic failure in ROCm's HSA runtime, most often while starting up.": "ROCm 的 HSA 运行时中的一个通用故障，最常出现在启动时。",
    "{hint} If the ROCm user space (the installed one, or the copy inside a PyTorch ROCm wheel) is more "
    "than two releases away from the kernel driver, align them.":
        "{hint}如果 ROCm 用户态软件（已安装的那套，或 PyTorch ROCm wheel 里自带的那份）与内核驱动相差超过两个版本，就把它们对齐。",
    "The HSA runtime found the device or resource busy.": "HSA 运行时发现设备或资源正忙。",
    "Another process or queue holds it: see who with rocm-smi --showpids, wait for it, or pick another "
    "GPU with HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES.":
        "另一个进程或队列占着它：用 rocm-smi --showpids 看看是谁，等它释放，或者用 HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES 换一块 GPU。",
    "umkit caught a use of freed memory before the GPU did; on real hardware this is an illegal address "
    "or a memory fault.":
        "umkit 抢在 GPU 之前发现了一次释放后使用；在真实硬件上，这会是一个非法地址错误或一次内存访问故障。",
    "Prefetch and advice only apply to managed memory (§3.2, §4.4); device memory lives on the GPU and "
    "pinned memory on the host, so there is nothing to migrate. Allocate with kind='managed', or copy explicitly.":
        "预取和建议只对托管内存有效（§3.2、§4.4）；设备内存待在 GPU 上，固定内存待在主机上，没有什么可迁移的。"
        "用 kind='managed' 分配，或者显式拷贝。",
    "Run umkit.doctor() to see each backend's reason; the sim backend always works (§4.1).":
        "运行 umkit.doctor() 查看每个后端的原因；sim 后端总能运行（§4.1）。",
    "Code {code}: {title}": "错误码 {code}：{title}",
    "(not a {runtimes} code)": "（不是 {runtimes} 错误码）",
    "Code {code} means different things on different runtimes:": "错误码 {code} 在不同运行时上含义不同：",
    "As a {label} code: {name}": "作为 {label} 错误码：{name}",
    "As an {label} code: {name}": "作为 {label} 错误码：{name}",
    "({missing}: no such code)": "（{missing}：没有这个错误码）",
    "umkit.explain() has no entry for {what}.": "umkit.explain() 里没有 {what} 的条目。",
    "umkit.explain() has no entry for code {code}.": "umkit.explain() 里没有错误码 {code} 的条目。",
    "umkit.explain() has no entry for this {type}.": "umkit.explain() 里没有这个 {type} 的条目。",
    "umkit.explain() has no entry for an int of about {n} digits.":
        "umkit.explain() 里没有一个大约 {n} 位的整数的条目。",
    "Call it with one of:": "调用时传入以下任意一种：",
    "an exception you caught   try: ... except Exception as e: umkit.explain(e)":
        "捕获到的异常              try: ... except Exception as e: umkit.explain(e)",
    "an error code             umkit.explain(2)   (shows the HIP and the CUDA meaning)":
        "错误码                    umkit.explain(2)   （显示它在 HIP 和 CUDA 上各自的含义）",
    "an error name             umkit.explain('hipErrorOutOfMemory'), 'cudaErrorIllegalAddress',":
        "错误名                    umkit.explain('hipErrorOutOfMemory')、'cudaErrorIllegalAddress'、",
    "'HSA_STATUS_ERROR_INVALID_MEMORY' (any case)": "'HSA_STATUS_ERROR_INVALID_MEMORY'（大小写均可）",
    "a symptom                 umkit.explain('wrong result'), 'slow', 'erratic', 'thrash'":
        "症状                      umkit.explain('wrong result')、'slow'、'erratic'、'thrash'",
    "The table: umkit.errors.table.ERRORS ({n} errors) and umkit.errors.table.SYMPTOMS ({m} symptoms).":
        "这张表：umkit.errors.table.ERRORS（{n} 个错误）和 umkit.errors.table.SYMPTOMS（{m} 个症状）。",
    "(an error code fits in 64 bits)": "（错误码最多 64 位）",
    "For other codes see hip_runtime_api.h (hipError_t) or driver_types.h (cudaError_t).":
        "其他错误码请查 hip_runtime_api.h（hipError_t）或 driver_types.h（cudaError_t）。",
    "(an error code has at most {n} characters)": "（错误码最多有 {n} 个字符）",
    "Did you mean: {names}?": "你是不是想找：{names}？",
    # -- umkit.doctor(): the environment check of §4.1 (umkit.diagnostics.doctor) ---------------------
    # the backends' probe lines (umkit.backends.registry.probe) and the reason sim was chosen
    "{n}  no      {reason}": "{n}  不可用  {reason}",
    "{n}  usable  {reason}": "{n}  可用    {reason}",
    "no GPU backend usable ({why}): using the CPU model": "没有可用的 GPU 后端（{why}）：改用 CPU 模型",
    # umkit.why(): the backend a caller named (umkit.use(name) or $UMKIT_BACKEND) and its probe
    "requested: {reason}": "按 umkit.use 的指定：{reason}",
    "UMKIT_BACKEND: {reason}": "按 UMKIT_BACKEND 的指定：{reason}",
    "cuda: {reason}": "cuda：{reason}",
    "hip: {reason}": "hip：{reason}",
    "CUDA driver missing (libcuda.so not found)": "没有 CUDA 驱动（找不到 libcuda.so）",
    "no AMD GPU driver on this machine (/dev/kfd not found)": "这台机器上没有 AMD GPU 驱动（找不到 /dev/kfd）",
    "cuda: CUDA driver missing (libcuda.so not found)": "cuda：没有 CUDA 驱动（找不到 libcuda.so）",
    "hip-python installed but could not load libamdhip64.so (ROCm not installed, or its lib folder not on the loader path)":
        "装了 hip-python，但加载不了 libamdhip64.so（没有安装 ROCm，或它的 lib 目录不在加载路径上）",
    "hip: hip-python installed but could not load libamdhip64.so (ROCm not installed, or its lib folder not on the loader path)":
        "hip：装了 hip-python，但加载不了 libamdhip64.so（没有安装 ROCm，或它的 lib 目录不在加载路径上）",
    "no CUDA device visible (cudaErrorNoDevice)": "看不到任何 CUDA 设备（cudaErrorNoDevice）",
    "no AMD GPU visible (hipErrorNoDevice)": "看不到任何 AMD GPU（hipErrorNoDevice）",
    "{count} CUDA device(s) visible": "可以看到 {count} 个 CUDA 设备",
    "{count} AMD GPU(s) visible": "可以看到 {count} 块 AMD GPU",
    "umkit doctor -- the environment check of the article's §4.1": "umkit doctor——专栏 §4.1 的环境检查",
    "Backend: {backend}": "后端：{backend}",
    "why: {reason}": "原因：{reason}",
    "what to do: {fix}": "怎么办：{fix}",
    "Backend: {req} CANNOT RUN": "后端：{req} 无法运行",
    "Backends probed:": "探测过的后端：",
    "Device {i}: {title}": "设备 {i}：{title}",
    "active in this session: {name}": "本会话当前使用：{name}",
    "umkit: using the sim backend ({reason}); set UMKIT_BACKEND or call umkit.use('cuda'|'hip') to change":
        "umkit：正在使用 sim 后端（{reason}）；要更换，请设置 UMKIT_BACKEND 或调用 umkit.use('cuda'|'hip')",
    "umkit: no usable GPU here, so umkit runs on the sim backend (a CPU model of a GPU); umkit.why() "
    "says what is missing, umkit.use('cuda'|'hip') switches":
        "umkit：这里没有可用的 GPU，所以 umkit 运行在 sim 后端上（一个 GPU 的 CPU 模型）；umkit.why() "
        "会说明缺了什么，umkit.use('cuda'|'hip') 可以切换后端",
    "  (the MODELLED card: sim uses no GPU of this machine)": "  （被模拟的卡：sim 不使用这台机器上的任何 GPU）",
    "  memory: {free} free of {total} (modelled)": "  显存：{total} 中空闲 {free}（模拟值）",
    "  memory: {free} free of {total}": "  显存：{total} 中空闲 {free}",
    "capabilities: {caps}": "能力：{caps}",
    "Versions: {v}": "版本：{v}",
    "Packages: {p}": "软件包：{p}",
    "Environment: {env}": "环境变量：{env}",
    "Checklist:": "检查清单：",
    "-> {fix}": "→ {fix}",
    "Result: usable ({backend}); {n_fail} failed, {n_warn} warnings. Errors later? umkit.explain(err)":
        "结论：可以使用（{backend}）；{n_fail} 项失败，{n_warn} 项警告。之后遇到错误？用 umkit.explain(err)",
    "Result: the requested backend can't run (exit code 1). {n_fail} failed, {n_warn} warnings.":
        "结论：所要求的后端无法运行（退出码 1）。{n_fail} 项失败，{n_warn} 项警告。",
    "UMKIT_BACKEND: the CPU model always runs": "UMKIT_BACKEND：CPU 模型总能运行",
    "the CPU model always runs": "CPU 模型总能运行",
    "umkit backend: {b}": "umkit 后端：{b}",
    "requested backend: {b}": "所要求的后端：{b}",
    "device {i}: managed memory": "设备 {i}：托管内存",
    "the device has no managed memory": "这个设备没有托管内存",
    "hipMallocManaged / cudaMallocManaged won't work here: use device memory with explicit copies, or "
    "the sim backend to learn":
        "hipMallocManaged / cudaMallocManaged 在这里不能用：改用设备内存加显式拷贝，或者用 sim 后端来学习",
    "device {i}: managed memory through the kernel driver (SVM/HMM)": "设备 {i}：经由内核驱动的托管内存（SVM/HMM）",
    "no: hipMallocManaged gives pinned host memory that the GPU reads over the link; nothing migrates":
        "否：hipMallocManaged 得到的是 GPU 经链路读取的固定主机内存；什么都不迁移",
    "a kernel with amdgpu's HMM support (a recent ROCm) is needed for managed memory to move "
    "(umkit.explain('slow'))":
        "要让托管内存能够迁移，需要一个带 amdgpu HMM 支持的内核（较新的 ROCm）（umkit.explain('slow')）",
    "yes (this says nothing about XNACK: see the XNACK check)": "是（这一项与 XNACK 无关：见 XNACK 那一项检查）",
    "device {i}: concurrent managed access (pages migrate on demand)": "设备 {i}：并发托管访问（页面按需迁移）",
    "no: CPU and GPU must not touch managed memory at the same time, and pages don't migrate on GPU faults":
        "否：CPU 和 GPU 不能同时访问托管内存，GPU 缺页时页面也不会迁移",
    "synchronize before every CPU access; expect managed memory to be slow (umkit.explain('slow'))":
        "每次 CPU 访问之前都要同步；托管内存会很慢（umkit.explain('slow')）",
    "device {i}: GPU access to ordinary (malloc) memory: HMM/ATS": "设备 {i}：GPU 访问普通（malloc）内存：HMM/ATS",
    "device {i}: CPU access to GPU-resident managed pages": "设备 {i}：CPU 访问驻留在 GPU 上的托管页",
    "in place (a CPU-coherent link or an APU)": "原地访问（CPU 一致互连，或 APU）",
    "by migration: a CPU touch moves the pages back over the CPU-GPU link":
        "通过迁移：CPU 一访问就经 CPU 与 GPU 之间的链路把页面搬回来",
    "XNACK: the GPU can fault managed pages in on demand (§2.2)": "XNACK：GPU 能按需把托管页缺页迁入（§2.2）",
    "export HSA_XNACK=1 before Python starts (ROCm reads it at the first HIP call), on a GPU whose "
    "target supports per-process xnack (CDNA2 and later: gfx90a, gfx942, ...; gfx908 stays xnack-). "
    "Without it the GPU can't take page faults: hipMallocManaged maps (and faults in) the whole range "
    "when it is allocated and pages move only when you prefetch, and a kernel that touches plain "
    "malloc'd memory faults fatally (ledger: amd.xnack0.alloc_maps, amd.malloc.xnack0_fault; §2.2, "
    "umkit.explain('slow'))":
        "在 Python 启动之前 export HSA_XNACK=1（ROCm 在第一个 HIP 调用时读取"
        "它），而且 GPU 的目标要支持按进程打开 xnack（CDNA2 及之后：gfx90a、gfx942 "
        "等；gfx908 始终是 xnack-）。没有它，GPU 就不能处理缺页：hipMallocManage"
        "d 在分配时就把整个范围映射好（并通过缺页填充好），页面只在你预取时才移动；而访问普通 malloc 内"
        "存的 kernel 会因缺页而致命地失败（ledger: amd.xnack0.alloc_maps, "
        "amd.malloc.xnack0_fault；§2.2，umkit.explain('slow')）",
    "why the sim backend": "为什么是 sim 后端",
    "the GPU backends": "GPU 后端",
    "usable": "可用",
    "umkit chose sim because {reason}": "umkit 选择 sim，是因为 {reason}",
    "switch with UMKIT_BACKEND=cuda (or hip, sim) before starting Python, or umkit.use('cuda') in a "
    "notebook; umkit.doctor('cuda') says why a backend can't run":
        "在启动 Python 之前用 UMKIT_BACKEND=cuda（或 hip、sim）切换，或者在 notebook 里用 umkit.use('cuda')；"
        "umkit.doctor('cuda') 会说明某个后端为什么无法运行",
    "GPU drivers": "GPU 驱动",
    "no AMD (/dev/kfd, ROCm tools) or NVIDIA (/dev/nvidiactl, nvidia-smi) GPU found on this machine; the "
    "sim backend teaches everything with model time":
        "这台机器上没有找到 AMD（/dev/kfd、ROCm 工具）或 NVIDIA（/dev/nvidiactl、nvidia-smi）GPU；"
        "sim 后端用模型时间来讲授一切",
    "rocm-smi: GPU status and driver (§4.1)": "rocm-smi：GPU 状态和驱动（§4.1）",
    "hipconfig --full: the HIP configuration (§4.1)": "hipconfig --full：HIP 的配置（§4.1）",
    "rocminfo: a GPU agent (gfx…) is listed (§4.1)": "rocminfo：是否列出了 GPU agent（gfx…，§4.1）",
    "rocminfo ran but lists no gfx GPU agent (CPU agents only)": "rocminfo 运行了，但没有列出 gfx GPU agent（只有 CPU agent）",
    "the GPU isn't visible to ROCm: check HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES and that this GPU is "
    "supported by your ROCm release":
        "ROCm 看不到这块 GPU：检查 HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES，以及你的 ROCm 版本是否支持这块 GPU",
    "{tool} not on PATH": "PATH 中没有 {tool}",
    "ROCm puts its tools in /opt/rocm/bin: add it to PATH": "ROCm 把它的工具放在 /opt/rocm/bin：把它加进 PATH",
    "HSA errors mean the kernel driver (KMD: amdgpu / ROCk) isn't loaded or /dev/kfd isn't accessible: "
    "check `lsmod | grep amdgpu` and `ls -l /dev/kfd /dev/dri`, add your user to the render and video "
    "groups, and in a container pass --device=/dev/kfd --device=/dev/dri (article §4.1)":
        "HSA 错误意味着内核驱动（KMD：amdgpu / ROCk）没有加载，或者 /dev/kfd 无法访问：检查 `lsmod | grep amdgpu` "
        "和 `ls -l /dev/kfd /dev/dri`，把你的用户加入 render 和 video 组，在容器里要传 "
        "--device=/dev/kfd --device=/dev/dri（专栏 §4.1）",
    "/dev/kfd (the ROCm kernel driver) is accessible": "/dev/kfd（ROCm 内核驱动）能否访问",
    "no AMD GPU on this machine (none on the PCI bus, no /dev/kfd): rocminfo lists no GPU agent, as "
    "expected": "这台机器上没有 AMD GPU（PCI 总线上没有，也没有 /dev/kfd）：rocminfo 列不出 GPU agent，这在意料之中",
    "no /dev/kfd and no AMD GPU on the PCI bus: ROCm's tools are installed, but there is no AMD GPU "
    "here to drive (needed only to run on one)":
        "没有 /dev/kfd，PCI 总线上也没有 AMD GPU：装了 ROCm 的工具，但这里没有可驱动的 AMD GPU（只有在 AMD GPU 上运行时才需要它）",
    "/dev/kfd exists but this user can't open it": "/dev/kfd 存在，但这个用户打不开它",
    "add your user to the render and video groups (sudo usermod -aG render,video $USER) and log in again":
        "把你的用户加入 render 和 video 组（sudo usermod -aG render,video $USER），然后重新登录",
    "/dev/kfd does not exist: the amdgpu KMD isn't loaded (or the container wasn't given the device)":
        "/dev/kfd 不存在：amdgpu KMD 没有加载（或者容器没有拿到这个设备）",
    "PyTorch's ROCm build and the installed ROCm (§4.1)": "PyTorch 的 ROCm 版本与已安装的 ROCm（§4.1）",
    "PyTorch not installed": "没有安装 PyTorch",
    "torch {v} is not a ROCm build": "torch {v} 不是 ROCm 版本",
    "install the ROCm wheel of PyTorch for your ROCm release (pytorch.org, 'ROCm' compute platform)":
        "为你的 ROCm 版本安装 PyTorch 的 ROCm wheel（pytorch.org，计算平台选“ROCm”）",
    "hardware counters: CUPTI unified-memory counters (umkit.counters_on())":
        "硬件计数器：CUPTI 统一内存计数器（umkit.counters_on()）",
    # -- the widgets' labels, buttons and help (umkit.teaching.widgets; umkit.runtime.lang.localize) ---
    "memory": "内存",
    "prefetch": "预取",
    "advice": "建议",
    "access pattern": "访问模式",
    "buffer (MiB)": "缓冲区（MiB）",
    "steps": "步数",
    "every k steps": "每 k 步",
    "hardware": "硬件",
    "the card the sim backend models (umkit.use('sim', profile=...))":
        "sim 后端模拟的那块卡（umkit.use('sim', profile=...)）",
    "▶ Run": "▶ 运行",
    "■ Stop": "■ 停止",
    "Reset": "重置",
    "Run": "运行",
    "run the steps with these settings": "用这些设置运行这些 step",
    "end the run after the current step": "在当前 step 之后结束运行",
    "clear the runs from the chart": "把各次运行从图上清掉",
    "Strategy panel: where should the buffers live?": "策略面板：缓冲区应该放在哪里？",
    "A training-style step reads a batch and updates parameters on the GPU, while the CPU does its "
    "part. Pick a strategy, press ":
        "一个训练式的 step 在 GPU 上读一个批次并更新参数，同时 CPU 做它那一份。选一个策略，按下 ",
    ", and compare the runs: one bar per step.": "，然后比较各次运行：每个 step 一根柱子。",
    "backend": "后端",
    "demo": "演示",
    "(choose a demo)": "（选择一个演示）",
    "Reset everything": "全部重置",
    "clear the runs, back to the default card": "清掉各次运行，回到默认的卡",
    "Projector mode": "投影模式",
    "large fonts for a room": "给整个教室看的大字体",
    "GPU touches it": "GPU 访问它",
    "prefetch to GPU": "预取到 GPU",
    "CPU reads it": "CPU 读它",
    "prefetch to CPU": "预取到 CPU",
    "Breathing (呼吸): where the pages live": "呼吸：页面住在哪里",
    "Record the memory ECG on this card": "在这块卡上录制显存心电图",
    "Memory ECG (显存心电图)": "显存心电图",
    "memory ECG": "显存心电图",
    # the strategy panel's choices (labels only: the values stay), its status line, chart and table
    "device (hipMalloc)": "设备内存（hipMalloc）",
    "managed (hipMallocManaged)": "托管内存（hipMallocManaged）",
    "pinned host, zero-copy": "固定主机内存，零拷贝",
    "mixed: hot in device + cold managed": "混合：热数据放设备内存 + 冷数据用托管内存",
    "off": "关闭",
    "to GPU before each step": "每步之前预取到 GPU",
    "to GPU, back to CPU after": "预取到 GPU，之后再回到 CPU",
    "none": "无",
    "read-mostly": "以读为主（read-mostly）",
    "preferred location GPU": "首选位置 GPU",
    "preferred CPU + accessed-by GPU": "首选位置 CPU + 访问方 GPU",
    "GPU only": "只有 GPU 访问",
    "CPU statistics every k steps": "CPU 每 k 步读一次统计量",
    "CPU edits between epochs": "CPU 在 epoch 之间修改数据",
    "AMD MI250X, XNACK on": "AMD MI250X，XNACK 开启",
    "AMD MI250X, XNACK off": "AMD MI250X，XNACK 关闭",
    "AMD MI250X, CPU-coherent node": "AMD MI250X，CPU 一致性节点",
    "{short} (fitted to measurements)": "{short}（按实测拟合）",
    "{short} (estimate: {est} of {total} numbers)": "{short}（{total} 个数字中有 {est} 个是估计值）",
    "this machine's GPU ({gpu})": "本机的 GPU（{gpu}）",
    "sim — the MODELLED card: {title} (profile {name}, {how}); no GPU of this machine runs these "
    "steps, the times are model time":
        "sim —— 被建模的显卡：{title}（profile {name}，{how}）；这些 step 不在本机的任何 GPU 上运行，"
        "显示的时间都是模型时间",
    "fitted to measurements": "按实测拟合",
    "{est} of {total} numbers are estimates": "{total} 个数字中有 {est} 个是估计值",
    # the sim profiles' titles (umkit/sim/profiles/*.json): the modelled card, in the panel and the doctor
    "NVIDIA H200 (141 GB HBM3e) on a PCIe Gen5 x16 host, CUDA 13":
        "NVIDIA H200（141 GB HBM3e），PCIe Gen5 x16 主机，CUDA 13",
    "AMD MI250X, one GCD, HSA_XNACK=1, device-coherent VRAM (the CPU reads GPU-resident pages in "
    "place, as Pearson's Frontier timings suggest)":
        "AMD MI250X，单个 GCD，HSA_XNACK=1，设备一致性显存（CPU 原地读取驻留在 GPU 上的页面，"
        "Pearson 在 Frontier 上测得的时间支持这种解读）",
    "AMD MI250X, one GCD, HSA_XNACK=0: managed memory is zero-copy host memory":
        "AMD MI250X，单个 GCD，HSA_XNACK=0：托管内存就是零拷贝的主机内存",
    "AMD MI250X, one GCD, HSA_XNACK=1 (CPU touch migrates pages back, as OLCF's Frontier guide "
    "documents)":
        "AMD MI250X，单个 GCD，HSA_XNACK=1（CPU 一访问，页面就迁回主机，与 OLCF 的 Frontier 用户指南所写一致）",
    "AMD MI300A APU: CPU and GPU share one 128 GB HBM3 memory":
        "AMD MI300A APU：CPU 和 GPU 共用一块 128 GB 的 HBM3 内存",
    "AMD MI300X (discrete, PCIe Gen5 x16 host link), HSA_XNACK=1":
        "AMD MI300X（独立显卡，PCIe Gen5 x16 主机链路），HSA_XNACK=1",
    "Teaching GPU: round numbers, not a real device": "教学用 GPU：取整的数字，不是真实设备",
    "running #{i}: step {n} / {total}": "正在运行 #{i}：第 {n} / {total} 步",
    "median {t}": "中位数 {t}",
    "stopping...": "正在停止……",
    "error (see the message)": "出错了（见下面的信息）",
    "ready: pick settings and press Run": "就绪：选好设置，按下“运行”",
    "#{i} stopped after {n} steps": "#{i} 在第 {n} 步后停止",
    "#{i} done: {n} steps": "#{i} 完成：{n} 步",
    "{n} run(s) on the chart": "图上有 {n} 次运行",
    "run #{i}, step {s}: {t}": "运行 #{i}，第 {s} 步：{t}",
    "GPU faults": "GPU 缺页",
    "CPU faults": "CPU 缺页",
    "MiB to GPU": "迁到 GPU 的 MiB",
    "MiB to CPU": "迁到 CPU 的 MiB",
    "MiB zero-copy": "零拷贝 MiB",
    "evictions": "驱逐",
    "race flags": "竞争标记",
    "no runs yet: pick settings and press Run": "还没有运行：选好设置，按下“运行”",
    "step time (log scale)": "每步时间（对数刻度）",
    "running": "运行中",
    "stopped": "已停止",
    "running...": "运行中……",
    "modelled {profile}": "建模的显卡 {profile}",
    "one bar per training step, height = step time on a log scale":
        "每个训练步一根柱子，高度 = 对数刻度上的每步时间",
    "dashed line = median": "虚线 = 中位数",
    "dark cap = the CPU touched the data in that step": "深色顶端 = 这一步里 CPU 访问了数据",
    "hover a bar for its counters": "鼠标悬停在柱子上可看它的计数器",
    "run": "运行",
    "median": "中位数",
    "no runs yet": "还没有运行",
    "counters appear here as steps finish": "每完成一步，计数器就显示在这里",
    "(running)": "（运行中）",
    "(prefetch/advice ignored)": "（预取/建议被忽略）",
    "(stopped)": "（已停止）",
    "(error)": "（出错）",
    "{backend} keeps these counters in the driver: umkit.counters_on() reads them on cuda (CUPTI); "
    "nsys / rocprof elsewhere":
        "{backend} 把这些计数器保存在驱动里：在 cuda 上由 umkit.counters_on() 读取（CUPTI）；"
        "其他平台用 nsys / rocprof",
    "Error.": "错误。",
    "prefetch and advice only act on managed memory: with {memory} memory they change nothing":
        "预取和建议只对托管内存起作用：用 {memory} 内存时它们什么也不改变",
    "mixed: the advice applies to the managed (cold) buffer only": "mixed：建议只作用于托管的（冷）缓冲区",
    "a run is already going: press Stop first": "已经有一次运行在进行：先按“停止”",
    "stop the run before Reset": "先停止运行，再重置",
    "stop the run before switching the hardware": "先停止运行，再切换硬件",
    "stop the run before choosing another demo": "先停止运行，再选别的演示",
    # the workshop dashboard: presets, the question for the room, the residency map's notes, the ECG
    "1. Ping-pong: managed memory, the CPU reads statistics every 10 steps":
        "1. 乒乓：托管内存，CPU 每 10 步读一次统计量",
    "Predict: how much slower are the statistic steps than the others? 2x, 10x, 100x?":
        "预测一下，读统计量的那些步比其他步慢多少？2 倍、10 倍，还是 100 倍？",
    "2. ... the fix: hot data in device memory, cold data managed (mixed)":
        "2. ……修复：热数据放设备内存，冷数据用托管内存（mixed）",
    "Which pages still move, and why are the spikes gone?": "哪些页面还在迁移？毛刺为什么消失了？",
    "3. MI250X with XNACK off: managed memory, no prefetch": "3. XNACK 关闭的 MI250X：托管内存，不预取",
    "With XNACK off the GPU cannot fault pages in. Where does the data stay, and what does every GPU "
    "access cost?":
        "XNACK 关闭时，GPU 无法通过缺页把页面迁入。数据停留在哪里？每次 GPU 访问要付出什么代价？",
    "4. ... XNACK off + explicit prefetch to the GPU": "4. ……XNACK 关闭 + 显式预取到 GPU",
    "Explicit prefetch still migrates with XNACK off: is one prefetch per step worth it?":
        "XNACK 关闭时，显式预取仍然会迁移页面：每步预取一次值得吗？",
    "5. Oversubscription, before: 192 MiB on a card modelled with 320 MiB of VRAM":
        "5. 超额订阅，之前：192 MiB 数据，放在建模为 320 MiB 显存的卡上",
    "Everything fits. Now double the data: what happens to the step time?":
        "全都放得下。现在把数据翻倍：每步时间会怎样？",
    "6. ... after: 384 MiB on the same 320 MiB card (managed memory thrashes)":
        "6. ……之后：384 MiB 数据，放在同一块 320 MiB 的卡上（托管内存发生颠簸）",
    "Twice the data: how many times the step time? Watch the evictions column.":
        "数据翻倍：每步时间变成几倍？注意看驱逐那一列。",
    "(modelled VRAM: {n} MiB)": "（建模的显存：{n} MiB）",
    "Ask the room: {ask} Then press <b>Run</b>.": "请台下回答：{ask} 然后按 <b>运行</b>。",
    "recording...": "录制中……",
    "{n} strategies x {steps} steps; spiky: {spiky}": "{n} 种策略 × {steps} 步；有毛刺的：{spiky}",
    "a fresh array: no page populated yet": "一个新数组：还没有任何页面被填充",
    "the GPU touched it": "GPU 访问了它",
    "prefetched to the GPU": "已预取到 GPU",
    "the CPU read it": "CPU 读了它",
    "prefetched to the CPU": "已预取到 CPU",
    "a 16 MiB managed array": "一个 16 MiB 的托管数组",
    # the residency map (umkit.widgets.residency_map)
    "{size} MiB {kind} array": "{size} MiB 的 {kind} 数组",
    "<b>{name}</b>: per-page residency is not available here.": "<b>{name}</b>：这里拿不到逐页的驻留信息。",
    "<b>{name}</b>: {pages} pages of {kib} KiB, {agg}": "<b>{name}</b>：{pages} 个 {kib} KiB 的页面，{agg}",
    "{per} pages per cell (mixed = pages of the cell in different places)":
        "每格 {per} 个页面（混合 = 这一格的页面分处不同位置）",
    "one page per cell": "每格一个页面",
    "unpopulated": "未填充",
    "both (read-mostly)": "两边都有（以读为主）",
    "both": "两边都有",
    "mixed": "混合",
    "{p} of the pages are on the GPU": "{p} 的页面在 GPU 上",
    "inhale: +{d} of the pages moved to the GPU (now {p})": "吸气：+{d} 的页面迁到了 GPU（现在是 {p}）",
    "exhale: {d} of the pages went back to the CPU (now {p} on the GPU)":
        "呼气：{d} 的页面回到了 CPU（现在 GPU 上有 {p}）",
    "steady: {p} of the pages on the GPU": "平稳：{p} 的页面在 GPU 上",
    "<b>{caption}</b> ({parts})": "<b>{caption}</b>（{parts}）",
    "Breathing (呼吸): the array <b>inhales</b> to the GPU on prefetch or GPU faults (cells turn orange) "
    "and <b>exhales</b> back to the CPU on eviction or CPU access (cells turn blue).":
        "呼吸：预取或 GPU 缺页时，数组向 GPU <b>吸气</b>（格子变成橙色）；驱逐或 CPU 访问时，"
        "数组<b>呼气</b>回到 CPU（格子变成蓝色）。",
    "residency map: {n} pages; {caption}; {summary}": "驻留图：{n} 个页面；{caption}；{summary}",
    "residency map: {caption}": "驻留图：{caption}",
    "no data": "没有数据",
    "since the last update: {counters}": "自上次更新以来：{counters}",
    "GPU faults {g}, CPU faults {c}, {h2d} MiB to the GPU, {d2h} MiB to the CPU":
        "GPU 缺页 {g}，CPU 缺页 {c}，{h2d} MiB 迁到 GPU，{d2h} MiB 迁到 CPU",
    # the memory ECG widget and the recorder view
    "strategy": "策略",
    "median ms": "中位数 ms",
    "verdict": "结论",
    "spiky": "有毛刺",
    "flat": "平坦",
    # umkit.ecg.table(): its heading and columns (the numbers and strategy names stay)
    "max/median": "最大/中位数",
    "memory ECG: {steps} steps of {mib} MiB, pattern {pattern}, backend {backend}":
        "显存心电图：{steps} 步，每个任务 {mib} MiB，模式 {pattern}，后端 {backend}",
    "memory ECG: {steps} steps of {mib} MiB, pattern {pattern}, backend {backend} (profile {profile})":
        "显存心电图：{steps} 步，每个任务 {mib} MiB，模式 {pattern}，后端 {backend}（profile {profile}）",
    # a recorded loop's ECG (umkit.ecg.recorder(...).result().table())
    "memory ECG of {name}: {n} steps, backend {code_b} [{code_p}] ({part_unit})":
        "{name} 的显存心电图：{n} 步，后端 {code_b} [{code_p}]（{part_unit}）",
    "memory ECG of {name}: {n} steps, backend {code_b} ({part_unit})":
        "{name} 的显存心电图：{n} 步，后端 {code_b}（{part_unit}）",
    "model time": "模型时间",
    "device events": "设备事件计时",
    "invented example, not recorded": "虚构的示例，并非实测记录",
    "done": "完成",
    "<b>{name}</b>: waiting for the first step": "<b>{name}</b>：等待第一步",
    "<b>{name}</b>: {n} steps, verdict <b>{verdict}</b>": "<b>{name}</b>：{n} 步，结论 <b>{verdict}</b>",
    "<b>{name}</b>: step {n}, last {ms} ms": "<b>{name}</b>：第 {n} 步，最近一步 {ms} ms",
    # -- notebook 06: training data loading ---------------------------------------------------------
    "§4.2, the epoch loop, and §3.3: before each kernel, inhale every array the kernel will touch that "
    "is not in VRAM (hipMemPrefetchAsync to the GPU) -- the arrays the CPU touched since the kernel last "
    "ran (the batch it loaded, the sum it read) went back to the host; an array only the GPU touched is "
    "still there, and a prefetch of it moves nothing (on a real card the call still reaches the driver). "
    "What has to happen before the inhale, and what after? Wait for the stream before the CPU reads what "
    "the kernel wrote; hipFree what you allocated":
        "§4.2 的 epoch 循环和 §3.3：每个 kernel 之前，把它要访问、但不在显存里的每个数组吸入显存（hipMemPrefetchAsync "
        "到 GPU）——自 kernel 上次运行以来 CPU 访问过的数组（它载入的批数据、它读过的和）已经回到了主机；只有 GPU "
        "访问过的数组还在显存里，预取它什么也不搬（在真卡上这次调用照样要进驱动）。哪些事必须在吸入之前做，哪些在之后？"
        "CPU 读 kernel 写的内容之前，先等待这个流；分配了什么，就 hipFree 什么",
    "your function returned None: return the list of per-epoch sums.": "你的函数返回了 None：请返回每个 epoch 的和组成的列表。",
    "return a list of numbers (one sum per epoch), not {type}.": "请返回一个数字列表（每个 epoch 一个和），而不是 {type}。",
    "called with epochs={epochs}, your function returned {n} sums.": "以 epochs={epochs} 调用时，你的函数返回了 {n} 个和。",
    "called with n={n}, {epochs} epochs: the batches hold the right values, but before {k} of the {m} "
    "kernels the batch was made on the GPU, not loaded from the host. In this loop the batch comes from "
    "the CPU (a data loader reading disk), so its pages start on the host each epoch -- the move the loop "
    "must handle. Write each epoch's batch from the CPU.":
        "以 n={n}、{epochs} 个 epoch 调用：批数据的值是对的，但在 {m} 个 kernel 里有 {k} 个之前，批数据是在 GPU 上"
        "生成的，而不是从主机载入的。在这个循环里批数据来自 CPU（一个从磁盘读数据的加载器），所以它的页每个 epoch "
        "都从主机出发——这正是循环要处理的搬运。请在 CPU 上写入每个 epoch 的批数据。",
    "only {n} kernel(s) ran for {epochs} epochs: call umkit.add(out, a, b, stream=s) once per epoch.":
        "{epochs} 个 epoch 只运行了 {n} 个 kernel：每个 epoch 调用一次 umkit.add(out, a, b, stream=s)。",
    "the CPU read `out` while add_kernel could still be writing it (a race, §3.3): nothing waited for the "
    "kernel before the CPU's sum.":
        "CPU 在 add_kernel 可能还在写 `out` 的时候读了它（数据竞争，§3.3）：CPU 求和之前，没有任何东西等待 kernel。",
    "the sums are right, but nothing was prefetched: {n} GPU page faults did the moving.":
        "和是对的，但什么都没有预取：是 {n} 次 GPU 缺页完成了搬运。",
    "you prefetch, but the kernel still took {n} GPU page faults: some array the kernel touches was not "
    "on the GPU when it ran -- one the CPU touched since the last kernel, or one nothing has touched yet "
    "(its pages are made where it is first touched).":
        "你做了预取，但 kernel 仍然发生了 {n} 次 GPU 缺页：kernel 运行时，它访问的某个数组不在 GPU 上——"
        "要么是自上一个 kernel 以来 CPU 访问过的，要么是还没有任何东西访问过的（它的页在第一次被访问的地方才建立）。",
    "your function allocated {n} managed arrays for its three: allocate a, b and out once, before the "
    "loop -- each allocation is a hipMallocManaged, and pages the CPU fills in a new array must move to "
    "the GPU again.":
        "你的函数为它的三个数组分配了 {n} 个托管数组：请在循环之前把 a、b 和 out 各分配一次——每次分配都是一次 "
        "hipMallocManaged，而且 CPU 在新数组里填进的页又得重新搬到 GPU 上。",
    "no GPU faults, but {kib} KiB went to the GPU where this loop needs at most {need} KiB: something "
    "sent an array off the GPU that nothing required to leave, and it had to come back. Which arrays "
    "must leave VRAM between two kernels, and why?":
        "没有 GPU 缺页，但有 {kib} KiB 被搬到了 GPU，而这个循环最多只需要 {need} KiB：有什么把一个本不需要离开"
        "的数组送离了 GPU，它只好再回来。两个 kernel 之间，哪些数组必须离开显存，为什么？",
    "no GPU faults, but {n} of your {m} prefetch calls moved nothing: every page of the array was already "
    "in VRAM (on a real card such a call still reaches the driver: the note under section 1's table). "
    "Before each prefetch ask: did anything move this array off the GPU since the kernel last used it?":
        "没有 GPU 缺页，但你的 {m} 次预取调用中有 {n} 次什么也没搬：那个数组的每一页都已经在显存里了（在真卡上，"
        "这样的调用照样要进驱动：见第 1 节那张表下面的说明）。每次预取之前问一问：自 kernel 上次用过它以来，"
        "有没有什么把这个数组搬离了 GPU？",
    "{n} managed array(s) ({b} B) are still allocated when your function returns.":
        "你的函数返回时，仍有 {n} 个托管数组（{b} B）没有释放。",
    "your function allocated {made} managed arrays and freed {freed} of them itself: free each one when "
    "you are done with it (x.free(), or `with umkit.managed(n) as x:`). Python frees the rest when the "
    "function returns, but in a long training loop that is too late -- the memory stays allocated until "
    "then (§4.2).":
        "你的函数分配了 {made} 个托管数组，自己释放了其中 {freed} 个：每个用完就释放（x.free()，或 "
        "`with umkit.managed(n) as x:`）。Python 会在函数返回时释放其余的，但在长时间的训练循环里那就太晚了——"
        "在那之前内存一直被占着（§4.2）。",
    "n={n}, {epochs} epochs on {profile}: sums {first} to {last}, read from out, a batch loaded every "
    "epoch, no GPU faults, no prefetch that moved nothing, no race, nothing leaked ({np} prefetch calls, "
    "{kib} KiB prefetched, {cf} CPU faults).":
        "n={n}，在 {profile} 上跑 {epochs} 个 epoch：和从 {first} 到 {last}，都"
        "是从 out 读出来的，每个 epoch 都载入了批数据，没有 GPU 缺页，没有白做的预取，没有数据竞争，没有泄漏（{np} 次"
        "预取调用，预取了 {kib} KiB，CPU 缺页 {cf} 次）。",
    "{argument} is still None: define def my_epoch_loop(n, epochs): ... and pass the function itself (no "
    "parentheses).":
        "{argument} 仍然是 None：定义 def my_epoch_loop(n, epochs): ...，并传入函数本身（不带括号）。",
    "pass the function itself, not {type} (no parentheses).": "请传入函数本身，而不是 {type}（不带括号）。",

    # -- notebook 07: choosing a strategy ----------------------------------------------------------------
    "§2.3 the breathing analogy: inhale = prefetch into VRAM, exhale = move cold data out to the host; "
    "§2.1: let cold parameters breathe out. When VRAM is full the driver must evict something before it "
    "can bring a page in, and it picks least-recently-migrated memory in the simulator (notebook 07, "
    "section 2) -- it doesn't know which pages are the heart (§6.1). Decide yourself what leaves VRAM and "
    "when, or let a cold layer be read where it is (§3.2, §4.4: advice, then prefetch)":
        "§2.3 的呼吸类比：吸气 = 预取到显存，呼气 = 把冷数据搬回主机；§2.1：让冷参数呼出去。显存满了时，"
        "驱动必须先驱逐点什么才能调入一个页，而在模拟器里它挑的是最久未迁移的内存（notebook 07 第 2 节）——"
        "它不知道哪些页是心脏（§6.1）。自己决定什么在何时离开显存，或者让冷的那一层在原处被读取"
        "（§3.2、§4.4：先给访问建议，再预取）",
    "def plan(i, cold, stream):\n"
    "    cold[(i - 1) % len(cold)].prefetch('cpu', stream=stream)   # exhale last step's layer\n"
    "    cold[i % len(cold)].prefetch('gpu', stream=stream)         # inhale this step's\n"
    "# each step begins with its own layer in VRAM and no other cold layer there: the\n"
    "# room an inhale needs is free before it starts, so the driver evicts nothing":
        "def plan(i, cold, stream):\n"
        "    cold[(i - 1) % len(cold)].prefetch('cpu', stream=stream)   # 呼出上一步的层\n"
        "    cold[i % len(cold)].prefetch('gpu', stream=stream)         # 吸入这一步的层\n"
        "# 每一步开始时，显存里是它自己要读的层，没有别的冷层：\n"
        "# 吸气要用的空间在它开始之前就已经腾出来了，所以驱动什么都不用驱逐",
    "def my_epoch_loop(n, epochs):\n"
    "    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)\n"
    "    b.host[:] = 2.0\n    s = umkit.Stream()\n    sums = []\n"
    "    b.prefetch('gpu', stream=s)              # once: only the GPU touches b from now on\n"
    "    for e in range(epochs):\n"
    "        a.host[:] = e + 1.0                  # the CPU loads this epoch's batch ...\n"
    "        for x in (a, out):                   # ... then what the CPU touched is inhaled\n"
    "            x.prefetch('gpu', stream=s)      # out too: the CPU's sum pulled it back\n"
    "        umkit.add(out, a, b, stream=s)\n"
    "        s.synchronize()                      # before the CPU reads out\n"
    "        sums.append(float(out.host.sum()))\n"
    "    for x in (a, b, out):\n        x.free()\n    return sums\n"
    "# or read out with umkit.read_back(out): in the model a copy that leaves out in VRAM,\n"
    "# so out needs no prefetch after the first epoch -- on ROCm see notebook 06's note on\n"
    "# read_back":
        "def my_epoch_loop(n, epochs):\n"
        "    a, b, out = umkit.managed(n), umkit.managed(n), umkit.managed(n)\n"
        "    b.host[:] = 2.0\n    s = umkit.Stream()\n    sums = []\n"
        "    b.prefetch('gpu', stream=s)              # 一次就够：从此只有 GPU 碰 b\n"
        "    for e in range(epochs):\n"
        "        a.host[:] = e + 1.0                  # CPU 装入这个 epoch 的批数据……\n"
        "        for x in (a, out):                   # ……然后把 CPU 碰过的吸进来\n"
        "            x.prefetch('gpu', stream=s)      # out 也要：CPU 求和时把它拉回去了\n"
        "        umkit.add(out, a, b, stream=s)\n"
        "        s.synchronize()                      # 在 CPU 读 out 之前\n"
        "        sums.append(float(out.host.sum()))\n"
        "    for x in (a, b, out):\n        x.free()\n    return sums\n"
        "# 或者用 umkit.read_back(out) 读 out：在模型里这是一次拷贝，out 留在显存里，\n"
        "# 所以第一个 epoch 之后 out 不用再预取——ROCm 上的情况见 notebook 06 关于\n"
        "# read_back 的说明",
    "4 GB of fully-connected weights; the GPU reads them in every forward pass and writes them in every "
    "optimizer step.":
        "4 GB 的全连接层权重；GPU 在每次前向传播中读它们，在每次优化器更新中写它们。",
    "a 20 GB feature table that every training step gathers from on the GPU; it stays resident for the "
    "whole run.":
        "一张 20 GB 的特征表，每个训练步都在 GPU 上从中取数；它在整个运行期间常驻。",
    "64 MB of augmentation scratch: the CPU reshuffles it now and then, the GPU reads it in some steps.":
        "64 MB 的数据增强临时区：CPU 时不时把它重新洗一遍，GPU 在某些 step 里读它。",
    "2 GB of embedding rows for rare tokens: a step looks up a handful of rows, most rows are never "
    "touched in a given epoch.":
        "2 GB 的罕见 token 的 embedding 行：一个 step 只查几行，在一个 epoch 里大多数行从没被访问。",
    "a few MB of tensors you want to inspect from the CPU (a debugger, print) while the job runs.":
        "几 MB 的张量，你想在任务运行时从 CPU 查看它们（调试器、print）。",
    "a 4 GB snapshot of the weights written every 2,000 steps and then saved to disk by the CPU.":
        "一份 4 GB 的权重快照，每 2,000 步写一次，然后由 CPU 存盘。",
    "an inference service's per-request input and output buffers: a few MB each, thousands per second, "
    "latency measured at p99.":
        "一个推理服务每个请求的输入和输出缓冲区：每个几 MB，每秒几千个，延迟按 p99 衡量。",
    "a 4 KB block of scalars (loss, grad norm) the GPU writes every step and the CPU logger reads every "
    "step.":
        "一块 4 KB 的标量（loss、梯度范数），GPU 每一步都写，CPU 的日志程序每一步都读。",
    "It is big, hot, read and written by the GPU every step: the 'heart' (心脏) of the job. In managed "
    "memory every eviction, and on this card (XNACK on) every CPU look, makes it re-inhale; give it device "
    "memory (§6.1, §3.4).":
        "它又大又热，GPU 每一步都读写：这是任务的“心脏”。放在托管内存里，每驱逐一次——在这块卡上（XNACK 打开）CPU 每看一次也一样——都会让它重新吸气；"
        "给它设备内存（§6.1、§3.4）。",
    "It is resident and used every step: another part of the heart. Managed memory buys nothing here and "
    "risks eviction under memory pressure (§6.1).":
        "它常驻并且每一步都用：这是心脏的另一部分。托管内存在这里毫无好处，而且在内存紧张时有被驱逐的风险（§6.1）。",
    "It is small, touched by both sides now and then: exactly what managed memory is for. Device memory "
    "would need explicit copies for every CPU reshuffle; pinned memory would make the GPU read all of it "
    "over the link in every step that uses it (§6.1, §4.4).":
        "它很小，两端时不时都会访问：这正是托管内存的用武之地。用设备内存的话，CPU 每洗一次都需要显式拷贝；"
        "用固定内存的话，每个用到它的 step 里 GPU 都要经链路把它整个读一遍（§6.1、§4.4）。",
    "It is sparse: with managed memory only the blocks around the rows a step touches migrate (2 MiB on "
    "AMD since Linux 6.8), on demand -- the article's choice (§6.1); pinned host memory, read in place over "
    "the link, is right too when the rows are scattered thinly: nothing moves at all. In device memory you "
    "would copy and hold all 2 GB for a few rows.":
        "它是稀疏的：用托管内存时，只有一个 step 访问到的那些行周围的块才会按需迁移（Linux 6.8 起 AMD 上是 "
        "2 MiB）——这是专栏的选择（§6.1）；当这些行分散得很稀时，固定主机内存也对：GPU 经链路原地读，"
        "什么都不用搬。放在设备内存里，你就得为了几行而拷贝并占着整整 2 GB。",
    "Debugging from the CPU is one of §6.1's cases for managed memory: the CPU can read the same pointer "
    "without writing copy code. Pinned memory the GPU writes into is defensible too: the CPU reads it at "
    "any time and no page moves.":
        "从 CPU 调试是 §6.1 中适合托管内存的场景之一：CPU 不用写拷贝代码就能读同一个指针。由 GPU 写入的固定内存"
        "也说得通：CPU 随时可以读它，而且没有页面移动。",
    "It is latency-critical: §6.3's inference service was unstable at peak with managed request data and "
    "stable once requests went into a pre-allocated hipMalloc buffer pool with explicit copies.":
        "它是延迟敏感的：§6.3 的推理服务把请求数据放在托管内存里时高峰期很不稳定，改为把请求放进预分配的 hipMalloc "
        "缓冲池并显式拷贝之后就稳定了。",
    "It is tiny and read by the CPU every step: pinned host memory (hipHostMalloc) lets the GPU write it "
    "over the link with no page ever migrating; device memory with a small copy to the host each step "
    "(what loss.item() does) is right too; managed memory would (with XNACK on, as here) bounce the page "
    "every step (§4.4).":
        "它很小，CPU 每一步都读：固定主机内存（hipHostMalloc）让 GPU 经链路写它，而且永远没有页面迁移；"
        "设备内存加上每一步一次到主机的小拷贝（loss.item() 就是这么做的）也对；托管内存则会（在 XNACK 打开时，如这里）让这个页每一步都"
        "来回弹跳（§4.4）。",
    "{argument} is still None: make a dict {buffer name: 'device' | 'managed' | 'pinned'} covering every "
    "buffer in nb07.BUFFERS.":
        "{argument} 仍然是 None：写一个 dict {缓冲区名: 'device' | 'managed' | 'pinned'}，覆盖 nb07.BUFFERS 中的每块缓冲区。",
    "{argument} must be a dict, not {type}.": "{argument} 必须是一个 dict，而不是 {type}。",
    "every buffer has an allocator that matches who touches it and how often: the heart in device "
    "memory, data the CPU touches now and then where both sides reach it (managed, or pinned where the "
    "accepted answers allow it), the tiny data both sides touch every step in pinned memory.":
        "每块缓冲区都用上了与它的访问者和访问频率相匹配的分配器：心脏放设备内存，CPU 偶尔碰的数据放在两边都够得着的地方"
        "（托管内存；被接受的答案允许时，固定内存也行），两边每一步都碰的小块数据放固定内存。",
    "{unknown} are not buffers of this exercise; the names are {items}.": "{unknown} 不是这道练习的缓冲区；名字是 {items}。",
    "still to place: {missing}.": "还没有安排的：{missing}。",
    "{argument} is still None: write def plan(i, cold, stream): ... (prefetch / advise the cold layers "
    "before step i)":
        "{argument} 仍然是 None：写出 def plan(i, cold, stream): ...（在第 i 步之前对冷的那些层做预取 / 建议）",
    "{argument} should be a function (i, cold, stream), got {type}": "{argument} 应该是一个函数 (i, cold, stream)，得到的是 {type}",
    "only the cold layers breathed, and the heart stayed in VRAM": "只有冷的那些层在呼吸，心脏一直留在显存里",
    "{total} ms of model time for {steps} steps on {profile} (budget {budget} ms; the heart in device "
    "memory: {ref} ms): {how}. {ev} evictions by the driver, {gf} GPU faults.":
        "在 {profile} 上 {steps} 步用了 {total} ms 模型时间（预算 {budget} ms；心脏放设备内存时：{ref} ms）：{how}。"
        "驱动驱逐了 {ev} 次，GPU 缺页 {gf} 次。",
    "{total} ms of model time for {steps} steps on {profile}, over the budget of {budget} ms. The driver "
    "evicted {mib} MiB ({ev} evictions), the GPU took {gf} page faults, {h2d} MiB moved to the GPU, and "
    "{hit} of the {steps2} steps began with part of the heart evicted.":
        "在 {profile} 上 {steps} 步用了 {total} ms 模型时间，超出了 {budget} ms 的预算。驱动驱逐了 {mib} MiB"
        "（{ev} 次驱逐），GPU 缺页 {gf} 次，{h2d} MiB 被搬到 GPU，{steps2} 步中有 {hit} 步开始时心脏的一部分已被驱逐。",

    # -- notebook 09: troubleshooting and the memory ECG -------------------------------------------------
    "§5.1's table: read each report for its symptom -- an error code at start-up, an error in a second "
    "process, wrong numbers with no error, erratic step times, a card-dependent slowdown -- and match the "
    "symptom, not the words. umkit.explain(...) looks a symptom or error up in the same table":
        "§5.1 的表格：从每份报告里读出它的症状——启动时的错误码、第二个进程里的错误、数字错了却不报错、"
        "step 时间忽快忽慢、只在某些卡上才出现的变慢——按症状匹配，而不是按字面。umkit.explain(...) 在同一张表里查症状或错误",
    "§7 and the memory ECG's rule (umkit.ecg.SPIKY = 3, umkit.ecg.SPIKE_MS = 1 ms): step 0 is warm-up "
    "and left out; a spike is longer than 3x the median of the other steps (the median, not the mean: the "
    "mean is dragged up by the spikes) AND more than 1 ms above it (a 0.5 ms blip is not a spike)":
        "§7 和显存心电图的规则（umkit.ecg.SPIKY = 3，umkit.ecg.SPIKE_MS = 1 ms）：第 0 步是预热步，不计入；"
        "毛刺是比其他 step 的中位数长 3 倍以上（用中位数，不用平均值：平均值会被毛刺拉高）并且比它多出 1 ms 以上的 step"
        "（0.5 ms 的小凸起不算毛刺）",
    "The job grew from 7B to 13B parameters and now hipMalloc of the weights returns error 2 at "
    "start-up; rocm-smi shows another process holding 20 GB.":
        "任务从 7B 参数涨到 13B，现在为权重做的 hipMalloc 在启动时返回错误 2；rocm-smi 显示另一个进程占着 20 GB。",
    "A data-loader process sends a pointer from hipMallocManaged to the training process through a "
    "pipe; the training process dies with 'Memory access fault by GPU node-2 ... Reason: Page not "
    "present or supervisor privilege.'":
        "一个数据加载进程通过管道把 hipMallocManaged 得到的指针发给训练进程；训练进程崩溃，报 "
        "'Memory access fault by GPU node-2 ... Reason: Page "
        "not present or supervisor privilege.'",
    "No error anywhere, but the validation loss is sometimes garbage since someone moved the CPU-side "
    "normalisation of the batch to just after the kernel launch.":
        "哪里都不报错，但自从有人把 CPU 端对批次的归一化挪到 kernel 启动之后，验证 loss 时不时就是一堆乱数。",
    "Step time alternates between 40 ms and 900 ms; with HSA_XNACK=1, ROCm Systems Profiler's "
    "unified-memory report counts thousands of page faults and migrations in both directions (triggers "
    "'GPU page fault' and 'CPU page fault'), and the trace's KFD page-fault records fall on the parameter "
    "buffer every few steps.":
        "step 时间在 40 ms 和 900 ms 之间交替；在 HSA_XNACK=1 下，ROCm Systems Profiler 的统一内存报告统计到几千次缺页和"
        "双向的页迁移（触发原因为 'GPU page fault' 和 'CPU page fault'），而跟踪里的 KFD 缺页记录每隔几步就落在参数缓冲区上。",
    "The same managed-memory code runs fine on MI250X with HSA_XNACK=1 and 30x slower on an old GCN card "
    "(or with XNACK off), where the GPU cannot replay a faulting access.":
        "同一段托管内存代码在开启 HSA_XNACK=1 的 MI250X 上运行良好，在老的 GCN 卡上（或 XNACK 关闭时）却慢 30 倍，"
        "因为那里的 GPU 无法重放一次缺页的访问。",
    "Give each allocation the memory its main user needs: what the device touches every iteration in "
    "device-only memory, the host's helper data apart; then advise and prefetch.":
        "给每一块分配配上它的主要使用者需要的内存：设备每次迭代都碰的放进设备内存，主机那边的辅助数据"
        "另外放；然后再给建议、做预取。",
    "Make the host wait for the queued device work (a stream or an event) before it touches memory that "
    "work may still use.":
        "在主机碰那些排队中的设备工作可能还在用的内存之前，先让主机等这些工作完成（等一个流或一个事件）。",
    "Export the allocation with a runtime handle (hipIpcGetMemHandle on hipMalloc memory) and open it on "
    "the receiving side, or map a shared file.":
        "用运行时的句柄导出这块分配（对 hipMalloc 内存用 hipIpcGetMemHandle），在接收的一方打开它；"
        "或者映射一个共享文件。",
    "Find out who else occupies the card, ask for smaller chunks, and move cold tensors out to the host.":
        "查清还有谁占着这块卡，改成申请更小的块，并把冷的张量挪到主机上。",
    "Turn on recoverable page faults where the hardware has them (HSA_XNACK=1); otherwise prefetch "
    "before each kernel, or copy explicitly with hipMemcpy instead of managed allocations.":
        "在硬件支持的地方打开可恢复的缺页（HSA_XNACK=1）；否则在每个 kernel 之前预取，或者不用托管分配，"
        "改用 hipMemcpy 显式拷贝。",
    "a pointer from another process: its address means nothing there": "来自另一个进程的指针：它的地址在这里毫无意义",
    "no recoverable GPU page faults (XNACK off / old card): no on-demand migration":
        "没有可恢复的 GPU 缺页（XNACK 关闭 / 老卡）：没有按需迁移",
    "case {item}: there is no fix {v}; choose 1-{n}.": "案例 {item}：没有第 {v} 号修复办法；请从 1-{n} 中选。",
    "case {item}: {value} is not a fix number (1-{n}).": "案例 {item}：{value} 不是修复办法的编号（1-{n}）。",
    "{argument} is still None: map every case letter to a fix number, e.g. {'A': 1, 'B': 2, ...}.":
        "{argument} 仍然是 None：把每个案例字母对应到一个修复办法编号，例如 {'A': 1, 'B': 2, ...}。",
    "{argument} must be a dict {letter: number}, not {type}.": "{argument} 必须是一个 dict {letter: number}，而不是 {type}。",
    "cases without a diagnosis: {missing}.": "还没有诊断的案例：{missing}。",
    "your {given} diagnoses are not all right yet. Read each report for its symptom and ask "
    "umkit.explain(...) about its code, name or symptom":
        "你的 {given} 个诊断还没有全对。读每份报告，找出它的症状，再用 umkit.explain(.."
        ".) 查它的错误码、名字或症状",
    "{part_msg}. Five new reports are drawn: print nb09.CASES again and diagnose those":
        "{part_msg}。重新抽了五份新报告：再打印一次 nb09.CASES，诊断这几份",
    "all five: each report matched by its symptom -- out of memory, a pointer from another process, "
    "a race with no error, page thrash, a card without recoverable page faults (XNACK), so no "
    "on-demand migration.":
        "五个全对：每份报告都按症状对上了——内存不足、来自另一个进程的指针、不报错的数据竞争、页面颠簸、"
        "一块没有可恢复缺页（XNACK）因而没有按需迁移的卡。",
    "page thrash: the CPU and the GPU touch the same managed buffer in turn, so its pages migrate "
    "back and forth":
        "页面颠簸：CPU 和 GPU 轮流访问同一块托管缓冲区，它的页面就来回迁移",
    "a race: the host touches data while queued GPU work may still use it -- wrong numbers, no error":
        "数据竞争：排队中的 GPU 工作可能还在用数据时，主机就去访问了它——数字错了，却不报错",
    "out of memory: the card's memory is taken (another job, a bigger model); no fault, no race":
        "内存不足：卡上的内存被占满了（另一个任务、更大的模型）；不是缺页，也不是竞争",
    "Training ran for hours without trouble; since the nightly evaluation job was scheduled onto the "
    "same GPU, the next allocation of activations fails with hipErrorOutOfMemory around midnight.":
        "训练一连跑了几个小时都没问题；自从夜间评估任务也被调度到同一块 GPU 上，每到半夜，下一次为激活值做的分配就报 "
        "hipErrorOutOfMemory。",
    "After doubling the batch size the first forward pass raises 'HIP out of memory. Tried to allocate "
    "6.00 GiB'; a colleague's notebook kernel on the same card still holds its tensors.":
        "把批大小翻倍之后，第一次前向传播就报 'HIP out of memory. Tried to allocate 6.00 GiB'；"
        "同一块卡上，一位同事的 notebook 内核还占着它的张量。",
    "A worker process puts the integer address of its managed buffer on a multiprocessing queue; the "
    "consumer process launches a kernel on that address and aborts with 'Memory access fault by GPU "
    "node-1 ... Reason: Page not present or supervisor privilege.'":
        "一个工作进程把它的托管缓冲区的整数地址放进 multiprocessing 队列；消费进程拿这个地址启动 kernel，"
        "随即中止，报 'Memory access fault by GPU node-1 ... Reason: Page not present or supervisor "
        "privilege.'",
    "Results were right while every launch was followed by hipDeviceSynchronize() for debugging; since "
    "those calls were removed to save time, a few outputs per epoch are wrong. Nothing reports an "
    "error.":
        "调试时每次启动后都跟着 hipDeviceSynchronize()，结果一直是对的；为了省时间删掉这些调用之后，每个 epoch "
        "都有几个输出是错的。没有任何地方报错。",
    "The loss the host logs after each step is now and then the previous step's value, never an error; "
    "the logging code reads the loss buffer right after hipLaunchKernelGGL returns.":
        "主机每步之后记录的 loss 时不时是上一步的值，从不报错；记录日志的代码在 hipLaunchKernelGGL "
        "一返回就去读 loss 缓冲区。",
    "Every 20th step takes 15x longer than the others; each slow step comes right after a CPU "
    "statistics pass over the gradient buffer, which lives in managed memory.":
        "每第 20 步都比其他步慢 15 倍；每个慢步都紧跟在 CPU 对梯度缓冲区做的一次统计之后，而这块缓冲区放在托管内存里。",
    "The GPU updates an embedding table in managed memory while a CPU thread samples rows of it; kernel "
    "times vary tenfold from step to step, and the profiler's KFD records show page migrations in both "
    "directions on that table.":
        "GPU 更新一张放在托管内存里的嵌入表，同时一个 CPU 线程在对它的行做采样；kernel 时间每步之间相差十倍，"
        "性能分析器的 KFD 记录显示这张表上的页面在两个方向上来回迁移。",
    "On one MI250X node the job runs 20x slower than on a colleague's; there `echo $HSA_XNACK` prints 1, "
    "on yours nothing, and rocminfo lists your GPU's ISA as amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-. No "
    "error on either.":
        "在一个 MI250X 节点上，任务比同事那台慢 20 倍；在同事那里 `echo $HSA_XNACK` 输出 1，在你这里什么也不输出，"
        "rocminfo 列出的你这块 GPU 的 ISA 是 amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-。两边都不报错。",
    "Moved into a container, the same managed-memory training loop became many times slower with no "
    "error at all; inside the container the ISA name rocminfo lists for the GPU ends in xnack-, outside "
    "it in xnack+.":
        "挪进容器之后，同一个托管内存训练循环慢了好多倍，却一点错误也没有；容器里 rocminfo 为这块 GPU 列出的 ISA 名字"
        "以 xnack- 结尾，容器外以 xnack+ 结尾。",
    "{argument} is still None: def find_spikes(step_ms): ... return [indices].":
        "{argument} 仍然是 None：def find_spikes(step_ms): ... return [indices]。",
    "pass the function itself (no parentheses).": "请传入函数本身（不带括号）。",
    "your spike finder agrees with the memory ECG on all eleven curves, the simulated 'managed', 'mixed' "
    "and 'device' ECGs included: a curve the ECG calls flat has no spikes.":
        "你的毛刺查找器在全部十一条曲线上都和显存心电图一致，包括模拟出的 'managed'、'mixed' 和 "
        "'device' 心电图：心电图判定为平坦的曲线没有毛刺。",
    "return a list of step indices (ints), not {type}.": "请返回一个 step 下标（int）的列表，而不是 {type}。",

    # -- notebook 10: your own loop ----------------------------------------------------------------------
    "§4.3 and §7: on this notebook's card (the mi250x-xnack1 model, VRAM the CPU cannot map, as on a PCIe "
    "GPU) a CPU that reads GPU-resident managed pages makes the driver migrate them to the host, "
    "and the next kernel faults them back -- the spikes of the memory ECG (显存心电图). Compute the "
    "statistic where the weights live and let only the answer cross the link; keep the step's other work "
    "(batch written by the CPU, read and weights updated by the GPU) as it was":
        "§4.3 和 §7：在本 notebook 的卡上（mi250x-xnack1 模型，CPU 不能映射显存，和 PCIe 连接的 GPU 一样），"
        "CPU 读取驻留在 GPU 上的托管页，会让驱动把它们迁移到主机，下一个 kernel 再把它们缺页迁回——"
        "这就是显存心电图上的毛刺。在权重所在的地方计算统计量，只让答案经过链路；这一步的其他工作"
        "（CPU 写批次，GPU 读批次并更新权重）保持原样",
    "{argument} is still None: write a function fixed_step(params, batch, i).":
        "{argument} 仍然是 None：写一个函数 fixed_step(params, batch, i)。",
    "{argument} must be a function, not {type}.": "{argument} 必须是一个函数，而不是 {type}。",
    "step {i} launched {n} kernel(s): the step must still read the batch and update the weights on the GPU.":
        "第 {i} 步启动了 {n} 个 kernel：这一步仍然必须在 GPU 上读批次并更新权重。",
    "flat (max/median {x}) and the statistic is right: the answer travelled, the weights stayed on the GPU.":
        "曲线平坦（max/median {x}），统计量也正确：经过链路的只有答案，权重一直留在 GPU 上。",
    "step {i} returned None: every {k}th step must return the weights' mean.":
        "第 {i} 步返回了 None：每隔 {k} 步都必须返回一次权重的平均值。",
    "step {i} returned {v}, but the mean of the weights as they are at that step is {want}. The check "
    "draws the weights fresh each time and moves them at steps it does not announce: read them (one "
    "weight per 4 KiB, as the original statistic does) at the logging step itself, after the GPU has "
    "finished that step's update.":
        "第 {i} 步返回了 {v}，但这一步时权重的平均值是 {want}。检查每次都会重新抽取权重，并在不预"
        "先告知的步里移动它们：要在记录日志的那一步本身、GPU 完成这一步的更新之后去读它们（每 4 KiB 读"
        "一个权重，和原来的统计量一样）。",
    "step {i} returned {v}, not a number.": "第 {i} 步返回了 {v}，不是一个数字。",
    "{k} -> fix {n}: {why}": "{k} -> 修复办法 {n}：{why}",
    "{item} -> {label}: {why}": "{item} -> {label}：{why}",
    # -- notebook 08: porting CUDA to HIP -----------------------------------------------------------
    # port-check's device attributes (umkit/diagnostics/portcheck/rules.py)
    "1 on ROCm whenever the driver has SVM (HMM) support, XNACK or not.":
        "只要驱动支持 SVM（HMM），ROCm 上就是 1，与 XNACK 无关。",
    "1 on ROCm whenever the driver has SVM (HMM) support, XNACK or not: here it says 1 although the GPU "
    "cannot fault and nothing migrates on demand. Test PageableMemoryAccess for XNACK.":
        "只要驱动支持 SVM（HMM），ROCm 上就是 1，与 XNACK 无关：这里报告 1，但 GPU 不能缺页，也没有任何按需迁移。"
        "要判断 XNACK，请查 PageableMemoryAccess。",
    "{nums_n} here: on ROCm it is 1 exactly when XNACK is on for every GPU, so it is the XNACK test.":
        "这里是 {nums_n}：在 ROCm 上，只有每个 GPU 都打开了 XNACK 时它才是 1，所以判断 XNACK 就看它。",
    "{nums_n} here: on ROCm it is 1 exactly when XNACK is on for every GPU, so it is the XNACK test; code "
    "that needs it takes its fallback.":
        "这里是 {nums_n}：在 ROCm 上，只有每个 GPU 都打开了 XNACK 时它才是 1，所以判断 XNACK 就看它；"
        "需要它的代码会走后备路径。",
    "{nums_n} here: the CPU reads and writes GPU-resident managed pages in place, unlike an NVIDIA GPU on "
    "PCIe.":
        "这里是 {nums_n}：CPU 就地读写驻留在 GPU 上的托管页，这一点与 PCIe 上的 NVIDIA GPU 不同。",
    "{nums_n} here: a CPU touch of GPU-resident pages migrates them back, as on an NVIDIA GPU on PCIe.":
        "这里是 {nums_n}：CPU 一访问驻留在 GPU 上的页，就会把它们迁回主机，与 PCIe 上的 NVIDIA GPU 一样。",
    "a classic port:\n"
    "int on_demand = 0;\n"
    "hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);   // XNACK on: pages "
    "migrate on demand\n"
    "if (!on_demand) fprintf(stderr, ...);\n"
    "hipMallocManaged(&w, bytes, hipMemAttachGlobal);\n"
    "hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);\n"
    "hipMemPrefetchAsync(w, bytes, 0, stream);\n"
    "train_step<<<blocks, threads, 0, stream>>>(w, n);\n"
    "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);\n"
    "hipStreamSynchronize(stream);\nsave_checkpoint(w, n);\nhipFree(w);\n"
    "(the _v2 port is in solutions/08_porting_cuda_to_hip.py, beside the notebooks)":
        "一种经典的移植：\n"
        "int on_demand = 0;\n"
        "hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);   // XNACK 打开：页面"
        "按需迁移\n"
        "if (!on_demand) fprintf(stderr, ...);\n"
        "hipMallocManaged(&w, bytes, hipMemAttachGlobal);\n"
        "hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);\n"
        "hipMemPrefetchAsync(w, bytes, 0, stream);\n"
        "train_step<<<blocks, threads, 0, stream>>>(w, n);\n"
        "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);\n"
        "hipStreamSynchronize(stream);\nsave_checkpoint(w, n);\nhipFree(w);\n"
        "（_v2 的移植在 notebook 旁边的 solutions/08_porting_cuda_to_hip.py 里）",
    "{part_fix}\n\n" "a classic port:\n"
    "int on_demand = 0;\n"
    "hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);   // XNACK on: pages "
    "migrate on demand\n"
    "if (!on_demand) fprintf(stderr, ...);\n"
    "hipMallocManaged(&w, bytes, hipMemAttachGlobal);\n"
    "hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);\n"
    "hipMemPrefetchAsync(w, bytes, 0, stream);\n"
    "train_step<<<blocks, threads, 0, stream>>>(w, n);\n"
    "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);\n"
    "hipStreamSynchronize(stream);\nsave_checkpoint(w, n);\nhipFree(w);\n"
    "(the _v2 port is in solutions/08_porting_cuda_to_hip.py, beside the notebooks)":
        "{part_fix}\n\n" "一种经典的移植：\n"
        "int on_demand = 0;\n"
        "hipDeviceGetAttribute(&on_demand, hipDeviceAttributePageableMemoryAccess, 0);   // XNACK 打开：页面"
        "按需迁移\n"
        "if (!on_demand) fprintf(stderr, ...);\n"
        "hipMallocManaged(&w, bytes, hipMemAttachGlobal);\n"
        "hipMemAdvise(w, bytes, hipMemAdviseSetPreferredLocation, 0);\n"
        "hipMemPrefetchAsync(w, bytes, 0, stream);\n"
        "train_step<<<blocks, threads, 0, stream>>>(w, n);\n"
        "hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream);\n"
        "hipStreamSynchronize(stream);\nsave_checkpoint(w, n);\nhipFree(w);\n"
        "（_v2 的移植在 notebook 旁边的 solutions/08_porting_cuda_to_hip.py 里）",
    "{k}: budget_gb={b} ({part_budget}), lifetime={lt}, owner={o} ({part_owner}), allocator={a}":
        "{k}：budget_gb={b}（{part_budget}），lifetime={lt}，owner={o}（{part_owner}），allocator={a}",
    "3e9 parameters x 2 bytes (bf16) = 6 GB": "3e9 个 bf16 参数 x 2 字节 = 6 GB",
    "one bf16 gradient per parameter: 3e9 x 2 bytes = 6 GB": "每个参数一个 bf16 梯度：3e9 x 2 字节 = 6 GB",
    "two fp32 moments per parameter: 3e9 x 8 bytes = 24 GB": "每个参数两个 fp32 动量：3e9 x 8 字节 = 24 GB",
    "0.5 GB, as the description says": "0.5 GB，描述里就是这么写的",
    "a copy of the weights: 6 GB": "权重的一份拷贝：6 GB",
    "§5.3 and section 2 of the notebook: renaming is step one (umkit.names.cuda_to_hip gives each HIP "
    "name; umkit.names.row(name).note says where there is none, and where a renamed name answers a "
    "different question on ROCm). CUDA 13's cudaMemLocation has two HIP "
    "ports: HIP's classic calls with an int device (and their own argument lists), or the _v2 calls with a "
    "hipMemLocation, as in ROCm/clr hipamd/src/hip_hmm.cpp. Keep every prefetch -- AMD relies on them more "
    "than NVIDIA -- and keep the order the CPU and GPU depend on (§3.3)":
        "§5.3 和本 notebook 第 2 节：改名只是第一步（umkit.names.cuda_to_hip 给出每个 HIP 名字；没有对应名字的地方，"
        "以及改名后的名字在 ROCm 上回答的是另一个问题的地方，umkit.names.row(name).note 会说明）。"
        "CUDA 13 的 cudaMemLocation 在 HIP 里有两种移植法：HIP 经典的、"
        "以 int 设备号为参数的调用（参数列表也是它们自己的），或者以 hipMemLocation 为参数的 _v2 调用，"
        "见 ROCm/clr hipamd/src/hip_hmm.cpp。保留每一个预取——AMD 比 NVIDIA 更依赖它们——并保持 CPU 和 GPU "
        "所依赖的顺序（§3.3）",
    "§5.3's day-one table, one row per buffer: the budget is count x bytes per element (GB = 10^9 bytes); "
    "the lifetime is how long the buffer lives; the access owner is who touches it on the hot path, every "
    "step (a rare visitor is not an owner); the allocator follows from owner and lifetime: only the GPU -> "
    "device memory, the heart of §6.1; both sides every step -> managed + prefetch (§4.2), or pinned "
    "zero-copy when it is tiny (§4.4); rarely touched, CPU-side -> managed (§3.4)":
        "§5.3 的第一天表格，每块缓冲区一行：预算 = 个数 x 每个元素的字节数（GB = 10^9 字节）；生命周期是这块缓冲区活多久；"
        "访问主人是在热路径上、每一步都访问它的一方（偶尔来访的不算主人）；分配器由访问主人和生命周期决定：只有 GPU -> "
        "设备内存，即 §6.1 的心脏；两端每一步都访问 -> 托管内存 + 预取（§4.2），很小时用固定内存零拷贝（§4.4）；"
        "很少访问、在 CPU 一侧 -> 托管内存（§3.4）",
    "3e9 parameters in bf16 (2 bytes each). The GPU reads them in every forward and backward pass and the "
    "optimizer updates them every step; they live for the whole run.":
        "3e9 个 bf16 参数（每个 2 字节）。GPU 在每次前向和反向传播中读它们，优化器每一步都更新它们；它们贯穿整个运行。",
    "one bf16 gradient per parameter, written by the backward pass every step and consumed by the "
    "optimizer in the same step.":
        "每个参数一个 bf16 梯度，反向传播每一步都写，优化器在同一步里消费。",
    "two fp32 moments per parameter (8 bytes per parameter), updated by the optimizer on the GPU every "
    "step for the whole run; every 10 steps the CPU computes sparse statistics on them (the article's §4.3 "
    "optimizer).":
        "每个参数两个 fp32 动量（每个参数 8 字节），整个运行期间优化器每一步都在 GPU 上更新它们；每 10 步 CPU 对它们做一次"
        "稀疏统计（专栏 §4.3 的优化器）。",
    "0.5 GB of token ids per step, written by the CPU data loader, read once by the GPU.":
        "每一步 0.5 GB 的 token id，由 CPU 数据加载器写入，GPU 读一次。",
    "a 4 KB block (loss, grad norm) the GPU writes every step and the CPU logger reads every step.":
        "一块 4 KB 的数据（loss、梯度范数），GPU 每一步都写，CPU 的日志程序每一步都读。",
    "a copy of the weights made every 2,000 steps and written to disk by the CPU.":
        "每 2,000 步做一次的权重拷贝，由 CPU 写到磁盘。",
    "the GPU touches it every step; the CPU never does on the hot path": "GPU 每一步都访问它；CPU 在热路径上从不访问",
    "produced and consumed on the GPU inside one step": "在一步之内于 GPU 上产生并被消费",
    "the GPU updates it every step; the CPU's statistic every 10 steps is a rare visitor -- give it a small "
    "explicit copy (or a GPU-side statistic), not ownership":
        "GPU 每一步都更新它；CPU 每 10 步一次的统计只是偶尔来访——给它一次小的显式拷贝（或者在 GPU 上算统计量），而不是主人身份",
    "the CPU writes it and the GPU reads it, every step: both sides": "CPU 写、GPU 读，每一步都如此：两端",
    "the GPU writes it and the CPU reads it, every step: both sides": "GPU 写、CPU 读，每一步都如此：两端",
    "after the copy is made, only the CPU touches it (to write it to disk)": "拷贝做好之后，只有 CPU 访问它，把它写到磁盘",
    "a buffer only the GPU touches on the hot path belongs in device memory (hipMalloc), the heart of §6.1":
        "在热路径上只有 GPU 访问的缓冲区应该放在设备内存里（hipMalloc），即 §6.1 的心脏",
    "a buffer both sides touch every step is managed + prefetch (§4.2), or pinned zero-copy when it is "
    "tiny (§4.4)":
        "两端每一步都访问的缓冲区用托管内存 + 预取（§4.2），很小时用固定内存零拷贝（§4.4）",
    "Both sides touch it every step, but it is 4 KB: in managed memory its one page would migrate back and "
    "forth every step (a tiny ping-pong). Pinned host memory (hipHostMalloc) lets the GPU write it over the "
    "link with nothing migrating (§4.4); device memory with a small copy to the host each step (what "
    "loss.item() does) is right too.":
        "两端每一步都访问它，但它只有 4 KB：放在托管内存里，它那一个页每一步都会来回迁移（一场小小的乒乓）。"
        "固定主机内存（hipHostMalloc）让 GPU 经链路写它，什么都不迁移（§4.4）；设备内存加上每一步一次到主机的小拷贝"
        "（loss.item() 就是这么做的）也对。",
    "a faithful port: every name from the table, int devices instead of cudaMemLocation (hipCpuDeviceId for "
    "the host), no flags argument, and both prefetches kept. (hipMemPrefetchAsync_v2 / hipMemAdvise_v2 with a "
    "hipMemLocation would be right too: the most direct port of CUDA 13.)":
        "忠实的移植：每个名字都取自对照表，用 int 设备号代替 cudaMemLocation（主机用 hipCpuDeviceId），没有 flags 参数，"
        "两个预取都保留了。（用 hipMemLocation 配 hipMemPrefetchAsync_v2 / hipMemAdvise_v2 也对：那是对 CUDA 13 最直接的移植。）",
    "a faithful port of CUDA 13: hipMemLocation with hipMemPrefetchAsync_v2 / hipMemAdvise_v2 (flags 0), "
    "every other name from the table, and both prefetches kept. (The classic int-device calls would be "
    "right too.)":
        "对 CUDA 13 的忠实移植：hipMemLocation 配 hipMemPrefetchAsync_v2 / hipMemAdvise_v2（flags 为 0），其他每个名字都"
        "取自对照表，两个预取都保留了。（用经典的 int 设备号调用也对。）",
    "{argument} is still None: write the HIP version of nb08.CUDA_SOURCE as a string.":
        "{argument} 仍然是 None：把 nb08.CUDA_SOURCE 的 HIP 版本写成一个字符串。",
    "{argument} must be a string of C++ code, not {type}.": "{argument} 必须是一个 C++ 代码字符串，而不是 {type}。",
    "the device-memory buffers add up to {dev} GB, more than the {vram} GB card.":
        "设备内存缓冲区加起来有 {dev} GB，超过了 {vram} GB 的卡。",
    "every buffer has a budget, a lifetime and an access owner, and its allocator follows from them; {dev} "
    "GB of the {vram} GB card is device memory, the rest is activations' headroom. Same table, both "
    "platforms.":
        "每块缓冲区都有预算、生命周期和访问主人，它的分配器由这些决定；{vram} GB 的卡中 {dev} GB 是设备内存，"
        "其余留给激活值。同一张表，两个平台通用。",
    "{argument} is None: start from nb08.empty_owner_table().": "{argument} 是 None：从 nb08.empty_owner_table() 开始。",
    "{argument} must be a dict of rows, not {type}.": "{argument} 必须是一个由行组成的 dict，而不是 {type}。",
    "HIP spells it {h} (umkit.names.cuda_to_hip({n})).": "HIP 里写作 {h}（umkit.names.cuda_to_hip({n})）。",
    "the CUDA code prefetches twice, your port {n} time(s). Dropping a prefetch is exactly the port that cost "
    "one team a third of its throughput (§5.3).":
        "CUDA 代码预取了两次，你的移植是 {n} 次。丢掉一个预取，正是 §5.3 里让一个团队的吞吐量掉了三分之一的那种移植。",
    "keep both: hipMemPrefetchAsync(w, bytes, 0, stream) before the launch, hipMemPrefetchAsync(w, bytes, "
    "hipCpuDeviceId, stream) after it":
        "两个都保留：启动之前 hipMemPrefetchAsync(w, bytes, 0, stream)，之后 hipMemPrefetchAsync(w, bytes, hipCpuDeviceId, stream)",
    "no prefetch of your port sends w back to the host, as the CUDA code's second prefetch does.":
        "你的移植里没有一个预取像 CUDA 代码的第二个预取那样把 w 送回主机。",
    "no prefetch of your port inhales w into the GPU, as the CUDA code's first prefetch does.":
        "你的移植里没有一个预取像 CUDA 代码的第一个预取那样把 w 吸入 GPU。",
    "the kernel launch is gone.": "kernel 启动不见了。",
    "save_checkpoint(w, n) is gone: keep the program's own code.": "save_checkpoint(w, n) 不见了：保留程序自己的代码。",
    "the calls are not in the CUDA code's order: something now runs before what it depends on (§3.3).":
        "这些调用不是 CUDA 代码里的顺序：现在有东西在它所依赖的东西之前运行了（§3.3）。",
    "prefetch to the GPU, launch, prefetch to the CPU, synchronize, and only then let the CPU read w "
    "(save_checkpoint)":
        "预取到 GPU，启动，预取到 CPU，同步，然后才让 CPU 读 w（save_checkpoint）",
    "the CUDA code calls {cuda}(...); your port has no HIP counterpart of that call.":
        "CUDA 代码调用了 {cuda}(...)；你的移植里没有这个调用对应的 HIP 调用。",
    "{k}: each row is a dict(budget_gb=..., lifetime=..., owner=..., allocator=...).":
        "{k}：每一行都是一个 dict(budget_gb=..., lifetime=..., owner=..., allocator=...)。",
    "{k}: budget_gb is still None. Work it out from the description (GB = 10^9 bytes): {part_d}":
        "{k}：budget_gb 仍然是 None。根据描述算出来（GB = 10^9 字节）：{part_d}",
    "{k}: {field} is still None (one of {allowed}).": "{k}：{field} 仍然是 None（应为 {allowed} 之一）。",
    "{k}: {field}={v} is not one of {allowed}.": "{k}：{field}={v} 不是 {allowed} 之一。",
    "{k}: budget_gb={b} must be a number of GB.": "{k}：budget_gb={b} 必须是以 GB 为单位的数字。",
    # check_port's messages and fixes, and check_owner_table's, a Chinese learner met in English
    "hipDeviceGetAttribute({args}) has {nums_n} arguments; HIP's takes 3 (int *value, attribute, device).":
        "hipDeviceGetAttribute({args}) 有 {nums_n} 个参数；HIP 的这个调用接受 3 个（int *value, attribute, device）。",
    "{code_call}({args}) has {nums_n} arguments; HIP's {code_call} takes {nums_want}.":
        "{code_call}({args}) 有 {nums_n} 个参数；HIP 的 {code_call} 接受 {nums_want} 个。",
    "{code_call}({args}) has {nums_n} arguments; HIP's takes 4.":
        "{code_call}({args}) 有 {nums_n} 个参数；HIP 的这个调用接受 4 个。",
    "there are .type / .id assignments but no location variable they belong to.":
        "这里有 .type / .id 赋值，却没有它们所属的位置变量。",
    "{code_call}(..., flags={flags}, ...): hip_hmm.cpp rejects these flags with hipErrorInvalidValue.":
        "{code_call}(..., flags={flags}, ...)：hip_hmm.cpp 会以 hipErrorInvalidValue 拒绝这样的 flags。",
    "{code_call}: '{arg}': the _v2 calls take the hipMemLocation by value, not its address.":
        "{code_call}：'{arg}'：_v2 调用按值接受 hipMemLocation，而不是它的地址。",
    "{code_call}: '{arg}' is a hipMemLocation whose .type is never set.":
        "{code_call}：'{arg}' 是一个 hipMemLocation，但它的 .type 从未设置过。",
    "{code_call}: '{arg}' is an int device, but the _v2 calls take a location struct.":
        "{code_call}：'{arg}' 是一个 int 设备号，但 _v2 调用接受的是位置结构体。",
    "{code_call}: '{arg}' is not a hipMemLocation declared in your port.":
        "{code_call}：'{arg}' 不是你的移植里声明过的 hipMemLocation。",
    "{code_call}: '{arg}' is a hipMemLocation, but the classic call takes another kind of location "
    "argument.":
        "{code_call}：'{arg}' 是一个 hipMemLocation，但经典调用的位置参数是另一种类型。",
    "{code_call}: '{arg}' was a cudaMemLocation in the CUDA code, and your port declares no such variable.":
        "{code_call}：'{arg}' 在 CUDA 代码里是一个 cudaMemLocation，而你的移植没有声明这样的变量。",
    "{code_call}: '{arg}' is neither a device number nor the CPU's device id.":
        "{code_call}：'{arg}' 既不是设备号，也不是 CPU 的设备 id。",
    "{code_call}(..., {advice}, ...): that is not the advice the CUDA code gives.":
        "{code_call}(..., {advice}, ...)：这不是 CUDA 代码给出的访问建议（advice）。",
    "{code_call}: your advice points at the CPU; the CUDA code's does not.":
        "{code_call}：你的访问建议指向 CPU；CUDA 代码的建议并不指向 CPU。",
    "{note} Either pass int devices to the classic calls, or use hipMemLocation with "
    "hipMemPrefetchAsync_v2 / hipMemAdvise_v2.":
        "{note} 要么给经典调用传 int 设备号，要么用 hipMemLocation 配 hipMemPrefetchAsync_v2 / hipMemAdvise_v2。",
    "on ROCm, hipDeviceAttributeConcurrentManagedAccess is 1 whenever the driver has SVM, XNACK on or off; "
    "the attribute that is 1 only with XNACK on is hipDeviceAttributePageableMemoryAccess":
        "在 ROCm 上，只要驱动支持 SVM，hipDeviceAttributeConcurrentManagedAccess 就是 1，不管 XNACK 打开还是关闭；"
        "只有 XNACK 打开时才是 1 的属性是 hipDeviceAttributePageableMemoryAccess",
    "hipMemAdvise(...) (or hipMemAdvise_v2)": "hipMemAdvise(...)（或 hipMemAdvise_v2）",
    "declare hipMemLocation gpu0 = {}; (and host) for the _v2 calls, or drop the assignments":
        "为 _v2 调用声明 hipMemLocation gpu0 = {};（以及 host），或者去掉这些赋值",
    "hipMemPrefetchAsync(ptr, bytes, device, stream). HIP's classic call has no flags argument.":
        "hipMemPrefetchAsync(ptr, bytes, device, stream)。HIP 的经典调用没有 flags 参数。",
    "the flags must be 0": "flags 必须为 0",
    "pass {code_v} itself, not &{code_v}": "直接传 {code_v} 本身，而不是 &{code_v}",
    "set .type = hipMemLocationTypeDevice (with .id = 0) for GPU 0, or .type = hipMemLocationTypeHost for "
    "the CPU":
        "GPU 0 要设置 .type = hipMemLocationTypeDevice（并设 .id = 0），CPU 要设置 .type = hipMemLocationTypeHost",
    "pass a hipMemLocation (or use the classic call, which takes the int)":
        "传一个 hipMemLocation（或者改用接受 int 的经典调用）",
    "declare hipMemLocation gpu0 = {}; gpu0.type = hipMemLocationTypeDevice; gpu0.id = 0; (and host, of "
    "type hipMemLocationTypeHost)":
        "声明 hipMemLocation gpu0 = {}; gpu0.type = hipMemLocationTypeDevice; gpu0.id = 0;"
        "（以及 host，类型为 hipMemLocationTypeHost）",
    "the classic call takes an int device (0, or hipCpuDeviceId for the CPU); with a hipMemLocation, call "
    "the _v2 form":
        "经典调用接受一个 int 设备号（0；CPU 则用 hipCpuDeviceId）；要用 hipMemLocation，就调用 _v2 形式",
    "pass the device number (0) or hipCpuDeviceId -- or declare a hipMemLocation and call the _v2 form":
        "传设备号（0）或 hipCpuDeviceId——或者声明一个 hipMemLocation，改调 _v2 形式",
    "0 for GPU 0, hipCpuDeviceId (-1) for the CPU": "GPU 0 用 0，CPU 用 hipCpuDeviceId（-1）",
    "its location is the CPU: hipCpuDeviceId (-1) in the classic call, or a hipMemLocation of type "
    "hipMemLocationTypeHost in the _v2 call":
        "它的位置是 CPU：经典调用里用 hipCpuDeviceId（-1），_v2 调用里用类型为 hipMemLocationTypeHost 的 hipMemLocation",
    "its location is device 0": "它的位置是设备 0",
    "the CUDA code sets the preferred location; HIP spells it hipMemAdviseSetPreferredLocation":
        "CUDA 代码设置的是首选位置；HIP 里写作 hipMemAdviseSetPreferredLocation",
    "the CUDA code prefers GPU 0": "CUDA 代码的首选位置是 GPU 0",
    "hipcc accepts the same train_step<<<blocks, threads, 0, stream>>>(w, n) (or hipLaunchKernelGGL)":
        "hipcc 接受同样的 train_step<<<blocks, threads, 0, stream>>>(w, n)（或者用 hipLaunchKernelGGL）",
    "rows missing: {list_m}.": "缺少这些行：{list_m}。",
    # the answer's rows where two lifetimes or two allocators are right ("run or step")
    "{k}: budget_gb={b} ({part_budget}), lifetime={code_l1} or {code_l2}, owner={o} ({part_owner}), "
    "allocator={a}":
        "{k}：budget_gb={b}（{part_budget}），lifetime={code_l1} 或 {code_l2}，owner={o}（{part_owner}），allocator={a}",
    "{k}: budget_gb={b} ({part_budget}), lifetime={lt}, owner={o} ({part_owner}), allocator={code_a1} or "
    "{code_a2}":
        "{k}：budget_gb={b}（{part_budget}），lifetime={lt}，owner={o}（{part_owner}），allocator={code_a1} 或 {code_a2}",
    "{k}: budget_gb={b} ({part_budget}), lifetime={code_l1} or {code_l2}, owner={o} ({part_owner}), "
    "allocator={code_a1} or {code_a2}":
        "{k}：budget_gb={b}（{part_budget}），lifetime={code_l1} 或 {code_l2}，owner={o}（{part_owner}），"
        "allocator={code_a1} 或 {code_a2}",
    "the budgets are not all right yet. For every row: how many elements, how many bytes each (bf16 = "
    "2, fp32 = 4), and GB = 10^9 bytes -- and is it a copy of another buffer?":
        "预算还没有全对。对每一行：有多少个元素、每个多少字节（bf16 = 2，fp32 = 4），GB = 1"
        "0^9 字节——还有，它是不是另一块缓冲区的副本？",
    # -- umkit's typed errors: str(err) in the learner's language (umkit.errors.UmkitError.localize;
    #    message and hint fields stay English). validate.py's checks, the API, arrays, streams, the
    #    simulator's races, profiles and out-of-memory, the recorders ----------------------------------
    "{code_name}={value} must be an int": "{code_name}={value} 必须是整数",
    "{code_name} holds a character that is not text (a lone surrogate, as a file name that is not "
    "UTF-8 gives)":
        "{code_name} 含有一个不是文本的字符（孤立的代理项，不是 UTF-8 的文件名会解码出这种字符）",
    "pass {code_name} as text that is valid UTF-8": "请以合法的 UTF-8 文本传入 {code_name}",
    "pass a whole number, e.g. 0": "请传入整数，例如 0",
    "{code_name}={value} must be between {lo} and {hi}": "{code_name}={value} 必须在 {lo} 到 {hi} 之间",
    "{code_name}={value} must be >= {lo}": "{code_name}={value} 必须 >= {lo}",
    "{code_name}={value} must be <= {hi}": "{code_name}={value} 必须 <= {hi}",
    "pass an int between {lo} and {hi}": "请传入 {lo} 到 {hi} 之间的整数",
    "pass an int >= {lo}": "请传入 >= {lo} 的整数",
    "pass an int <= {hi}": "请传入 <= {hi} 的整数",
    "{code_name}={value} must be True or False": "{code_name}={value} 必须是 True 或 False",
    "pass {code_name}=True or {code_name}=False": "请传入 {code_name}=True 或 {code_name}=False",
    "{code_name}={value} must be a real number": "{code_name}={value} 必须是实数",
    "pass a number, e.g. {code_name}=1.0": "请传入一个数，例如 {code_name}=1.0",
    "{code_name}={value} is too large for a float": "{code_name}={value} 超出了浮点数的范围",
    "pass a number within float range": "请传入浮点数范围内的数",
    "{code_name}={value} must be finite": "{code_name}={value} 必须是有限值",
    "pass a finite number": "请传入有限值",
    "{code_name}={value} must be in [{lo}, {hi}]": "{code_name}={value} 必须在 [{lo}, {hi}] 之内",
    "pass a number in [{lo}, {hi}]": "请传入 [{lo}, {hi}] 之内的数",
    "{code_name}={value} must be a string": "{code_name}={value} 必须是字符串",
    "pass {code_name} as text": "请以文本形式传入 {code_name}",
    "{code_name}={value} is empty": "{code_name}={value} 是空的",
    "pass {code_name} as non-empty text": "请以非空文本传入 {code_name}",
    "{code_name} is {n} characters long (at most {limit})": "{code_name} 有 {n} 个字符（最多 {limit} 个）",
    "pass a shorter {code_name}": "请传入更短的 {code_name}",
    "{code_name}={value} holds control characters (newlines, escape codes)":
        "{code_name}={value} 含有控制字符（换行、转义序列）",
    "pass {code_name} as printable text on one line": "请以单行可打印文本传入 {code_name}",
    "{code_name}={value} must be a list or tuple": "{code_name}={value} 必须是 list 或 tuple",
    "pass {code_name} as a list, e.g. [...]": "请以列表传入 {code_name}，例如 [...]",
    "{code_name} holds {value}: not a finite number": "{code_name} 里有 {value}：不是有限值",
    "{code_name} holds {value}: not a string": "{code_name} 里有 {value}：不是字符串",
    "{code_name}[{key}]={value} is not a count": "{code_name}[{key}]={value} 不是计数器的数值",
    "rng={value} must be a NumPy random generator": "rng={value} 必须是 NumPy 随机数生成器",
    "rhythm holds a step with no layers or a fraction outside [0, 1]":
        "rhythm 里有一步没有任何层，或有比例不在 [0, 1] 之内",
    "this recording cannot be saved as JSON ({type}: {error})":
        "这份记录无法保存为 JSON（{type}：{error}）",
    "{code_name} is a list of numbers": "{code_name} 应当是由数字组成的列表",
    "{code_name}={value} must be a dict": "{code_name}={value} 必须是 dict",
    "pass the dict umkit made for {code_name}": "请传入 umkit 为 {code_name} 生成的 dict",
    "{code_name} lacks {missing}": "{code_name} 缺少 {missing}",
    "{code_name}={value} must be a path": "{code_name}={value} 必须是路径",
    "pass {code_name} as a file path (str or pathlib.Path)": "请以文件路径传入 {code_name}（str 或 pathlib.Path）",
    "{code_name}={value} is not a usable path ({why})": "{code_name}={value} 不是可用的路径（{why}）",
    "pick a shorter, plain path": "请换一个更短、不含特殊字符的路径",
    "use one of {list_options}": "请从 {list_options} 中选一个",
    "pass the path .save() wrote": "传入 .save() 写出的那个路径",
    "pass the path PlanResult.save() wrote": "传入 PlanResult.save() 写出的那个路径",
    "the managed pointer is the number {ptr}: that number is all another process would get":
        "托管指针就是数字 {ptr}：另一个进程能拿到的也只有这个数字",
    "pass what PlanResult.save() / .to_dict() wrote": "传入 PlanResult.save() / .to_dict() 写出的内容",
    "pass what RecordResult.to_dict() returned": "传入 RecordResult.to_dict() 返回的内容",
    "not a recorded plan: {spec}": "不是记录下来的计划：{spec}",
    "d: {type} is not a recorded plan": "d：{type} 不是记录下来的计划",
    "{path}: not a SQLite database ({err})": "{path}：不是 SQLite 数据库（{err}）",
    "path={path} is not JSON ({type})": "path={path} 不是 JSON（{type}）",
    "path={path} cannot be read ({err})": "path={path} 读不了（{err}）",
    "path={path} is larger than {n} MiB: not a recorded plan":
        "path={path} 大于 {n} MiB：不是记录下来的计划",
    "path={path} holds no recorded plan (a JSON {type})":
        "path={path} 里没有记录下来的计划（是一个 JSON {type}）",
    "your code replaced the kit's own {list_names} while the check ran: the check measures with them; "
    "leave umkit's functions as they are":
        "你的代码在检查运行时替换了工具包自己的 {list_names}：检查要用它们来测量；请别改动 umkit 的函数",
    "{code_name}={value} is unknown": "{code_name}={value} 未知",
    "{code_name}={value} must be a list or tuple of names": "{code_name}={value} 必须是由名字组成的 list 或 tuple",
    "{code_name} is empty": "{code_name} 是空的",
    "use some of {list_options}": "请从 {list_options} 中选用",
    "{code_name}={value} is not callable": "{code_name}={value} 不可调用",
    "pass a function, or leave {code_name} out": "请传入一个函数，或者省略 {code_name}",
    "dtype={value} is not a dtype": "dtype={value} 不是 dtype",
    "use e.g. 'float32', np.float16, 'int64'": "例如用 'float32'、np.float16 或 'int64'",
    "dtype={value} is not a NumPy dtype ({why})": "dtype={value} 不是 NumPy 的 dtype（{why}）",
    "dtype={value} is not supported in GPU memory": "GPU 内存不支持 dtype={value}",
    "use a numeric dtype: bool, int*, uint*, float*, complex*":
        "请用数值类型的 dtype：bool、int*、uint*、float*、complex*",
    "shape={value} is not a size": "shape={value} 不是有效的大小",
    "pass an int (elements) or a tuple of ints, e.g. (1024, 1024)":
        "请传入一个整数（元素个数）或由整数组成的 tuple，例如 (1024, 1024)",
    "shape= got a NumPy array {array}: a shape is an int or a tuple of ints, not data":
        "shape= 收到的是一个 NumPy 数组 {array}：shape 是整数或由整数组成的 tuple，不是数据",
    "to put data x in managed memory: a = umkit.managed(x.shape, x.dtype); a.host[:] = x":
        "要把数据 x 放进托管内存：a = umkit.managed(x.shape, x.dtype); a.host[:] = x",
    "shape=() would hold a single scalar": "shape=() 只能放一个标量",
    "use shape=1": "请用 shape=1",
    "shape has {n} dimensions; at most {limit}": "shape 有 {n} 个维度；最多 {limit} 个",
    "reshape to fewer dimensions": "请 reshape 成更少的维度",
    "shape={value}: {n} is not an integer": "shape={value}：{n} 不是整数",
    "sizes count elements: use ints, e.g. umkit.managed(2**20)":
        "大小按元素个数计：请用整数，例如 umkit.managed(2**20)",
    "shape={value}: every dimension must be > 0 (got {n})": "shape={value}：每个维度都必须 > 0（收到 {n}）",
    "allocate at least one element": "请至少分配一个元素",
    "{n} B is larger than any machine's memory": "{n} B 比任何机器的内存都大",
    "sizes count elements, not bytes: check the shape": "大小按元素个数计，不是字节数：请检查 shape",
    "{code_name}={n} must be > 0": "{code_name}={n} 必须 > 0",
    "allocate at least 1 byte": "请至少分配 1 字节",
    "{code_name}={n} is larger than any machine's memory": "{code_name}={n} 比任何机器的内存都大",
    "sizes are in bytes: check the arithmetic": "大小以字节计：请检查计算",
    "sizes are in bytes, e.g. 4096": "大小以字节计，例如 4096",
    "one of {list_options}": "应为 {list_options} 之一",
    "{code_name}={d} does not exist ({count} GPU(s) here)": "{code_name}={d} 不存在（这里只有 {count} 块 GPU）",
    "use 0..{last}": "请用 0..{last}",
    "use 0..{last} (the CPU is umkit.CPU, not a device number)":
        "请用 0..{last}（CPU 是 umkit.CPU，不是设备编号）",
    "use 0..{last}, or umkit.use('sim', gpus={n}) to simulate more GPUs":
        "请用 0..{last}，或者用 umkit.use('sim', gpus={n}) 模拟更多 GPU",
    "use 0 for the first GPU (0..{last} here)": "第一块 GPU 用 0（这里可用 0..{last}）",
    "{code_name}={value}: device {i} does not exist ({count} GPU(s))":
        "{code_name}={value}：设备 {i} 不存在（这里只有 {count} 块 GPU）",
    "use a valid device: 'cpu', or a GPU 0..{last}": "请用有效的设备：'cpu'，或 GPU 0..{last}",
    "byte range offset={off}, nbytes={n} is outside the array's {total} B":
        "字节范围 offset={off}、nbytes={n} 超出了数组的 {total} B",
    "byte ranges are whole numbers of bytes: 0 <= offset < offset+nbytes <= arr.nbytes":
        "字节范围是整数个字节：0 <= offset < offset+nbytes <= arr.nbytes",
    "{code_name}={value} must be a file path": "{code_name}={value} 必须是文件路径",
    "{code_name}={value} is a directory, not a file": "{code_name}={value} 是文件夹，不是文件",
    "{code_name}={value} is not a regular file": "{code_name}={value} 不是普通文件",
    "{code_name}={value}: unknown extension {ext}": "{code_name}={value}：未知的扩展名 {ext}",
    "{code_name}={value}: folder {parent} does not exist": "{code_name}={value}：文件夹 {parent} 不存在",
    "create the folder first, or pick another path": "请先建好这个文件夹，或者换一个路径",
    "{code_name}={value} cannot be written ({why})": "{code_name}={value} 无法写入（{why}）",
    "pick a path you can write": "请换一个你有写权限的路径",
    "{code_name}={where} is not a location": "{code_name}={where} 不是有效的位置",
    "use 'cpu' (the host), 'gpu' / 'gpu0' / 'cuda:1', a device number, or umkit.CPU":
        "请用 'cpu'（主机）、'gpu' / 'gpu0' / 'cuda:1'、设备编号，或 umkit.CPU",
    "build locations with umkit.CPU or umkit.gpu(i)": "请用 umkit.CPU 或 umkit.gpu(i) 构造位置",
    "use 'cpu', 'gpu', 'gpu1' or a device number": "请用 'cpu'、'gpu'、'gpu1' 或设备编号",
    "{code_name}: device {i} does not exist": "{code_name}：设备 {i} 不存在",
    "device numbers start at 0; -1 means the CPU": "设备编号从 0 开始；-1 表示 CPU",
    "{code_name} must be float32 (got {dtype})": "{code_name} 必须是 float32（收到 {dtype}）",
    "allocate with dtype='float32' (the kernels in kernels/ are float32)":
        "请用 dtype='float32' 分配（kernels/ 里的 kernel 只处理 float32）",
    "sizes differ: out {n}, a {na}, b {nb}": "大小不一致：out {n}，a {na}，b {nb}",
    "use equal sizes": "请用相同的大小",
    "add_kernel takes an int count: at most 2**31-1 elements":
        "add_kernel 的元素个数参数是 int 类型：最多 2**31-1 个元素",
    "increment_kernel takes an int count: at most 2**31-1 elements":
        "increment_kernel 的元素个数参数是 int 类型：最多 2**31-1 个元素",
    "split the work into chunks": "请把工作拆成几块",
    "value={value} does not fit a float32": "value={value} 超出了 float32 的范围",
    "use a value within ±{limit}": "请用 ±{limit} 之内的值",
    "stride_bytes={stride} must be a positive multiple of 4": "stride_bytes={stride} 必须是 4 的正整数倍",
    "e.g. 4096 (one float per host page) or 65536": "例如 4096（每个主机页一个 float）或 65536",
    "{code_name} was allocated on another backend instance ({a}) than the other arrays ({b}); each "
    "umkit.use(...) call starts a new backend":
        "{code_name} 分配在另一个后端实例（{a}）上，和其他数组（{b}）不同；每次调用 umkit.use(...) 都会启动一个新的后端",
    "{code_name} was allocated on another instance of the {a} backend than the other arrays: each "
    "umkit.use(...) call, and each check's sandbox, starts a new one":
        "{code_name} 和其他数组分配在 {a} 后端的不同实例上：每次调用 umkit.use(...)，以及每个检查的沙盒，都会启动一个新的实例",
    "allocate the arrays of one computation after the last umkit.use(...) -- for a check, inside the "
    "function you give it":
        "请把同一次计算用到的数组放在最后一次 umkit.use(...) 之后分配——交给检查的函数，就在函数里面分配",
    "allocate all arrays of one computation after the last umkit.use(...)":
        "请把同一次计算用到的数组，都放在最后一次 umkit.use(...) 之后分配",
    "cannot synchronize on {what}": "无法在 {what} 上同步",
    "pass nothing, a Stream or an Event": "请什么都不传，或传一个 Stream 或 Event",
    "stream={stream} is not a umkit.Stream": "stream={stream} 不是 umkit.Stream",
    "umkit.timer() or umkit.timer(umkit.Stream())": "请用 umkit.timer() 或 umkit.timer(umkit.Stream())",
    "out must be a pinned umkit.Array of x's dtype, at least as large as x":
        "out 必须是固定内存的 umkit.Array，dtype 与 x 相同，且不小于 x",
    "out={kind} must be a pinned umkit.Array or a NumPy array": "out={kind} 必须是固定内存的 umkit.Array 或 NumPy 数组",
    "or leave it out to get a new NumPy array": "或者省略 out，得到一个新的 NumPy 数组",
    "out is {out}, x is {x}: read_back copies, it does not convert":
        "out 是 {out}，x 是 {x}：read_back 只拷贝，不转换",
    "out is read-only": "out 是只读的",
    "pass a writable array (out.flags.writeable)": "请传入可写的数组（out.flags.writeable）",
    "copy between two NumPy arrays: that is host work": "两个 NumPy 数组之间的拷贝属于主机端的操作",
    "use numpy.copyto(dst, src)": "请用 numpy.copyto(dst, src)",
    "the NumPy side of a copy must be C-contiguous (and writeable when it is the destination)":
        "拷贝中 NumPy 那一侧必须是 C 连续的（作为目标时还必须可写）",
    "{what} on a umkit.Array: it is memory with two views, not an array of numbers":
        "对 umkit.Array 做{what}：它是一块有两个视图的内存，不是数值数组",
    "arithmetic": "算术运算",
    "indexing (a[...])": "索引（a[...]）",
    "assigning through an index (a[...] = ...)": "按索引赋值（a[...] = ...）",
    "iterating": "迭代",
    "use a.host (the CPU's NumPy view: a.host[0], a.host + 1, np.sum(a.host)) or a.device (the "
    "GPU's), or umkit.read_back(a) for a copy on the host":
        "请用 a.host（CPU 的 NumPy 视图：a.host[0]、a.host + 1、np.sum(a.host)）或 a.device（GPU 的视图），"
        "或者用 umkit.read_back(a) 在主机上得到一份拷贝",
    "{code_what} needs a umkit.Array, got {got}": "{code_what} 需要 umkit.Array，收到的是 {got}",
    "allocate with umkit.managed(...), umkit.device_array(...) or umkit.pinned(...)":
        "请用 umkit.managed(...)、umkit.device_array(...) 或 umkit.pinned(...) 分配",
    "{code_what} needs managed memory; this array is device memory":
        "{code_what} 需要托管内存；这个数组是设备内存（hipMalloc）",
    "{code_what} needs managed memory; this array is pinned memory":
        "{code_what} 需要托管内存；这个数组是固定内存（hipHostMalloc）",
    "only hipMallocManaged memory migrates: allocate with umkit.managed(...)":
        "只有 hipMallocManaged 的内存会迁移：请用 umkit.managed(...) 分配",
    "what={what} must be a string": "what={what} 必须是字符串",
    "the operation, e.g. a.check_alive('my kernel')": "操作的名字，例如 a.check_alive('my kernel')",
    "{what} on a freed array (ptr {ptr})": "{what}：该数组已被释放（ptr {ptr}）",
    "host access": "主机访问",
    "device access": "设备访问",
    "allocate a new array; a freed one cannot be used again": "请分配一个新数组；释放过的数组不能再用",
    "device memory (hipMalloc) has no host view": "设备内存（hipMalloc）没有主机视图",
    "use umkit.read_back(arr) to copy it to the host": "请用 umkit.read_back(arr) 把它拷贝到主机",
    "double free of array at {ptr}": "重复释放 {ptr} 处的数组（double free）",
    "free each array once (or let Python free it)": "每个数组只释放一次（或者交给 Python 释放）",
    "umkit exports its memory without copies (copy=True)": "请求了 copy=True，但 umkit 导出内存时从不拷贝",
    "copy on the consumer's side, or use umkit.copy": "请在消费方一侧拷贝，或者用 umkit.copy",
    "{code_what} through a view of freed memory (allocation {ptr})":
        "{code_what}：经由一个视图访问了已释放的内存（分配 {ptr}）",
    "a view does not keep its array alive: keep the umkit.Array until you are done with its views":
        "视图不会让它的数组保持存活：在用完它的视图之前，请一直保留这个 umkit.Array",
    "create one with umkit.Stream()": "请用 umkit.Stream() 创建一个",
    "end={end} is not a umkit.Event": "end={end} 不是 umkit.Event",
    "start.elapsed_ms(end) with two recorded umkit.Event()s":
        "用法：start.elapsed_ms(end)，start 和 end 都须是已记录的 umkit.Event()",
    "end belongs to another backend than this event": "end 和这个事件属于不同的后端",
    "create both events after the last umkit.use(...)": "请在最后一次 umkit.use(...) 之后再创建这两个事件",
    "event not recorded: elapsed_ms needs two recorded events": "事件还没记录：elapsed_ms 需要两个已记录的事件",
    "record both events first: start.record(s), end.record(s)": "请先记录两个事件：start.record(s)、end.record(s)",
    "stream={stream} belongs to another backend than the memory it is used with (created before "
    "a umkit.use(...) call?)":
        "stream={stream} 和它所用的内存属于不同的后端（是在某次 umkit.use(...) 之前创建的？）",
    "create the stream after umkit.use(...), with the arrays": "请在 umkit.use(...) 之后、和数组一起创建流",
    "backend={backend} is not a umkit backend": "backend={backend} 不是 umkit 的后端",
    "leave it out (the active backend), or pass a stream's .backend":
        "请省略此参数（使用当前后端），或者传某个流的 .backend",
    "backend name {name} must be a string": "后端名 {name} 必须是字符串",
    "one of {list_options}, or None to auto-detect": "应为 {list_options} 之一，或 None 表示自动检测",
    "counters={value} must be True or False": "counters={value} 必须是 True 或 False",
    "umkit.use('cuda', counters=True) starts CUPTI's counters": "umkit.use('cuda', counters=True) 会启动 CUPTI 的计数器",
    "options {list_options} only apply to the sim backend": "选项 {list_options} 只对 sim 后端有效",
    "call umkit.use({chosen}) without options (counters=True is the one GPU option)":
        "请不带选项调用 umkit.use({chosen})（counters=True 是唯一的 GPU 选项）",
    "pass gpus= between 1 and 7, e.g. umkit.use('sim', gpus=2)":
        "请传入 1 到 7 之间的 gpus=，例如 umkit.use('sim', gpus=2)",
    "{code_source}={value} is not a backend; valid: {valid} (or auto)":
        "{code_source}={value} 不是已知的后端；可用的有：{valid}（或 auto）",
    "backend {value} (requested) cannot run here: {why}": "指定的后端 {value} 在这里无法运行：{why}",
    "backend {value} ({code_source}) cannot run here: {why}": "后端 {value}（来自 {code_source}）在这里无法运行：{why}",
    "lang={value} is not a language umkit speaks": "lang={value} 不是 umkit 支持的语言",
    "one of {list_options} (or None for UMKIT_LANG / the workspace's)":
        "应为 {list_options} 之一（或 None，表示用 UMKIT_LANG / 工作区的设置）",
    "profile {value} not found": "找不到 profile {value}",
    "profile={value} must be a profile name or a JSON path": "profile={value} 必须是 profile 名或 JSON 文件路径",
    "e.g. umkit.explain(err), umkit.explain(2), umkit.explain('hipErrorOutOfMemory'), "
    "umkit.explain('slow')":
        "例如 umkit.explain(err)、umkit.explain(2)、umkit.explain('hipErrorOutOfMemory')、"
        "umkit.explain('slow')",
    "use one of {list_options} or a path to a JSON file": "请从 {list_options} 中选一个，或者给出一个 JSON 文件的路径",
    "unknown profile override {value}": "未知的 profile 覆盖项 {value}",
    "copy between a NumPy {a} array and a umkit {b} array: a copy moves bytes and does not convert":
        "在 NumPy 的 {a} 数组和 umkit 的 {b} 数组之间拷贝：拷贝只搬字节，不做类型转换",
    "use a NumPy array of {a} (or pass nbytes= to copy raw bytes)":
        "请用 {a} 类型的 NumPy 数组（或者传入 nbytes= 按原始字节拷贝）",
    "explain(error_or_code=...): a text of {nums_n} characters; an error name or a symptom is at most "
    "{nums_m}":
        "explain(error_or_code=...)：一段 {nums_n} 个字符的文本；错误名或症状最多 {nums_m} 个字符",
    "pass the error's name or a few words of the symptom (the exception itself: umkit.explain(err))":
        "传入错误名，或者用几个词描述症状（异常本身：umkit.explain(err)）",
    "using() switches the backend for a block, not the language (lang= is umkit.use's)":
        "using() 只在一个代码块里切换后端，不切换语言（lang= 是 umkit.use 的参数）",
    "umkit.use('sim', lang='zh') before the block": "在这个代码块之前调用 umkit.use('sim', lang='zh')",
    "valid: {list_options}": "可用的有：{list_options}",
    "profile override {code_name}={value} must be a finite number >= 0":
        "profile 覆盖项 {code_name}={value} 必须是 >= 0 的有限值",
    "profile override {code_name}={value} is beyond any machine (at most {top} in SI units)":
        "profile 覆盖项 {code_name}={value} 超出了任何机器的范围（SI 单位下最多 {top}）",
    "e.g. {code_name}={value} (SI units: bytes, seconds, bytes/s)": "例如 {code_name}={value}（SI 单位：字节、秒、字节/秒）",
    "{code_kind} allocation of {n} B ({gib} GiB): with compute=True the simulator keeps every byte in "
    "this machine's RAM, and this machine can give {avail} GiB":
        "{code_kind} 内存分配 {n} B（{gib} GiB）：compute=True 时，模拟器会把每个字节都放在本机内存里，而本机只能提供 {avail} GiB",
    "switch to model-only, umkit.use(\"sim\", compute=False): costs and counters without the bytes, "
    "page state as extents (sizes up to TiBs); or lower vram= to show oversubscription with small "
    "buffers":
        "请切换到仅模型模式 umkit.use(\"sim\", compute=False)：只算开销和计数器，不保存字节，页状态以区段记录"
        "（可到 TiB 级）；或者调低 vram=，用小缓冲区演示超额订阅",
    "{code_kind} allocation of {n} B ({gib} GiB): the simulator keeps the bytes in this machine's RAM, "
    "and the system refused them (MemoryError) though {avail} GiB looked free: a limit on this "
    "process may be lower":
        "{code_kind} 内存分配 {n} B（{gib} GiB）：模拟器把这些字节放在本机内存里，系统却拒绝了（MemoryError），"
        "尽管看起来还有 {avail} GiB 空闲：这个进程上可能有更低的限制",
    "the bytes of a {code_kind} allocation of {n} B ({gib} GiB): model-only sim keeps no bytes until a "
    "host or device view (or a copy) needs them, and this machine can give {avail} GiB":
        "{code_kind} 内存分配 {n} B（{gib} GiB）的字节：仅模型模式的 sim 在主机或设备视图（或拷贝）用到之前不保存字节，"
        "而本机只能提供 {avail} GiB",
    "model-only runs at this size charge kernels, prefetches and advice without data: use "
    "umkit.touch / umkit.increment and prefetch, not views of the array; or view a smaller array":
        "这种规模的仅模型运行只计 kernel、预取和建议的开销，不带数据：请用 umkit.touch / umkit.increment 和预取，"
        "不要用数组的视图；或者对更小的数组取视图",
    "{code_what} needs managed memory; {ptr} is device memory": "{code_what} 需要托管内存；{ptr} 是设备内存",
    "{code_what} needs managed memory; {ptr} is pinned memory": "{code_what} 需要托管内存；{ptr} 是固定内存",
    "device memory never migrates: allocate it with umkit.managed(...) to {code_what} it":
        "设备内存从不迁移：要对它做 {code_what}，请用 umkit.managed(...) 分配",
    "pinned memory never migrates: allocate it with umkit.managed(...) to {code_what} it":
        "固定内存从不迁移：要对它做 {code_what}，请用 umkit.managed(...) 分配",
    "{code_what}: range of {n} B at offset {off} runs past the allocation's {total} B":
        "{code_what}：从偏移 {off} 开始的 {n} B 超出了这次分配的 {total} B",
    "pass nbytes within the array": "请传入数组范围之内的 nbytes",
    "event not recorded yet": "事件还没记录",
    "record both events first": "请先记录两个事件",
    "kernel {code_kernel} is not in kernels/": "kernel {code_kernel} 不在 kernels/ 里",
    "available: {names}": "可用的有：{names}",
    "pointer {ptr} is not a live umkit allocation": "指针 {ptr} 不指向任何仍有效的 umkit 分配",
    "it was freed already, or never allocated by this backend": "它已经被释放，或者根本不是这个后端分配的",
    "device allocation of {n} B exceeds the simulated VRAM ({held} of {total} B in use) -- "
    "hipErrorOutOfMemory":
        "申请 {n} B 设备内存，超出了模拟显存容量（已用 {held} / {total} B）——hipErrorOutOfMemory",
    "device memory never breathes out: use managed memory for cold data":
        "设备内存从不呼气：冷数据请用托管内存",
    "free of {ptr}: not a live allocation (double free?)": "释放 {ptr} 失败：它不是仍有效的分配（重复释放？）",
    "free each buffer once; umkit arrays free themselves": "每个缓冲区只释放一次；umkit 数组会自己释放",
    "fill(a, 1.0): the kernel writes one float32 value everywhere":
        "fill(a, 1.0)：kernel 把同一个 float32 值写满整个数组",
    "a whole number of bytes, a multiple of 4, e.g. 4096": "整数个字节，且是 4 的倍数，例如 4096",
    "the number of recent events, e.g. last=20": "最近事件的个数，例如 last=20",
    "copy 1..{n} bytes": "请拷贝 1..{n} 字节",
    "explain(error_or_code={value}): a bool is not an error": "explain(error_or_code={value})：bool 不是错误",
    "explain(error_or_code=...): got a {code_type}, expected an exception, an int error code or a str":
        "explain(error_or_code=...)：收到的是 {code_type}，应为异常、整数错误码或字符串",
    "pass an exception, an int error code, an error name or a symptom string":
        "请传入一个异常、整数错误码、错误名或症状描述",
    "rec.step() called outside its `with` block": "rec.step() 在它的 `with` 块之外被调用",
    "rec.{code_what}() called before its `with` block": "rec.{code_what}() 在它的 `with` 块开始之前被调用",
    "use it as `with umkit.plan.recorder() as rec:`": "请这样用：`with umkit.plan.recorder() as rec:`",
    "call rec.step() inside `with umkit.ecg.recorder() as rec:`": "请在 `with umkit.ecg.recorder() as rec:` 里面调用 rec.step()",
    "rec.result() inside the `with` block": "rec.result() 在 `with` 块里面被调用",
    "call it after the block ends": "请在这个块结束之后再调用",
    "nothing recorded yet": "还没有记录任何内容",
    "use `with umkit.ecg.recorder() as rec:` and rec.step()": "请用 `with umkit.ecg.recorder() as rec:` 和 rec.step()",
    # the GPU backends (cuda / hip) and umkit.names
    "refusing to allocate {gib} GiB of managed memory on gpu{d}: only {free} GiB of its {total} GiB "
    "is free. Oversubscribing managed memory (asking for more than the GPU has free) makes the "
    "driver evict and re-fault pages, over and over when the data in use does not fit. NVIDIA "
    "documents oversubscription as supported; its own benchmark finds that performance can vary "
    "up to 100x with the platform, the oversubscription factor and the memory hints. If you mean "
    "it, opt in with umkit.allow_oversubscription(True) or {code_env}=1.":
        "拒绝在 gpu{d} 上分配 {gib} GiB 托管内存：它的 {total} GiB 中只有 {free} GiB 空闲。托管内存超额订阅"
        "（申请的比 GPU 空闲的还多）会让驱动驱逐页、再缺页迁回，正在用的数据放不下时就一遍又一遍地重复。"
        "NVIDIA 的文档说超额订阅是支持的；它自己的基准测试发现，随平台、超额订阅的倍数和内存建议不同，性能可相差多达 100 倍。"
        "如果你确实要这样做，请用 umkit.allow_oversubscription(True) 或 {code_env}=1 明确开启。",
    "Out of memory allocating {n} bytes of {code_kind} memory on {code_where}; {free} GiB of {total} "
    "GiB free ({detail})":
        "内存不足：在 {code_where} 上分配 {n} 字节的 {code_kind} 内存失败；{total} GiB 中有 {free} GiB 空闲（{detail}）",
    "Out of memory allocating {n} bytes of {code_kind} memory on {code_where} ({detail})":
        "内存不足：在 {code_where} 上分配 {n} 字节的 {code_kind} 内存失败（{detail}）",
    "{code_call} failed: {code_name} ({code})": "{code_call} 失败：{code_name}（{code}）",
    "{code_call} failed: {code_name} ({code}): {detail}": "{code_call} 失败：{code_name}（{code}）：{detail}",
    "{ptr} was already freed (double free)": "{ptr} 已经释放过了（重复释放）",
    "{ptr} is device memory (cudaMalloc/hipMalloc): the CPU cannot read it. Use memcpy, or allocate "
    "managed memory.":
        "{ptr} 是设备内存（cudaMalloc/hipMalloc）：CPU 读不了它。请用 memcpy，或者分配托管内存。",
    "host_view of {ptr}, which was freed": "host_view 访问了已释放的 {ptr}",
    "device_view of {ptr}, which was freed": "device_view 访问了已释放的 {ptr}",
    "advice {value} is HIP-only ({code_hip}): {code_rt} has no counterpart. {note}":
        "建议 {value} 只有 HIP 有（{code_hip}）：{code_rt} 没有对应项。{note}",
    "name={value} is not in umkit's CUDA<->HIP table (umkit.names)":
        "name={value} 不在 umkit 的 CUDA<->HIP 对照表里（umkit.names）",
    "see umkit.names.as_markdown() for the table": "对照表见 umkit.names.as_markdown()",
    "name={value} must be a CUDA or HIP name (a string)": "name={value} 必须是 CUDA 或 HIP 的名字（字符串）",
    "e.g. 'cudaMallocManaged' or 'hipMemPrefetchAsync'": "例如 'cudaMallocManaged' 或 'hipMemPrefetchAsync'",
    "name={value} is not a CUDA name in umkit's table": "name={value} 不是 umkit 对照表里的 CUDA 名字",
    "CUDA names start with cuda/CU; see umkit.names.as_markdown()":
        "CUDA 的名字以 cuda/CU 开头；见 umkit.names.as_markdown()",
    "name={value} is not a HIP name in umkit's table": "name={value} 不是 umkit 对照表里的 HIP 名字",
    "HIP names start with hip; see umkit.names.as_markdown()": "HIP 的名字以 hip 开头；见 umkit.names.as_markdown()",
    # umkit.examples.info: the HIP examples' titles and summaries (notebooks 03, 04, 05, 11)
    "Allocation and first touch": "分配与首次访问",
    "hipMallocManaged, CPU writes (first touch timed against a second pass), a kernel on the same "
    "pointer via hipLaunchKernelGGL, hipDeviceSynchronize, CPU reads, hipFree.":
        "hipMallocManaged，CPU 写入（首次访问与第二遍分别计时），通过 hipLaunchKernelGGL 在同一个指针上运行 "
        "kernel，hipDeviceSynchronize，CPU 读取，hipFree。",
    "Device vs stream vs event synchronization": "设备同步、流同步与事件同步",
    "Two streams; hipEventSynchronize waits for one recorded point, hipStreamSynchronize for one "
    "stream, hipDeviceSynchronize for every stream of the current device.":
        "两个流；hipEventSynchronize 等待一个记录下的时间点，hipStreamSynchronize 等待一个流，"
        "hipDeviceSynchronize 等待当前设备的每一个流。",
    "The epoch loop with prefetch": "带预取的 epoch 循环",
    "Three managed arrays; each epoch the CPU edits the batch, hipMemPrefetchAsync moves a and b to "
    "the GPU, add_kernel runs, the result is prefetched back to the CPU (hipCpuDeviceId) and summed.":
        "三个托管数组；每个 epoch 先由 CPU 修改这一批数据，hipMemPrefetchAsync 把 a 和 b 搬到 GPU，"
        "add_kernel 运行，结果再预取回 CPU（hipCpuDeviceId）并求和。",
    "The CPU/GPU ping-pong and its fix": "CPU/GPU 乒乓及其解决办法",
    "A sparse CPU statistic every 10 steps on managed parameters makes pages ping-pong; the fix keeps "
    "the hot parameters in hipMalloc memory and gathers the sample into a small managed buffer.  "
    "Both give the same statistics.":
        "每 10 步在托管参数上做一次稀疏的 CPU 统计，会让页面来回乒乓；解决办法是把热参数放在 hipMalloc "
        "内存里，并把样本收集到一块小的托管缓冲区。两种做法得到的统计结果相同。",
    "Advise, then prefetch": "先给建议，再预取",
    "hipMemAdvise SetPreferredLocation and SetAccessedBy, then hipMemPrefetchAsync, a kernel, and "
    "hipMemRangeGetAttribute to read back what the driver recorded.":
        "hipMemAdvise 的 SetPreferredLocation 和 SetAccessedBy，然后 hipMemPrefetchAsync、一个 kernel，"
        "再用 hipMemRangeGetAttribute 读回驱动记下的内容。",
    # umkit.names.as_markdown (notebook 08): the table's header, its concepts and notes
    # ("concept" is above, with the hints' words)
    "kind": "类别",
    "note": "说明",
    "function": "函数",
    "enum": "枚举",
    "attribute": "属性",
    "constant": "常量",
    "type": "类型",
    "macro": "宏",
    "count visible GPUs": "统计可见的 GPU 数量",
    "select the current GPU": "选择当前 GPU",
    "which GPU is current": "查询当前是哪块 GPU",
    "device properties struct": "设备属性结构体",
    "query one device attribute": "查询设备的一个属性",
    "free and total GPU memory": "GPU 的空闲内存和总内存",
    "driver version": "驱动版本",
    "runtime version": "运行时版本",
    "name of an error code": "错误码的名字",
    "description of an error code": "错误码的描述",
    "last error (and clear it)": "最近一个错误（并清除）",
    "last error (keep it)": "最近一个错误（保留）",
    "allocate managed (unified) memory": "分配托管（统一）内存",
    "allocate device memory": "分配设备内存",
    "free device or managed memory": "释放设备内存或托管内存",
    "allocate pinned host memory": "分配固定主机内存",
    "allocate pinned host memory with flags": "带标志分配固定主机内存",
    "free pinned host memory": "释放固定主机内存",
    "pin existing host memory": "把已有的主机内存固定下来",
    "unpin host memory": "解除主机内存的固定",
    "move managed pages ahead of use": "在使用之前搬移托管页面",
    "move managed pages ahead of use, to a location": "在使用之前把托管页面搬到一个位置",
    "give the driver a hint about a range": "就一段内存给驱动一个建议",
    "give the driver a hint about a range, for a location": "就一段内存、针对一个位置给驱动一个建议",
    "read one attribute of a managed range": "读取一段托管内存的一个属性",
    "read several attributes of a managed range": "读取一段托管内存的多个属性",
    "what memory an address is (unregistered, host, device, managed)":
        "一个地址属于哪种内存（未注册、主机、设备、托管）",
    "create a stream": "创建流",
    "create a stream with flags": "带标志创建流",
    "destroy a stream": "销毁流",
    "wait for a stream": "等待一个流",
    "is a stream idle": "流是否空闲",
    "wait for the whole device": "等待整个设备",
    "attach managed memory to one stream": "把托管内存关联到一个流",
    "export device memory to another process": "把设备内存导出给另一个进程",
    "create an event": "创建事件",
    "record an event on a stream": "在流上记录一个事件",
    "wait for an event": "等待一个事件",
    "has an event happened": "事件是否已经发生",
    "milliseconds between two events": "两个事件之间的毫秒数",
    "destroy an event": "销毁事件",
    "copy bytes (blocking)": "拷贝字节（阻塞）",
    "copy bytes on a stream": "在流上拷贝字节",
    "fill bytes": "填充字节",
    "fill bytes on a stream": "在流上填充字节",
    "HIP's struct also has gcnArchName (e.g. 'gfx90a:sramecc+:xnack+'): it tells whether the GPU "
    "was set up with XNACK, which on-demand page migration needs.":
        "HIP 的结构体还有 gcnArchName（例如 'gfx90a:sramecc+:xnack+'）：它说明这块 GPU 是否以 XNACK "
        "方式启动，而按需页迁移需要 XNACK。",
    "Same shape (attr, device) -> (err, int), but the attribute enum numbers differ: always pass "
    "the enum member, never a number.":
        "形式相同：(attr, device) -> (err, int)，但属性枚举的数值不同：永远传枚举成员，不要传数字。",
    "CUDA: 1000*major + 10*minor (13000 = 13.0); HIP: major*10^7 + minor*10^5 + patch.":
        "CUDA：1000*主版本 + 10*次版本（13000 = 13.0）；HIP：主版本*10^7 + 次版本*10^5 + 补丁号。",
    "cuda-bindings returns (cudaSuccess, bytes). HIP's C function returns only the name (const "
    "char*, no status: hip_runtime_api.h); what hip-python returns for it is not confirmed here: "
    "the kit has not run on an AMD GPU.":
        "cuda-bindings 返回 (cudaSuccess, bytes)。HIP 的 C 函数只返回名字（const char*，没有状态码："
        "hip_runtime_api.h）；hip-python 对它返回什么，这里尚未确认：本工具包还没有在 AMD GPU 上运行过。",
    "hipHostMalloc(size, 0) is the port: coherent (fine-grained) pinned memory; "
    "hipHostMallocNonCoherent gives the coarse-grained kind (ledger: amd.host_malloc.coherent). "
    "hipMallocHost is deprecated; some HIP headers also mark hipHostMalloc deprecated in favour of "
    "hipExtHostAlloc (ledger: amd.host_malloc.deprecated).":
        "移植时用 hipHostMalloc(size, 0)：一致性（细粒度）的固定内存；hipHostMallocNonCoherent 给出粗粒度的那种"
        "（出处台账：amd.host_malloc.coherent）。hipMallocHost 已弃用；有些 HIP 头文件也把 hipHostMalloc "
        "标为弃用，改推 hipExtHostAlloc（出处台账：amd.host_malloc.deprecated）。",
    "hipHostMalloc takes cudaHostAlloc's flags under hip names. Recent HIPIFY maps cudaHostAlloc "
    "to hipHostAlloc (older HIPIFY, while hipHostAlloc was deprecated up to ROCm 6.2, to "
    "hipHostMalloc; HIP 6.3 un-deprecated it), an equivalent port: its own function, not an alias, that accepts "
    "cudaHostAlloc's flags (Portable, Mapped, WriteCombined, and hipHostAllocUncached since "
    "HIP 7.0; anything else is hipErrorInvalidValue) and allocates through the same "
    "ihipHostMalloc (ROCm/clr hipamd/src/hip_memory.cpp, hipHostAlloc, f9f995c6). clr's "
    "development CHANGELOG of late 2024 marked hipHostMalloc deprecated in favour of "
    "hipExtHostAlloc; the released HIP 6.3 notes and HIP 6.4's deprecated-API list do not.":
        "hipHostMalloc 以 hip 的名字接受 cudaHostAlloc 的标志。新版 HIPIFY 把 cudaHostAlloc 映射为 hipHostAlloc"
        "（旧版 HIPIFY 在 hipHostAlloc 被标为弃用的那段时间——到 ROCm 6.2 为止——映射为 hipHostMalloc；HIP 6.3 取消了弃用），"
        "这是等价的移植：它是一个独立的函数，不是别名，接受 cudaHostAlloc 的标志（Portable、Mapped、"
        "WriteCombined，以及 HIP 7.0 起的 hipHostAllocUncached；其他标志返回 hipErrorInvalidValue），"
        "并通过同一个 ihipHostMalloc 分配（ROCm/clr hipamd/src/hip_memory.cpp，hipHostAlloc，f9f995c6）。"
        "clr 2024 年底的开发版 CHANGELOG 曾把 hipHostMalloc 标为弃用，改推 hipExtHostAlloc；"
        "正式发布的 HIP 6.3 说明和 HIP 6.4 的弃用 API 列表都没有这样写。",
    "CUDA 13: (ptr, count, cudaMemLocation, flags, stream). HIP: (ptr, count, device:int, stream) "
    "with hipCpuDeviceId for the CPU (hipMemPrefetchAsync_v2 takes a hipMemLocation).":
        "CUDA 13：(ptr, count, cudaMemLocation, flags, stream)。HIP：(ptr, count, device:int, stream)，"
        "CPU 用 hipCpuDeviceId 表示（hipMemPrefetchAsync_v2 接受 hipMemLocation）。",
    "HIP 7.1 (HIP CHANGELOG, 'HIP 7.1 for ROCm 7.1'; ROCm/clr hipamd/src/hip_hmm.cpp: "
    "hipMemPrefetchAsync_v2(ptr, count, hipMemLocation, flags, stream); flags must be 0): the "
    "arguments of CUDA 13's cudaMemPrefetchAsync, so the direct port of CUDA 13 code. CUDA 12.2-12.x "
    "spelled it cudaMemPrefetchAsync_v2.":
        "HIP 7.1 起（HIP CHANGELOG，'HIP 7.1 for ROCm 7.1'；ROCm/clr hipamd/src/hip_hmm.cpp："
        "hipMemPrefetchAsync_v2(ptr, count, hipMemLocation, flags, stream)；flags 必须为 0）：参数与 CUDA 13 的 "
        "cudaMemPrefetchAsync 相同，所以是 CUDA 13 代码的直接移植。CUDA 12.2–12.x 写作 cudaMemPrefetchAsync_v2。",
    "CUDA 13: (ptr, count, advice, cudaMemLocation). HIP: (ptr, count, advice, device:int). "
    "hip-python raises TypeError unless advice is a hip.hipMemoryAdvise member (ROCm/hip-python "
    "hip/hip.pyx, hipMemAdvise; release/rocm-rel-6.2.0, 55ae539d).":
        "CUDA 13：(ptr, count, advice, cudaMemLocation)。HIP：(ptr, count, advice, device:int)。"
        "advice 不是 hip.hipMemoryAdvise 的成员时，hip-python 会抛出 TypeError（ROCm/hip-python "
        "hip/hip.pyx，hipMemAdvise；release/rocm-rel-6.2.0，55ae539d）。",
    "HIP 7.1 (HIP CHANGELOG, 'HIP 7.1 for ROCm 7.1'; ROCm/clr hipamd/src/hip_hmm.cpp: "
    "hipMemAdvise_v2(ptr, count, advice, hipMemLocation)): the arguments of CUDA 13's cudaMemAdvise, "
    "so the direct port of CUDA 13 code. CUDA 12.2-12.x spelled it cudaMemAdvise_v2.":
        "HIP 7.1 起（HIP CHANGELOG，'HIP 7.1 for ROCm 7.1'；ROCm/clr hipamd/src/hip_hmm.cpp："
        "hipMemAdvise_v2(ptr, count, advice, hipMemLocation)）：参数与 CUDA 13 的 cudaMemAdvise 相同，"
        "所以是 CUDA 13 代码的直接移植。CUDA 12.2–12.x 写作 cudaMemAdvise_v2。",
    "cuda-bindings: (dataSize, attribute, ptr, count) -> (err, value). hip-python: (data, "
    "data_size, attribute, ptr, count) -> (err,): you pass the output buffer (ROCm/hip-python "
    "hip/hip.pyx, hipMemRangeGetAttribute; release/rocm-rel-6.2.0, 55ae539d).":
        "cuda-bindings：(dataSize, attribute, ptr, count) -> (err, value)。hip-python：(data, data_size, "
        "attribute, ptr, count) -> (err,)：输出缓冲区由你传入（ROCm/hip-python hip/hip.pyx，"
        "hipMemRangeGetAttribute；release/rocm-rel-6.2.0，55ae539d）。",
    "-> (err, attributes) with .type; an address nobody holds is 'unregistered' (CUDA 11+). umkit "
    "asks it before calling a once-freed address a use after free: another allocator (PyTorch's, a "
    "shim) may have been handed the same address since.":
        "-> (err, attributes)，类型在 .type 里；没有人持有的地址是 'unregistered'（CUDA 11+）。umkit 在把一个"
        "曾经释放过的地址判为释放后使用之前会先问它：此后同一个地址可能已经交给了另一个分配器（PyTorch 的、或某个 shim）。",
    "ROCm validates the arguments and does nothing else (ledger: amd.stream_attach.noop).":
        "ROCm 只检查参数，别的什么也不做（出处台账：amd.stream_attach.noop）。",
    "hipMallocManaged memory cannot be exported (ledger: amd.ipc.managed): export hipMalloc memory.":
        "hipMallocManaged 的内存不能导出（出处台账：amd.ipc.managed）：请导出 hipMalloc 的内存。",
    "{code_name} has no {code_rt} counterpart: {note}": "{code_name} 在 {code_rt} 里没有对应项：{note}",
    "see the row's note: umkit.names.row(name).note": "见这一行的注释：umkit.names.row(name).note",
    # the simulator's race detector (strict mode raises RaceDetected; otherwise a RaceWarning)
    "race: {who} writes bytes [{lo}, {hi}) of allocation {ptr} while kernel '{code_kernel}' on stream "
    "{stream} may still {kaccess} them (nothing waited for it; in model time it ends at {end} ms, "
    "now {now} ms)":
        "数据竞争：{who}写入了分配块 {ptr} 中的字节 [{lo}, {hi})，而流 {stream} 上的 kernel '{code_kernel}' "
        "可能仍在{kaccess}这些字节（没有任何同步等待它完成；按模型时间它在 {end} ms 结束，现在是 {now} ms）",
    "race: {who} reads bytes [{lo}, {hi}) of allocation {ptr} while kernel '{code_kernel}' on stream "
    "{stream} may still {kaccess} them (nothing waited for it; in model time it ends at {end} ms, "
    "now {now} ms)":
        "数据竞争：{who}读取了分配块 {ptr} 中的字节 [{lo}, {hi})，而流 {stream} 上的 kernel '{code_kernel}' "
        "可能仍在{kaccess}这些字节（没有任何同步等待它完成；按模型时间它在 {end} ms 结束，现在是 {now} ms）",
    "race: '{code_other}' on stream {other} writes bytes [{lo}, {hi}) of allocation {ptr} while "
    "'{code_kernel}' on stream {stream} may still {kaccess} them (nothing waited for it; in model "
    "time it ends at {end} ms, now {now} ms)":
        "数据竞争：流 {other} 上的 '{code_other}' 写入了分配块 {ptr} 中的字节 [{lo}, {hi})，而流 {stream} 上的 "
        "'{code_kernel}' 可能仍在{kaccess}这些字节（没有任何同步等待它完成；按模型时间它在 {end} ms 结束，"
        "现在是 {now} ms）",
    "race: '{code_other}' on stream {other} reads bytes [{lo}, {hi}) of allocation {ptr} while "
    "'{code_kernel}' on stream {stream} may still {kaccess} them (nothing waited for it; in model "
    "time it ends at {end} ms, now {now} ms)":
        "数据竞争：流 {other} 上的 '{code_other}' 读取了分配块 {ptr} 中的字节 [{lo}, {hi})，而流 {stream} 上的 "
        "'{code_kernel}' 可能仍在{kaccess}这些字节（没有任何同步等待它完成；按模型时间它在 {end} ms 结束，"
        "现在是 {now} ms）",
    "race: {who} hands out a raw pointer to bytes of allocation {ptr} while '{code_kernel}' on "
    "stream {stream} may still {kaccess} them; what code does through a raw pointer cannot be "
    "checked":
        "数据竞争：{who} 交出了指向分配 {ptr} 中字节的裸指针，而流 {stream} 上的 '{code_kernel}' "
        "可能仍在{kaccess}这些字节；通过裸指针做的事无法检查",
    "{message}. Fix: {hint}": "{message}。修复：{hint}",
    "write": "写",
    "read": "读",
    "host": "主机",
    "the host (a.host, handed out now)": "主机（刚取得的 a.host 视图）",
    "the host (a view derived from a.host)": "主机（从 a.host 派生的视图）",
    "the host (a slice of a.host)": "主机（a.host 的切片）",
    "the host (a.host.data, a memoryview)": "主机（a.host.data，一个 memoryview）",
    "the host (a.host.flat)": "主机（a.host.flat）",
    "the host (a.host.base)": "主机（a.host.base）",
    "the host (through a view handed out earlier, by a path NumPy does not dispatch)":
        "主机（通过先前取得的视图，走了 NumPy 不分派的路径）",
    "synchronize first: stream.synchronize() or event.synchronize() (article §3.3); without it "
    "the result may be wrong, with no error (§5.1)":
        "请先同步：stream.synchronize() 或 event.synchronize()（专栏 §3.3）；不同步的话，结果可能是错的，"
        "却不会报错（§5.1）",
    "synchronize first: stream.synchronize() or event.synchronize() (article §3.3); without it "
    "the result may be wrong, with no error (§5.1); take the view only after the wait":
        "请先同步：stream.synchronize() 或 event.synchronize()（专栏 §3.3）；不同步的话，结果可能是错的，"
        "却不会报错（§5.1）；等同步完成之后再取视图",
    "synchronize first: stream.synchronize() or event.synchronize() (article §3.3); without it "
    "the result may be wrong, with no error (§5.1); take the pointer only after the wait":
        "请先同步：stream.synchronize() 或 event.synchronize()（专栏 §3.3）；不同步的话，结果可能是错的，"
        "却不会报错（§5.1）；等同步完成之后再取指针",
    "order the two streams: put both on one stream, or wait for the first (stream.synchronize(), "
    "or an event recorded on it) before starting the second (article §3.3)":
        "给两个流排好顺序：把两者放到同一个流上，或者先等第一个完成（stream.synchronize()，或在它上面记录的"
        "事件），再启动第二个（专栏 §3.3）",

    # -- the figures' texts (umkit.runtime.lang.for_figure: Chinese only where matplotlib has a
    #    CJK font; umkit.ecg.picture, umkit.plan.picture, the residency picture, the panel) -------
    "the CPU reads the statistics": "CPU 读取统计数据",
    "the CPU edits the data": "CPU 修改数据",
    "the CPU touches the data": "CPU 访问数据",
    "{what} (every {n} steps)": "{what}（每 {n} 步一次）",
    "steps where {band}": "{band}的步",
    "{code_name} (same curve as {code_other})": "{code_name}（与 {code_other} 曲线相同）",
    "spike: {cause}": "毛刺：{cause}",
    "-> its pages migrate to the CPU (and back)": "-> 它的页迁移到 CPU（之后再迁回来）",
    "training step": "训练步",
    "step time (ms, model time)": "每步耗时（ms，模型时间）",
    "step time (ms)": "每步耗时（ms）",
    "memory ECG: {n} MiB, pattern {code_pattern}, {part_where}": "显存心电图：{n} MiB，模式 {code_pattern}，{part_where}",
    "sim, modelled {code_profile}": "sim，模拟 {code_profile}",
    "strategy panel: step times ({code_backend})": "策略面板：每步耗时（{code_backend}）",
    "training steps, one group per run": "训练步，每次运行一组",
    "step": "步",
    "who touched what: GPU blue, CPU red, both purple ({code_backend})":
        "谁访问了什么：GPU 蓝色，CPU 红色，两边都有为紫色（{code_backend}）",
    "to the GPU": "迁到 GPU",
    "to the CPU": "迁到 CPU",
    "MiB moved": "迁移量（MiB）",
    "{n} pages of {k} KiB, {per} page(s) per cell": "{n} 个 {k} KiB 的页，每格 {per} 页",
    "predicted memory ECG of {name} under each plan ({code_profile}, replayed on sim)":
        "{name}在各个方案下的预测显存心电图（{code_profile}，在 sim 上重放）",
    "your loop": "你的循环",

    # -- this round: the exercises' new feedback (framework, 06-10) ------------------------------------
    "the check could not use what your code gave back ({error}): return the kind of value the exercise "
    "asks for":
        "检查没法使用你的代码返回的东西（{error}）：请返回练习要求的那种值",
    "your code freed an array the check gave it, or used one after freeing it ({error}): free only what "
    "your own code allocated":
        "你的代码释放了检查交给它的数组，或者在释放之后又用了它（{error}）：只释放你自己的代码分配的数组",
    "§3.1: an array is freed once, by whoever allocated it":
        "§3.1：一个数组只释放一次，由分配它的人来释放",
    "your code recursed without end (RecursionError): what calls itself?":
        "你的代码无休止地递归了（RecursionError）：是什么在调用它自己？",
    "the check could not grade this answer (it gave {type}, not a verdict)":
        "检查没法为这个答案评分（它给出的是 {type}，不是一个判定）",
    "the sums did not come from `out`: after {k} of the {epochs} kernels "
    "the CPU never read all of `out` before the next one (taking out.host and reading nothing of it, or "
    "one part of it again and again, is no read of it all). Each epoch's sum must be the CPU reading what "
    "add_kernel wrote (umkit.add(out, a, b, ...), then a sum over out.host or over umkit.read_back(out)). "
    "A read through np.asarray(out.host) or out.host.view(np.ndarray) leaves umkit's view: the simulator "
    "does not see it, so read out.host itself.":
        "这些和不是从 `out` 来的：{epochs} 个 kernel 中有 {k} 个之后"
        "，CPU 在下一个 kernel 之前没有读完整个 `out`（只取 out.host 而什么都不读，或者反复只读它的一部分，"
        "都不算读完）。每个 epoch 的和都必须是 CPU 读出 add_kernel 写下的内容（umkit.add(out, a, b, ...)，"
        "然后对 out.host 或 umkit.read_back(out) 求和）。经由 np.asarray(out.host) 或 out.host.view(np.ndarray) "
        "的读取离开了 umkit 的视图：模拟器看不到它，所以请直接读 out.host。",
    "the budgets are right; the owners, allocators and lifetimes are not all right yet. For every row "
    "ask: who touches it on the hot path, how often, how big is it, and which memory lets that side "
    "touch it without migrating it back and forth?":
        "预算都对了；访问主人、分配器和生命周期还没有全对。对每一行都问一问：热路径上谁访问它、多久一次、它有多大"
        "，哪种内存能让那一方访问它而不必来回迁移？",
    "a buffer the CPU must read: managed memory, prefetched to the host before the CPU reads it (the "
    "column's choice, §3.4), or pinned host memory with an explicit async copy -- both right; "
    "device-only memory is wrong, the CPU must read it":
        "这是一块 CPU 必须读的缓冲区：托管内存，在 CPU 读之前预取到主机（专栏的选择，§3.4），或者固"
        "定主机内存加一次显式的异步拷贝——两者都对；只放在设备内存里是错的，因为 CPU 必须读它",
    "The CPU writes it to disk: device-only memory is wrong, the CPU must read it. Managed memory "
    "prefetched to the host before the CPU reads it (the column's choice), or pinned host memory with "
    "an explicit async copy, are both right.":
        "CPU 要把它写到磁盘：只放在设备内存里是错的，CPU 必须读它。托管内存在 CPU 读之前预取到主机（"
        "专栏的选择），或者固定主机内存加一次显式的异步拷贝，两者都对。",
    "A snapshot the CPU writes to disk every few thousand steps: managed memory, prefetched to the host "
    "before the CPU reads it (the column's choice, §3.4), is the answer; pinned host memory with an "
    "explicit async copy (an asynchronous copy from device memory that overlaps training) is also "
    "right. Device-only memory is wrong: the CPU must read it.":
        "每隔几千步由 CPU 写到磁盘的一份快照：答案是托管内存，在 CPU 读之前预取到主机（专栏的选择，§3"
        ".4）；固定主机内存加一次显式的异步拷贝（从设备内存异步拷贝，与训练重叠）也对。只放在设备内存里是错的："
        "CPU 必须读它。",
    "{concept}. Each report gives you something to look up: an error number, a message from the "
    "runtime, a symptom with no error at all":
        "{concept}。每份报告都给了你一样可以去查的东西：一个错误码、一条运行时的信息，或者一个根本没有报"
        "错的症状",

    # -- the doctor: this machine's AMD/NVIDIA checks (machine_checks) ---------------------------------
    "{gpu}: XNACK (GPU page faults, pages migrate on demand)":
        "{gpu}：XNACK（GPU 缺页，页面按需迁移）",
    "{gpu}: an application APU":
        "{gpu}：一块面向应用的 APU（MI300A）",
    "{gpu}: unified memory (UMA): carve-out and GTT":
        "{gpu}：统一内存（UMA）：划出的显存和 GTT",
    "{gfx} has XNACK always on: it is not a target feature to choose (no :xnack+/-) and HSA_XNACK does "
    "not turn it off (ledger: amd.xnack.gfx1250_always)":
        "{gfx} 的 XNACK 始终打开：它不是一个可选的目标特性（没有 :xnack+/-），HSA_XN"
        "ACK 也关不掉它（ledger: amd.xnack.gfx1250_always）",
    "on (MI300A: one HBM for CPU and GPU; XNACK on lets kernels use malloc'd memory in place)":
        "打开（MI300A：CPU 和 GPU 共用一块 HBM；XNACK 打开后，kernel 可以原地使用"
        " malloc 出来的内存）",
    "off: on MI300A managed memory does not migrate either way (one HBM); XNACK off only stops kernels "
    "from touching plain malloc'd memory":
        "关闭：在 MI300A 上托管内存哪个方向都不迁移（只有一块 HBM）；XNACK 关闭只会让 kern"
        "el 不能访问普通的 malloc 内存",
    "not shown in this output: on MI300A managed memory does not migrate either way (one HBM); XNACK "
    "off only stops kernels from touching plain malloc'd memory":
        "这份输出里没有显示：在 MI300A 上托管内存哪个方向都不迁移（只有一块 HBM）；XNACK 关闭只"
        "会让 kernel 不能访问普通的 malloc 内存",
    "off: on MI300A managed memory does not migrate either way (one HBM); XNACK off only stops kernels "
    "from touching plain malloc'd memory HSA_XNACK=1 is set but had no effect: the kernel's HMM "
    "(CONFIG_HMM_MIRROR, amdgpu's SVM), an MI200 SR-IOV virtual function or another GPU without XNACK in the same "
    "process turn it off (ledger: amd.xnack.all_gpus, amd.xnack.sriov_mi200)":
        "关闭：在 MI300A 上托管内存哪个方向都不迁移（只有一块 HBM）；XNACK 关闭只会让 kern"
        "el 不能访问普通的 malloc 内存。HSA_XNACK=1 已设置，但没有生效：内核的 HMM（C"
        "ONFIG_HMM_MIRROR，amdgpu 的 SVM）、MI200 的 SR-IOV 虚拟功能（VF），或者同一进程里另一块没有"
        " XNACK 的 GPU，都会把它关掉（ledger: amd.xnack.all_gpus, amd."
        "xnack.sriov_mi200）",
    "{gfx} can't turn XNACK on per process: managed pages move only when prefetched (ledger: "
    "amd.xnack.gfx908)":
        "{gfx} 无法按进程打开 XNACK：托管页只有在预取时才移动（ledger: amd.xnack.g"
        "fx908）",
    "prefetch managed memory before kernels use it (umkit.prefetch)":
        "在 kernel 使用托管内存之前先预取它（umkit.prefetch）",
    "on: managed (and, with HMM, malloc'd) pages migrate to the GPU on its page faults":
        "打开：托管页（有 HMM 时还有 malloc 出来的页）会在 GPU 缺页时迁移到 GPU",
    "off (the default on MI200/MI300)":
        "关闭（MI200/MI300 上的默认值）",
    "off (the default on MI200/MI300) HSA_XNACK=1 is set but had no effect: the kernel's HMM "
    "(CONFIG_HMM_MIRROR, amdgpu's SVM), an MI200 SR-IOV virtual function or another GPU without XNACK in the same "
    "process turn it off (ledger: amd.xnack.all_gpus, amd.xnack.sriov_mi200)":
        "关闭（MI200/MI300 上的默认值）。HSA_XNACK=1 已设置，但没有生效：内核的 HMM（"
        "CONFIG_HMM_MIRROR，amdgpu 的 SVM）、MI200 的 SR-IOV 虚拟功能（VF），或者同一进程里另一块没"
        "有 XNACK 的 GPU，都会把它关掉（ledger: amd.xnack.all_gpus, amd"
        ".xnack.sriov_mi200）",
    "{gfx} can turn XNACK on per process; this output does not say whether it is on (rocminfo's ISA "
    "name ends in xnack+ when it is)":
        "{gfx} 可以按进程打开 XNACK；这份输出没有说明它是否已打开（打开时 rocminfo 的 IS"
        "A 名称以 xnack+ 结尾）",
    "check with `HSA_XNACK=1 rocminfo | grep xnack`; export HSA_XNACK=1 before Python starts (ROCm "
    "reads it at the first HIP call), on a GPU whose target supports per-process xnack (CDNA2 and "
    "later: gfx90a, gfx942, ...; gfx908 stays xnack-). Without it the GPU can't take page faults: "
    "hipMallocManaged maps (and faults in) the whole range when it is allocated and pages move only "
    "when you prefetch, and a kernel that touches plain malloc'd memory faults fatally (ledger: "
    "amd.xnack0.alloc_maps, amd.malloc.xnack0_fault; §2.2, umkit.explain('slow'))":
        "用 `HSA_XNACK=1 rocminfo | grep xnack` 检查；在 Python 启动"
        "之前 export HSA_XNACK=1（ROCm 在第一个 HIP 调用时读取它），而且 GPU 的"
        "目标要支持按进程打开 xnack（CDNA2 及之后：gfx90a、gfx942 等；gfx908 始终"
        "是 xnack-）。没有它，GPU 就不能处理缺页：hipMallocManaged 在分配时就把整个范"
        "围映射好（并通过缺页填充好），页面只在你预取时才移动；而访问普通 malloc 内存的 kernel 会"
        "因缺页而致命地失败（ledger: amd.xnack0.alloc_maps, amd.malloc."
        "xnack0_fault；§2.2，umkit.explain('slow')）",
    "ROCm supports XNACK on Instinct (MI) GPUs only (ledger: amd.xnack.mi_only)":
        "ROCm 只在 Instinct（MI）系列 GPU 上支持 XNACK（ledger: amd.xna"
        "ck.mi_only）",
    "ROCm forces XNACK off on this gfx9 client APU (ledger: amd.xnack.gfx9_client_apu_off)":
        "在这块 gfx9 客户端 APU 上，ROCm 强制关闭 XNACK（ledger: amd.xnack"
        ".gfx9_client_apu_off）",
    "no XNACK: {why}. hipMallocManaged maps the whole range when it is allocated and pages move only "
    "when you prefetch them; a kernel that touches plain malloc'd memory faults, and an example written "
    "for on-demand migration can hang or fail here (ledger: amd.xnack0.alloc_maps, "
    "amd.malloc.xnack0_fault)":
        "没有 XNACK：{why}。hipMallocManaged 在分配时就把整个范围映射好，页面只在你预"
        "取时才移动；访问普通 malloc 内存的 kernel 会缺页出错，为按需迁移而写的示例在这里可能卡住"
        "或失败（ledger: amd.xnack0.alloc_maps, amd.malloc.xnack0"
        "_fault）",
    "no XNACK: {why}. hipMallocManaged maps the whole range when it is allocated and pages move only "
    "when you prefetch them; a kernel that touches plain malloc'd memory faults, and an example written "
    "for on-demand migration can hang or fail here (ledger: amd.xnack0.alloc_maps, "
    "amd.malloc.xnack0_fault) HSA_XNACK=1 is set but had no effect: the kernel's HMM "
    "(CONFIG_HMM_MIRROR, amdgpu's SVM), an MI200 SR-IOV virtual function or another GPU without XNACK in the same "
    "process turn it off (ledger: amd.xnack.all_gpus, amd.xnack.sriov_mi200)":
        "没有 XNACK：{why}。hipMallocManaged 在分配时就把整个范围映射好，页面只在你预"
        "取时才移动；访问普通 malloc 内存的 kernel 会缺页出错，为按需迁移而写的示例在这里可能卡住"
        "或失败（ledger: amd.xnack0.alloc_maps, amd.malloc.xnack0"
        "_fault）。HSA_XNACK=1 已设置，但没有生效：内核的 HMM（CONFIG_HMM_MIR"
        "ROR，amdgpu 的 SVM）、MI200 的 SR-IOV 虚拟功能（VF），或者同一进程里另一块没有 XNACK 的 GPU，"
        "都会把它关掉（ledger: amd.xnack.all_gpus, amd.xnack.sriov_m"
        "i200）",
    "use hipMalloc + copies, or managed memory with explicit prefetches; umkit.explain('managed example "
    "hangs')":
        "改用 hipMalloc 加拷贝，或者托管内存加显式预取；umkit.explain('managed "
        "example hangs')",
    "CPU and GPU share one HBM: managed memory is not migrated and is read at HBM speed from both "
    "sides; a prefetch changes only mappings (ledger: amd.apu.no_migration)":
        "CPU 和 GPU 共用一块 HBM：托管内存不迁移，两边都以 HBM 的速度读它；预取只改变映射（le"
        "dger: amd.apu.no_migration）",
    "export HSA_XNACK=1 before Python starts (ROCm reads it at the first HIP call). On this APU the CPU "
    "and the GPU share one HBM, so managed memory is not read over a link and nothing migrates either "
    "way; what XNACK off costs is GPU access to plain malloc'd (or new'd) memory: a kernel touching it "
    "faults fatally instead of mapping it in place, so only hipMalloc, hipMallocManaged and "
    "hipHostMalloc/hipHostRegister'ed memory work (ledger: amd.apu.no_migration, "
    "amd.malloc.xnack0_fault)":
        "在 Python 启动之前 export HSA_XNACK=1（ROCm 在第一个 HIP 调用时读取"
        "它）。在这块 APU 上 CPU 和 GPU 共用一块 HBM，所以托管内存不经链路读取，哪个方向都不迁"
        "移；XNACK 关闭的代价是 GPU 不能访问普通 malloc（或 new）出来的内存：访问它的 ke"
        "rnel 会因缺页而致命地失败，而不是原地映射它，所以只有 hipMalloc、hipMallocMan"
        "aged 和 hipHostMalloc/hipHostRegister 注册过的内存能用（ledger"
        ": amd.apu.no_migration, amd.malloc.xnack0_fault）",
    "GPUs with and without XNACK in one process":
        "同一进程里有的 GPU 有 XNACK，有的没有",
    "XNACK is on only when every GPU the process sees supports it (ledger: amd.xnack.all_gpus)":
        "只有进程看到的每块 GPU 都支持 XNACK 时，它才会打开（ledger: amd.xnack.al"
        "l_gpus）",
    "hide the GPUs without XNACK: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES":
        "把没有 XNACK 的 GPU 藏起来：HIP_VISIBLE_DEVICES / ROCR_VISIB"
        "LE_DEVICES",
    "a virtualised node ({virtual})":
        "虚拟化的节点（{virtual}）",
    "a VM is not always SR-IOV: with PCIe passthrough the guest drives the whole GPU and XNACK works as "
    "on bare metal; as an SR-IOV virtual function an MI200 (gfx90a) gets no XNACK "
    "(amdgpu_sriov_xnack_support; AMD, in amd/MxGPU-Virtualization#23), the MI300 series does: check "
    "`HSA_XNACK=1 rocminfo | grep xnack` inside the guest (ledger: amd.xnack.sriov_mi200)":
        "虚拟机不一定是 SR-IOV：PCIe 直通时虚拟机独占整块 GPU，XNACK 和裸金属上一样可用；作为 SR-IOV 虚拟功能（VF）时，"
        "MI200（gfx90a）拿不到 XNACK（amdgpu_sriov_xnack_support；AMD 在 amd/MxGPU-Virtualization#23 中的说明），"
        "MI300 系列可以：在虚拟机里用 `HSA_XNACK=1 rocminfo | grep xnack` 检查（ledger: amd.xnack.sriov_mi200）",
    "a VM is not always SR-IOV: with PCIe passthrough XNACK works as on bare metal, and under SR-IOV only "
    "MI200 virtual functions refuse it: check `HSA_XNACK=1 rocminfo | grep xnack` inside the guest "
    "(ledger: amd.xnack.sriov_mi200)":
        "虚拟机不一定是 SR-IOV：PCIe 直通时 XNACK 和裸金属上一样可用；在 SR-IOV 下只有 MI200 的虚拟功能（VF）拒绝它："
        "在虚拟机里用 `HSA_XNACK=1 rocminfo | grep xnack` 检查（ledger: amd.xnack.sriov_mi200）",
    "ask for a bare-metal node (or an MI300-series guest) when you need on-demand migration":
        "需要按需迁移时，申请一台裸金属节点（或 MI300 系列的虚拟机）",
    "running in a container ({container})":
        "在容器中运行（{container}）",
    "HSA_XNACK must be set in the container's own environment; the kernel, its HMM and amdgpu's options "
    "are the host's (read the host's /boot/config-*); /dev/kfd and /dev/dri must be passed in (ledger: "
    "amd.no_hmm.host_fallback)":
        "HSA_XNACK 必须设在容器自己的环境里；内核、它的 HMM 和 amdgpu 的选项都是宿主机的（"
        "去读宿主机的 /boot/config-*）；/dev/kfd 和 /dev/dri 必须传进容器（le"
        "dger: amd.no_hmm.host_fallback）",
    "NVIDIA {name}: no framebuffer memory reported":
        "NVIDIA {name}：没有报告帧缓冲（显存）大小",
    "NVML reports no framebuffer memory on this GPU (nvidia-smi: N/A / Not Supported): CPU and GPU "
    "share one memory, as on DGX Spark's GB10; the memory left is the system's (/proc/meminfo "
    "MemAvailable), and managed memory need not move (ledger: nv.gb10.nvml_no_fb)":
        "NVML 报告这块 GPU 没有帧缓冲内存（nvidia-smi：N/A / Not Supported"
        "）：CPU 和 GPU 共用一块内存，就像 DGX Spark 的 GB10；剩余内存看的是系统的（/p"
        "roc/meminfo 的 MemAvailable），托管内存不必移动（ledger: nv.gb10"
        ".nvml_no_fb）",
    "raise the carve-out (UMA frame buffer) in the BIOS, or the GTT limit (ttm.pages_limit) on the "
    "kernel command line; use hipMalloc (ROCm 6.4+) rather than hipMallocManaged for large buffers; "
    "umkit.explain('only 15.5 GiB visible')":
        "在 BIOS 里调大划出的显存（UMA frame buffer），或者在内核命令行上调高 GTT 上限"
        "（ttm.pages_limit）；大缓冲区用 hipMalloc（ROCm 6.4+）而不是 hipM"
        "allocManaged；umkit.explain('only 15.5 GiB visible')",
    "the kernel's HMM / amdgpu SVM (managed memory that migrates)":
        "内核的 HMM / amdgpu SVM（会迁移的托管内存）",
    "KFD reports the SVM API on every GPU node (capability bit HSA_CAP_SVMAPI_SUPPORTED; ledger: "
    "amd.kfd.svm_capability)":
        "KFD 在每个 GPU 节点上都报告了 SVM 接口（能力位 HSA_CAP_SVMAPI_SUPPOR"
        "TED；ledger: amd.kfd.svm_capability）",
    "a GPU node lacks KFD's SVM API bit: hipMallocManaged gives pinned host memory and nothing migrates "
    "(ledger: amd.kfd.svm_capability, amd.no_hmm.host_fallback)":
        "有一个 GPU 节点缺少 KFD 的 SVM 接口位：hipMallocManaged 给出的是固定主机"
        "内存，什么都不迁移（ledger: amd.kfd.svm_capability, amd.no_hmm"
        ".host_fallback）",
    "a kernel built with CONFIG_HSA_AMD_SVM (CONFIG_HMM_MIRROR, CONFIG_DEVICE_PRIVATE) is needed":
        "需要一个用 CONFIG_HSA_AMD_SVM（CONFIG_HMM_MIRROR、CONFIG_DE"
        "VICE_PRIVATE）编译的内核",
    "the kernel's config could not be read (no /boot/config-$(uname -r), no /proc/config.gz; in a "
    "container it is the host's)":
        "读不到内核的配置（没有 /boot/config-$(uname -r)，也没有 /proc/confi"
        "g.gz；在容器里它是宿主机的）",
    "check `grep -E 'HMM_MIRROR|HSA_AMD_SVM' /boot/config-$(uname -r)` on the host, or the capability "
    "line of /sys/class/kfd/kfd/topology/nodes/*/properties (ledger: amd.kfd.svm_capability)":
        "在宿主机上检查 `grep -E 'HMM_MIRROR|HSA_AMD_SVM' /boot/conf"
        "ig-$(uname -r)`，或者 /sys/class/kfd/kfd/topology/nodes"
        "/*/properties 里的 capability 那一行（ledger: amd.kfd.svm_"
        "capability）",
    "CONFIG_HMM_MIRROR and CONFIG_HSA_AMD_SVM are set (ledger: amd.kernel.hsa_amd_svm)":
        "CONFIG_HMM_MIRROR 和 CONFIG_HSA_AMD_SVM 都已设置（ledger: "
        "amd.kernel.hsa_amd_svm）",
    "the kernel lacks {missing}: amdgpu's SVM is off, so HSA_XNACK=1 has no effect and hipMallocManaged "
    "gives pinned host memory (ledger: amd.kernel.hsa_amd_svm, amd.no_hmm.host_fallback)":
        "内核缺少 {missing}：amdgpu 的 SVM 是关闭的，所以 HSA_XNACK=1 不起作用"
        "，hipMallocManaged 给出的是固定主机内存（ledger: amd.kernel.hsa_"
        "amd_svm, amd.no_hmm.host_fallback）",
    "boot a kernel with CONFIG_HSA_AMD_SVM=y (it needs CONFIG_DEVICE_PRIVATE and selects "
    "CONFIG_HMM_MIRROR): distribution kernels for ROCm have it":
        "用一个 CONFIG_HSA_AMD_SVM=y 的内核启动（它需要 CONFIG_DEVICE_PRI"
        "VATE，并会选上 CONFIG_HMM_MIRROR）：面向 ROCm 的发行版内核都有它",

    # -- the doctor: an APU's carve-out and GTT (each combination the doctor writes) -------------------
    "On consumer APUs ROCm and PyTorch size device memory by the carve-out (users see 'only 15.5 GiB "
    "visible' on a 128 GB Strix Halo); since ROCm 6.4 hipMalloc falls back to GTT-backed memory past "
    "it, by a user's account (ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64)":
        "在消费级 APU 上，ROCm 和 PyTorch 按划出的显存来算设备内存（用户在 128 GB 的 "
        "Strix Halo 上看到“只有 15.5 GiB 可见”）；据一位用户的说法，从 ROCm 6.4 "
        "起，超出这部分时 hipMalloc 会退回到以 GTT 为后备的内存（ledger: amd.apu."
        "carveout_visible, amd.apu.gtt_fallback_64）",
    "On consumer APUs ROCm and PyTorch size device memory by the carve-out (users see 'only 15.5 GiB "
    "visible' on a 128 GB Strix Halo); since ROCm 6.4 hipMalloc falls back to GTT-backed memory past "
    "it, by a user's account (ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64); on gfx1150 "
    "hipMallocManaged can return hipErrorNotSupported (ledger: amd.apu.gfx1150_managed)":
        "在消费级 APU 上，ROCm 和 PyTorch 按划出的显存来算设备内存（用户在 128 GB 的 "
        "Strix Halo 上看到“只有 15.5 GiB 可见”）；据一位用户的说法，从 ROCm 6.4 "
        "起，超出这部分时 hipMalloc 会退回到以 GTT 为后备的内存（ledger: amd.apu."
        "carveout_visible, amd.apu.gtt_fallback_64）；在 gfx1150"
        " 上，hipMallocManaged 可能返回 hipErrorNotSupported（ledger"
        ": amd.apu.gfx1150_managed）",
    "ROCm's device memory here is the BIOS carve-out ({carve}). On consumer APUs ROCm and PyTorch size "
    "device memory by the carve-out (users see 'only 15.5 GiB visible' on a 128 GB Strix Halo); since "
    "ROCm 6.4 hipMalloc falls back to GTT-backed memory past it, by a user's account (ledger: "
    "amd.apu.carveout_visible, amd.apu.gtt_fallback_64)":
        "这里 ROCm 的设备内存是 BIOS 划出的显存（{carve}）。在消费级 APU 上，ROCm 和"
        " PyTorch 按划出的显存来算设备内存（用户在 128 GB 的 Strix Halo 上看到“只有"
        " 15.5 GiB 可见”）；据一位用户的说法，从 ROCm 6.4 起，超出这部分时 hipMallo"
        "c 会退回到以 GTT 为后备的内存（ledger: amd.apu.carveout_visible,"
        " amd.apu.gtt_fallback_64）",
    "ROCm's device memory here is the BIOS carve-out ({carve}). On consumer APUs ROCm and PyTorch size "
    "device memory by the carve-out (users see 'only 15.5 GiB visible' on a 128 GB Strix Halo); since "
    "ROCm 6.4 hipMalloc falls back to GTT-backed memory past it, by a user's account (ledger: "
    "amd.apu.carveout_visible, amd.apu.gtt_fallback_64); on gfx1150 hipMallocManaged can return "
    "hipErrorNotSupported (ledger: amd.apu.gfx1150_managed)":
        "这里 ROCm 的设备内存是 BIOS 划出的显存（{carve}）。在消费级 APU 上，ROCm 和"
        " PyTorch 按划出的显存来算设备内存（用户在 128 GB 的 Strix Halo 上看到“只有"
        " 15.5 GiB 可见”）；据一位用户的说法，从 ROCm 6.4 起，超出这部分时 hipMallo"
        "c 会退回到以 GTT 为后备的内存（ledger: amd.apu.carveout_visible,"
        " amd.apu.gtt_fallback_64）；在 gfx1150 上，hipMallocManag"
        "ed 可能返回 hipErrorNotSupported（ledger: amd.apu.gfx1150"
        "_managed）",
    "the GTT (system memory the GPU may map) is {gtt}. On consumer APUs ROCm and PyTorch size device "
    "memory by the carve-out (users see 'only 15.5 GiB visible' on a 128 GB Strix Halo); since ROCm 6.4 "
    "hipMalloc falls back to GTT-backed memory past it, by a user's account (ledger: "
    "amd.apu.carveout_visible, amd.apu.gtt_fallback_64)":
        "GTT（GPU 可以映射的系统内存）是 {gtt}。在消费级 APU 上，ROCm 和 PyTorch "
        "按划出的显存来算设备内存（用户在 128 GB 的 Strix Halo 上看到“只有 15.5 GiB"
        " 可见”）；据一位用户的说法，从 ROCm 6.4 起，超出这部分时 hipMalloc 会退回到以 G"
        "TT 为后备的内存（ledger: amd.apu.carveout_visible, amd.apu."
        "gtt_fallback_64）",
    "the GTT (system memory the GPU may map) is {gtt}. On consumer APUs ROCm and PyTorch size device "
    "memory by the carve-out (users see 'only 15.5 GiB visible' on a 128 GB Strix Halo); since ROCm 6.4 "
    "hipMalloc falls back to GTT-backed memory past it, by a user's account (ledger: "
    "amd.apu.carveout_visible, amd.apu.gtt_fallback_64); on gfx1150 hipMallocManaged can return "
    "hipErrorNotSupported (ledger: amd.apu.gfx1150_managed)":
        "GTT（GPU 可以映射的系统内存）是 {gtt}。在消费级 APU 上，ROCm 和 PyTorch "
        "按划出的显存来算设备内存（用户在 128 GB 的 Strix Halo 上看到“只有 15.5 GiB"
        " 可见”）；据一位用户的说法，从 ROCm 6.4 起，超出这部分时 hipMalloc 会退回到以 G"
        "TT 为后备的内存（ledger: amd.apu.carveout_visible, amd.apu."
        "gtt_fallback_64）；在 gfx1150 上，hipMallocManaged 可能返回 h"
        "ipErrorNotSupported（ledger: amd.apu.gfx1150_managed）",
    "ROCm's device memory here is the BIOS carve-out ({carve}); the GTT (system memory the GPU may map) "
    "is {gtt}. On consumer APUs ROCm and PyTorch size device memory by the carve-out (users see 'only "
    "15.5 GiB visible' on a 128 GB Strix Halo); since ROCm 6.4 hipMalloc falls back to GTT-backed "
    "memory past it, by a user's account (ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64)":
        "这里 ROCm 的设备内存是 BIOS 划出的显存（{carve}）；GTT（GPU 可以映射的系统内存"
        "）是 {gtt}。在消费级 APU 上，ROCm 和 PyTorch 按划出的显存来算设备内存（用户在 "
        "128 GB 的 Strix Halo 上看到“只有 15.5 GiB 可见”）；据一位用户的说法，从 "
        "ROCm 6.4 起，超出这部分时 hipMalloc 会退回到以 GTT 为后备的内存（ledger:"
        " amd.apu.carveout_visible, amd.apu.gtt_fallback_64）",
    "ROCm's device memory here is the BIOS carve-out ({carve}); the GTT (system memory the GPU may map) "
    "is {gtt}. On consumer APUs ROCm and PyTorch size device memory by the carve-out (users see 'only "
    "15.5 GiB visible' on a 128 GB Strix Halo); since ROCm 6.4 hipMalloc falls back to GTT-backed "
    "memory past it, by a user's account (ledger: amd.apu.carveout_visible, amd.apu.gtt_fallback_64); "
    "on gfx1150 hipMallocManaged can return hipErrorNotSupported (ledger: amd.apu.gfx1150_managed)":
        "这里 ROCm 的设备内存是 BIOS 划出的显存（{carve}）；GTT（GPU 可以映射的系统内存"
        "）是 {gtt}。在消费级 APU 上，ROCm 和 PyTorch 按划出的显存来算设备内存（用户在 "
        "128 GB 的 Strix Halo 上看到“只有 15.5 GiB 可见”）；据一位用户的说法，从 "
        "ROCm 6.4 起，超出这部分时 hipMalloc 会退回到以 GTT 为后备的内存（ledger:"
        " amd.apu.carveout_visible, amd.apu.gtt_fallback_64）；"
        "在 gfx1150 上，hipMallocManaged 可能返回 hipErrorNotSupport"
        "ed（ledger: amd.apu.gfx1150_managed）",

    # -- saved files (umkit.results.files), umkit.torch.oom_advice(), profiler files (umkit.ecg.traces) ---
    "{code_argument}={path}: {n} numbered files exist already":
        "{code_argument}={path}：已经有 {n} 个编了号的文件",
    "move the old files away, or name another path":
        "把旧文件挪走，或者换一个路径",
    "{code_argument}={path} exists: the file there is kept":
        "{code_argument}={path} 已经存在：那里的文件保持不动",
    "pass {code_flag} to replace it, or name another path":
        "传入 {code_flag} 来替换它，或者换一个路径",
    "exists={value} is not one of refuse, number, replace":
        "exists={value} 不是 refuse、number、replace 之一",
    "data is {type}, not text or bytes":
        "data 是 {type}，不是文本或字节",
    "pass a str or bytes":
        "请传入 str 或 bytes",
    "{code_argument}={path} is not a regular file: it is left alone":
        "{code_argument}={path} 不是普通文件：不去动它",
    "name a regular file":
        "请指定一个普通文件",
    "free some space on that disk, or name a path on another one":
        "在那块磁盘上腾出一些空间，或者换一个在别的磁盘上的路径",
    "--json {path} is the recording being read: writing it would replace the recording":
        "--json {path} 正是要读取的那份录制：写它会替换掉录制",
    "name another file for --json": "请为 --json 换一个文件名",
    "{code_argument}={path} could not be written ({reason}); the file already there is unchanged":
        "{code_argument}={path} 写不进去（{reason}）；那里原有的文件没有改动",
    "{code_argument}={path} could not be written ({reason}); nothing was written":
        "{code_argument}={path} 写不进去（{reason}）；什么都没有写",
    "PyTorch ran out of GPU memory. Read the numbers first: torch.cuda.memory_summary() shows memory "
    "held by tensors (allocated) against memory PyTorch keeps cached (reserved); a large "
    "reserved-but-unallocated part is fragmentation.":
        "PyTorch 用完了 GPU 显存。先看数字：torch.cuda.memory_summary() "
        "会列出张量占用的内存（allocated）和 PyTorch 缓存着的内存（reserved）；rese"
        "rved 里有一大块没有分配出去，那就是碎片。",
    "Against fragmentation: export {conf} before Python starts, so the caching allocator grows segments "
    "instead of leaving holes; where a build does not support expandable segments PyTorch says so in a "
    "warning and ignores the setting.":
        "对付碎片：在 Python 启动之前 export {conf}，让缓存分配器扩展已有的段，而不是留下空"
        "洞；某个构建不支持可扩展段（expandable segments）时，PyTorch 会给出一条警告并"
        "忽略这个设置。",
    "To hold more than the card: allocate the model inside `with umkit.torch.managed():` (managed "
    "memory can exceed device memory: pages move in and out), then umkit.torch.prefetch(model, 'gpu') "
    "and umkit.torch.advise(opt, 'preferred_location', 'cpu') so the optimizer state stays on the CPU "
    "side (the article's §2.3, §4.4).":
        "要装下比显卡更大的东西：在 `with umkit.torch.managed():` 里分配模型（托管"
        "内存可以超过设备内存：页面会迁入迁出），然后用 umkit.torch.prefetch(model, "
        "'gpu') 和 umkit.torch.advise(opt, 'preferred_location"
        "', 'cpu')，让优化器状态留在 CPU 一侧（专栏 §2.3、§4.4）。",
    "On ROCm managed memory migrates on demand only with XNACK on (HSA_XNACK=1 on a GPU that has it); "
    "on an APU the device memory PyTorch sees can be the BIOS carve-out only: umkit.doctor() says which "
    "holds on this machine (ledger: amd.attr.pageable_xnack, amd.apu.carveout_visible).":
        "在 ROCm 上，只有 XNACK 打开时（在有 XNACK 的 GPU 上设 HSA_XNACK=1）"
        "，托管内存才会按需迁移；在 APU 上，PyTorch 看到的设备内存可能只是 BIOS 划出的那一块显"
        "存：umkit.doctor() 会告诉你这台机器上是哪种情况（ledger: amd.attr.pag"
        "eable_xnack, amd.apu.carveout_visible）。",
    "platform={value} must be 'cuda' or 'hip'":
        "platform={value} 必须是 'cuda' 或 'hip'",
    "or leave it out: the installed PyTorch is asked":
        "或者不传：会去问已安装的 PyTorch",
    "the profiler's output file, e.g. results.db":
        "分析器（profiler）写出的文件，例如 results.db",
    "path={path}: no such file":
        "path={path}：没有这个文件",
    # -- what a path is when it is not a regular file (validate.not_a_file) ---------------------------------
    "{at}: no such file": "{at}：没有这个文件",
    "{at} is a folder, not a file": "{at} 是一个文件夹，不是文件",
    "{at} is a named pipe (FIFO), not a file": "{at} 是一个命名管道（FIFO），不是文件",
    "{at} is a device, not a file": "{at} 是一个设备，不是文件",
    "{at} is a socket, not a file": "{at} 是一个套接字，不是文件",
    "{at} is a loop of symbolic links, not a file": "{at} 是一个符号链接的环，不是文件",
    "{at} is a symbolic link to a file that does not exist": "{at} 是一个符号链接，指向的文件不存在",
    "{at} is not a regular file": "{at} 不是普通文件",
    "{at} cannot be examined ({reason})": "{at} 无法查看（{reason}）",
    # -- touch, recommend(workers=), Perfetto trace lists ----------------------------------------------------
    "stride_bytes={v} is larger than any array ({n} TiB): the touch would read the first element only":
        "stride_bytes={v} 比任何数组都大（{n} TiB）：这次 touch 只会读到第一个元素",
    "e.g. 4096 (one float per host page) or 65536; to read one element, touch a one-element view":
        "例如 4096（每个主机页读一个 float）或 65536；只想读一个元素，就 touch 一个只有一个元素的视图",
    "recommend(workers>1) replays one plan at a time here: this script has no 'if __name__ == "
    "\"__main__\":' guard, and each worker process would run the whole script again; put the "
    "script's work under that guard to replay side by side":
        "recommend(workers>1) 在这里一次只回放一个方案：这个脚本没有 'if __name__ == \"__main__\":' "
        "保护，每个工作进程都会把整个脚本再运行一遍；把脚本的工作放到这个保护之下，就能并行回放",
    "obj[{i}] has a key {k}: a trace field's name is text": "obj[{i}] 有一个键 {k}：trace 字段的名字应当是文本",
    "{where}={v} is not a plain value (text, a number, true/false or null)":
        "{where}={v} 不是简单的值（文本、数字、true/false 或 null）",
    "obj holds {n} trace entries; at most {max}": "obj 有 {n} 条 trace 记录；最多 {max} 条",
    "pass what umkit.trace() returns (a list of its dicts)": "传入 umkit.trace() 返回的东西（由字典组成的列表）",
    "pass umkit.trace() of one run, or a slice of it": "传入一次运行的 umkit.trace()，或其中的一段",
    "{path}: a SQLite database, but neither rocpd (no rocpd_metadata) nor an Nsight Systems export (no "
    "CUDA_UM_* tables)":
        "{path}：是一个 SQLite 数据库，但既不是 rocpd（没有 rocpd_metadata），"
        "也不是 Nsight Systems 的导出（没有 CUDA_UM_* 表）",
    "pass rocprofv3's .db or nsys export --type sqlite's file":
        "请传入 rocprofv3 的 .db，或 nsys export --type sqlite 导出的文"
        "件",
    "{path}: JSON, but not a format umkit reads":
        "{path}：是 JSON，但不是 umkit 能读的格式",
    "record with rocprofv3 --output-format rocpd instead":
        "改用 rocprofv3 --output-format rocpd 录制",
    "{path}: not a profiler file umkit reads":
        "{path}：不是 umkit 能读的分析器文件",
    "rocprofv3's .db (rocpd), nsys export --type sqlite, or umkit.ecg.traces.save_records' .jsonl":
        "rocprofv3 的 .db（rocpd）、nsys export --type sqlite 的导出"
        "，或 umkit.ecg.traces.save_records 写的 .jsonl",
    "{path}: cannot be opened as SQLite ({error})":
        "{path}：无法作为 SQLite 打开（{error}）",
    "not a SQLite database ({error})":
        "不是 SQLite 数据库（{error}）",
    "pass the .db / .sqlite file the profiler wrote":
        "请传入分析器写出的 .db / .sqlite 文件",
    "{what}: no table or view {code_table}":
        "{what}：没有表或视图 {code_table}",
    "{what}: {code_table} has no column {code_column}":
        "{what}：{code_table} 没有 {code_column} 这一列",
    "step={value} is not a range name":
        "step={value} 不是一个范围（range）的名字",
    "the name of the ranges that mark your steps, e.g. step='train_step'":
        "标记你的 step 的那些范围的名字，例如 step='train_step'",
    "{path}: no steps (no step markers and no kernels)":
        "{path}：没有 step（既没有 step 标记，也没有 kernel）",
    "mark each step with a ROCTx/NVTX range named 'step', or pass step='NAME' naming your ranges":
        "用一个名为 'step' 的 ROCTx/NVTX 范围标记每一步，或者传入 step='NAME' 说"
        "出你的范围叫什么",
    "{path}: {n} steps, more than {limit}":
        "{path}：{n} 步，超过了 {limit}",
    "mark steps with ROCTx/NVTX ranges and pass step='NAME'":
        "用 ROCTx/NVTX 范围标记 step，并传入 step='NAME'",
    "{path}: {source} holds whole-run totals only, no steps: no {what}":
        "{path}：{source} 只有整次运行的总数，没有 step：所以没有{what}",
    "record with rocprofv3 (rocpd) or set ROCPROFSYS_USE_ROCPD=1 for a timeline; .counters has the "
    "totals":
        "要时间线，就用 rocprofv3（rocpd）录制，或者设 ROCPROFSYS_USE_ROCPD="
        "1；总数在 .counters 里",
    "{path}: {source} names no addresses: no residency picture":
        "{path}：{source} 里没有地址：画不出驻留图",
    "record with rocprofv3 (rocpd), whose KFD records carry each migration's address range":
        "用 rocprofv3（rocpd）录制，它的 KFD 记录带有每次迁移的地址范围",
    "record with rocprofv3 (ROCm 7+) and its KFD tracing on (--kfd-trace, which --sys-trace also "
    "turns on in the versions that have it), e.g. rocprofv3 --sys-trace --kfd-trace --output-format "
    "rocpd -- ./your_program":
        "用 rocprofv3（ROCm 7+）录制，并打开它的 KFD 跟踪（--kfd-trace；在有这个选项的版本里，--sys-trace "
        "也会打开它），例如 rocprofv3 --sys-trace --kfd-trace --output-form"
        "at rocpd -- ./your_program",
    "{path}: not a rocpd database":
        "{path}：不是 rocpd 数据库",
    "{path}: rocpd_metadata has no schema_version":
        "{path}：rocpd_metadata 里没有 schema_version",
    "{path}: rocpd schema version {v} is not one umkit reads (it reads {versions})":
        "{path}：rocpd 的 schema 版本 {v} 不是 umkit 能读的（它能读 {versi"
        "ons}）",
    "tell umkit's maintainers which ROCm wrote it; until then export with rocpd's own tools (rocpd "
    "convert)":
        "告诉 umkit 的维护者是哪个 ROCm 写的它；在那之前，用 rocpd 自带的工具导出（rocpd"
        " convert）",
    "{what}: rocpd_region has no column {code_column}":
        "{what}：rocpd_region 没有 {code_column} 这一列",
    "{what}: rocpd_region has no column {code_column} (it has start_id: an earlier rocpd layout umkit "
    "does not read)":
        "{what}：rocpd_region 没有 {code_column} 这一列（它有 start_id"
        "：这是 umkit 不读的早期 rocpd 布局）",
    "{what}: no KFD_PAGE_MIGRATE or KFD_PAGE_FAULT records (KFD tracing was off)":
        "{what}：没有 KFD_PAGE_MIGRATE 或 KFD_PAGE_FAULT 记录（KFD 跟"
        "踪没有打开）",
    "{what}: a KFD_PAGE_MIGRATE region without start_address / end_address in its event's extdata":
        "{what}：有一个 KFD_PAGE_MIGRATE 区域，它的事件 extdata 里没有 star"
        "t_address / end_address",
    "pass the unified_memory-<pid>.json rocprof-sys wrote":
        "请传入 rocprof-sys 写出的 unified_memory-<pid>.json",
    "{path}: larger than {n} MiB: not a rocprof-sys unified-memory summary":
        "{path}：大于 {n} MiB：不是 rocprof-sys 的统一内存汇总",
    "{path}: summary has no 'migration_triggers'":
        "{path}：summary 里没有 'migration_triggers'",
    "{path}: 'devices' is not a list or 'summary' not an object":
        "{path}：'devices' 不是列表，或者 'summary' 不是对象",
    "pass a file umkit.ecg.traces.save_records() wrote":
        "请传入 umkit.ecg.traces.save_records() 写出的文件",
    "{path}: the first line is not a JSON header":
        "{path}：第一行不是 JSON 头",
    "{path}: the header has no step stamps":
        "{path}：头里没有 step 时间戳",
    "{path}: line {n} is not [t, kind, value, cause]":
        "{path}：第 {n} 行不是 [t, kind, value, cause]",
    "{path}: line {n} has counter kind {kind}":
        "{path}：第 {n} 行的计数器种类是 {kind}",

    # -- umkit.plan's tables (notebook 10): the access-owner table and the recommended plan ---------
    "access-owner table of {name}: {n} buffers, {mib} MiB, {nsteps} steps, backend {code_b} [{code_p}]":
        "{name} 的访问主人表：{n} 块缓冲区，{mib} MiB，{nsteps} 步，后端 {code_b} [{code_p}]",
    "access-owner table of {name}: {n} buffers, {mib} MiB, {nsteps} steps, backend {code_b}":
        "{name} 的访问主人表：{n} 块缓冲区，{mib} MiB，{nsteps} 步，后端 {code_b}",
    "buffer": "缓冲区",
    "role": "角色",
    "lifetime": "生命周期",
    "access owner (访问主人)": "访问主人",
    "to GPU MiB": "到 GPU MiB",
    "to CPU MiB": "到 CPU MiB",
    # ("GPU faults", "CPU faults": above, with the counters' words)
    "recorded": "录制时",
    "why": "理由",
    "plan": "方案",
    "does not fit": "放不下",
    "note: {note}": "注：{note}",
    # the simulator's trace details (umkit.trace(): what each driver event did)
    "{nums_n} fresh pages zero-filled on CPU": "CPU 上 {nums_n} 个新页被清零",
    "{nums_b} B of address range registered with the KMD as an SVM range (one ioctl); no physical page yet":
        "{nums_b} B 的地址范围作为一个 SVM 范围注册到 KMD（一次 ioctl）；还没有物理页",
    "{nums_b} B of address range recorded; no physical page yet": "记录了 {nums_b} B 的地址范围；还没有物理页",
    "policy recorded; no page moves": "策略已记录；没有页面移动",
    "enqueued on stream {nums_s}": "已放入流 {nums_s} 的队列",
    "{nums_b} B of VRAM mapped": "已映射 {nums_b} B 显存",
    "{nums_b} B of host memory pinned": "已固定 {nums_b} B 主机内存",
    "{nums_b} B of ordinary host memory": "{nums_b} B 普通主机内存",
    "{nums_f} faults serviced, {nums_b} B migrated to GPU{nums_g}": "处理了 {nums_f} 次缺页，{nums_b} B 迁移到 GPU{nums_g}",
    "{nums_b} B to gpu{nums_g}": "{nums_b} B 到 gpu{nums_g}",
    "{nums_t} us of deferred page-table work on GPU{nums_g}": "GPU{nums_g} 上有 {nums_t} us 延后的页表工作",
    "{nums_f} faults (~{nums_k} batches), {nums_b} B migrated to GPU{nums_g}":
        "{nums_f} 次缺页（约 {nums_k} 批），{nums_b} B 迁移到 GPU{nums_g}",
    # the rest of the simulator's trace details
    "CPU slept {nums_t} ms in its fault handler on thrashing pages":
        "CPU 在缺页处理程序里睡了 {nums_t} ms：页面在颠簸",
    "GPU{nums_g} throttled {nums_t} ms on thrashing pages (they migrate back and forth within 500 us)":
        "GPU{nums_g} 因页面颠簸被限流 {nums_t} ms（这些页在 500 us 内来回迁移）",
    "{nums_b} B from another GPU's VRAM to system memory, then to GPU{nums_g}":
        "{nums_b} B 从另一块 GPU 的显存迁到系统内存，再迁到 GPU{nums_g}",
    "VA block {nums_k}: +{nums_n} pages to the CPU": "VA 块 {nums_k}：另迁 {nums_n} 页到 CPU",
    "VA block {nums_k}: +{nums_n} pages": "VA 块 {nums_k}：另迁 {nums_n} 页",
    "{nums_n} pages mapped for GPU{nums_g}": "为 GPU{nums_g} 映射了 {nums_n} 页",
    "{nums_n} pages mapped where they are": "{nums_n} 页就地映射",
    "{nums_n} pages mapped to CPU memory": "{nums_n} 页映射到 CPU 内存",
    "{nums_n} read-mostly copies dropped": "丢弃了 {nums_n} 份以读为主的副本",
    "{nums_n} pages from a GPU outside GPU{nums_g}'s xGMI hive to system memory, to be mapped there":
        "{nums_n} 页从 GPU{nums_g} 所在 xGMI hive 之外的 GPU 迁到系统内存，在那里映射",
    "{nums_n} pages left in system memory and mapped for GPU{nums_g}: VRAM is held by device memory":
        "{nums_n} 页留在系统内存里并为 GPU{nums_g} 映射：显存被设备内存占满了",
    "APU: one memory, nothing to move": "APU：只有一块内存，没有什么要搬",
    "{nums_b} B to cpu": "{nums_b} B 到 cpu",
    "{nums_b} B of VRAM mapped after evicting managed pages ({nums_t} ms)":
        "驱逐托管页（{nums_t} ms）之后，已映射 {nums_b} B 显存",
    "{nums_b} B registered as an SVM range and mapped for the GPUs (XNACK off): {nums_n} pages faulted in on the CPU":
        "{nums_b} B 注册为 SVM 范围并为各 GPU 映射（XNACK 关闭）：在 CPU 上通过缺页填充了 {nums_n} 页",
    "all queues of the process stopped for {nums_t} ms (migration + remap)":
        "进程的所有队列停了 {nums_t} ms（迁移 + 重新映射）",
    "{nums_n} CPU faults, {nums_b} B migrated to CPU": "{nums_n} 次 CPU 缺页，{nums_b} B 迁移到 CPU",
    "region {nums_r} of {code_p} -> cpu": "{code_p} 的区域 {nums_r} -> cpu",
    # -- umkit.allow_oversubscription's docstring (notebook 07b prints it) --------------------------------
    "Let managed allocations exceed free device memory on NVIDIA (off by default: NVIDIA\n"
    "    documents oversubscription as supported, and its own benchmark finds that performance can\n"
    "    vary up to 100x with the platform, the oversubscription factor and the memory hints -- NVIDIA\n"
    "    Technical Blog, October 2021). sim always allows it -- that is where to learn about it.":
        "允许 NVIDIA 上的托管分配超过空闲的设备内存（默认关闭：NVIDIA 的文档说超额订阅受支持，\n"
        "    而它自己的基准测试发现，随平台、超额订阅的倍数和内存建议不同，性能可相差多达 100 倍——\n"
        "    NVIDIA 技术博客，2021 年 10 月）。\n"
        "    sim 总是允许超额订阅——要了解它，就在 sim 上学。",
    # -- umperf.side_by_side: the card's table, sim's, and their ratio (notebook 07b) ---------------------
    "{title}: average overall time (ms) of {runs} iterations, {device} ({backend})":
        "{title}：{runs} 次迭代的平均总时间（ms），{device}（{backend}）",
    "measured on the card ({run}, {date})": "真卡实测（{run}，{date}）",
    "the same program on sim now (the model's prediction; {how})":
        "同一个程序现在在 sim 上运行（模型的预测；{how}）",
    "host speed {speed}: {source}": "主机速度 {speed}：{source}",
    "the profile's own host": "profile 自己的主机速度",
    "fitted by calibrate --compare on that run's fit set": "由 calibrate --compare 在那次运行的拟合集上拟合得出",
    "fitted by calibrate --compare on the fit set ({name})": "由 calibrate --compare 在拟合集（{name}）上拟合得出",
    "sim / real per cell (cells >= 256 KB within x/÷{tol}: {within}/{total}; strategy pairs ordered "
    "right {right}, wrong {wrong})":
        "每格 sim / 真卡之比（≥ 256 KB 的格子落在 ×/÷{tol} 之内的：{within}/{total}；策略两两排序对 {right} 对、"
        "错 {wrong} 对）",
    "ordering wrong: {pair}": "排序错误：{pair}",
    "size": "大小",
    # -- a sim device's name (umkit.backend().device_name(i): "sim: " and its profile's title) ---------
    "sim: NVIDIA H200 (141 GB HBM3e) on a PCIe Gen5 x16 host, CUDA 13":
        "sim：NVIDIA H200（141 GB HBM3e），PCIe Gen5 x16 主机，CUDA 13",
    "sim: AMD MI250X, one GCD, HSA_XNACK=1, device-coherent VRAM (the CPU reads GPU-resident pages in place, as Pearson's Frontier timings suggest)":
        "sim：AMD MI250X，单个 GCD，HSA_XNACK=1，设备一致性显存（CPU 原地读取驻留在 GPU 上的页面，Pearson 在 Frontier 上测得的时间支持这种解读）",
    "sim: AMD MI250X, one GCD, HSA_XNACK=0: managed memory is zero-copy host memory":
        "sim：AMD MI250X，单个 GCD，HSA_XNACK=0：托管内存就是零拷贝的主机内存",
    "sim: AMD MI250X, one GCD, HSA_XNACK=1 (CPU touch migrates pages back, as OLCF's Frontier guide documents)":
        "sim：AMD MI250X，单个 GCD，HSA_XNACK=1（CPU 一访问，页面就迁回主机，与 OLCF 的 Frontier 用户指南所写一致）",
    "sim: AMD MI300A APU: CPU and GPU share one 128 GB HBM3 memory":
        "sim：AMD MI300A APU：CPU 和 GPU 共用一块 128 GB 的 HBM3 内存",
    "sim: AMD MI300X (discrete, PCIe Gen5 x16 host link), HSA_XNACK=1":
        "sim：AMD MI300X（独立显卡，PCIe Gen5 x16 主机链路），HSA_XNACK=1",
    "sim: Teaching GPU: round numbers, not a real device":
        "sim：教学用 GPU：取整的数字，不是真实设备",
    "model ({code_name}): {title}": "模型（{code_name}）：{title}",
    "not installed": "未安装",
    "strategy panel: no runs yet": "策略面板：还没有运行",
    # -- port-check's summary with XNACK spelled out, and a HIP replacement's glue -------------------------
    "{n} findings in {nf} file for {code_target} (XNACK off): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK 关闭）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{n} findings in {nf} files for {code_target} (XNACK off): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK 关闭）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{n} findings in {nf} file for {code_target} (XNACK on): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK 开启）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{n} findings in {nf} files for {code_target} (XNACK on): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK 开启）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{k} of them not shown (at most {m} a file and {t} in all, breaks first)":
        "其中 {k} 条未显示（每个文件最多 {m} 条，总共最多 {t} 条，“出错”优先）",
    "{k} of them not shown (at most {m} a file, breaks first)":
        "其中 {k} 条未显示（每个文件最多 {m} 条，“出错”优先）",
    "{k} of them not shown (at most {t} in all, breaks first)":
        "其中 {k} 条未显示（总共最多 {t} 条，“出错”优先）",
    "umkit.port_check(..., max_findings=None, max_per_file=None) shows them all":
        "umkit.port_check(..., max_findings=None, max_per_file=None) 会显示全部",
    "umkit port-check --max-findings 0 shows them all": "umkit port-check --max-findings 0 会显示全部",
    "a number of findings, or None for all of them": "发现条数，或者 None 表示全部",
    "{code_v2} (HIP 7.1, same hipMemLocation) or {call}":
        "{code_v2}（HIP 7.1，同样接受 hipMemLocation）或 {call}",
    # -- the plan table's roles, and the title of a recorded PyTorch run's ECG ------------------------------
    "parameter": "参数",
    "gradient": "梯度",
    "optimizer state": "优化器状态",
    "activation": "激活值",
    "user tensor": "用户张量",
    "array": "数组",
    "other": "其他",
    "memory ECG of a PyTorch training loop on {device} ({date}, torch {code_v})":
        "显存心电图：PyTorch 训练循环，{device}（{date}，torch {code_v}）",
    "def fixed_step(params, batch, i):\n"
    "    batch.host[:] = float(i)                 # the CPU prepares the batch\n"
    "    umkit.touch(batch, 4)                    # the GPU reads it\n"
    "    umkit.increment(params)                  # and updates the weights\n"
    "    if i % 10 == 9:\n"
    "        sink = umkit.device_array(1)\n"
    "        umkit.fill(sink, 0.0)\n"
    "        umkit.touch(params, 4096, sink=sink)    # one weight per 4 KiB, summed on the GPU\n"
    "        total = float(umkit.read_back(sink)[0]) # 4 bytes travel, not 64 MiB\n"
    "        sink.free()\n"
    "        return total / (params.nbytes // 4096)\n"
    "    umkit.synchronize()":
        "def fixed_step(params, batch, i):\n"
        "    batch.host[:] = float(i)                 # CPU 准备批数据\n"
        "    umkit.touch(batch, 4)                    # GPU 读它\n"
        "    umkit.increment(params)                  # 并更新权重\n"
        "    if i % 10 == 9:\n"
        "        sink = umkit.device_array(1)\n"
        "        umkit.fill(sink, 0.0)\n"
        "        umkit.touch(params, 4096, sink=sink)    # 每 4 KiB 取一个权重，在 GPU 上求和\n"
        "        total = float(umkit.read_back(sink)[0]) # 经过链路的是 4 字节，而不是 64 MiB\n"
        "        sink.free()\n"
        "        return total / (params.nbytes // 4096)\n"
        "    umkit.synchronize()",
    "read from {part_source}; steps from {part_steps}": "读自{part_source}；步的划分：{part_steps}",
    "example file built from {code_tool}'s documented {schema} ({source})":
        "按 {code_tool} 公开的 {schema} 构造的示例文件（{source}）",
    "ROCTx ranges": "ROCTx 范围",
    "recommended plan, per buffer ({code_profiles})": "推荐方案，逐块缓冲区（{code_profiles}）",
    "predicted step time of the whole loop (mean ms, replayed on sim)":
        "整个循环的预测每步耗时（平均 ms，在 sim 上重放）",
    "as recorded": "按录制的原样",
    "all {code_choice}": "全部 {code_choice}",
    "recommended (mixed)": "推荐（混合）",
    "whole loop ({n} steps)": "整个循环（{n} 步）",
    "one step, made {n}x": "一步之内，创建 {n} 次",
    "before -> the end": "开始之前 -> 结束",
    "before -> step {n}": "开始之前 -> 第 {n} 步",
    "step {n} -> the end": "第 {n} 步 -> 结束",
    "step {n} -> step {m}": "第 {n} 步 -> 第 {m} 步",
    "GPU every step": "GPU 每步",
    "GPU in {k}/{n} steps": "GPU 在 {n} 步中的 {k} 步",
    "CPU every step": "CPU 每步",
    "CPU every {n} steps": "CPU 每 {n} 步",
    "CPU every 1 steps": "CPU 每步",
    "CPU in {k}/{n} steps": "CPU 在 {n} 步中的 {k} 步",
    "CPU once (step {n})": "CPU 一次（第 {n} 步）",
    "nobody (in the recorded steps)": "没有人（在录制的步里）",
    "only the GPU touches it: device memory, nothing to migrate":
        "只有 GPU 访问它：用设备内存，没有什么要迁移",
    "only the CPU touches it: host memory": "只有 CPU 访问它：用主机内存",
    "the CPU produces it (writes it whole, step after step) and the GPU reads it: pinned (the GPU "
    "reads it over the link) or prefetched (moved in bulk before the kernels), whichever the replay "
    "finds faster":
        "CPU 生产它（一步接一步地整块写入），GPU 读它：用固定内存（GPU 经链路读取）或预取（在 kernel "
        "之前整块搬过去），重放中哪个更快就用哪个",
    "the CPU touches it again and again while the GPU uses it: not plain managed (each CPU touch "
    "pulls pages back, the next kernel faults them in)":
        "GPU 使用它的同时 CPU 一次又一次地访问它：不要用单纯的托管内存（CPU 每访问一次就把页面拉回来，"
        "下一个 kernel 又要通过缺页把它们迁入）",
    "the CPU touches it once, the GPU uses it": "CPU 访问它一次，GPU 使用它",
    "not touched in the recorded steps: left as recorded": "录制的步里没有访问它：保持录制时的选择",
    "PyTorch computes on it: not pinned": "PyTorch 在它上面计算：不用固定内存",
    # -- port-check's report (text and markdown; its json stays English) ------------------------------
    "{code_target} ({about}), XNACK on, sim profile {code_profile}":
        "{code_target}（{about}），XNACK 开启，sim profile {code_profile}",
    "{code_target} ({about}), XNACK off, sim profile {code_profile}":
        "{code_target}（{about}），XNACK 关闭，sim profile {code_profile}",
    "AMD MI250X on a Frontier-class node, as OLCF's user guide observes it":
        "Frontier 级节点上的 AMD MI250X，按 OLCF 用户指南所观察的行为",
    "AMD MI250X on a CPU-coherent node (device-coherent VRAM)":
        "CPU 一致性节点上的 AMD MI250X（设备一致性显存）",
    "AMD MI300X on PCIe": "PCIe 上的 AMD MI300X",
    "AMD MI300A APU (one memory)": "AMD MI300A APU（一块共用内存）",
    "breaks": "出错",
    "slower": "变慢",
    "differs": "有差异",
    "same": "相同",
    "ledger:": "出处台账：",
    "ledger": "出处台账",
    "summary:": "小结：",
    "passed over ({why})": "未读取（{why}）",
    "not text": "不是文本",
    "sources: python -m umkit.ledger ID prints an entry; --format json carries each source":
        "出处：python -m umkit.ledger ID 打印一条台账条目；--format json 附带每条出处",
    "where": "位置",
    "severity": "严重程度",
    "on this target": "在目标平台上",
    "{n} findings in {nf} file for {code_target} (XNACK {code_x}): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK {code_x}）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{n} findings in {nf} files for {code_target} (XNACK {code_x}): {nb} breaks, {ns} slower, "
    "{nd} differs, {nsame} same":
        "{nf} 个文件中有 {n} 条发现，目标 {code_target}（XNACK {code_x}）：出错 {nb}，变慢 {ns}，"
        "有差异 {nd}，相同 {nsame}",
    "{k} file passed over (not text)": "{k} 个文件未读取（不是文本）",
    "{k} files passed over (not text)": "{k} 个文件未读取（不是文本）",
    # -- port-check: a managed buffer with XNACK off (rules._managed_memory) ----------------------------
    'XNACK off: hipMallocManaged maps {what} for the GPU and faults in every page inside the call (time grows with size); the GPU cannot fault, so it reads and writes host memory over the link, {part_bw}, unless a prefetch moves it.':
        'XNACK 关闭：hipMallocManaged 在调用里就为 GPU 映射 {what}，并把每一页都缺页填充（耗时随大小增长）；GPU 不能缺页，所以它经链路读写主机内存，{part_bw}，除非有一次预取把它搬走。',
    'XNACK off: hipMallocManaged maps {what} for the GPU and faults in every page inside the call (time grows with size); the GPU cannot fault, so it reads and writes host memory over the link, {part_bw}, unless a prefetch moves it. It is prefetched here.':
        'XNACK 关闭：hipMallocManaged 在调用里就为 GPU 映射 {what}，并把每一页都缺页填充（耗时随大小增长）；GPU 不能缺页，所以它经链路读写主机内存，{part_bw}，除非有一次预取把它搬走。这里做了预取。',
    "XNACK off: hipMallocManaged maps {what} for the GPU and faults in every page inside the call (time grows with size); the GPU cannot fault, so it reads and writes host memory over the link, {part_bw}, unless a prefetch moves it. It is prefetched here; after that, any CPU read or write of its GPU-resident pages (a host check of a result, for one) migrates them back (the 2 MiB-aligned block around each touched address, in every amdkfd version) and, with XNACK off, stops all of the process's GPU queues until the driver has remapped the range: keep CPU touches out of the GPU phase, or prefetch it to the CPU first.":
        'XNACK 关闭：hipMallocManaged 在调用里就为 GPU 映射 {what}，并把每一页都缺页填充（耗时随大小增长）；GPU 不能缺页，所以它经链路读写主机内存，{part_bw}，除非有一次预取把它搬走。这里做了预取；此后，CPU 对它驻留在 GPU 上的页的任何读写（比如在主机上检查一次结果）都会把它们迁回（每个被访问地址周围对齐的 2 MiB 块，amdkfd 的各个版本都是如此），并且在 XNACK 关闭时，会让这个进程的所有 GPU 队列停下，直到驱动重新映射好这段范围：别在 GPU 阶段让 CPU 碰它，或者先把它预取到 CPU。',
    "XNACK off: hipMallocManaged maps {what} for the GPU and faults in every page inside the call (time grows with size); the GPU cannot fault, so it reads and writes host memory over the link, {part_bw}, unless a prefetch moves it. It is prefetched here; after that, any CPU read or write of its GPU-resident pages (a host check of a result, for one) migrates them back (the 2 MiB-aligned block around each touched address, in every amdkfd version) -- OLCF's guide documents migrate-on-touch on this node for HSA_XNACK=1, and amdkfd's CPU-fault handler does not look at XNACK; but amdkfd registers VRAM the CPU is attached to as coherent, which points to in-place access, so the sources disagree -- and, with XNACK off, stops all of the process's GPU queues until the driver has remapped the range: keep CPU touches out of the GPU phase, or prefetch it to the CPU first.":
        'XNACK 关闭：hipMallocManaged 在调用里就为 GPU 映射 {what}，并把每一页都缺页填充（耗时随大小增长）；GPU 不能缺页，所以它经链路读写主机内存，{part_bw}，除非有一次预取把它搬走。这里做了预取；此后，CPU 对它驻留在 GPU 上的页的任何读写（比如在主机上检查一次结果）都会把它们迁回（每个被访问地址周围对齐的 2 MiB 块，amdkfd 的各个版本都是如此）——OLCF 的指南记录了这种节点在 HSA_XNACK=1 下访问即迁移，而 amdkfd 的 CPU 缺页处理并不看 XNACK；但 amdkfd 把 CPU 所连的显存注册为一致内存，这指向原地访问，两个来源互相矛盾——并且在 XNACK 关闭时，会让这个进程的所有 GPU 队列停下，直到驱动重新映射好这段范围：别在 GPU 阶段让 CPU 碰它，或者先把它预取到 CPU。',
    'about {n} {unit} (sim profile {p}, {key})':
        '约 {n} {unit}（sim profile {p}，{key}）',
    'about {n} {unit} (estimate, sim profile {p}, {key})':
        '约 {n} {unit}（估计值，sim profile {p}，{key}）',
    # -- port-check's input errors, the command line's argument errors ---------------------------------
    "paths={value} must be a file or folder, or a list of them":
        "paths={value} 必须是一个文件或文件夹，或者它们组成的列表",
    "e.g. 'kernels/cuda' or ['a.cu', 'src/']":
        "例如 'kernels/cuda' 或 ['a.cu', 'src/']",
    "paths holds {value}: not a path":
        "paths 里有 {value}：这不是路径",
    "pass file or folder names as strings":
        "请以字符串传入文件或文件夹的名字",
    "{name}: no such file or folder":
        "{name}：没有这个文件或文件夹",
    "{name} cannot be read ({err})":
        "{name} 读不了（{err}）",
    "{name} holds no source port-check reads (it reads {suffixes})":
        "{name} 里没有 port-check 能读的源文件（它读 {suffixes}）",
    "point it at the folder of your CUDA or HIP sources":
        "请指向你的 CUDA 或 HIP 源文件所在的文件夹",
    "{name} is not a source port-check reads (it reads {suffixes})":
        "{name} 不是 port-check 能读的源文件（它读 {suffixes}）",
    "name the CUDA or HIP sources, or the folders holding them":
        "请指定 CUDA 或 HIP 源文件，或者存放它们的文件夹",
    "{name} is not a regular file or folder (a pipe, a device or a socket)":
        "{name} 不是普通文件或文件夹（是管道、设备或套接字）",
    "more than {n} source files under the paths given":
        "给出的路径下有超过 {n} 个源文件",
    "point port-check at a smaller folder":
        "让 port-check 去看一个小一些的文件夹",
    "check its permissions, or point port-check at a folder you can read":
        "检查它的权限，或者让 port-check 去看一个你能读的文件夹",
    "{name} holds folders nested more than {n} deep":
        "{name} 里的文件夹嵌套超过了 {n} 层",
    "point port-check at the folder of your sources":
        "让 port-check 去看你的源文件所在的文件夹",
    "{name} is larger than {n} MiB":
        "{name} 大于 {n} MiB",
    "port-check reads hand-written sources; leave generated files out":
        "port-check 读的是手写的源文件；生成的文件请不要放进来",
    "the sources under the paths given hold more than {n} MiB":
        "给出的路径下的源文件总共超过 {n} MiB",
    "check a few folders at a time":
        "一次检查几个文件夹",
    "check the file's permissions":
        "检查这个文件的权限",
    "{name} is not a source text (it holds NUL bytes or is not UTF-8): nothing to check":
        "{name} 不是源代码文本（含有 NUL 字节，或者不是 UTF-8）：没有可检查的",
    "give the CUDA source as UTF-8 text (not a compiled file; save UTF-16 text as UTF-8)":
        "请以 UTF-8 文本给出 CUDA 源文件（不要给编译好的文件；UTF-16 的文本请另存为 UTF-8）",
    "nothing to check: the {n} source-named file under the paths given is not text (e.g. {name})":
        "没有可检查的：给出的路径下那 {n} 个以源文件命名的文件不是文本（例如 {name}）",
    "nothing to check: the {n} source-named files under the paths given are not text (e.g. {name})":
        "没有可检查的：给出的路径下那 {n} 个以源文件命名的文件都不是文本（例如 {name}）",
    "give the CUDA sources as UTF-8 text (not compiled files; save UTF-16 text as UTF-8)":
        "请以 UTF-8 文本给出 CUDA 源文件（不要给编译好的文件；UTF-16 的文本请另存为 UTF-8）",
    "{path}:{line}: brackets nested more than {n} deep (or that many left open)":
        "{path}:{line}：括号嵌套超过 {n} 层（或者有这么多没闭合）",
    "port-check reads hand-written sources; leave generated or broken files out":
        "port-check 读的是手写的源文件；生成的或损坏的文件请不要放进来",
    "--force and --numbered together":
        "--force 和 --numbered 同时给出了",
    "--force replaces the files, --numbered keeps them: pick one":
        "--force 会替换文件，--numbered 会保留它们：只能选一个",
    "{n} numbered ECGs exist already":
        "已经有 {n} 份编了号的显存心电图",
    "move the old files away":
        "把旧文件挪走",
    "{code_name} {path}: no such file (or not a regular file)":
        "{code_name} {path}：没有这个文件（或者不是普通文件）",
    "{code_name} {path} is larger than {n} MiB":
        "{code_name} {path} 大于 {n} MiB",
    "{code_name} {path} is not JSON ({type})":
        "{code_name} {path} 不是 JSON（{type}）",
    "{code_name} {path} cannot be read ({err})":
        "{code_name} {path} 读不了（{err}）",
    "pass the JSON an earlier run wrote":
        "请传入之前某次运行写出的 JSON",
    "{code_name} {path} cannot be followed ({err})":
        "{code_name} {path} 无法解析（{err}）",
    "name a plain folder":
        "请指定一个普通文件夹",
    "--src {src} lies inside --dest {dest}: the copies would mix with the sources":
        "--src {src} 在 --dest {dest} 里面：副本会和源文件混在一起",
    "e.g. --src notebooks --dest workspace":
        "例如 --src notebooks --dest workspace",
    "--src {src} holds no notebooks (*.ipynb)":
        "--src {src} 里没有 notebook（*.ipynb）",
    "run from the repository root, or --src path/to/notebooks":
        "请在仓库根目录下运行，或者用 --src path/to/notebooks",
    "--strategies is empty":
        "--strategies 是空的",
    "a comma-separated subset of {code_list}, or leave it out":
        "{code_list} 中用逗号分隔的一部分，或者不传",
    "give CUDA or HIP sources ({suffixes}) or folders holding them":
        "请给出 CUDA 或 HIP 源文件（{suffixes}）或存放它们的文件夹",

    # -- notebooks 03-05: this round's graders ---------------------------------------------------------
    "in round {nums_r} of {n} the GPU's read faulted pages into VRAM and the CPU's read pulled them back: "
    "ping-pong":
        "在第 {nums_r} 轮（共 {n} 轮），GPU 读取时把页面缺页迁入显存，CPU 读取时又把它们拉了回去：乒"
        "乓",
    "in rounds {nums_r} of {n} the GPU's read faulted pages into VRAM and the CPU's read pulled them back: "
    "ping-pong":
        "在第 {nums_r} 轮（共 {n} 轮），GPU 读取时把页面缺页迁入显存，CPU 读取时又把它们拉了回去：乒"
        "乓",
    "in round {nums_r} the CPU's read pulled back pages that were already in VRAM":
        "在第 {nums_r} 轮，CPU 读取时把已经在显存里的页面拉了回去",
    "in rounds {nums_r} the CPU's read pulled back pages that were already in VRAM":
        "在第 {nums_r} 轮，CPU 读取时把已经在显存里的页面拉了回去",
    "the CPU's read pulled pages back from VRAM in round {nums_r} of {n}":
        "在第 {nums_r} 轮（共 {n} 轮），CPU 读取时把页面从显存拉了回去",
    "the CPU's read pulled pages back from VRAM in rounds {nums_r} of {n}":
        "在第 {nums_r} 轮（共 {n} 轮），CPU 读取时把页面从显存拉了回去",
    "pages still moved between host memory and VRAM in round {nums_r} of {n}":
        "在第 {nums_r} 轮（共 {n} 轮），页面仍在主机内存和显存之间移动",
    "pages still moved between host memory and VRAM in rounds {nums_r} of {n}":
        "在第 {nums_r} 轮（共 {n} 轮），页面仍在主机内存和显存之间移动",
    "from round 2 on, reads still faulted":
        "从第 2 轮起，读取仍然会缺页",
    "in round {nums_r} of {n} the GPU's read faulted pages into VRAM and the CPU's read pulled them back: "
    "ping-pong (the first round is where your prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），GPU 读取时把页面缺页迁入显存，CPU 读取时又把它们拉了回去：乒"
        "乓（你的 prepare(a) 本该在第一轮里就把事情安排好）",
    "in rounds {nums_r} of {n} the GPU's read faulted pages into VRAM and the CPU's read pulled them back: "
    "ping-pong (the first round is where your prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），GPU 读取时把页面缺页迁入显存，CPU 读取时又把它们拉了回去：乒"
        "乓（你的 prepare(a) 本该在第一轮里就把事情安排好）",
    "in round {nums_r} the CPU's read pulled back pages that were already in VRAM (the first round is where "
    "your prepare(a) should already have settled things)":
        "在第 {nums_r} 轮，CPU 读取时把已经在显存里的页面拉了回去（你的 prepare(a) 本该在第一轮里"
        "就把事情安排好）",
    "in rounds {nums_r} the CPU's read pulled back pages that were already in VRAM (the first round is where "
    "your prepare(a) should already have settled things)":
        "在第 {nums_r} 轮，CPU 读取时把已经在显存里的页面拉了回去（你的 prepare(a) 本该在第一轮里"
        "就把事情安排好）",
    "the CPU's read pulled pages back from VRAM in round {nums_r} of {n} (the first round is where your "
    "prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），CPU 读取时把页面从显存拉了回去（你的 prepare(a) 本该"
        "在第一轮里就把事情安排好）",
    "the CPU's read pulled pages back from VRAM in rounds {nums_r} of {n} (the first round is where your "
    "prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），CPU 读取时把页面从显存拉了回去（你的 prepare(a) 本该"
        "在第一轮里就把事情安排好）",
    "pages still moved between host memory and VRAM in round {nums_r} of {n} (the first round is where your "
    "prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），页面仍在主机内存和显存之间移动（你的 prepare(a) 本该在第"
        "一轮里就把事情安排好）",
    "pages still moved between host memory and VRAM in rounds {nums_r} of {n} (the first round is where your "
    "prepare(a) should already have settled things)":
        "在第 {nums_r} 轮（共 {n} 轮），页面仍在主机内存和显存之间移动（你的 prepare(a) 本该在第"
        "一轮里就把事情安排好）",
    "from round 2 on, reads still faulted (the first round is where your prepare(a) should already have "
    "settled things)":
        "从第 2 轮起，读取仍然会缺页（你的 prepare(a) 本该在第一轮里就把事情安排好）",
    "§3.2 and section 4 of the notebook: on AMD, read_mostly is only a flag on the range (no copy on "
    "each side), and a CPU read of pages in VRAM brings them back on this card. For a, which both sides "
    "read: which advice lets the GPU read the pages where they already are, without migrating them? For "
    "w, which only the GPU reads, every round: where should its pages be before the first round, and "
    "what puts them there?":
        "§3.2 和本 notebook 第 4 节：在 AMD 上，read_mostly 只是范围上的一个标"
        "志（不会两侧各留一份副本），而在这块卡上，CPU 读取显存里的页会把它们拉回来。对两侧都读的 a："
        "哪种建议能让 GPU 在页面原来所在的地方读取它们，而不迁移？对每一轮只有 GPU 读的 w：第一轮之前"
        "它的页面应该在哪里，又是什么把它们放到那里？",
    "§3.2 and section 4 of the notebook: for a, which both sides read, which advice lets each side read "
    "the pages without taking them away from the other -- a copy on each side, or the pages left where "
    "they are and read across the link? And §4.4: a prefetch obeys only the advice that is already "
    "there. For w, which only the GPU reads, every round: where should its pages be before the first "
    "round?":
        "§3.2 和本 notebook 第 4 节：对两侧都读的 a，哪种建议能让每一侧读这些页，而不把它们从另一侧拿走"
        "——两侧各一份副本，还是页面留在原处、经链路读取？还有 §4.4：预取只遵从已经设好的建议。对每一轮"
        "只有 GPU 读的 w：第一轮之前它的页面应该在哪里？",
    "a (both sides read it): {part_a}": "a（两侧都读它）：{part_a}",
    "a (both sides read it): {part_a}; and {part_w}": "a（两侧都读它）：{part_a}；另外，{part_w}",
    "a: {part_a}; w: {part_w}": "a：{part_a}；w：{part_w}",
    "w (only the GPU reads it, every round): its reads faulted and pages moved in round {nums_r} of {n} "
    "-- after prepare(a, w) nothing about w should be left to the rounds":
        "w（每一轮只有 GPU 读它）：在第 {nums_r} 轮（共 {n} 轮），对它的读取缺页、页面发生了移动——"
        "w 应该在 prepare(a, w) 里就安排好，不该留到这几轮里才处理",
    "w (only the GPU reads it, every round): its reads faulted and pages moved in rounds {nums_r} of {n} "
    "-- after prepare(a, w) nothing about w should be left to the rounds":
        "w（每一轮只有 GPU 读它）：在第 {nums_r} 轮（共 {n} 轮），对它的读取缺页、页面发生了移动——"
        "w 应该在 prepare(a, w) 里就安排好，不该留到这几轮里才处理",
    "w (only the GPU reads it, every round): the GPU read it across the link in round {nums_r} of {n}: "
    "nothing moved, but every round paid the link for data only the GPU uses":
        "w（每一轮只有 GPU 读它）：在第 {nums_r} 轮（共 {n} 轮），GPU 经链路读取了它：什么都没移动，"
        "但每一轮都为只有 GPU 用的数据付了链路的代价",
    "w (only the GPU reads it, every round): the GPU read it across the link in rounds {nums_r} of {n}: "
    "nothing moved, but every round paid the link for data only the GPU uses":
        "w（每一轮只有 GPU 读它）：在第 {nums_r} 轮（共 {n} 轮），GPU 经链路读取了它：什么都没移动，"
        "但每一轮都为只有 GPU 用的数据付了链路的代价",
    "w (only the GPU reads it, every round): from its range's attributes its pages are not in VRAM "
    "before the first round":
        "w（每一轮只有 GPU 读它）：从它这段范围的属性看，第一轮之前它的页面不在显存里",
    "prefetched before the first round, so the GPU read it from VRAM in every round with no fault and "
    "nothing moving":
        "第一轮之前已经预取，所以每一轮 GPU 都从显存读取它，没有缺页，也没有东西移动",
    "nothing faulted, moved or crossed the link in any round":
        "没有任何一轮发生缺页、移动或经过链路",
    "from the range's attributes, the CPU's reads would take pages away from the GPU (or the GPU's from "
    "the CPU) on every round":
        "从这段范围的属性看，每一轮 CPU 的读取都会把页面从 GPU 拿走（或者 GPU 的读取把它们从 CP"
        "U 拿走）",
    "the pages stay in host memory and the GPU reads them in place (faults are not counted on a real "
    "GPU; run on sim to see them)":
        "页面留在主机内存里，GPU 原地读取它们（真 GPU 上不统计缺页；在 sim 上运行才能看到）",
    "read_mostly, then a prefetch to the GPU: each side keeps its own copy (faults are not counted on a "
    "real GPU; run on sim to see them)":
        "先 read_mostly，再预取到 GPU：两侧各保留一份自己的副本（真 GPU 上不统计缺页；在 s"
        "im 上运行才能看到）",
    "nothing moved: on an APU the CPU and the GPU share one memory, so there is nothing to migrate "
    "whatever you do -- on the notebook's MI250X this answer has to keep the pages from moving":
        "什么都没有移动：在 APU 上 CPU 和 GPU 共用一块内存，不管你做什么都没有东西可迁移——在本 "
        "notebook 的 MI250X 上，这个答案必须让页面不动",
    "nothing moved: with XNACK off, a GPU touch does not migrate managed memory (the GPU reads host "
    "memory in place), so this card needs no advice -- with XNACK on, as on the notebook's card, it "
    "does":
        "什么都没有移动：XNACK 关闭时，GPU 访问不会迁移托管内存（GPU 原地读取主机内存），所以这块卡不需"
        "要建议——XNACK 打开时（比如本 notebook 的卡），就需要",
    "the GPU's first read faulted only to map the pages where they lie; after that nothing faults and "
    "nothing moves: the GPU reads host memory across the link on every round (zero copy) and the CPU "
    "reads it locally":
        "GPU 的第一次读取缺页，只是为了在页面所在的地方映射它们；之后什么都不缺页、什么都不移动：GPU 每一"
        "轮都经链路读取主机内存（零拷贝），CPU 在本地读取",
    "nothing faults and nothing moves: each side reads its own copy (read duplication)":
        "什么都不缺页、什么都不移动：两侧各读自己的副本（读复制）",
    "nothing faults and nothing moves in any round":
        "每一轮都没有缺页，也没有任何移动",
    "a does not hold its starting values plus 1 after your step: the kernel must run on a exactly once "
    "(umkit.increment(a, stream=stream)) -- a sum computed without it is not the step's result":
        "你的 step 之后，a 的值不是起始值加 1：kernel 必须在 a 上恰好运行一次（umkit.i"
        "ncrement(a, stream=stream)）——不运行它算出来的和，不是这一步的结果",
    "sum {got} is not the sum of a after the kernel: return the CPU's sum of the whole array once the "
    "kernel is done":
        "和 {got} 不是 kernel 之后 a 的和：请在 kernel 完成后，返回 CPU 对整个数组"
        "求的和",
    "give a Strategy you built -- umkit.workloads.Strategy('my fix', memory=..., prefetch=..., "
    "advice=...) -- not the name of a preset: the exercise is choosing the three settings yourself":
        "请给出你自己构建的 Strategy——umkit.workloads.Strategy('my fix"
        "', memory=..., prefetch=..., advice=...)——而不是一个预设的名字"
        "：这道练习就是要你自己选这三项设置",
    "all-device memory does remove the ping-pong, but then every CPU-side use needs an explicit copy (or "
    "slow reads across the link on a ROCm large-BAR host): keep some data managed.":
        "全部放设备内存确实能消除乒乓，但那样 CPU 一侧每次使用都需要一次显式拷贝（或者在 ROCm 的大 BAR 主机上经链路慢慢读）：留一些数据用托管内存。",
    "pinned memory never migrates":
        "固定内存从不迁移",
    "advice that prefers the CPU keeps those pages in host memory":
        "首选 CPU 的建议把这些页留在主机内存里",
    "Every step read {mib} MiB over the CPU-GPU link (remote_bytes): {part_held}, so the GPU never gets "
    "a local copy.":
        "每一步都经 CPU-GPU 链路读了 {mib} MiB（remote_bytes）：{part_hel"
        "d}，所以 GPU 永远得不到本地副本。",
    "flat and fast on {profile} (a CPU statistic every {every} steps): {steps} steps in {total} ms "
    "({x}x all-device memory); after the warm-up step the worst step is {peak} ms against a median of "
    "{med} ms, no spike. Now say why: which buffer no longer moves, and why does the CPU's statistic "
    "not pull it back?":
        "在 {profile} 上曲线平坦，而且快（每 {every} 步做一次 CPU 统计）：{steps}"
        " 步用了 {total} ms（是全部放设备内存的 {x} 倍）；预热步之后最慢的一步是 {peak} "
        "ms，中位数是 {med} ms，没有毛刺。现在说说为什么：哪块缓冲区不再移动了，CPU 的统计为什么没"
        "有把它拉回来？",
    "my_fix is still None. Build a Strategy: umkit.workloads.Strategy('my fix', memory=..., "
    "prefetch=..., advice=...)":
        "my_fix 仍然是 None。构建一个 Strategy：umkit.workloads.Strate"
        "gy('my fix', memory=..., prefetch=..., advice=...)",
    "b and d: {part_b}; {part_d}.":
        "b 和 d：{part_b}；{part_d}。",
    "that set is not the one. For each letter you chose, ask whether process B's page tables would know "
    "the address it uses; for each you left out, whether it could work after all":
        "这个集合不对。对你选的每个字母，问一问进程 B 的页表会不会知道它用的地址；对你没选的每个字母，问一问它"
        "是不是其实也行得通",
    "at step {step} your statistic returned {got}, the mean of the sample is {want}: sample one float "
    "every 64 KiB (a stride of {stride} floats) of the array as it is now, and average it":
        "在第 {step} 步你的统计函数返回了 {got}，样本的平均值是 {want}：对数组此刻的内容每 "
        "64 KiB 取一个 float（步长 {stride} 个 float），再求平均",
    "right values, but the curve is spiky: some steps take more than {x}x the median step per GPU "
    "update (the memory ECG's rule); {mib} MiB went to the host over the run":
        "数值对了，但曲线有毛刺：按每次 GPU 更新计，有些步用时超过中位数的 {x} 倍（显存心电图的规则）；"
        "整个运行中有 {mib} MiB 被搬到主机",
    "right values and a flat curve on {profile}: worst step {peak} ms per update against a median of "
    "{med} ms; {mib} MiB went to the host. The statistic ran where the data lives, and only a number "
    "crossed the link.":
        "在 {profile} 上数值正确、曲线平坦：按每次更新计，最慢的一步 {peak} ms，中位数 {m"
        "ed} ms；有 {mib} MiB 被搬到主机。统计量在数据所在的地方计算，只有一个数字经过了链路。",

    # -- this round, late: graders 00, 01, 04, 09 and 10 (feedback that names no item) -----------------
    "{call} returned {got}: a count of trips into the kernel is a finite number (0 or more)":
        "{call} 返回了 {got}：进入内核的次数是一个有限的数（0 或更多）",
    "it misses a step the ECG's rule calls a spike":
        "它漏掉了一个按心电图的规则算是毛刺的 step",
    "it flags a step the ECG's rule does not call a spike":
        "它标出了一个按心电图的规则不算毛刺的 step",
    "on the '{name}' curve {part_detail}: which steps does the rule compare, against what, and by how "
    "much must a step stand out?":
        "在“{name}”曲线上，{part_detail}：这条规则比较的是哪些 step、跟什么比、一个 s"
        "tep 要高出多少才算？",
    "it misses a step the ECG's rule calls a spike and it flags a step the ECG's rule does not call a "
    "spike":
        "它漏掉了一个按心电图的规则算是毛刺的 step，又标出了一个按规则不算毛刺的 step",
    "the ECG is still spiky (max/median {x}): step {worst} took {ms} ms with {cf} CPU faults (a usual "
    "step: {uf}): something on the CPU still touches the weights' pages.":
        "心电图仍然有毛刺（最大/中位数 {x}）：第 {worst} 步用了 {ms} ms，有 {cf} 次 "
        "CPU 缺页（通常的一步：{uf} 次）：CPU 上仍有东西在访问权重的页。",
    "the ECG is still spiky (max/median {x}): step {worst} took {ms} ms: {mib} MiB crossed the link to "
    "the host in that step (copies or prefetches, not CPU faults): does the statistic need all of that "
    "to leave the GPU?":
        "心电图仍然有毛刺（最大/中位数 {x}）：第 {worst} 步用了 {ms} ms：那一步有 {mib"
        "} MiB 经链路去了主机（是拷贝或预取，不是 CPU 缺页）：统计量真的需要让这么多数据离开 GPU "
        "吗？",
    "nb10.gpu_mean() is section 3's helper and does not answer while the check runs your step: write "
    "the statistic yourself (help(umkit.touch), help(umkit.read_back))":
        "nb10.gpu_mean() 是第 3 节的辅助函数，检查运行你的 step 时它不作答：统计量请自己写"
        "（help(umkit.touch)、help(umkit.read_back)）",
    "the ECG is still spiky (max/median {x}): step {worst} took {ms} ms ({gf} GPU faults): what does "
    "that step do that the others don't?":
        "心电图仍然有毛刺（最大/中位数 {x}）：第 {worst} 步用了 {ms} ms（{gf} 次 GP"
        "U 缺页）：那一步做了什么别的步没做的事？",
    # -- exercises: reasons (why=) and the breathing rhythm (07b) ------------------------------------
    "not graded: that reason is text the exercise showed you (its prompt, a check's message or a hint) "
    "pasted back. Say in your own words why your answer is right":
        "没有评分：这条理由是把练习给你看过的文字（题目、检查的信息或提示）贴了回来。请用自己的话说明你的答案为什么对",
    "{total} ms of model time for {steps} steps (budget {budget} ms), but the cold layers do not breathe: "
    "{detail}. The exercise asks for the rhythm of notebook 03's section 7 (§2.3): before each step, where "
    "should its layer be, and where the layers it does not read?":
        "{steps} 步用了 {total} ms 模型时间（预算 {budget} ms），但冷层没有在呼吸：{detail}。"
        "这道练习要的是 notebook 03 第 7 节的节奏（§2.3）：每一步开始之前，这一步要读的层应该在哪里，它不读的那些层又应该在哪里？",
    "step {i} began with {pct} of the layer it reads in VRAM: the rest reached the GPU by page faults, or "
    "not at all, while the step ran -- no breath in before the step":
        "第 {i} 步开始时，它要读的层只有 {pct} 在显存里：其余部分是在这一步运行时靠缺页才到 GPU 的，"
        "或者根本没到——这一步之前没有吸气",
    # -- exercises: budget, forget, the notebook's card, and reworded feedback ----------------------
    "forget() was asked {n} time(s) for this exercise: its tries and any shown answer were kept":
        "这道练习调用过 {n} 次 forget()：已用掉的尝试次数和看过的答案都保留着",
    "not graded: most of your reason is not words. Say in your own words, in sentences, why your answer "
    "is right":
        "没有评分：你的理由大部分不是词语。请用自己的话、用完整的句子说明你的答案为什么对",
    # -- nb07 placement: buffers drawn per attempt -----------------------------------------------------
    "{part_msg}. The buffers are drawn again: print nb07.BUFFERS to see the new set, and place those":
        "{part_msg}。缓冲区重新抽过了：打印 nb07.BUFFERS 看看新的一组，给它们分配",
    "8 GB of optimizer moments the GPU updates in every optimizer step; the CPU never reads them.":
        "8 GB 的优化器动量，GPU 在每个优化器步都会更新；CPU 从不读它们。",
    "a serving job's key-value cache: 10 GB the GPU reads and extends for every request, with answers "
    "due within 50 ms at p99.":
        "一个推理服务的 key-value 缓存：10 GB，GPU 为每个请求读取并追加，p99 要在 50 ms 内给出回答。",
    "a 3 GB adjacency list: each step the GPU follows a few hundred random edges, and most of it stays "
    "untouched for hours.":
        "一份 3 GB 的邻接表：每一步 GPU 沿着几百条随机的边走，大部分内容几个小时都没人碰。",
    "32 MB of vocabulary counts the CPU rebuilds once an epoch and the GPU reads in a few steps of each "
    "epoch.":
        "32 MB 的词表计数：CPU 每个 epoch 重建一次，GPU 在每个 epoch 的少数几步里读它。",
    "a 2 GB copy of the weights taken every 5,000 steps and handed by the CPU to an evaluation job.":
        "一份 2 GB 的权重副本，每 5,000 步取一次，由 CPU 交给一个评估任务。",
    "a few MB of activations you print from the CPU now and then while you debug the model.":
        "几 MB 的激活值，调试模型时你时不时从 CPU 把它们打印出来。",
    "a 1 KB block the CPU writes before every step (learning rate, step number) and every kernel of the "
    "step reads.":
        "一块 1 KB 的数据，CPU 在每一步之前写（学习率、步数），这一步的每个 kernel 都读它。",
    "16 bytes of flags the GPU sets in every step and a CPU monitor polls continuously.":
        "16 字节的标志位：GPU 每一步都会设置，CPU 上的监控程序不停地轮询。",
    "The GPU reads and writes all of it every step and the CPU never looks: part of the heart. Device "
    "memory keeps it in place; managed memory could only lose it to eviction (§6.1).":
        "GPU 每一步都读写它的全部，CPU 从不看：它是心脏的一部分。设备内存让它待在原地；托管内存只可能"
        "让它被驱逐（§6.1）。",
    "Every request reads it on the GPU and its latency is what the service promises: a migration or an "
    "eviction at a peak is exactly what must not happen. Pre-allocate it in device memory (§6.3).":
        "每个请求都在 GPU 上读它，而它的延迟正是服务所承诺的：高峰时的一次迁移或驱逐恰恰是绝不能发生的。"
        "把它预先分配在设备内存里（§6.3）。",
    "Each step touches a few scattered places in it: with managed memory the blocks around them migrate on "
    "demand (2 MiB on AMD since Linux 6.8: a few hundred random edges can pull in far more than they use); "
    "pinned host memory, read in place over the link, moves nothing. Device memory would hold all 3 GB for "
    "the few edges a step follows (§6.1).":
        "每一步只碰到它零散的几处：用托管内存时，这几处周围的块按需迁移（Linux 6.8 起 AMD 上是 2 MiB："
        "几百条随机的边可能拉进来远多于它们用到的数据）；固定主机内存让 GPU 经链路原地读，什么都不搬。"
        "设备内存要为一步走过的那几条边占住全部 3 GB（§6.1）。",
    "Small, and touched by each side now and then: managed memory (XNACK on, as here) moves it to whoever "
    "touches it, with no "
    "copy code, and now and then is rare enough that the moves cost little; pinned memory would make the "
    "GPU read it over the link in each step that uses it (§6.1, §4.4).":
        "它很小，两边都时不时碰一下：托管内存（XNACK 打开时，如这里）把它搬到碰它的一方，不用写拷贝代码；而“时不时”足够少，"
        "搬动的开销很小；用固定内存的话，每个用到它的 step 里 GPU 都要经链路读它（§6.1、§4.4）。",
    "The CPU needs it every few thousand steps, like a checkpoint: managed memory prefetched to the host "
    "before the CPU reads it, or pinned host memory filled by an async copy. Not device-only memory: the "
    "CPU must read it (§3.4).":
        "CPU 每隔几千步才需要它，就像检查点：用托管内存，在 CPU 读之前预取到主机；或者用固定内存，"
        "由一次异步拷贝填好。不能只放在设备内存：CPU 必须读它（§3.4）。",
    "A CPU look now and then: managed memory lets the CPU read the same pointer; pinned memory the GPU "
    "writes into works too, and no page moves (§6.1).":
        "CPU 时不时看一眼：托管内存让 CPU 读同一个指针；由 GPU 写入的固定内存也行，而且没有任何页移动（§6.1）。",
    "Tiny, written by the CPU every step and read by the GPU every step: in pinned host memory the GPU "
    "reads it over the link and no page migrates; device memory with a small copy from the host before each "
    "step is right too; managed memory would (with XNACK on, as here) move its page back and forth every "
    "step (§4.4).":
        "很小，CPU 每一步都写，GPU 每一步都读：放在固定内存里，GPU 经链路读它，没有页迁移；设备内存加上"
        "每一步之前从主机来的一次小拷贝也对；托管内存则会（在 XNACK 打开时，如这里）让它那一页每一步来回搬动（§4.4）。",
    "A few bytes both sides touch all the time: pinned host memory, where the GPU writes over the link "
    "and the CPU reads in place; managed memory would (with XNACK on, as here) move the page back and forth every step: the "
    "GPU's write pulls it into VRAM, the next poll pulls it back (§4.4).":
        "两边一直都在碰的几个字节：放在固定内存里，GPU 经链路写，CPU 原地读；托管内存会（在 XNACK 打开时，如这里）让那一页"
        "每一步都来回搬：GPU 的写把它拉进显存，下一次轮询又把它拉回来（§4.4）。",
    # -- exercises: a pass needs the learner's reason ------------------------------------------------
    "not graded: you gave that reason (or nearly the same one) before for this exercise. Say why this "
    "answer is right anew, in other words":
        "没有评分：这条理由（或几乎一样的）你在这道题上已经给过了。换一种说法，重新说明这个答案为什么对",
    "not graded: a reason (why='...') has at least {n} words (in Chinese, {m} characters)":
        "没有评分：一条理由（why='...'）至少要有 {n} 个词（中文至少 {m} 个字）",
    "not graded: {tries} wrong tries, so from now on every try needs a new reason in your own words "
    "(why='...'). Re-read the concept first (run the check with hint=2)":
        "没有评分：已经答错 {tries} 次，所以从现在起每次尝试都要附上一条你自己的新理由（why='...'）。"
        "先重读概念（带上 hint=2 运行检查）",
    "not graded: {tries} wrong tries, so from now on every try needs a new reason in your own words "
    "(why='...'). Re-read the concept first (run the check with hint=2). The tries are counted in "
    "{path}, across kernels and copies of the course":
        "没有评分：已经答错 {tries} 次，所以从现在起每次尝试都要附上一条你自己的新理由（why='...'）。"
        "先重读概念（带上 hint=2 运行检查）。这些尝试记在 {path} 里，跨内核、跨课程副本都算数",
    "not graded: {tries} wrong tries -- wait {secs} s more before the next try (each wrong try from now on "
    "doubles the wait, up to {most} minutes; a pass ends it). Use the time to re-read the concept (run the "
    "check with hint=2)":
        "没有评分：已经答错 {tries} 次——再等 {secs} 秒才能进行下一次尝试（从现在起每答错一次，等待时间加倍，最长 {most} 分钟；"
        "答对即结束等待）。利用这段时间重读概念（带上 hint=2 运行检查）",
    "{part_msg} -- your answer works; to pass, add your reason: run the check again with why='...', one "
    "sentence in your own words (6 words or more; in Chinese, 12 characters) of why it is right":
        "{part_msg}——你的答案可行；要通过，还要附上你的理由：再运行一次检查，带上 why='...'，"
        "用你自己的话写一句（英文至少 6 个词，中文至少 12 个字）说明它为什么对",
    # -- EXF3: the fourth try's exercise changes -------------------------------------------------------
    "{part_msg} (graded on the notebook's card, {card}; the card you named, {named}, is not graded)":
        "{part_msg}（按本 notebook 的卡 {card} 评分；你指定的卡 {named} 不参与评分）",
    "hipDeviceGetAttribute(..., hipDeviceAttributeConcurrentManagedAccess, ...): on ROCm that attribute is 1 "
    "whenever the driver supports SVM, with XNACK off too (ledger: amd.attr.concurrent_managed). On an "
    "MI250X with XNACK off (its default) your "
    "port finds on_demand = 1 and goes on without the warning, though a GPU touch of a host page cannot "
    "migrate it there: the CUDA code's check no longer catches the case it was written for (section 2, "
    "§5.3).":
        "hipDeviceGetAttribute(..., hipDeviceAttributeConcurrentManagedAccess, ...)：在 ROCm 上，只要驱动支持 SVM，"
        "这个属性就是 1，XNACK 关闭时也一样（ledger: amd.attr.concurrent_managed）。在 XNACK 关闭（默认设置）的 MI250X 上，你的移植得到 on_demand = 1，"
        "不发警告就继续往下跑，可是在那里 GPU 碰到主机页并不能把它迁移过来：CUDA 代码的这道检查再也抓不住它本来要抓的"
        "情形（第 2 节，§5.3）。",
    "hipDeviceGetAttribute(..., {code_attr}, ...): the CUDA code asks whether this GPU can fault managed "
    "pages in on demand; on ROCm your port's attribute does not answer that question, so its warning no "
    "longer appears when it should (section 2, §5.3).":
        "hipDeviceGetAttribute(..., {code_attr}, ...)：CUDA 代码问的是这块 GPU 能否按需把托管页缺页调入；在 ROCm 上，"
        "你的移植用的属性回答的不是这个问题，所以该出现警告的时候它不再出现（第 2 节，§5.3）。",
    "{code_n} is still CUDA.": "{code_n} 仍然是 CUDA 的名字。",
    "{code_n} is still CUDA, and umkit.names has no row for it.":
        "{code_n} 仍然是 CUDA 的名字，而 umkit.names 里没有它的行。",
    "{code_n} is still CUDA, and HIP's classic calls have no counterpart of it.":
        "{code_n} 仍然是 CUDA 的名字，而 HIP 的经典调用里没有与它对应的东西。",
    "a faithful port of CUDA 13: the on-demand question asked of PageableMemoryAccess (XNACK), "
    "hipMemLocation with hipMemPrefetchAsync_v2 / hipMemAdvise_v2 (flags 0), every other name from the "
    "table, and both prefetches kept. (The classic int-device calls would be right too.)":
        "对 CUDA 13 的忠实移植：“能否按需缺页”这个问题问的是 PageableMemoryAccess（XNACK），hipMemLocation 配 "
        "hipMemPrefetchAsync_v2 / hipMemAdvise_v2（flags 为 0），其他每个名字都取自对照表，两个预取都保留了。"
        "（用经典的 int 设备号调用也对。）",
    "a faithful port: the on-demand question asked of PageableMemoryAccess (XNACK), every other name from "
    "the table, int devices instead of cudaMemLocation (hipCpuDeviceId for the host), no flags argument, "
    "and both prefetches kept. (hipMemPrefetchAsync_v2 / hipMemAdvise_v2 with a hipMemLocation would be "
    "right too: the most direct port of CUDA 13.)":
        "忠实的移植：“能否按需缺页”这个问题问的是 PageableMemoryAccess（XNACK），其他每个名字都取自对照表，用 int "
        "设备号代替 cudaMemLocation（主机用 hipCpuDeviceId），没有 flags 参数，两个预取都保留了。（用 hipMemLocation "
        "配 hipMemPrefetchAsync_v2 / hipMemAdvise_v2 也对：那是对 CUDA 13 最直接的移植。）",
    "the classic calls take an int: the device number for a GPU, hipCpuDeviceId (-1) for the CPU. Drop "
    "the structs -- or keep them and call hipMemPrefetchAsync_v2 / hipMemAdvise_v2":
        "经典调用接受一个 int：GPU 用设备号，CPU 用 hipCpuDeviceId（-1）。去掉这些结构体——或者保留它们，"
        "改调 hipMemPrefetchAsync_v2 / hipMemAdvise_v2",
    "{item}: {value} is not an allocator; use one of ('device', 'managed', 'pinned').":
        "{item}：{value} 不是一种分配器；请从 ('device', 'managed', 'pinned') 中选一个。",
    "In process A, take an IPC handle of a hipMalloc buffer (hipIpcGetMemHandle) and pass the handle over "
    "a socket; process B calls hipIpcOpenMemHandle on it and uses the pointer that call returns.":
        "在进程 A 里为一块 hipMalloc 缓冲区取一个 IPC 句柄（hipIpcGetMemHandle），经套接字把句柄传过去；进程 B 对它"
        "调用 hipIpcOpenMemHandle，使用这次调用返回的指针。",
    "Allocate with hipMalloc, take its handle with hipIpcGetMemHandle, open it with hipIpcOpenMemHandle in "
    "process A itself, and send the pointer that call returns to process B.":
        "用 hipMalloc 分配，用 hipIpcGetMemHandle 取它的句柄，在进程 A 自己里用 hipIpcOpenMemHandle 打开，"
        "再把这次调用返回的指针发给进程 B。",
    "Process A writes the data into a /dev/shm object; process B maps the same object with mmap and copies "
    "from its own mapping into a buffer it allocated on its GPU.":
        "进程 A 把数据写进一个 /dev/shm 对象；进程 B 用 mmap 映射同一个对象，再从它自己的映射里拷进它在自己 GPU 上"
        "分配的缓冲区。",
    "Both processes map the same /dev/shm object with mmap; process A sends the address of its mapping to "
    "process B, which copies from that address.":
        "两个进程都用 mmap 映射同一个 /dev/shm 对象；进程 A 把它的映射地址发给进程 B，B 从那个地址拷数据。",
    "Process A copies the data to host memory and writes the bytes themselves into a pipe; process B reads "
    "them and copies them into a buffer it allocated on its GPU.":
        "进程 A 把数据拷到主机内存，把这些字节本身写进管道；进程 B 读出它们，再拷进它在自己 GPU 上分配的缓冲区。",
    "Process A copies the data to host memory and writes the address of that host buffer into a pipe; "
    "process B copies from that address to its GPU.":
        "进程 A 把数据拷到主机内存，把这块主机缓冲区的地址写进管道；进程 B 从那个地址拷到它的 GPU 上。",
    "the handle is opened where it is used: hipIpcOpenMemHandle in process B maps the buffer there and "
    "returns B's own pointer to it":
        "句柄在哪里用就在哪里打开：进程 B 里的 hipIpcOpenMemHandle 把缓冲区映射到 B，并返回 B 自己指向它的指针",
    "in the process that made the handle, hipIpcOpenMemHandle opens nothing (it returns "
    "hipErrorInvalidContext, ledger: amd.ipc.open_fail); and a pointer of process A is an address of A: "
    "B's page tables have nothing there":
        "在创建句柄的那个进程里，hipIpcOpenMemHandle 什么也打不开（它返回 hipErrorInvalidContext，"
        "ledger: amd.ipc.open_fail）；而且进程 A 的指针是 A 的地址：B 的页表在那里什么都没有",
    "B reads the shared object through its own mapping, at the address its own mmap returned, and copies "
    "to its own GPU memory":
        "B 通过自己的映射、在它自己的 mmap 返回的地址上读取共享对象，再拷进自己的 GPU 内存",
    "each process maps the object at an address of its own: A's address means nothing in B, which must use "
    "what its own mmap returned":
        "每个进程都把这个对象映射在自己的地址上：A 的地址在 B 里没有意义，B 必须用它自己的 mmap 返回的地址",
    "the bytes themselves travel, not an address: B puts them into memory it allocated itself":
        "传过去的是字节本身，而不是一个地址：B 把它们放进自己分配的内存",
    "the address of A's host buffer is A's: only the bytes can cross to another process through a pipe, "
    "not the memory behind an address":
        "A 的主机缓冲区的地址属于 A：能经管道传到另一个进程的只有字节，而不是一个地址背后的内存",
    "{part_msg} (graded on the notebook's card, {card}; your session models {mine})":
        "{part_msg}（按本 notebook 的卡 {card} 评分；你的会话模拟的是 {mine}）",
    "on {card} (the card you named): {part_msg}":
        "在 {card} 上（你指定的卡）：{part_msg}",
    "flat (max/median {x}) on {profile} and the statistic is right: the answer travelled, the weights "
    "stayed on the GPU.":
        "在 {profile} 上曲线平坦（max/median {x}），统计量也正确：经过链路的只有答案，权重一直留在 GPU 上。",
    "For the question now open (print nb05.IPC_OPTIONS to see its options):":
        "对现在这道题（打印 nb05.IPC_OPTIONS 可以看到它的选项）：",
    "{call} returned {got}, which is not the driver's count. Follow every fault: which trip into the "
    "kernel services each one, and how many trips is that?":
        "{call} 返回了 {got}，这不是驱动数出的次数。跟着每一次缺页走：每一次由哪一趟进内核来处理，一共是多少趟？",
    "a batch *holds* up to batch_max faults: how many batches do the faults fill?":
        "一批*最多装* batch_max 个缺页：这些缺页能装满多少批？",
    "{call} returned {got} ms: the model charges {code_w} ms for this call (§3.2)":
        "{call} 返回了 {got} ms：模型对这次调用计的是 {code_w} ms（§3.2）",
    "{call} returned {got} ms: {code_m} MiB is not {code_n} * 10**6 bytes":
        "{call} 返回了 {got} ms：{code_m} MiB 不是 {code_n} * 10**6 字节",
    "two parts do not fit: what one call costs before its first byte moves, and what sets how fast its "
    "pages move (§3.2)":
        "有两部分对不上：一次调用在第一个字节移动之前的开销，以及是什么决定了它的页面移动得多快（§3.2）",
    "a location struct (hipMemLocation) reaches calls whose location argument is of another kind: a HIP "
    "call takes its own arguments, which are not always CUDA 13's (§5.3: renaming is only step one).":
        "一个位置结构体（hipMemLocation）被传给了位置参数是另一种类型的调用：HIP 的调用有它自己的参数，"
        "不一定和 CUDA 13 的相同（§5.3：改名只是第一步）。",
    "§6.1-6.3: for every buffer ask who touches it (the GPU, the CPU, both), how often (every step, now "
    "and then, rarely), how big it is and whether its latency matters -- then what each allocator costs "
    "for that pattern: device memory (the other side needs explicit copies), managed memory (pages "
    "migrate on demand, and back), pinned host memory (the GPU reads and writes it across the link; no "
    "page ever moves)":
        "§6.1-6.3：对每一块缓冲区都问一问：谁访问它（GPU、CPU，还是两者）、多频繁（每一步、时不时、很少）、"
        "多大、它的延迟是否要紧——再想想每种分配器在这种访问模式下的代价：设备内存（另一侧需要显式拷贝）、"
        "托管内存（页面按需迁移，还会迁回来）、固定内存（GPU 经链路读写它，页面从不移动）",
    "step {i} began with {mib} MiB of cold layers it does not read still in VRAM, so the room this step's "
    "layer needs is the driver's to find -- and it does not know which pages are the heart":
        "第 {i} 步开始时，显存里还留着 {mib} MiB 这一步不读的冷层，所以这一步的层需要的空间只能由驱动去腾"
        "——而驱动不知道哪些页是心脏",
    "{total} ms of model time for {steps} steps (budget {budget} ms), and each step begins with its own "
    "layer in VRAM and the others out -- but {hit} of the {steps2} steps began with part of the heart "
    "evicted ({ev} evictions by the driver, {gf} GPU faults to bring it back). A layer came into a full "
    "VRAM: the driver had to find the room, and it took it from the heart (notebook 03's section 7, "
    "§2.3).":
        "{steps} 步用了 {total} ms 模型时间（预算 {budget} ms），每一步开始时它自己的层都在显存里、其他层都在外面"
        "——但 {steps2} 步里有 {hit} 步开始时心脏的一部分已经被驱逐了（驱动驱逐了 {ev} 次，GPU 为把它取回来缺页 "
        "{gf} 次）。有一层进入了已满的显存：驱动只好自己腾空间，而它腾的是心脏（notebook 03 第 7 节，§2.3）。",
    "called with n={n}: the kernel of epoch {e} added a b that held {x} on average: b holds 2.0 for the "
    "whole run.":
        "调用时 n={n}：第 {e} 个 epoch 的 kernel 加上的 b 平均值是 {x}：b 在整个运行中都应是 2.0。",
    "called with n={n}, {k} epochs: the kernel of epoch {e} added the a it found -- {part_held}. Each "
    "epoch's kernel must add that epoch's batch: what reaches a between two kernels, and when?":
        "调用时 n={n}，{k} 个 epoch：第 {e} 个 epoch 的 kernel 加上的是它当时在 a 里找到的数据——{part_held}。"
        "每个 epoch 的 kernel 都必须加上那个 epoch 的批次：两次 kernel 之间有什么进入了 a，又是在什么时候？",
    "still the batch of epoch {k}": "仍然是第 {k} 个 epoch 的批次",
    "{x} on average, no epoch's batch": "平均值 {x}，不是任何一个 epoch 的批次",
    "called with n={n}: epoch {e}'s sum is {s}, but the kernel of that epoch wrote {w} into out: each sum "
    "is what the CPU reads back from out after that epoch's kernel.":
        "调用时 n={n}：第 {e} 个 epoch 的和是 {s}，但那个 epoch 的 kernel 写进 out 的是 {w}：每个和都应是 CPU "
        "在那个 epoch 的 kernel 之后从 out 读回来的值。",
    "on {card} (this notebook's card): {part_msg}":
        "在 {card} 上（本 notebook 的卡）：{part_msg}",
    # -- umkit plan: a plan that does not fit is ruled out; the replay's whole-buffer bound;
    # -- python -m umkit.examples --json ---------------------------------------------------------------
    "device memory does not fit on {code_profiles}: the replay weighed the other choices too":
        "设备内存在 {code_profiles} 上放不下：重放也权衡了其他选择",
    "ruled out: the rules' plan puts {n} buffers ({need} GiB) in device memory, more than the {vram} "
    "GiB of {code_profile}":
        "已排除：规则给出的方案把 {n} 个缓冲区（{need} GiB）放进设备内存，超过了 {code_profile} 的 "
        "{vram} GiB",
    "no plan within the choices allowed fits on {code_profile}: {part_why}":
        "在允许的选择之内，没有一个方案能在 {code_profile} 上放得下：{part_why}",
    "allow a managed choice (managed memory oversubscribes the card), e.g. choices=None (every choice)":
        "允许一种托管内存的选择（托管内存可以超额订阅这张卡），例如 choices=None（所有选择）",
    "replaying {steps} steps works through {whole} whole-buffer page operations (the plans' advice and "
    "prefetches over every page of the recording's {gib} GiB of buffers, step after step); a replay works "
    "through at most {most}, so that a recommendation, which replays the loop once per plan, ends in "
    "seconds":
        "重放 {steps} 步要做 {whole} 次整块缓冲区的页操作（各方案的建议和预取一步接一步地覆盖录制中 {gib} GiB "
        "缓冲区的每一页）；一次重放最多做 {most} 次，这样按每个方案各重放一遍循环的推荐才能在几秒内完成",
    "record the loop with smaller buffers (the same access pattern at a smaller size predicts the same "
    "choices)":
        "用更小的缓冲区录制这个循环（同样的访问模式换成更小的尺寸，预测出的选择相同）",
    "replay fewer steps (steps={n} fits; the steady steps repeat), or record the loop with smaller "
    "buffers (the same access pattern at a smaller size predicts the same choices)":
        "少重放几步（steps={n} 可以；稳定的步都是重复的），或者用更小的缓冲区录制这个循环（同样的访问模式"
        "换成更小的尺寸，预测出的选择相同）",
    "replay fewer steps (--steps {n} fits; the steady steps repeat), or record the loop with smaller "
    "buffers (the same access pattern at a smaller size predicts the same choices)":
        "少重放几步（--steps {n} 可以；稳定的步都是重复的），或者用更小的缓冲区录制这个循环（同样的访问模式"
        "换成更小的尺寸，预测出的选择相同）",
    "--force replaces the file, --numbered keeps it: pick one":
        "--force 会替换这个文件，--numbered 会保留它：二选一",
}
