// SPDX-License-Identifier: MIT
//
// See keychain_fido2.h. A test authenticator is reached through libfido2's own io hooks
// (fido_dev_set_io_functions) on a Unix SOCK_SEQPACKET socket, one HID report per packet;
// everything else is libfido2's code path, as with a key on USB.

#define _GNU_SOURCE
#include "keychain_fido2.h"

#include <dlfcn.h>
#include <errno.h>
#include <fido.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define F(name) __typeof__(name) *name
static struct {
  F(fido_init);
  F(fido_strerr);
  F(fido_dev_new);
  F(fido_dev_free);
  F(fido_dev_open);
  F(fido_dev_close);
  F(fido_dev_set_io_functions);
  F(fido_dev_info_new);
  F(fido_dev_info_free);
  F(fido_dev_info_manifest);
  F(fido_dev_info_ptr);
  F(fido_dev_info_path);
  F(fido_cred_new);
  F(fido_cred_free);
  F(fido_cred_set_type);
  F(fido_cred_set_clientdata_hash);
  F(fido_cred_set_rp);
  F(fido_cred_set_user);
  F(fido_cred_set_extensions);
  F(fido_cred_set_rk);
  F(fido_cred_id_ptr);
  F(fido_cred_id_len);
  F(fido_dev_make_cred);
  F(fido_assert_new);
  F(fido_assert_free);
  F(fido_assert_set_clientdata_hash);
  F(fido_assert_set_rp);
  F(fido_assert_allow_cred);
  F(fido_assert_set_extensions);
  F(fido_assert_set_hmac_salt);
  F(fido_assert_set_up);
  F(fido_assert_hmac_secret_ptr);
  F(fido_assert_hmac_secret_len);
  F(fido_dev_get_assert);
} fido;
#undef F
static int fido_loaded = -1;
static pthread_once_t fido_once = PTHREAD_ONCE_INIT;

static void load_fido(void) {
  void *library = dlopen("libfido2.so.1", RTLD_NOW | RTLD_LOCAL);
  const char *names[] = {
      "fido_init", "fido_strerr", "fido_dev_new", "fido_dev_free", "fido_dev_open",
      "fido_dev_close", "fido_dev_set_io_functions", "fido_dev_info_new", "fido_dev_info_free",
      "fido_dev_info_manifest", "fido_dev_info_ptr", "fido_dev_info_path", "fido_cred_new",
      "fido_cred_free", "fido_cred_set_type", "fido_cred_set_clientdata_hash", "fido_cred_set_rp",
      "fido_cred_set_user", "fido_cred_set_extensions", "fido_cred_set_rk", "fido_cred_id_ptr",
      "fido_cred_id_len", "fido_dev_make_cred", "fido_assert_new", "fido_assert_free",
      "fido_assert_set_clientdata_hash", "fido_assert_set_rp", "fido_assert_allow_cred",
      "fido_assert_set_extensions", "fido_assert_set_hmac_salt", "fido_assert_set_up",
      "fido_assert_hmac_secret_ptr", "fido_assert_hmac_secret_len", "fido_dev_get_assert"};
  void **all = (void **)&fido;
  fido_loaded = library != NULL;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    all[i] = library ? dlsym(library, names[i]) : NULL;
    if (!all[i]) fido_loaded = 0;
  }
  if (fido_loaded) fido.fido_init(0);
}

static int fail(int status, char *message, size_t capacity, const char *format, ...) {
  if (capacity > 0) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, capacity, format, arguments);
    va_end(arguments);
  }
  return status;
}

// The test transport: a Unix SOCK_SEQPACKET socket, one report a packet.
static void *socket_open(const char *path) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof(address.sun_path)) return NULL;
  strcpy(address.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return NULL;
  if (connect(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
    close(fd);
    return NULL;
  }
  int *handle = malloc(sizeof(int));
  if (!handle) {
    close(fd);
    return NULL;
  }
  *handle = fd;
  return handle;
}

static void socket_close(void *handle) {
  close(*(int *)handle);
  free(handle);
}

static int socket_read(void *handle, unsigned char *buffer, size_t length, int ms) {
  struct pollfd ready = {.fd = *(int *)handle, .events = POLLIN};
  int polled;
  do {
    polled = poll(&ready, 1, ms);
  } while (polled < 0 && errno == EINTR);
  if (polled <= 0) return -1;
  ssize_t got;
  do {
    got = recv(*(int *)handle, buffer, length, 0);
  } while (got < 0 && errno == EINTR);
  return got > 0 ? (int)got : -1;
}

static int socket_write(void *handle, const unsigned char *buffer, size_t length) {
  ssize_t sent;
  do {
    sent = send(*(int *)handle, buffer, length, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  return sent == (ssize_t)length ? (int)sent : -1;
}

static const fido_dev_io_t socket_io = {socket_open, socket_close, socket_read, socket_write};

static int status_of(int rc) {
  switch (rc) {
    case FIDO_ERR_PIN_INVALID:
    case FIDO_ERR_PIN_REQUIRED:
    case FIDO_ERR_PIN_NOT_SET:
      return KEYCHAIN_FIDO2_PIN;
    case FIDO_ERR_PIN_BLOCKED:
    case FIDO_ERR_PIN_AUTH_BLOCKED:
      return KEYCHAIN_FIDO2_PIN_BLOCKED;
    case FIDO_ERR_OPERATION_DENIED:
    case FIDO_ERR_ACTION_TIMEOUT:
    case FIDO_ERR_UP_REQUIRED:
      return KEYCHAIN_FIDO2_NO_PRESENCE;
    case FIDO_ERR_NO_CREDENTIALS:
      return KEYCHAIN_FIDO2_OTHER_KEY;
    default:
      return KEYCHAIN_FIDO2_FAILED;
  }
}

/// Opens the key `device` names, or the first one found.
static int open_device(const char *device, fido_dev_t **out, char *message, size_t capacity) {
  pthread_once(&fido_once, load_fido);
  if (fido_loaded != 1) {
    return fail(KEYCHAIN_FIDO2_NO_LIBRARY, message, capacity, "libfido2 is not installed");
  }
  fido_dev_t *dev = fido.fido_dev_new();
  if (!dev) return fail(KEYCHAIN_FIDO2_FAILED, message, capacity, "out of memory");
  int rc;
  if (strncmp(device, "unix:", 5) == 0) {
    fido.fido_dev_set_io_functions(dev, &socket_io);
    rc = fido.fido_dev_open(dev, device + 5);
  } else if (device[0] != '\0') {
    rc = fido.fido_dev_open(dev, device);
  } else {
    size_t found = 0;
    fido_dev_info_t *list = fido.fido_dev_info_new(16);
    rc = list ? fido.fido_dev_info_manifest(list, 16, &found) : FIDO_ERR_INTERNAL;
    if (rc == FIDO_OK && found == 0) rc = FIDO_ERR_RX;
    if (rc == FIDO_OK) {
      rc = fido.fido_dev_open(dev, fido.fido_dev_info_path(fido.fido_dev_info_ptr(list, 0)));
    }
    if (list) fido.fido_dev_info_free(&list, 16);
  }
  if (rc != FIDO_OK) {
    fido.fido_dev_free(&dev);
    return fail(KEYCHAIN_FIDO2_NO_DEVICE, message, capacity, "no FIDO2 key answers (%s)",
                fido.fido_strerr(rc));
  }
  *out = dev;
  return KEYCHAIN_FIDO2_OK;
}

static void close_device(fido_dev_t **dev) {
  fido.fido_dev_close(*dev);
  fido.fido_dev_free(dev);
}

/// The assertion's hmac-secret for `salt`, with the key open.
static int derive(fido_dev_t *dev, const char *rp_id, const char *pin,
                  const uint8_t *credential, size_t credential_length, const uint8_t *salt,
                  uint8_t *secret, char *message, size_t capacity) {
  unsigned char hash[32];
  memset(hash, 0x6b, sizeof(hash));  // no relying party checks a signature here
  fido_assert_t *assert = fido.fido_assert_new();
  if (!assert) return fail(KEYCHAIN_FIDO2_FAILED, message, capacity, "out of memory");
  int rc = fido.fido_assert_set_clientdata_hash(assert, hash, sizeof(hash));
  if (rc == FIDO_OK) rc = fido.fido_assert_set_rp(assert, rp_id);
  if (rc == FIDO_OK) rc = fido.fido_assert_allow_cred(assert, credential, credential_length);
  if (rc == FIDO_OK) rc = fido.fido_assert_set_extensions(assert, FIDO_EXT_HMAC_SECRET);
  if (rc == FIDO_OK) rc = fido.fido_assert_set_hmac_salt(assert, salt, 32);
  if (rc == FIDO_OK) rc = fido.fido_assert_set_up(assert, FIDO_OPT_TRUE);
  if (rc == FIDO_OK) rc = fido.fido_dev_get_assert(dev, assert, pin);
  int status = KEYCHAIN_FIDO2_OK;
  if (rc != FIDO_OK) {
    status = fail(status_of(rc), message, capacity, "the FIDO2 key refused (%s)",
                  fido.fido_strerr(rc));
  } else if (fido.fido_assert_hmac_secret_len(assert, 0) != 32) {
    status = fail(KEYCHAIN_FIDO2_FAILED, message, capacity,
                  "the FIDO2 key gave no hmac-secret: it does not support the extension");
  } else {
    memcpy(secret, fido.fido_assert_hmac_secret_ptr(assert, 0), 32);
  }
  fido.fido_assert_free(&assert);
  return status;
}

int keychain_fido2_enroll(const char *device, const char *rp_id, const char *pin,
                          const uint8_t *salt, uint8_t *credential, size_t credential_capacity,
                          size_t *credential_length, uint8_t *secret, char *message,
                          size_t message_capacity) {
  fido_dev_t *dev = NULL;
  int status = open_device(device, &dev, message, message_capacity);
  if (status != KEYCHAIN_FIDO2_OK) return status;
  unsigned char hash[32], user[32];
  memset(hash, 0x6b, sizeof(hash));
  memset(user, 0x75, sizeof(user));
  fido_cred_t *cred = fido.fido_cred_new();
  int rc = cred ? fido.fido_cred_set_type(cred, COSE_ES256) : FIDO_ERR_INTERNAL;
  if (rc == FIDO_OK) rc = fido.fido_cred_set_clientdata_hash(cred, hash, sizeof(hash));
  if (rc == FIDO_OK) rc = fido.fido_cred_set_rp(cred, rp_id, "keychaind");
  if (rc == FIDO_OK) {
    rc = fido.fido_cred_set_user(cred, user, sizeof(user), "keychaind", NULL, NULL);
  }
  if (rc == FIDO_OK) rc = fido.fido_cred_set_extensions(cred, FIDO_EXT_HMAC_SECRET);
  if (rc == FIDO_OK) rc = fido.fido_cred_set_rk(cred, FIDO_OPT_FALSE);
  if (rc == FIDO_OK) rc = fido.fido_dev_make_cred(dev, cred, pin);
  if (rc != FIDO_OK) {
    status = fail(status_of(rc), message, message_capacity,
                  "the FIDO2 key made no credential (%s)", fido.fido_strerr(rc));
  } else if (fido.fido_cred_id_len(cred) > credential_capacity) {
    status = fail(KEYCHAIN_FIDO2_FAILED, message, message_capacity, "credential id too long");
  } else {
    *credential_length = fido.fido_cred_id_len(cred);
    memcpy(credential, fido.fido_cred_id_ptr(cred), *credential_length);
    status = derive(dev, rp_id, pin, credential, *credential_length, salt, secret, message,
                    message_capacity);
  }
  if (cred) fido.fido_cred_free(&cred);
  close_device(&dev);
  return status;
}

int keychain_fido2_secret(const char *device, const char *rp_id, const char *pin,
                          const uint8_t *credential, size_t credential_length,
                          const uint8_t *salt, uint8_t *secret, char *message,
                          size_t message_capacity) {
  fido_dev_t *dev = NULL;
  int status = open_device(device, &dev, message, message_capacity);
  if (status != KEYCHAIN_FIDO2_OK) return status;
  status = derive(dev, rp_id, pin, credential, credential_length, salt, secret, message,
                  message_capacity);
  close_device(&dev);
  return status;
}
