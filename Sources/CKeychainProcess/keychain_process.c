/* SPDX-License-Identifier: MIT */
#include "keychain_process.h"
#include <signal.h>
#include <errno.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <time.h>

int keychain_disable_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int keychain_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                   char *const argv[], char *const envp[]) {
    posix_spawnattr_t attributes;
    int rc = posix_spawnattr_init(&attributes);
    if (rc != 0) return rc;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* Neither can have a disposition to reset, and some C libraries reject them. */
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    /* ETXTBSY: another process still holds the program open for writing. That is brief when it
     * is a child that a thread of ours forked while the program was being written (a test
     * writing a scripted pinentry) or a package manager replacing it; wait a little and try
     * again, as Go's os/exec does (golang/go#22315). */
    for (int attempt = 1; rc == 0; attempt++) {
        rc = posix_spawnp(pid, file, actions, &attributes, argv, envp);
        if (rc != ETXTBSY || attempt == 20) break;
        struct timespec pause = {0, 5000000L * attempt};
        nanosleep(&pause, NULL);
        rc = 0;
    }
    posix_spawnattr_destroy(&attributes);
    return rc;
}

void keychain_tune_allocator(void) {
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    mallopt(M_TRIM_THRESHOLD, 128 * 1024);
    mallopt(M_ARENA_MAX, 2);
}

int keychain_release_memory(void) {
    return malloc_trim(0);
}
