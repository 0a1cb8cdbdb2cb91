// Reading a file through its mapping costs no copy and no zeroed memory, but a process that
// truncates the file meanwhile makes the pages past its new end raise SIGBUS. The handler
// here puts a zero page in place of the lost one and notes it; the reader then sees the file
// changed (its inotify watch and its stat say so) and reads it again. A fault anywhere else
// goes to the handler that was installed before. The handler is the program's to install
// (`mapped_file_install_guard`, from its edge): until it does, nothing is mapped.
#define _GNU_SOURCE
#include "CEngineMemory.h"
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
static _Atomic int installed;
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
    atomic_store(&installed, 1);
}

void mapped_file_install_guard(void) { pthread_once(&installOnce, install); }

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
    if (!atomic_load(&installed)) {
        errno = ENOTSUP;
        return NULL;
    }
    void *base = mmap(NULL, length, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
    if (base == MAP_FAILED) return NULL;
    if (claimSlot(base, length, slot)) return base;
    munmap(base, length);
    errno = EMFILE;
    return NULL;
}

int mapped_file_lost_pages(int slot) { return atomic_load(&lost[slot]); }

void mapped_file_unmap(int slot) {
    uintptr_t start = atomic_load(&starts[slot]), end = atomic_load(&ends[slot]);
    freeSlot(slot);
    munmap((void *)start, end - start);
}
