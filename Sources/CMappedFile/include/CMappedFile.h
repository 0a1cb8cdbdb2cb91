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

#endif
