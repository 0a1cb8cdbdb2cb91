// The survey before a parse: separators counted and UTF-8 validated in one pass.
// UTF-8 validation 32 bytes at a time with AVX2, after Keiser and Lemire, "Validating
// UTF-8 In Less Than One Instruction Per Byte" (2021): each byte pair is classified by
// three 16-entry tables (high nibble of the first byte, its low nibble, high nibble of the
// second); a pair is wrong when the three agree on an error bit. Third and fourth bytes
// are checked against the lead byte two or three places back.
#include "CJSONScan.h"
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

// Error bits a (first byte, second byte) pair can raise.
enum {
    TOO_SHORT = 1 << 0,   // lead byte followed by ASCII or another lead
    TOO_LONG = 1 << 1,    // ASCII followed by a continuation
    OVERLONG_3 = 1 << 2,  // E0 80..9F
    TOO_LARGE = 1 << 3,   // F4 90.., F5..FF
    SURROGATE = 1 << 4,   // ED A0..BF
    OVERLONG_2 = 1 << 5,  // C0, C1
    TOO_LARGE_1000 = 1 << 6,  // F5..FF 80..8F
    OVERLONG_4 = 1 << 6,  // F0 80..8F
    TWO_CONTS = 1 << 7,   // continuation after continuation (fine inside a 3- or 4-byte form)
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
};

// A 16-entry table, repeated in both 128-bit lanes for _mm256_shuffle_epi8.
#define TABLE(...) table16((const uint8_t[16]){__VA_ARGS__})

__attribute__((target("avx2")))
static inline __m256i table16(const uint8_t entries[16]) {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)entries));
}

__attribute__((target("avx2")))
static inline __m256i previous(__m256i input, __m256i prior, int n) {
    // The 32 bytes ending n bytes before `input`'s end: the tail of `prior` then `input`.
    __m256i shifted = _mm256_permute2x128_si256(prior, input, 0x21);
    switch (n) {
    case 1: return _mm256_alignr_epi8(input, shifted, 15);
    case 2: return _mm256_alignr_epi8(input, shifted, 14);
    default: return _mm256_alignr_epi8(input, shifted, 13);
    }
}

__attribute__((target("avx2")))
static __m256i block_errors(__m256i input, __m256i prior) {
    const __m256i low_nibble = _mm256_set1_epi8(0x0F);
    const __m256i first_high = TABLE(
        TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
        TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
        TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4);
    const __m256i first_low = TABLE(
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
        CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000);
    const __m256i second_high = TABLE(
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT);

    __m256i prev1 = previous(input, prior, 1);
    __m256i special = _mm256_and_si256(
        _mm256_and_si256(
            _mm256_shuffle_epi8(first_high, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low_nibble)),
            _mm256_shuffle_epi8(first_low, _mm256_and_si256(prev1, low_nibble))),
        _mm256_shuffle_epi8(second_high, _mm256_and_si256(_mm256_srli_epi16(input, 4), low_nibble)));
    // A continuation must follow a continuation exactly where a 3- or 4-byte lead is two
    // or three bytes back: bit 7 of `must` marks those places.
    __m256i third = _mm256_subs_epu8(previous(input, prior, 2), _mm256_set1_epi8((char)(0xE0 - 0x80)));
    __m256i fourth = _mm256_subs_epu8(previous(input, prior, 3), _mm256_set1_epi8((char)(0xF0 - 0x80)));
    __m256i must = _mm256_and_si256(_mm256_or_si256(third, fourth), _mm256_set1_epi8((char)0x80));
    return _mm256_xor_si256(must, special);
}

__attribute__((target("avx2")))
static inline size_t count_separators(__m256i input) {
    __m256i hit = _mm256_or_si256(
        _mm256_or_si256(_mm256_cmpeq_epi8(input, _mm256_set1_epi8(',')), _mm256_cmpeq_epi8(input, _mm256_set1_epi8(':'))),
        _mm256_or_si256(_mm256_cmpeq_epi8(input, _mm256_set1_epi8('[')), _mm256_cmpeq_epi8(input, _mm256_set1_epi8('{'))));
    return (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(hit));
}

__attribute__((target("avx2,popcnt")))
static jsonscan_survey_t survey_avx2(const uint8_t *bytes, size_t count) {
    __m256i prior = _mm256_setzero_si256(), errors = _mm256_setzero_si256();
    size_t separators = 0;
    size_t i = 0;
    for (; i + 32 <= count; i += 32) {
        __m256i input = _mm256_loadu_si256((const __m256i *)(bytes + i));
        separators += count_separators(input);
        // ASCII after a complete sequence needs no tables.
        if (_mm256_movemask_epi8(_mm256_or_si256(input, prior)) == 0) {
            prior = input;
            continue;
        }
        errors = _mm256_or_si256(errors, block_errors(input, prior));
        prior = input;
    }
    // The tail, padded with zeros (ASCII): a sequence cut off by the end then shows as a
    // lead byte followed by ASCII. When there is no tail, an all-zero block checks the end.
    uint8_t tail[32] = {0};
    if (i < count) memcpy(tail, bytes + i, count - i);
    __m256i input = _mm256_loadu_si256((const __m256i *)tail);
    separators += count_separators(input);
    errors = _mm256_or_si256(errors, block_errors(input, prior));
    return (jsonscan_survey_t){.utf8 = _mm256_testz_si256(errors, errors), .separators = separators};
}
#define HAVE_AVX2_SURVEY 1
#endif

jsonscan_survey_t jsonscan_survey_portable(const uint8_t *bytes, size_t count) {
    size_t separators = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t c = bytes[i];
        separators += c == ',' || c == ':' || c == '[' || c == '{';
    }
    return (jsonscan_survey_t){.utf8 = -1, .separators = separators};
}

jsonscan_survey_t jsonscan_survey(const uint8_t *bytes, size_t count) {
#ifdef HAVE_AVX2_SURVEY
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) return survey_avx2(bytes, count);
#endif
    return jsonscan_survey_portable(bytes, count);
}
