// Private: marks the few hot loops of the dynamic programmes for an AVX2 clone beside the
// baseline one (GCC/Clang function multi-versioning on x86-64 Linux, chosen at load time through
// an ifunc; about twice as fast as the baseline on the 10x benchmark). Sanitizer builds go
// without: an ifunc resolver runs before the sanitizer's runtime is set up (ThreadSanitizer
// crashes there).
#pragma once

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CTRL_PARTITION_NO_CLONES
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define CTRL_PARTITION_NO_CLONES
#endif
#endif

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(CTRL_PARTITION_NO_CLONES)
#define CTRL_PARTITION_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define CTRL_PARTITION_SIMD
#endif
