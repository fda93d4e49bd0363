// SPDX-License-Identifier: MIT
//
// Sealing a slot's secret to the TPM and unsealing it, through tpm2-tss's ESAPI, which is
// loaded with dlopen when first used: keychaind starts without it, and runs where it is not
// installed (a TPM slot then says so).

#ifndef KEYCHAIN_TPM_H
#define KEYCHAIN_TPM_H

#include <stddef.h>
#include <stdint.h>

/// What went wrong, for the caller to word; `message` has the detail.
enum keychain_tpm_status {
  KEYCHAIN_TPM_OK = 0,
  /// libtss2-esys, -tctildr or -mu could not be loaded.
  KEYCHAIN_TPM_NO_LIBRARY = 1,
  /// No TPM answers at the configured TCTI.
  KEYCHAIN_TPM_NO_DEVICE = 2,
  /// The PIN is not the one the secret was sealed with.
  KEYCHAIN_TPM_BAD_PIN = 3,
  /// The TPM's dictionary-attack protection is locking out PIN attempts.
  KEYCHAIN_TPM_LOCKOUT = 4,
  /// The PCRs no longer hold the values the secret was sealed to.
  KEYCHAIN_TPM_POLICY = 5,
  /// Any other failure of the TPM or of the sealed blob.
  KEYCHAIN_TPM_FAILED = 6,
};

/// Seals `secret` under this TPM's storage root key: only this TPM can unseal it, only with
/// `pin` (may be empty), and, when `pcr_mask` is not 0, only while the SHA-256 PCRs it names
/// (bit i for PCR i, 0 to 23) hold the values they hold now. Writes the sealed object
/// (marshalled TPM2B_PUBLIC then TPM2B_PRIVATE) to `blob`.
int keychain_tpm_seal(const char *tcti, const uint8_t *secret, size_t secret_length,
                      const uint8_t *pin, size_t pin_length, uint32_t pcr_mask, uint8_t *blob,
                      size_t blob_capacity, size_t *blob_length, char *message,
                      size_t message_capacity);

/// Unseals what keychain_tpm_seal wrote, with the same `pin` and `pcr_mask`, into `secret`.
int keychain_tpm_unseal(const char *tcti, const uint8_t *blob, size_t blob_length,
                        const uint8_t *pin, size_t pin_length, uint32_t pcr_mask,
                        uint8_t *secret, size_t secret_capacity, size_t *secret_length,
                        char *message, size_t message_capacity);

#endif
