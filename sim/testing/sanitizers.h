// Which sanitizer instruments this build, for tests that pace real processes to the wall
// clock: instrumented code runs several times slower, so such tests run on a slower
// simulated clock there and keep their tolerances in simulated seconds.
// GCC names the sanitizers with __SANITIZE_*__; clang 14 only through __has_feature.
#pragma once

#if defined(__has_feature)
#define DRAINSIM_HAS_FEATURE(x) __has_feature(x)
#else
#define DRAINSIM_HAS_FEATURE(x) 0
#endif

namespace drainsim::test {

#if defined(__SANITIZE_THREAD__) || DRAINSIM_HAS_FEATURE(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

#if defined(__SANITIZE_ADDRESS__) || DRAINSIM_HAS_FEATURE(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace drainsim::test
