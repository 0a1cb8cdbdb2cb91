// Reading a file through its mapping costs no copy and no zeroed memory, but a process that
// truncates the file meanwhile makes the pages past its new end raise SIGBUS. The handler
// here puts a zero page in place of the lost one and notes it; the reader then sees the file
// changed (its inotify watch and its stat say so) and reads it again. A fault anywhere else
// goes to the handler that was installed before.
#define _GNU_SOURCE
#include "CMappedFile.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SLOTS = 64 };

// A slot is free when its start is 0. Written by the mapping thread, read by the handler.
static _Atomic uintptr_t starts[SLOTS];
static _Atomic uintptr_t ends[SLOTS];
static _Atomic int lost[SLOTS];
static pthread_mutex_t slotsLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t installOnce = PTHREAD_ONCE_INIT;
static struct sigaction previous;
static uintptr_t pageSize;

static void onBusError(int signal, siginfo_t *info, void *context) {
    uintptr_t address = (uintptr_t)info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t start = atomic_load(&starts[i]);
        if (start != 0 && address >= start && address < atomic_load(&ends[i])) {
            void *page = (void *)(address & ~(pageSize - 1));
            int saved = errno;
            if (mmap(page, pageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                atomic_store(&lost[i], 1);
                errno = saved;
                return;  // the load runs again and reads zeroes
            }
            break;
        }
    }
    // Not ours (or no page could be put there): what would have happened without us.
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(signal, info, context);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(signal);
    } else {
        struct sigaction fallback;
        memset(&fallback, 0, sizeof fallback);
        fallback.sa_handler = SIG_DFL;
        sigaction(SIGBUS, &fallback, NULL);  // the fault repeats and ends the process
    }
}

static void install(void) {
    pageSize = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = onBusError;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous);
}

// Takes a free slot for `length` bytes at `base`; 0 when all are taken.
static int claimSlot(void *base, size_t length, int *slot) {
    pthread_mutex_lock(&slotsLock);
    for (int i = 0; i < SLOTS; i++) {
        if (atomic_load(&starts[i]) == 0) {
            atomic_store(&lost[i], 0);
            atomic_store(&ends[i], (uintptr_t)base + length);
            atomic_store(&starts[i], (uintptr_t)base);
            pthread_mutex_unlock(&slotsLock);
            *slot = i;
            return 1;
        }
    }
    pthread_mutex_unlock(&slotsLock);
    return 0;
}

static void freeSlot(int slot) {
    pthread_mutex_lock(&slotsLock);
    atomic_store(&starts[slot], 0);
    pthread_mutex_unlock(&slotsLock);
}

const void *mapped_file_map(int fd, size_t length, int populate, int *slot) {
    pthread_once(&installOnce, install);
    void *base = mmap(NULL, length, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    if (base == MAP_FAILED) return NULL;
    if (claimSlot(base, length, slot)) return base;
    munmap(base, length);
    errno = EMFILE;
    return NULL;
}

enum { HUGE_PAGE = 2 << 20 };

// `bytes` of address space starting on a 2 MiB boundary, so that huge pages fill it and a
// move between two such ranges keeps them whole; `fd` mapped there read-only, or (-1)
// anonymous memory with huge pages asked for.
static void *mapAligned(size_t bytes, int fd) {
    size_t span = bytes + HUGE_PAGE;
    char *room = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (room == MAP_FAILED) return NULL;
    char *start = (char *)(((uintptr_t)room + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    void *base = fd >= 0 ? mmap(start, bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0)
                         : mmap(start, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (base == MAP_FAILED) {
        munmap(room, span);
        return NULL;
    }
    if (start > room) munmap(room, (size_t)(start - room));
    size_t after = (size_t)(room + span - (start + bytes));
    if (after > 0) munmap(start + bytes, after);
    if (fd < 0) madvise(start, bytes, MADV_HUGEPAGE);
    return start;
}

static size_t wholePages(size_t bytes) { return (bytes + pageSize - 1) / pageSize * pageSize; }

// A lease break is told by SIGIO, whose default ends the process. Nothing waits for it here:
// the lease is given up once the copy is made, whether or not a writer is waiting.
static void ignoreLeaseBreaks(void) {
    struct sigaction current;
    if (sigaction(SIGIO, NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL) {
        signal(SIGIO, SIG_IGN);
    }
}
static pthread_once_t leaseOnce = PTHREAD_ONCE_INIT;

const void *mapped_file_map_leased(int fd, size_t length, int *slot) {
    pthread_once(&installOnce, install);
    pthread_once(&leaseOnce, ignoreLeaseBreaks);
    if (length == 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) return NULL;
    void *base = mapAligned(wholePages(length), fd);
    if (base != NULL && claimSlot(base, length, slot)) return base;
    int saved = base != NULL ? EMFILE : errno;
    if (base != NULL) munmap(base, wholePages(length));
    fcntl(fd, F_SETLEASE, F_UNLCK);
    errno = saved;
    return NULL;
}

int mapped_file_settle(int slot, int fd) {
    char *start = (char *)atomic_load(&starts[slot]);
    size_t length = atomic_load(&ends[slot]) - (uintptr_t)start, bytes = wholePages(length);
    char *copy = mapAligned(bytes, -1);
    if (copy == NULL) return -1;
    // A piece at a time, each piece's file pages given back once copied (they stay in the
    // page cache), so the file is never resident twice.
    for (size_t at = 0; at < bytes; at += HUGE_PAGE) {
        size_t piece = bytes - at < HUGE_PAGE ? bytes - at : HUGE_PAGE;
        memcpy(copy + at, start + at, at + piece <= length ? piece : length - at);
        madvise(start + at, piece, MADV_DONTNEED);
    }
    // The copy takes the mapping's place in one step: a reader sees the same bytes throughout.
    if (mremap(copy, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, start) == MAP_FAILED) {
        munmap(copy, bytes);
        return -1;
    }
    freeSlot(slot);
    fcntl(fd, F_SETLEASE, F_UNLCK);
    close(fd);
    return 0;
}

void mapped_file_unmap_leased(int slot, int fd) {
    size_t bytes = wholePages(atomic_load(&ends[slot]) - atomic_load(&starts[slot]));
    void *start = (void *)atomic_load(&starts[slot]);
    freeSlot(slot);
    munmap(start, bytes);
    fcntl(fd, F_SETLEASE, F_UNLCK);
    close(fd);
}

int mapped_file_lost_pages(int slot) { return atomic_load(&lost[slot]); }

void mapped_file_unmap(int slot) {
    uintptr_t start = atomic_load(&starts[slot]), end = atomic_load(&ends[slot]);
    freeSlot(slot);
    munmap((void *)start, end - start);
}
