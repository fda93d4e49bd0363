/* SPDX-License-Identifier: MIT */
#include "keychain_gcrypt_shim.h"
#include <gcrypt.h>

int keychain_gcrypt_init(const char *required_version, unsigned int secmem_bytes,
                         const char **version_out) {
    const char *version = gcry_check_version(required_version);
    if (version_out) *version_out = version;
    if (!version) return -1;
    if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) return 0;
    int rc = 0;
    /* Warnings are suspended so that an unlocked pool is reported by our logger, once. */
    gcry_control(GCRYCTL_SUSPEND_SECMEM_WARN);
    /* INIT_SECMEM reads an unsigned int through va_arg: the type must match exactly. */
    if (gcry_control(GCRYCTL_INIT_SECMEM, secmem_bytes, 0)) rc = 1;
    gcry_control(GCRYCTL_RESUME_SECMEM_WARN);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return rc;
}

int keychain_gcrypt_initialized(void) {
    return gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P) ? 1 : 0;
}
