// What the engine asks of the kernel that Swift cannot ask itself: a signal handler (the guard
// of a file's mapping), `mremap` (variadic in C), and what the C library's Swift module leaves
// out (`memfd_create`, MADV_POPULATE_WRITE, mallopt's parameters). Reached only through EngineMemory's `Posix`
// and `MappedFile`.
#ifndef CENGINEMEMORY_H
#define CENGINEMEMORY_H
#include <stddef.h>

/// Installs the guard's SIGBUS handler, process-wide, once (a fault outside a guarded mapping
/// goes to the handler that was before it). The program's edge calls it; a library never does.
void mapped_file_install_guard(void);

/// Maps the first `length` bytes of the open file `fd` read-only, and guards them: a page
/// the file no longer has (another process truncated it) reads as zeroes instead of killing
/// the process with SIGBUS, and the slot records that it happened. NULL (ENOTSUP) until
/// `mapped_file_install_guard` was called: an unguarded mapping could end the process.
/// With `populate`, every page is mapped at once (else each as it is first read).
/// Returns the address, and the slot in `*slot`; NULL (errno set) when it cannot map or all
/// slots are taken.
const void *mapped_file_map(int fd, size_t length, int populate, int *slot);

/// Whether a page of the mapping in `slot` was found gone since it was mapped.
int mapped_file_lost_pages(int slot);

/// Unmaps the mapping in `slot` and frees the slot.
void mapped_file_unmap(int slot);

/// Moves the `bytes` bytes of pages at `from` (page-aligned, within one mapping) to `to`
/// (page-aligned), replacing whatever was mapped there; `from` is unmapped after. The pages
/// move without a copy: their page table entries do. 0 when moved, else -1 (errno set), and
/// nothing moved.
int engine_move_pages(void *from, size_t bytes, void *to);

/// A new memory file (`memfd_create`, close-on-exec) of no bytes: pages that mappings of it
/// share. A descriptor, or -1 (errno set; ENOSYS where the system has none).
int engine_memory_file(const char *name);

/// The magic number of the file system holding `fd` (`fstatfs`'s `f_type`, <linux/magic.h>), or
/// -1 (errno set).
long engine_file_system_type(int fd);

/// MADV_POPULATE_WRITE (Linux 5.14) as the system's headers name it; -1 where they do not
/// (then `madvise` refuses it with EINVAL, as an older kernel would).
int engine_advice_populate_write(void);

/// MADV_POPULATE_READ (Linux 5.14), likewise.
int engine_advice_populate_read(void);

/// Fixes glibc malloc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD at `bytes`: 1 when both were set,
/// 0 where refused or the C library is not glibc.
int engine_fix_malloc_thresholds(int bytes);

#endif
