/* SPDX-License-Identifier: MIT */
/* prctl is variadic, which Swift cannot call: one fixed-signature wrapper. */
#ifndef KEYCHAIN_PROCESS_H
#define KEYCHAIN_PROCESS_H

/* Marks the process not dumpable: no core dumps, no ptrace attach by same-user processes.
 * Returns 0 on success, -1 with errno set. */
int keychain_disable_dumps(void);

#endif
