// A small C face on RE2 (Debian's libre2-dev), which is C++: compile a pattern once, find
// matches, free it. RE2 matches in time linear in the text, whatever the pattern.
#ifndef CRE2_H
#define CRE2_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CRE2Regex CRE2Regex;

enum {
    CRE2_CASE_INSENSITIVE = 1,
    /// `.` matches `\n` too.
    CRE2_DOT_MATCHES_NEWLINE = 2,
    /// Leftmost-longest matches (POSIX) instead of leftmost-first (Perl).
    CRE2_LONGEST_MATCH = 4,
};

/// What kind of mistake a pattern has.
typedef enum {
    CRE2_ERROR_SYNTAX = 1,
    /// A form RE2 does not have (lookaround, backreferences, possessive repetition, `\Z`):
    /// valid for a backtracking engine, refused here.
    CRE2_ERROR_UNSUPPORTED = 2,
    /// Larger than RE2's memory budget for one program.
    CRE2_ERROR_TOO_LARGE = 3,
} CRE2ErrorKind;

/// Compiles `pattern` (UTF-8, `length` bytes) with `CRE2_…` options. On failure returns NULL
/// and sets `*error` to a message the caller frees with `cre2_free_message`, and `*kind`.
CRE2Regex *cre2_compile(const char *pattern, size_t length, int options, char **error, CRE2ErrorKind *kind);

/// Whether the regex matches somewhere in `text[start..<length]`, the bytes before `start`
/// being context for `^` and `\b`. When `match_start` is not NULL, the match's byte range.
bool cre2_find(const CRE2Regex *regex, const char *text, size_t length, size_t start,
               size_t *match_start, size_t *match_end);

void cre2_free(CRE2Regex *regex);
void cre2_free_message(char *message);

#ifdef __cplusplus
}
#endif

#endif
