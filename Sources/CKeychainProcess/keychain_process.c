/* SPDX-License-Identifier: MIT */
#include "keychain_process.h"
#include <sys/prctl.h>

int keychain_disable_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
