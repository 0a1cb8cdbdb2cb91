// ncursesw for Swift: wide-character API on, and C globals reached through functions
// (Swift 6 does not allow touching mutable C globals such as stdscr directly).
#ifndef CNCURSESW_SHIM_H
#define CNCURSESW_SHIM_H

#define NCURSES_WIDECHAR 1
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <langinfo.h>
#include <string.h>
#include <pty.h>
#include <ncursesw/curses.h>

static inline WINDOW *cn_stdscr(void) { return stdscr; }
/* The next refresh clears the physical screen and draws everything again. */
static inline int cn_clear_on_next_refresh(void) { return clearok(curscr, TRUE); }
static inline int cn_lines(void) { return LINES; }
static inline int cn_cols(void) { return COLS; }
static inline int cn_colors(void) { return COLORS; }
static inline int cn_color_pairs(void) { return COLOR_PAIRS; }
static inline void cn_set_escdelay(int ms) { set_escdelay(ms); }
static inline int cn_key_resize(void) { return KEY_RESIZE; }
static inline int cn_key_mouse(void) { return KEY_MOUSE; }
static inline int cn_ok(void) { return OK; }
static inline int cn_err(void) { return ERR; }
static inline int cn_key_code_yes(void) { return KEY_CODE_YES; }
static inline attr_t cn_a_normal(void) { return A_NORMAL; }
static inline attr_t cn_a_bold(void) { return A_BOLD; }
static inline attr_t cn_a_reverse(void) { return A_REVERSE; }
static inline attr_t cn_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cn_a_dim(void) { return A_DIM; }
static inline attr_t cn_color_pair(int n) { return COLOR_PAIR(n); }
static inline mmask_t cn_all_mouse_events(void) { return ALL_MOUSE_EVENTS; }
static inline mmask_t cn_button4_pressed(void) { return BUTTON4_PRESSED; }
static inline mmask_t cn_button5_pressed(void) { return BUTTON5_PRESSED; }
static inline mmask_t cn_button1_clicked(void) { return BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED; }
static inline int cn_setlocale_all(void) { return setlocale(LC_ALL, "") != NULL; }
static inline int cn_locale_is_utf8(void) { const char *c = nl_langinfo(CODESET); return c != NULL && strcmp(c, "UTF-8") == 0; }
static inline int cn_setlocale_ctype(const char *name) { return setlocale(LC_CTYPE, name) != NULL; }
/* glibc declares wcwidth only under _XOPEN_SOURCE; ncurses measures characters with it. */
static inline int cn_wcwidth(wchar_t c) { extern int wcwidth(wchar_t); return wcwidth(c); }
static inline mmask_t cn_button1_pressed(void) { return BUTTON1_PRESSED; }
static inline mmask_t cn_button1_released(void) { return BUTTON1_RELEASED; }
static inline mmask_t cn_button1_clicked_only(void) { return BUTTON1_CLICKED; }

/* A pseudo-terminal of a given size, for measuring what ncurses writes (openpty is in
   glibc's libc since 2.34; Swift cannot call the variadic ioctl that sizes it otherwise). */
static inline int cn_openpty(int *controller, int *terminal, unsigned short rows, unsigned short columns) {
    struct winsize size = { rows, columns, 0, 0 };
    return openpty(controller, terminal, NULL, NULL, &size);
}

#endif
