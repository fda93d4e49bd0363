// SPDX-License-Identifier: MIT
//
// See keychain_qr.h. libqrencode's own declarations, for the two functions used, so that no
// -dev package is needed to build: QRcode_encodeString and QRcode_free (libqrencode 4, stable
// since 3.0). libqrencode copies the text into buffers it frees without wiping; keychainctl
// exits right after showing the key.

#include "keychain_qr.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

typedef struct {
  int version;
  int width;
  unsigned char *data;
} qr_code;

enum { QR_LEVEL_M = 1, QR_MODE_8BIT = 2 };

static qr_code *(*encode_string)(const char *, int, int, int, int);
static void (*free_code)(qr_code *);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
  void *library = dlopen("libqrencode.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) return;
  encode_string = (qr_code * (*)(const char *, int, int, int, int)) dlsym(library, "QRcode_encodeString");
  free_code = (void (*)(qr_code *))dlsym(library, "QRcode_free");
  if (!encode_string || !free_code) encode_string = NULL;
}

int keychain_qr_encode(const char *text, uint8_t *modules, size_t capacity) {
  pthread_once(&once, load);
  if (!encode_string) return 0;
  qr_code *code = encode_string(text, 0, QR_LEVEL_M, QR_MODE_8BIT, 1);
  if (!code) return -1;
  int width = code->width;
  size_t count = (size_t)width * (size_t)width;
  if (count > capacity) {
    free_code(code);
    return -1;
  }
  for (size_t i = 0; i < count; i++) modules[i] = code->data[i] & 1;
  free_code(code);
  return width;
}
