// Whether this test binary (and so the host and modules of the same build) runs under a sanitizer.
// ASan changes what some checks can see: its allocator keeps freed memory in a quarantine (RSS grows by
// design) and its SEGV handler turns a crash into a report and abort().
#pragma once

namespace actionhost::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Whether it runs under ThreadSanitizer (the tsan preset): every memory access is checked against a
// shadow of the others' accesses, so CPU-bound work runs 5-15x slower and memory use grows 5-10x.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// How much longer CPU-bound work takes under the sanitizer build (ASan measures 2-3x on parsing loops;
// CI runs two tests at once on two cores). Latency bounds that guard against seconds-long stalls scale
// by it; a bound that only holds in the plain build would fail CI on a time, not on a regression.
inline constexpr double kSanitizerTimeFactor = kThreadSanitizer ? 8.0 : kAddressSanitizer ? 4.0 : 1.0;

}  // namespace actionhost::testing
