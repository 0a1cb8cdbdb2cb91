// A file's pages mapped for reading, safe against the file shrinking underneath.
#ifndef CMAPPEDFILE_H
#define CMAPPEDFILE_H
#include <stddef.h>

/// Maps the first `length` bytes of the open file `fd` read-only, and guards them: a page
/// the file no longer has (another process truncated it) reads as zeroes instead of killing
/// the process with SIGBUS, and the slot records that it happened.
/// With `populate`, every page is mapped at once (else each as it is first read).
/// Returns the address, and the slot in `*slot`; NULL (errno set) when it cannot map or all
/// slots are taken.
const void *mapped_file_map(int fd, size_t length, int populate, int *slot);

/// Whether a page of the mapping in `slot` was found gone since it was mapped.
int mapped_file_lost_pages(int slot);

/// Unmaps the mapping in `slot` and frees the slot.
void mapped_file_unmap(int slot);
/// As `mapped_file_map` (each page mapped when first read), under a read lease on `fd` (open
/// read-only): until the lease is given up, another process (or this one) that opens the file
/// for writing or truncates it waits, so the pages stay the file's bytes of now. NULL (errno
/// set) where no lease is granted: the file is open for writing somewhere, is not ours, or
/// its file system has no leases.
const void *mapped_file_map_leased(int fd, size_t length, int *slot);
/// Copies the leased mapping in `slot` into anonymous memory that takes its place at the
/// same address (the bytes unchanged for any reader), then gives up the lease, closes `fd`
/// and frees the slot: the memory is the caller's to unmap. -1 (nothing changed) when no
/// memory could be had.
int mapped_file_settle(int slot, int fd);
/// Unmaps a leased mapping that was not settled, gives up its lease and closes `fd`.
void mapped_file_unmap_leased(int slot, int fd);

#endif
