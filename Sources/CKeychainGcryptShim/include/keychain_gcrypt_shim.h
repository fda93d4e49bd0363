/* SPDX-License-Identifier: MIT */
/* Fixed-signature wrappers for gcry_control, which is variadic and so unavailable in Swift. */
#ifndef KEYCHAIN_GCRYPT_SHIM_H
#define KEYCHAIN_GCRYPT_SHIM_H

/* Checks the library version, creates a secure-memory pool of `secmem_bytes`, and finishes
 * initialisation. Returns 0 on success, 1 when the pool exists but could not be mlock()ed
 * (a warning, not a failure), -1 when the library is older than `required_version`.
 * `version_out` receives the library's version string. Safe to call once per process. */
int keychain_gcrypt_init(const char *required_version, unsigned int secmem_bytes,
                         const char **version_out);

/* 1 when initialisation has finished, 0 otherwise. */
int keychain_gcrypt_initialized(void);

#endif
