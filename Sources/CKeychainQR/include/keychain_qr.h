// SPDX-License-Identifier: MIT
//
// A QR code of a short text, through libqrencode, loaded with dlopen: keychainctl shows a new
// recovery key as one when the library is installed, and only the letters when it is not.

#ifndef KEYCHAIN_QR_H
#define KEYCHAIN_QR_H

#include <stddef.h>
#include <stdint.h>

/// Encodes `text` (NUL-terminated) at error-correction level M and writes its modules, row by
/// row, into `modules` (1 dark, 0 light). Returns the code's width; 0 when libqrencode is not
/// installed; -1 when it failed or `capacity` is too small.
int keychain_qr_encode(const char *text, uint8_t *modules, size_t capacity);

#endif
