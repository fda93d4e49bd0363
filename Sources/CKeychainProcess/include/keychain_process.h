/* SPDX-License-Identifier: MIT */
/* Process-level calls Swift cannot make directly or safely: prctl is variadic, and a child
 * started from a Swift-concurrency thread needs its signal state reset in one place. */
#ifndef KEYCHAIN_PROCESS_H
#define KEYCHAIN_PROCESS_H

#include <spawn.h>
#include <sys/types.h>

/* Marks the process not dumpable: no core dumps, no ptrace attach by same-user processes.
 * Returns 0 on success, -1 with errno set. */
int keychain_disable_dumps(void);

/* posix_spawnp with an empty signal mask and every signal at its default disposition: a child
 * must not inherit a daemon's ignored SIGTERM or a worker thread's blocked signals.
 * `actions` may be NULL. Returns 0 or an errno value, as posix_spawnp does. */
int keychain_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                   char *const argv[], char *const envp[]);

/* Sets glibc's allocator up for a long-lived daemon that sometimes handles a large secret:
 * buffers of up to 32 MiB (every buffer a secret of the 16 MiB limit needs) come from the
 * heap, so that a burst of big reads reuses pages instead of mapping and faulting in fresh
 * ones for each buffer (a third of a 10 MiB GetSecret's time went to that); the heap is not
 * trimmed on every free, but once things are quiet (keychain_release_memory, scheduled by
 * the server after writes and large work); at most two arenas (one per thread otherwise,
 * each keeping its free memory). */
void keychain_tune_allocator(void);

/* Gives the heap's free pages back to the system (malloc_trim). Returns 1 if any were. */
int keychain_release_memory(void);

/* Unmaps the pages of the program's and its libraries' read-only segments (code, constants,
 * relocation tables) that start-up touched: they are clean copies of the files, which the
 * kernel maps again from its page cache when they are next used. Writable segments (and the
 * relocated read-only-after-relocation part, which lives in them) are left alone. Returns the
 * bytes advised. */
size_t keychain_release_startup_pages(void);

/* Starts `path` (an absolute path) with `argv`, its standard output on `output`, from a thread
 * that lives as long as the process and reaps it: the child has a clean signal state and gets
 * SIGTERM when this process ends, however it ends (PR_SET_PDEATHSIG). One such child per
 * process. Returns 0 or an errno value. */
int keychain_spawn_bound(pid_t *pid, const char *path, char *const argv[], int output);

/* The process id and user id of the peer of a connected Unix socket (SO_PEERCRED, whose
 * struct ucred Swift cannot see without _GNU_SOURCE). Returns 0, or -1 with errno set. */
int keychain_peer_credentials(int fd, pid_t *pid, uid_t *uid);

/* A file of `length` bytes in memory only (memfd_create), sealed against every change, at its
 * start, and inherited across exec; returns its descriptor, or -errno. (memfd_create and the
 * seals need _GNU_SOURCE, which Swift's Glibc module does not define.) */
int keychain_memory_file(const char *name, const unsigned char *bytes, size_t length);

#endif
