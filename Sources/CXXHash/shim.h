// xxHash (Debian's libxxhash-dev, 0.8): XXH3, the page fingerprints of a large file's revisions.
#ifndef CXXHASH_SHIM_H
#define CXXHASH_SHIM_H

#include <xxhash.h>
#if defined(__x86_64__) && __has_include(<xxh_x86dispatch.h>)
#define CXXHASH_DISPATCH 1
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#endif

/* XXH3's 128 bits of `count` bytes at `bytes`, keyed with `secret`: on x86-64 with the vector
   code the processor has (AVX2, AVX-512), chosen once by the library; Debian builds the plain
   functions for SSE2 only, a third slower on a page-cache page. */
static inline XXH128_hash_t cxxhash_128_with_secret(const void *bytes, size_t count, const void *secret, size_t secretSize) {
#if defined(CXXHASH_DISPATCH)
    return XXH3_128bits_withSecret_dispatch(bytes, count, secret, secretSize);
#else
    return XXH3_128bits_withSecret(bytes, count, secret, secretSize);
#endif
}

#endif
