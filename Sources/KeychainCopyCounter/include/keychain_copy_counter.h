/* SPDX-License-Identifier: MIT */
/* Counts, in a process it is loaded into with LD_PRELOAD, how often a large buffer is made or
 * filled: each malloc, calloc, realloc (growing past the size), aligned allocation and
 * anonymous mmap of at least KEYCHAIN_COPY_MIN bytes, and each memcpy or memmove of at least
 * that many, appends one line to the file KEYCHAIN_COPY_LOG: "alloc SIZE" or "copy SIZE".
 * Tests use it to count how many times a big secret is materialised on its way through
 * keychaind. Nothing is counted unless both variables are set. Never linked into a product. */
#ifndef KEYCHAIN_COPY_COUNTER_H
#define KEYCHAIN_COPY_COUNTER_H

#include <stddef.h>

/* Events logged so far by this process (for a test that loads the library itself). */
size_t keychain_copy_counter_events(void);

#endif
