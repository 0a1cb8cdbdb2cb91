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

/// One member of an object, as `jsonscan_scan_members` finds it: positions in the input.
typedef struct {
    /// Its key's opening quote, and the key's length with its quotes, with the flags below.
    uint32_t key_start, key_length;
    /// Its value: where it starts and the position after it.
    uint32_t value_start, value_end;
} jsonscan_member_t;

/// In `key_length`, above the length: the key has an escape; the value is a string with an
/// escape; the value is an object or array; the key's bytes come after the previous member's
/// (as `memcmp`, a shorter key first when one starts the other); the key may be one of those
/// asked about (its bytes are one's, or it has an escape).
#define JSONSCAN_MEMBER_KEY_ESCAPED 0x80000000u
#define JSONSCAN_MEMBER_VALUE_ESCAPED 0x40000000u
#define JSONSCAN_MEMBER_CONTAINER 0x20000000u
#define JSONSCAN_MEMBER_ASCENDING 0x10000000u
#define JSONSCAN_MEMBER_NAMED 0x08000000u
#define JSONSCAN_MEMBER_LENGTH 0x07FFFFFFu

/// Keys a member's key is compared with (`JSONSCAN_MEMBER_NAMED`): their bytes, without quotes.
typedef struct {
    const uint8_t *bytes;
    size_t count;
} jsonscan_key_t;

/// A flag one thread raises and another reads (`jsonscan_scan_members`'s `stop`).
static inline void jsonscan_flag_raise(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELAXED); }
static inline int jsonscan_flag_get(const int *flag) { return __atomic_load_n(flag, __ATOMIC_RELAXED); }

/// Validates the members of an object from `at`, with the grammar of JSONTree's parser (strings
/// checked for UTF-8, containers nested at most `max_depth` deep), and writes each into
/// `members`, at most `capacity`. `at` is where a key should start, or, with `after_value`, a
/// position after a member's value. With `after_previous`, `members[-1]` is the member before
/// (for `JSONSCAN_MEMBER_ASCENDING`). Returns where it stopped, with `*count` members written:
/// the object's closing brace (`*closed` 1), or, with `capacity` written, the position after the
/// last one's value. Returns SIZE_MAX when what follows is not valid (a key of 128 MiB or more
/// counts as not valid), or when `stop` was raised in a large value; the members written
/// before it are valid.
size_t jsonscan_scan_members(const uint8_t *bytes, size_t at, size_t count, size_t max_depth, int after_value,
                             int after_previous, const jsonscan_key_t *keys, size_t key_count,
                             jsonscan_member_t *members, size_t capacity, size_t *count_written, int *closed,
                             const int *stop);

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
