// SPDX-License-Identifier: MIT
//
// See keychain_tpm.h. Each call opens the TPM, recreates the storage root key from the standard
// template (the same key every time, so nothing is stored in the TPM), does its work in salted,
// encrypted sessions (the PIN and the secret never cross the bus to the TPM in the clear), and
// flushes and closes everything before it returns.

#define _GNU_SOURCE
#include "keychain_tpm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

// The functions used, found with dlsym.
static struct {
  __typeof__(Esys_Initialize) *initialize;
  __typeof__(Esys_Finalize) *finalize;
  __typeof__(Esys_CreatePrimary) *create_primary;
  __typeof__(Esys_Create) *create;
  __typeof__(Esys_Load) *load;
  __typeof__(Esys_Unseal) *unseal;
  __typeof__(Esys_StartAuthSession) *start_session;
  __typeof__(Esys_TRSess_SetAttributes) *session_attributes;
  __typeof__(Esys_PolicyPCR) *policy_pcr;
  __typeof__(Esys_PolicyAuthValue) *policy_auth_value;
  __typeof__(Esys_PolicyGetDigest) *policy_digest;
  __typeof__(Esys_TR_SetAuth) *set_auth;
  __typeof__(Esys_FlushContext) *flush;
  __typeof__(Esys_Free) *free;
  __typeof__(Tss2_TctiLdr_Initialize) *tcti_initialize;
  __typeof__(Tss2_TctiLdr_Finalize) *tcti_finalize;
  __typeof__(Tss2_MU_TPM2B_PUBLIC_Marshal) *marshal_public;
  __typeof__(Tss2_MU_TPM2B_PRIVATE_Marshal) *marshal_private;
  __typeof__(Tss2_MU_TPM2B_PUBLIC_Unmarshal) *unmarshal_public;
  __typeof__(Tss2_MU_TPM2B_PRIVATE_Unmarshal) *unmarshal_private;
} tss;
static int tss_loaded = -1;
static pthread_once_t tss_once = PTHREAD_ONCE_INIT;

static void *symbol(void *library, const char *name) {
  return library ? dlsym(library, name) : NULL;
}

static void load_tss(void) {
  void *esys = dlopen("libtss2-esys.so.0", RTLD_NOW | RTLD_LOCAL);
  void *ldr = dlopen("libtss2-tctildr.so.0", RTLD_NOW | RTLD_LOCAL);
  void *mu = dlopen("libtss2-mu.so.0", RTLD_NOW | RTLD_LOCAL);
  tss.initialize = symbol(esys, "Esys_Initialize");
  tss.finalize = symbol(esys, "Esys_Finalize");
  tss.create_primary = symbol(esys, "Esys_CreatePrimary");
  tss.create = symbol(esys, "Esys_Create");
  tss.load = symbol(esys, "Esys_Load");
  tss.unseal = symbol(esys, "Esys_Unseal");
  tss.start_session = symbol(esys, "Esys_StartAuthSession");
  tss.session_attributes = symbol(esys, "Esys_TRSess_SetAttributes");
  tss.policy_pcr = symbol(esys, "Esys_PolicyPCR");
  tss.policy_auth_value = symbol(esys, "Esys_PolicyAuthValue");
  tss.policy_digest = symbol(esys, "Esys_PolicyGetDigest");
  tss.set_auth = symbol(esys, "Esys_TR_SetAuth");
  tss.flush = symbol(esys, "Esys_FlushContext");
  tss.free = symbol(esys, "Esys_Free");
  tss.tcti_initialize = symbol(ldr, "Tss2_TctiLdr_Initialize");
  tss.tcti_finalize = symbol(ldr, "Tss2_TctiLdr_Finalize");
  tss.marshal_public = symbol(mu, "Tss2_MU_TPM2B_PUBLIC_Marshal");
  tss.marshal_private = symbol(mu, "Tss2_MU_TPM2B_PRIVATE_Marshal");
  tss.unmarshal_public = symbol(mu, "Tss2_MU_TPM2B_PUBLIC_Unmarshal");
  tss.unmarshal_private = symbol(mu, "Tss2_MU_TPM2B_PRIVATE_Unmarshal");
  void **all = (void **)&tss;
  tss_loaded = 1;
  for (size_t i = 0; i < sizeof(tss) / sizeof(void *); i++) {
    if (!all[i]) tss_loaded = 0;
  }
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

/// The status a TPM response code means, for the errors a person can act on.
static int status_of(TSS2_RC rc) {
  TSS2_RC code = rc & 0xFFFF;
  if (code & TPM2_RC_FMT1) {
    code &= (TPM2_RC_FMT1 | 0x3F);
    if (code == TPM2_RC_AUTH_FAIL || code == TPM2_RC_BAD_AUTH) return KEYCHAIN_TPM_BAD_PIN;
    if (code == TPM2_RC_POLICY_FAIL || code == TPM2_RC_VALUE) return KEYCHAIN_TPM_POLICY;
  } else if (code == TPM2_RC_LOCKOUT) {
    return KEYCHAIN_TPM_LOCKOUT;
  } else if (code == TPM2_RC_PCR_CHANGED) {
    return KEYCHAIN_TPM_POLICY;
  }
  return KEYCHAIN_TPM_FAILED;
}

/// An open TPM: the ESAPI context, its TCTI, and the storage root key.
struct tpm {
  TSS2_TCTI_CONTEXT *tcti;
  ESYS_CONTEXT *context;
  ESYS_TR primary;
};

static const TPMT_SYM_DEF session_cipher = {
    .algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}};

static int open_tpm(const char *tcti, struct tpm *tpm, char *message, size_t capacity) {
  pthread_once(&tss_once, load_tss);
  memset(tpm, 0, sizeof(*tpm));
  tpm->primary = ESYS_TR_NONE;
  if (tss_loaded != 1) {
    return fail(KEYCHAIN_TPM_NO_LIBRARY, message, capacity,
                "tpm2-tss is not installed (libtss2-esys, libtss2-tctildr, libtss2-mu)");
  }
  TSS2_RC rc = tss.tcti_initialize(tcti, &tpm->tcti);
  if (rc != TSS2_RC_SUCCESS) {
    return fail(KEYCHAIN_TPM_NO_DEVICE, message, capacity, "no TPM at '%s' (0x%x)", tcti, rc);
  }
  rc = tss.initialize(&tpm->context, tpm->tcti, NULL);
  if (rc != TSS2_RC_SUCCESS) {
    return fail(KEYCHAIN_TPM_NO_DEVICE, message, capacity, "the TPM at '%s' does not answer (0x%x)",
                tcti, rc);
  }
  // The TCG's storage root key template (ECC P-256, AES-128-CFB): derived from the owner
  // hierarchy's seed, so the same key comes back on every call and after every reboot.
  TPM2B_PUBLIC template = {
      .publicArea = {
          .type = TPM2_ALG_ECC,
          .nameAlg = TPM2_ALG_SHA256,
          .objectAttributes = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT |
                              TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
                              TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
                              TPMA_OBJECT_NODA,
          .parameters.eccDetail = {.symmetric = {.algorithm = TPM2_ALG_AES,
                                                 .keyBits = {.aes = 128},
                                                 .mode = {.aes = TPM2_ALG_CFB}},
                                   .scheme = {.scheme = TPM2_ALG_NULL},
                                   .curveID = TPM2_ECC_NIST_P256,
                                   .kdf = {.scheme = TPM2_ALG_NULL}},
      }};
  TPM2B_SENSITIVE_CREATE empty = {0};
  TPM2B_DATA outside = {0};
  TPML_PCR_SELECTION none = {0};
  rc = tss.create_primary(tpm->context, ESYS_TR_RH_OWNER, ESYS_TR_PASSWORD, ESYS_TR_NONE,
                          ESYS_TR_NONE, &empty, &template, &outside, &none, &tpm->primary, NULL,
                          NULL, NULL, NULL);
  if (rc != TSS2_RC_SUCCESS) {
    return fail(status_of(rc), message, capacity,
                "the TPM would not make its storage key (0x%x)", rc);
  }
  return KEYCHAIN_TPM_OK;
}

static void close_tpm(struct tpm *tpm) {
  if (tpm->context && tpm->primary != ESYS_TR_NONE) tss.flush(tpm->context, tpm->primary);
  if (tpm->context) tss.finalize(&tpm->context);
  if (tpm->tcti) tss.tcti_finalize(&tpm->tcti);
}

static TPML_PCR_SELECTION selection(uint32_t mask) {
  TPML_PCR_SELECTION pcrs = {.count = 1};
  pcrs.pcrSelections[0].hash = TPM2_ALG_SHA256;
  pcrs.pcrSelections[0].sizeofSelect = 3;
  for (int i = 0; i < 24; i++) {
    if (mask & (1u << i)) pcrs.pcrSelections[0].pcrSelect[i / 8] |= (uint8_t)(1u << (i % 8));
  }
  return pcrs;
}

/// A session salted with the storage key: `type` TPM2_SE_HMAC to encrypt a command's first
/// parameter and its response's, TPM2_SE_POLICY or TPM2_SE_TRIAL for PCR policies.
static TSS2_RC start_session(struct tpm *tpm, TPM2_SE type, ESYS_TR *session) {
  TSS2_RC rc = tss.start_session(tpm->context, tpm->primary, ESYS_TR_NONE, ESYS_TR_NONE,
                                 ESYS_TR_NONE, ESYS_TR_NONE, NULL, type, &session_cipher,
                                 TPM2_ALG_SHA256, session);
  if (rc != TSS2_RC_SUCCESS || type == TPM2_SE_TRIAL) return rc;
  return tss.session_attributes(tpm->context, *session,
                                TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT |
                                    TPMA_SESSION_CONTINUESESSION,
                                0xFF);
}

/// Runs the policy of a sealed object in `session`: the PCRs, then the PIN when there is one.
static TSS2_RC run_policy(struct tpm *tpm, ESYS_TR session, uint32_t mask, int with_pin) {
  TPML_PCR_SELECTION pcrs = selection(mask);
  TPM2B_DIGEST current = {0};  // empty: the TPM uses the PCRs' values now
  TSS2_RC rc = tss.policy_pcr(tpm->context, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                              &current, &pcrs);
  if (rc == TSS2_RC_SUCCESS && with_pin) {
    rc = tss.policy_auth_value(tpm->context, session, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE);
  }
  return rc;
}

int keychain_tpm_seal(const char *tcti, const uint8_t *secret, size_t secret_length,
                      const uint8_t *pin, size_t pin_length, uint32_t pcr_mask, uint8_t *blob,
                      size_t blob_capacity, size_t *blob_length, char *message,
                      size_t message_capacity) {
  TPM2B_SENSITIVE_CREATE sensitive = {0};
  if (secret_length > sizeof(sensitive.sensitive.data.buffer) ||
      pin_length > sizeof(sensitive.sensitive.userAuth.buffer)) {
    return fail(KEYCHAIN_TPM_FAILED, message, message_capacity, "secret or PIN too long");
  }
  struct tpm tpm;
  int status = open_tpm(tcti, &tpm, message, message_capacity);
  if (status != KEYCHAIN_TPM_OK) {
    close_tpm(&tpm);
    return status;
  }
  TPM2B_PUBLIC template = {
      .publicArea = {
          .type = TPM2_ALG_KEYEDHASH,
          .nameAlg = TPM2_ALG_SHA256,
          .objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT,
          .parameters.keyedHashDetail.scheme.scheme = TPM2_ALG_NULL,
      }};
  TSS2_RC rc = TSS2_RC_SUCCESS;
  if (pcr_mask != 0) {
    // The policy's digest, computed by the TPM in a trial session.
    ESYS_TR trial = ESYS_TR_NONE;
    TPM2B_DIGEST *digest = NULL;
    rc = start_session(&tpm, TPM2_SE_TRIAL, &trial);
    if (rc == TSS2_RC_SUCCESS) rc = run_policy(&tpm, trial, pcr_mask, pin_length > 0);
    if (rc == TSS2_RC_SUCCESS) {
      rc = tss.policy_digest(tpm.context, trial, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
                             &digest);
    }
    if (trial != ESYS_TR_NONE) tss.flush(tpm.context, trial);
    if (rc == TSS2_RC_SUCCESS) template.publicArea.authPolicy = *digest;
    tss.free(digest);
  } else {
    template.publicArea.objectAttributes |= TPMA_OBJECT_USERWITHAUTH;
  }
  sensitive.sensitive.data.size = (UINT16)secret_length;
  memcpy(sensitive.sensitive.data.buffer, secret, secret_length);
  sensitive.sensitive.userAuth.size = (UINT16)pin_length;
  if (pin_length > 0) memcpy(sensitive.sensitive.userAuth.buffer, pin, pin_length);
  TPM2B_PRIVATE *private = NULL;
  TPM2B_PUBLIC *public = NULL;
  ESYS_TR session = ESYS_TR_NONE;
  if (rc == TSS2_RC_SUCCESS) rc = start_session(&tpm, TPM2_SE_HMAC, &session);
  if (rc == TSS2_RC_SUCCESS) {
    TPM2B_DATA outside = {0};
    TPML_PCR_SELECTION none = {0};
    // The storage key's empty auth, in a session that encrypts the sensitive part on its way.
    rc = tss.create(tpm.context, tpm.primary, session, ESYS_TR_NONE, ESYS_TR_NONE, &sensitive,
                    &template, &outside, &none, &private, &public, NULL, NULL, NULL);
  }
  explicit_bzero(&sensitive, sizeof(sensitive));
  if (session != ESYS_TR_NONE) tss.flush(tpm.context, session);
  size_t offset = 0;
  if (rc == TSS2_RC_SUCCESS) {
    rc = tss.marshal_public(public, blob, blob_capacity, &offset);
    if (rc == TSS2_RC_SUCCESS) rc = tss.marshal_private(private, blob, blob_capacity, &offset);
    *blob_length = offset;
  }
  tss.free(private);
  tss.free(public);
  close_tpm(&tpm);
  if (rc != TSS2_RC_SUCCESS) {
    return fail(status_of(rc), message, message_capacity, "the TPM would not seal (0x%x)", rc);
  }
  return KEYCHAIN_TPM_OK;
}

int keychain_tpm_unseal(const char *tcti, const uint8_t *blob, size_t blob_length,
                        const uint8_t *pin, size_t pin_length, uint32_t pcr_mask,
                        uint8_t *secret, size_t secret_capacity, size_t *secret_length,
                        char *message, size_t message_capacity) {
  TPM2B_AUTH auth = {0};
  if (pin_length > sizeof(auth.buffer)) {
    return fail(KEYCHAIN_TPM_BAD_PIN, message, message_capacity, "the PIN is too long");
  }
  struct tpm tpm;
  int status = open_tpm(tcti, &tpm, message, message_capacity);
  if (status != KEYCHAIN_TPM_OK) {
    close_tpm(&tpm);
    return status;
  }
  TPM2B_PUBLIC public = {0};
  TPM2B_PRIVATE private = {0};
  size_t offset = 0;
  TSS2_RC rc = tss.unmarshal_public(blob, blob_length, &offset, &public);
  if (rc == TSS2_RC_SUCCESS) rc = tss.unmarshal_private(blob, blob_length, &offset, &private);
  if (rc != TSS2_RC_SUCCESS || offset != blob_length) {
    close_tpm(&tpm);
    return fail(KEYCHAIN_TPM_FAILED, message, message_capacity, "the sealed key is damaged");
  }
  ESYS_TR object = ESYS_TR_NONE;
  rc = tss.load(tpm.context, tpm.primary, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &private,
                &public, &object);
  if (rc != TSS2_RC_SUCCESS) {
    close_tpm(&tpm);
    return fail(KEYCHAIN_TPM_FAILED, message, message_capacity,
                "this TPM cannot load the sealed key: it was sealed by another TPM, or the "
                "TPM was cleared (0x%x)",
                rc);
  }
  auth.size = (UINT16)pin_length;
  if (pin_length > 0) memcpy(auth.buffer, pin, pin_length);
  rc = tss.set_auth(tpm.context, object, &auth);
  explicit_bzero(&auth, sizeof(auth));
  ESYS_TR session = ESYS_TR_NONE;
  if (rc == TSS2_RC_SUCCESS) {
    rc = start_session(&tpm, pcr_mask != 0 ? TPM2_SE_POLICY : TPM2_SE_HMAC, &session);
  }
  if (rc == TSS2_RC_SUCCESS && pcr_mask != 0) {
    rc = run_policy(&tpm, session, pcr_mask, pin_length > 0);
  }
  TPM2B_SENSITIVE_DATA *data = NULL;
  if (rc == TSS2_RC_SUCCESS) {
    rc = tss.unseal(tpm.context, object, session, ESYS_TR_NONE, ESYS_TR_NONE, &data);
  }
  if (session != ESYS_TR_NONE) tss.flush(tpm.context, session);
  tss.flush(tpm.context, object);
  close_tpm(&tpm);
  if (rc != TSS2_RC_SUCCESS) {
    status = status_of(rc);
    return fail(status, message, message_capacity,
                status == KEYCHAIN_TPM_BAD_PIN   ? "the PIN is not correct"
                : status == KEYCHAIN_TPM_LOCKOUT ? "the TPM is locking out PIN attempts for now"
                : status == KEYCHAIN_TPM_POLICY
                    ? "the PCRs the key was sealed to have changed (a firmware or boot change)"
                    : "the TPM would not unseal the key (0x%x)",
                rc);
  }
  if (data->size > secret_capacity) {
    explicit_bzero(data, sizeof(*data));
    tss.free(data);
    return fail(KEYCHAIN_TPM_FAILED, message, message_capacity, "the sealed key is too long");
  }
  memcpy(secret, data->buffer, data->size);
  *secret_length = data->size;
  explicit_bzero(data, sizeof(*data));
  tss.free(data);
  return KEYCHAIN_TPM_OK;
}
