// The small requests of `CEngineMemory.h`: `mremap`, `memfd_create`, `fstatfs`, and names of the system's headers.
#define _GNU_SOURCE
#include "CEngineMemory.h"
#include <errno.h>
#include <sys/mman.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int engine_move_pages(void *from, size_t bytes, void *to) {
#if defined(__linux__)
    void *moved = mremap(from, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    return moved == MAP_FAILED ? -1 : 0;
#else
    (void)from; (void)bytes; (void)to;
    errno = ENOSYS;
    return -1;
#endif
}

int engine_memory_file(const char *name) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
    return memfd_create(name, MFD_CLOEXEC);
#else
    (void)name;
    errno = ENOSYS;
    return -1;
#endif
}

int engine_advice_populate_write(void) {
#if defined(MADV_POPULATE_WRITE)
    return MADV_POPULATE_WRITE;
#else
    return -1;
#endif
}

long engine_file_system_type(int fd) {
#if defined(__linux__)
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 ? (long)fs.f_type : -1;
#else
    (void)fd;
    errno = ENOSYS;
    return -1;
#endif
}

int engine_advice_populate_read(void) {
#if defined(MADV_POPULATE_READ)
    return MADV_POPULATE_READ;
#else
    return -1;
#endif
}

int engine_fix_malloc_thresholds(int bytes) {
#if defined(__GLIBC__)
    return mallopt(M_MMAP_THRESHOLD, bytes) == 1 && mallopt(M_TRIM_THRESHOLD, bytes) == 1;
#else
    (void)bytes;
    return 0;
#endif
}
