// Whether this test binary (and so the host and modules of the same build) runs under a sanitizer.
// ASan changes what some checks can see: its allocator keeps freed memory in a quarantine (RSS grows by
// design) and its SEGV handler turns a crash into a report and abort().
#pragma once

namespace actionhost::testing {

// gcc says which sanitizer it builds with by __SANITIZE_*__, clang by __has_feature.
#if defined(__has_feature)
#define AH_TESTING_HAS_FEATURE(x) __has_feature(x)
#else
#define AH_TESTING_HAS_FEATURE(x) 0
#endif

inline constexpr bool kAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__) || AH_TESTING_HAS_FEATURE(address_sanitizer)
    true;
#else
    false;
#endif

// Whether it runs under ThreadSanitizer (the tsan preset): every memory access is checked against a
// shadow of the others' accesses, so CPU-bound work runs 5-15x slower and memory use grows 5-10x.
inline constexpr bool kThreadSanitizer =
#if defined(__SANITIZE_THREAD__) || AH_TESTING_HAS_FEATURE(thread_sanitizer)
    true;
#else
    false;
#endif

#undef AH_TESTING_HAS_FEATURE

// How much longer CPU-bound work takes under the sanitizer build (ASan measures 2-3x on parsing loops;
// CI runs two tests at once on two cores). Latency bounds that guard against seconds-long stalls scale
// by it; a bound that only holds in the plain build would fail CI on a time, not on a regression.
inline constexpr double kSanitizerTimeFactor = kThreadSanitizer ? 8.0 : kAddressSanitizer ? 4.0 : 1.0;

}  // namespace actionhost::testing
