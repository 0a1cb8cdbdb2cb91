// Validating a container without keeping anything of it: a writer's parse passes over every
// container off its path this way. The grammar is the parser's (JSONParser.swift) exactly;
// on any error this only says so, and the parser goes over the container again itself to
// report the error as it always does.
#include "CJSONScan.h"
#include <string.h>

#define SKIP_FAILED ((size_t)-1)

static inline size_t skip_ws(const uint8_t *b, size_t i, size_t n) {
    // Most tokens follow their separator directly or after one space.
    if (i < n && b[i] > 0x20) return i;
    if (i + 1 < n && b[i] == ' ' && b[i + 1] > 0x20) return i + 1;
    return jsonscan_skip_whitespace(b, i, n);
}

static inline int is_digit(uint8_t c) { return (uint8_t)(c - '0') < 10; }

static int hex_value(uint8_t c) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// The four hex digits at `at` as a number, or -1.
static long hex4(const uint8_t *b, size_t at, size_t n) {
    if (at + 4 > n) return -1;
    long v = 0;
    for (int k = 0; k < 4; k++) {
        int d = hex_value(b[at + k]);
        if (d < 0) return -1;
        v = v << 4 | d;
    }
    return v;
}

/// The escape at `at` (a backslash): the position after it.
static size_t skip_escape(const uint8_t *b, size_t at, size_t n) {
    if (at + 1 >= n) return SKIP_FAILED;
    switch (b[at + 1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return at + 2;
    case 'u': {
        long u = hex4(b, at + 2, n);
        if (u < 0) return SKIP_FAILED;
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (at + 7 >= n || b[at + 6] != '\\' || b[at + 7] != 'u') return SKIP_FAILED;
            long low = hex4(b, at + 8, n);
            return low >= 0xDC00 && low <= 0xDFFF ? at + 12 : SKIP_FAILED;
        }
        return u >= 0xDC00 && u <= 0xDFFF ? SKIP_FAILED : at + 6;
    }
    default:
        return SKIP_FAILED;
    }
}

/// One multi-byte UTF-8 sequence at `at` (RFC 3629): the position after it.
static size_t skip_utf8(const uint8_t *b, size_t at, size_t n) {
    uint8_t b0 = b[at], lo = 0x80, hi = 0xBF;
    size_t len;
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
    else if (b0 == 0xE0) { len = 3; lo = 0xA0; }
    else if (b0 == 0xED) { len = 3; hi = 0x9F; }
    else if (b0 >= 0xE1 && b0 <= 0xEF) len = 3;
    else if (b0 == 0xF0) { len = 4; lo = 0x90; }
    else if (b0 >= 0xF1 && b0 <= 0xF3) len = 4;
    else if (b0 == 0xF4) { len = 4; hi = 0x8F; }
    else return SKIP_FAILED;
    if (at + len > n || b[at + 1] < lo || b[at + 1] > hi) return SKIP_FAILED;
    for (size_t k = 2; k < len; k++) {
        if ((b[at + k] & 0xC0) != 0x80) return SKIP_FAILED;
    }
    return at + len;
}

/// The string whose opening quote is at `i`: the position after its closing quote.
__attribute__((always_inline)) static inline size_t skip_string(const uint8_t *b, size_t i, size_t n, int utf8_checked) {
    size_t j = i + 1;
    for (;;) {
        j = jsonscan_string_stop(b, j, n, !utf8_checked);
        if (j >= n) return SKIP_FAILED;
        uint8_t c = b[j];
        if (c == '"') return j + 1;
        if (c == '\\') j = skip_escape(b, j, n);
        else if (c < 0x20) return SKIP_FAILED;
        else j = skip_utf8(b, j, n);
        if (j == SKIP_FAILED) return SKIP_FAILED;
    }
}

/// The number starting at `i` (a '-' or a digit): the position after it.
static inline size_t skip_number(const uint8_t *b, size_t i, size_t n) {
    if (b[i] == '-') {
        i++;
        if (i >= n || !is_digit(b[i])) return SKIP_FAILED;
    }
    if (b[i] == '0') {
        i++;
        if (i < n && is_digit(b[i])) return SKIP_FAILED;
    } else {
        while (i < n && is_digit(b[i])) i++;
    }
    if (i < n && b[i] == '.') {
        i++;
        if (i >= n || !is_digit(b[i])) return SKIP_FAILED;
        while (i < n && is_digit(b[i])) i++;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < n && (b[i] == '+' || b[i] == '-')) i++;
        if (i >= n || !is_digit(b[i])) return SKIP_FAILED;
        while (i < n && is_digit(b[i])) i++;
    }
    return i;
}

static inline int literal_at(const uint8_t *b, size_t i, size_t n, const char *word, size_t len) {
    if (i + len > n) return 0;
    uint32_t have, want;
    memcpy(&have, b + i, 4);
    memcpy(&want, word, 4);
    return have == want && (len == 4 || b[i + 4] == (uint8_t)word[4]);
}

size_t jsonscan_skip_container(const uint8_t *b, size_t i, size_t n, size_t max_depth, int utf8_checked,
                               size_t pause_at, jsonscan_skip_t *state) {
    // Bit d of `objects`: whether the container open at depth d is an object.
    uint64_t *objects = state->objects;
    if (max_depth > JSONSCAN_SKIP_DEPTH) max_depth = JSONSCAN_SKIP_DEPTH;
    size_t depth = state->depth;
    int in_object;
    if (depth > 0) goto after_value;
open:  // b[i] is '{' or '['
    if (depth >= max_depth) return SKIP_FAILED;
    in_object = b[i] == '{';
    if (in_object) objects[depth >> 6] |= (uint64_t)1 << (depth & 63);
    else objects[depth >> 6] &= ~((uint64_t)1 << (depth & 63));
    depth++;
    i = skip_ws(b, i + 1, n);
    if (i >= n) return SKIP_FAILED;
    if (b[i] == (in_object ? '}' : ']')) {
        i++;
        goto closed;
    }
    if (!in_object) goto value;
key:
    if (i >= n || b[i] != '"') return SKIP_FAILED;
    i = skip_string(b, i, n, utf8_checked);
    if (i == SKIP_FAILED) return SKIP_FAILED;
    i = skip_ws(b, i, n);
    if (i >= n || b[i] != ':') return SKIP_FAILED;
    i = skip_ws(b, i + 1, n);
value:
    if (i >= n) return SKIP_FAILED;
    switch (b[i]) {
    case '"': i = skip_string(b, i, n, utf8_checked); break;
    case '{': case '[': goto open;
    case 't': if (!literal_at(b, i, n, "true", 4)) return SKIP_FAILED; i += 4; break;
    case 'f': if (!literal_at(b, i, n, "false", 5)) return SKIP_FAILED; i += 5; break;
    case 'n': if (!literal_at(b, i, n, "null", 4)) return SKIP_FAILED; i += 4; break;
    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        i = skip_number(b, i, n);
        break;
    default: return SKIP_FAILED;
    }
    if (i == SKIP_FAILED) return SKIP_FAILED;
    if (i >= pause_at) {
        state->depth = depth;
        return i;
    }
after_value:
    i = skip_ws(b, i, n);
    if (i >= n) return SKIP_FAILED;
    in_object = (objects[(depth - 1) >> 6] >> ((depth - 1) & 63)) & 1;
    if (b[i] == ',') {
        i = skip_ws(b, i + 1, n);
        if (in_object) goto key;
        goto value;
    }
    if (b[i] != (in_object ? '}' : ']')) return SKIP_FAILED;
    i++;
closed:
    depth--;
    if (depth == 0) {
        state->depth = 0;
        return i;
    }
    if (i >= pause_at) {
        state->depth = depth;
        return i;
    }
    goto after_value;
}
