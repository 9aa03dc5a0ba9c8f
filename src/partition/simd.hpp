// Private: marks the few hot loops of the dynamic programmes for an AVX2 clone beside the
// baseline one (GCC/Clang function multi-versioning on x86-64 Linux; chosen at load time).
#pragma once

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(CTRL_PARTITION_NO_CLONES)
#define CTRL_PARTITION_SIMD __attribute__((target_clones("avx2", "default")))
#else
#define CTRL_PARTITION_SIMD
#endif
