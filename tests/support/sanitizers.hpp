// Whether this test binary (and so the host and modules of the same build) runs under a sanitizer.
// ASan changes what some checks can see: its allocator keeps freed memory in a quarantine (RSS grows by
// design) and its SEGV handler turns a crash into a report and abort().
#pragma once

#include <actionhost/common/sanitizers.hpp>

namespace actionhost::testing {

// ASan (the asan preset): its allocator keeps freed memory in a quarantine, its SEGV handler aborts.
inline constexpr bool kAddressSanitizer = common::kAddressSanitizer;

// Whether it runs under ThreadSanitizer (the tsan preset): every memory access is checked against a
// shadow of the others' accesses, so CPU-bound work runs 5-15x slower and memory use grows 5-10x.
inline constexpr bool kThreadSanitizer = common::kThreadSanitizer;

// What a sanitizer build's host takes beyond a plain one's, in MiB: under ASan+UBSan the host's check
// sites alone carry ~64 MiB of data relocated (so written) at load, ~190 MiB resident in all against a
// plain host's ~15. A test that bounds a command by the sandbox's memory limit adds this to the limit, so
// the limit still bounds the command and not the host beside it.
inline constexpr int kSanitizerHostMemoryMb = kThreadSanitizer ? 512 : kAddressSanitizer ? 256 : 0;

// How much longer CPU-bound work takes under the sanitizer build (ASan measures 2-3x on parsing loops;
// CI runs two tests at once on two cores). Latency bounds that guard against seconds-long stalls scale
// by it; a bound that only holds in the plain build would fail CI on a time, not on a regression.
inline constexpr double kSanitizerTimeFactor = kThreadSanitizer ? 8.0 : kAddressSanitizer ? 4.0 : 1.0;

}  // namespace actionhost::testing
