#define _GNU_SOURCE
#include "CPageMove.h"
#include <errno.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

int page_move(void *from, size_t bytes, void *to) {
#if defined(__linux__)
    void *moved = mremap(from, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    return moved == MAP_FAILED ? -1 : 0;
#else
    (void)from; (void)bytes; (void)to;
    errno = ENOSYS;
    return -1;
#endif
}
