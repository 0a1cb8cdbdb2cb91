// Byte scanning kernels for the JSON parser (JSONTree), in C for the SIMD intrinsics
// Swift does not expose. The inline ones use SSE2, which every x86-64 CPU has, so the
// Swift compiler inlines them into the parser's loops; other CPUs get the portable loop.
#ifndef CJSONSCAN_H
#define CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/// What one pass over a document finds before it is parsed.
typedef struct {
    /// 1 when the bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF), 0 when they are not, -1 when this CPU has no fast check
    /// (the parser then validates strings as it scans them).
    int utf8;
    /// How many bytes are ',', ':', '[' or '{'. Every JSON value and key but the first
    /// follows one of them, so a document has at most `separators + 1` of them.
    size_t separators;
} jsonscan_survey_t;

/// Surveys `bytes[0..<count]`: UTF-8 validity and the separator count, with AVX2 where
/// the CPU has it. `bytes` may be NULL only when `count` is 0.
jsonscan_survey_t jsonscan_survey(const uint8_t *bytes, size_t count);

/// The survey without SIMD, as other CPUs get it: separators only (`utf8` is -1).
jsonscan_survey_t jsonscan_survey_portable(const uint8_t *bytes, size_t count);

/// The deepest a container checked by `jsonscan_skip_container` may nest.
#define JSONSCAN_SKIP_DEPTH 1024

/// Where `jsonscan_skip_container` stands: how many containers are open (0 before it starts
/// and once it has ended), and for each whether it is an object.
typedef struct {
    size_t depth;
    uint64_t objects[JSONSCAN_SKIP_DEPTH / 64];
} jsonscan_skip_t;

/// Validates the object or array whose bracket is at `from` (with `state->depth` 0), nested
/// at most `max_depth` containers deep (itself included), with the grammar of JSONTree's
/// parser; strings are checked for UTF-8 unless `utf8_checked`. Returns the index after its
/// closing bracket, with `state->depth` 0; or, once it has passed `pause_at` after a value
/// inside, that index with `state->depth` above 0: called again from there with the same
/// state, it goes on. Returns SIZE_MAX when the container is not valid (the parser then
/// finds the error itself).
size_t jsonscan_skip_container(const uint8_t *bytes, size_t from, size_t count, size_t max_depth, int utf8_checked,
                               size_t pause_at, jsonscan_skip_t *state);

/// The first index in `from..<count` holding a byte that ends a run of plain string
/// content: '"', '\\' or a control character (< 0x20), and when `stop_at_non_ascii` is
/// set any byte >= 0x80 too (for a caller that validates UTF-8 itself). Returns `count`
/// when there is none.
static inline size_t jsonscan_string_stop(const uint8_t *bytes, size_t from, size_t count, int stop_at_non_ascii) {
    size_t j = from;
#if defined(__x86_64__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i control = _mm_set1_epi8(0x1F);
    const __m128i high = stop_at_non_ascii ? _mm_set1_epi8((char)0x80) : _mm_setzero_si128();
    while (j + 16 <= count) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + j));
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                   _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(v, control), v), _mm_and_si128(v, high)));
        unsigned mask = (unsigned)_mm_movemask_epi8(hit);
        if (mask != 0) return j + (size_t)__builtin_ctz(mask);
        j += 16;
    }
#endif
    for (; j < count; j++) {
        uint8_t c = bytes[j];
        if (c == '"' || c == '\\' || c < 0x20 || (stop_at_non_ascii && c >= 0x80)) return j;
    }
    return count;
}

/// The first index in `from..<count` that is not JSON whitespace (space, tab, LF, CR);
/// `count` when there is none.
static inline size_t jsonscan_skip_whitespace(const uint8_t *bytes, size_t from, size_t count) {
    size_t j = from;
#if defined(__x86_64__)
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
    const __m128i lf = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (j + 16 <= count) {
        __m128i v = _mm_loadu_si128((const __m128i *)(bytes + j));
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)));
        unsigned mask = (unsigned)_mm_movemask_epi8(ws) ^ 0xFFFFu;
        if (mask != 0) return j + (size_t)__builtin_ctz(mask);
        j += 16;
    }
#endif
    for (; j < count; j++) {
        uint8_t c = bytes[j];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return j;
    }
    return count;
}

#endif
