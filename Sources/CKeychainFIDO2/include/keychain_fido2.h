// SPDX-License-Identifier: MIT
//
// A FIDO2 authenticator's hmac-secret, through libfido2, which is loaded with dlopen when first
// used: keychaind starts without it and runs where it is not installed.

#ifndef KEYCHAIN_FIDO2_H
#define KEYCHAIN_FIDO2_H

#include <stddef.h>
#include <stdint.h>

enum keychain_fido2_status {
  KEYCHAIN_FIDO2_OK = 0,
  /// libfido2 could not be loaded.
  KEYCHAIN_FIDO2_NO_LIBRARY = 1,
  /// No FIDO2 key is plugged in (or the one named does not answer).
  KEYCHAIN_FIDO2_NO_DEVICE = 2,
  /// The key wants its PIN, or the PIN given is wrong.
  KEYCHAIN_FIDO2_PIN = 3,
  /// The key's PIN is blocked.
  KEYCHAIN_FIDO2_PIN_BLOCKED = 4,
  /// Nobody touched the key.
  KEYCHAIN_FIDO2_NO_PRESENCE = 5,
  /// This key does not hold the slot's credential: another key.
  KEYCHAIN_FIDO2_OTHER_KEY = 6,
  /// The key does not do hmac-secret, or another failure.
  KEYCHAIN_FIDO2_FAILED = 7,
};

/// Makes a credential for `rp_id` with the hmac-secret extension on the key at `device` ("" for
/// the first FIDO2 key found; `unix:PATH` for a test authenticator on a Unix socket), user
/// presence required, then derives the hmac-secret for `salt` (32 bytes) into `secret` (32).
int keychain_fido2_enroll(const char *device, const char *rp_id, const char *pin,
                          const uint8_t *salt, uint8_t *credential, size_t credential_capacity,
                          size_t *credential_length, uint8_t *secret, char *message,
                          size_t message_capacity);

/// The hmac-secret of `credential` for `salt` into `secret` (32 bytes), user presence required.
int keychain_fido2_secret(const char *device, const char *rp_id, const char *pin,
                          const uint8_t *credential, size_t credential_length,
                          const uint8_t *salt, uint8_t *secret, char *message,
                          size_t message_capacity);

#endif
