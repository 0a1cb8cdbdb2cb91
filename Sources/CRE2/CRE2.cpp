// The C face of RE2 declared in CRE2.h.
#include "CRE2.h"

#include <re2/re2.h>

#include <cstdlib>
#include <cstring>
#include <new>

struct CRE2Regex {
    re2::RE2 re;
    CRE2Regex(re2::StringPiece pattern, const re2::RE2::Options &options) : re(pattern, options) {}
};

static char *copy_message(const std::string &text) {
    char *message = static_cast<char *>(std::malloc(text.size() + 1));
    if (message) std::memcpy(message, text.c_str(), text.size() + 1);
    return message;
}

extern "C" CRE2Regex *cre2_compile(const char *pattern, size_t length, int options, char **error, CRE2ErrorKind *kind) {
    re2::RE2::Options o;
    o.set_encoding(re2::RE2::Options::EncodingUTF8);
    // A library does not write to the program's stderr: the error is returned.
    o.set_log_errors(false);
    o.set_case_sensitive(!(options & CRE2_CASE_INSENSITIVE));
    o.set_dot_nl(options & CRE2_DOT_MATCHES_NEWLINE);
    o.set_longest_match(options & CRE2_LONGEST_MATCH);
    CRE2Regex *regex = new (std::nothrow) CRE2Regex(re2::StringPiece(pattern, length), o);
    if (!regex) {
        *error = copy_message("out of memory");
        *kind = CRE2_ERROR_TOO_LARGE;
        return nullptr;
    }
    if (regex->re.ok()) return regex;
    switch (regex->re.error_code()) {
    case re2::RE2::ErrorBadPerlOp:
    case re2::RE2::ErrorBadEscape:
    case re2::RE2::ErrorRepeatOp:
        *kind = CRE2_ERROR_UNSUPPORTED;
        break;
    case re2::RE2::ErrorPatternTooLarge:
    case re2::RE2::ErrorRepeatSize:
        *kind = CRE2_ERROR_TOO_LARGE;
        break;
    default:
        *kind = CRE2_ERROR_SYNTAX;
    }
    std::string text = regex->re.error();
    if (!regex->re.error_arg().empty() && text.find(regex->re.error_arg()) == std::string::npos) {
        text += ": " + regex->re.error_arg();
    }
    *error = copy_message(text);
    delete regex;
    return nullptr;
}

extern "C" bool cre2_find(const CRE2Regex *regex, const char *text, size_t length, size_t start,
                          size_t *match_start, size_t *match_end) {
    re2::StringPiece whole(text, length);
    if (!match_start) return regex->re.Match(whole, start, length, re2::RE2::UNANCHORED, nullptr, 0);
    re2::StringPiece match;
    if (!regex->re.Match(whole, start, length, re2::RE2::UNANCHORED, &match, 1)) return false;
    *match_start = static_cast<size_t>(match.data() - text);
    *match_end = *match_start + match.size();
    return true;
}

extern "C" void cre2_free(CRE2Regex *regex) { delete regex; }

extern "C" void cre2_free_message(char *message) { std::free(message); }
