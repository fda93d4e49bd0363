/* SPDX-License-Identifier: MIT */
#include "keychain_process.h"
#include <signal.h>
#include <sys/prctl.h>

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
    if (rc == 0) rc = posix_spawnp(pid, file, actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    return rc;
}
