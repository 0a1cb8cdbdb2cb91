// Moving pages from one place in the address space to another (mremap, which Swift cannot
// call: it is variadic in C).
#ifndef CPAGEMOVE_H
#define CPAGEMOVE_H

#include <stddef.h>

/// Moves the `bytes` bytes of pages at `from` (page-aligned, within one mapping) to `to`
/// (page-aligned), replacing whatever was mapped there; `from` is unmapped after. The pages
/// move without a copy: their page table entries do. 0 when moved, else -1 (errno set), and
/// nothing moved.
int page_move(void *from, size_t bytes, void *to);

#endif
