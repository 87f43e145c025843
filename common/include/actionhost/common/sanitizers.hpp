// Whether this translation unit is built under a sanitizer: one feature test for the whole tree (the
// modules' TSan-only annotations, the tests' bounds that a sanitizer's pace or allocator changes).
// gcc says which sanitizer it builds with by __SANITIZE_*__, clang by __has_feature.
#pragma once

#if defined(__has_feature)
#define AH_SANITIZERS_HAS_FEATURE(x) __has_feature(x)
#else
#define AH_SANITIZERS_HAS_FEATURE(x) 0
#endif

// 1 under AddressSanitizer (the asan preset), else 0: usable in #if.
#if defined(__SANITIZE_ADDRESS__) || AH_SANITIZERS_HAS_FEATURE(address_sanitizer)
#define AH_ADDRESS_SANITIZER 1
#else
#define AH_ADDRESS_SANITIZER 0
#endif

// 1 under ThreadSanitizer (the tsan preset), else 0: usable in #if.
#if defined(__SANITIZE_THREAD__) || AH_SANITIZERS_HAS_FEATURE(thread_sanitizer)
#define AH_THREAD_SANITIZER 1
#else
#define AH_THREAD_SANITIZER 0
#endif

#undef AH_SANITIZERS_HAS_FEATURE

namespace actionhost::common {

inline constexpr bool kAddressSanitizer = AH_ADDRESS_SANITIZER == 1;
inline constexpr bool kThreadSanitizer = AH_THREAD_SANITIZER == 1;

}  // namespace actionhost::common
