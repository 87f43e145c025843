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

#if AH_ADDRESS_SANITIZER
#include <sanitizer/lsan_interface.h>
#endif

namespace actionhost::common {

inline constexpr bool kAddressSanitizer = AH_ADDRESS_SANITIZER == 1;
inline constexpr bool kThreadSanitizer = AH_THREAD_SANITIZER == 1;

// `object` (heap-allocated, and everything reachable from it) is never freed, on purpose: a module that
// must stay loaded, a plugin abandoned under a running call. Under ASan, LeakSanitizer is told so;
// otherwise it reports such an object at exit whenever no stale copy of its pointer happens to be left in
// memory. (Keeping the pointers in a static list does not serve: the code that gives an object up may be
// in a module whose statics go when it is unloaded, as the host core inside the `cli` runtime.) Any
// thread; nothing in other builds.
inline void never_freed(const void *object) {
#if AH_ADDRESS_SANITIZER
    if (object != nullptr) __lsan_ignore_object(object);
#else
    (void)object;
#endif
}

}  // namespace actionhost::common
