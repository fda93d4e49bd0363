/* SPDX-License-Identifier: MIT */
/* See include/keychain_copy_counter.h. The interposed functions call glibc's own entry points
 * (__libc_malloc and friends, the fortified __memcpy_chk and __memmove_chk, the mmap system
 * call), so nothing here recurses into itself, and the log is written with write(2) only:
 * no allocation inside an allocator. */
#define _GNU_SOURCE
#include "keychain_copy_counter.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__memcpy_chk(void *, const void *, size_t, size_t);
extern void *__memmove_chk(void *, const void *, size_t, size_t);

static int log_fd = -1;
static size_t minimum = SIZE_MAX;
static atomic_size_t events;

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("KEYCHAIN_COPY_LOG");
    const char *min = getenv("KEYCHAIN_COPY_MIN");
    if (!path || !min) return;
    minimum = (size_t)strtoull(min, NULL, 10);
    log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

/* "WHAT SIZE\n", formatted by hand: printf may allocate. */
static void note(const char *what, size_t size) {
    if (log_fd < 0 || size < minimum) return;
    char line[64];
    size_t at = 0;
    while (what[at] && at < 16) line[at] = what[at], at++;
    line[at++] = ' ';
    char digits[24];
    size_t count = 0;
    do digits[count++] = (char)('0' + size % 10), size /= 10;
    while (size && count < sizeof digits);
    while (count) line[at++] = digits[--count];
    line[at++] = '\n';
    atomic_fetch_add(&events, 1);
    (void)!write(log_fd, line, at);
}

size_t keychain_copy_counter_events(void) { return atomic_load(&events); }

void *malloc(size_t size) {
    note("alloc", size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (size && count <= SIZE_MAX / size) note("alloc", count * size);
    return __libc_calloc(count, size);
}

void *realloc(void *old, size_t size) {
    /* A realloc that grows a buffer to a large size may move it: counted as one more buffer. */
    note("alloc", size);
    return __libc_realloc(old, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    note("alloc", size);
    void *memory = __libc_memalign(alignment, size);
    if (!memory && size) return 12; /* ENOMEM */
    *out = memory;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    note("alloc", size);
    return __libc_memalign(alignment, size);
}

void *mmap(void *address, size_t length, int protection, int flags, int fd, off_t offset) {
    if (flags & MAP_ANONYMOUS) note("alloc", length);
    return (void *)syscall(SYS_mmap, address, length, protection, flags, fd, offset);
}

void *memcpy(void *destination, const void *source, size_t size) {
    note("copy", size);
    return __memcpy_chk(destination, source, size, size);
}

void *memmove(void *destination, const void *source, size_t size) {
    note("copy", size);
    return __memmove_chk(destination, source, size, size);
}
