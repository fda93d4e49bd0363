// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Slots`, on the service object: the key slots of collections
// (`keychainctl slot`, `keychainctl unlock --recovery`, `keychainctl passwd --recovery`). A
// slot is one way to open a collection: its password (slot 0), or a recovery key. Every change
// is proved by a slot that opens the collection, sent through the caller's session as the
// gnome-keyring master-password calls send passwords: keychainctl is a program of the user, and
// so is anything else that could call, so knowing a slot's secret is what proves the user asked.

import KeychainDBus

extension SecretService {
  /// keychaind's `org.keychain_linux.Slots`.
  public enum SlotMethods {
    /// The collection's slots as JSON (`[SlotListing]`), the password first; works while it
    /// is locked.
    public static let list = Takes<ObjectPath>.Returns<String>(
      slotsInterface, "List", ["collection"], ["json"], errors: [.noSuchObject])
    /// Adds a recovery key slot labelled `label`, proved by `proof` of kind `proof_kind`
    /// (`password` or `recovery`, a recovery key as typed). Returns the new slot's id and the
    /// recovery key, which keychaind keeps nowhere: it can be shown once.
    public static let addRecovery = Takes<ObjectPath, String, Secret, String>
      .Returns<Int64, Secret>(
        slotsInterface, "AddRecovery", ["collection", "proof_kind", "proof", "label"],
        ["slot", "recovery_key"],
        errors: [.noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject, .ioError])
    /// Adds a TPM slot labelled `label`, proved as for AddRecovery: a random secret sealed to
    /// this machine's TPM, which gives it back only with `pin` (empty for none; the TPM's
    /// lockout limits guesses) and, when `pcrs` names any, only while those SHA-256 PCRs hold
    /// today's values. Returns the new slot's id.
    public static let addTPM2 = Takes<ObjectPath, String, Secret, String, Secret, [UInt32]>
      .Returns<Int64>(
        slotsInterface, "AddTPM2", ["collection", "proof_kind", "proof", "label", "pin", "pcrs"],
        ["slot"],
        errors: [
          .noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject, .failed, .ioError,
        ])
    /// Unlocks the collection with one of its TPM slots, with `pin` for one that has a PIN
    /// (empty otherwise). Returns the slot that opened it; the error says why each failed.
    public static let unlockWithTPM2 = Takes<ObjectPath, Secret>.Returns<Int64>(
      slotsInterface, "UnlockWithTPM2", ["collection", "pin"], ["slot"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .ioError])
    /// Adds a FIDO2 slot labelled `label`, proved as for AddRecovery: a credential made on the
    /// FIDO2 key plugged in (touched twice), whose hmac-secret wraps the collection's key;
    /// `pin` is the key's PIN when it has one (empty otherwise), then asked at every opening.
    /// Returns the new slot's id.
    public static let addFIDO2 = Takes<ObjectPath, String, Secret, String, Secret>
      .Returns<Int64>(
        slotsInterface, "AddFIDO2", ["collection", "proof_kind", "proof", "label", "pin"],
        ["slot"],
        errors: [
          .noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject, .failed, .ioError,
        ])
    /// Unlocks the collection with the FIDO2 key plugged in (touched), with its `pin` for a
    /// slot made with one. Returns the slot that opened it.
    public static let unlockWithFIDO2 = Takes<ObjectPath, Secret>.Returns<Int64>(
      slotsInterface, "UnlockWithFIDO2", ["collection", "pin"], ["slot"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .ioError])
    /// Adds a slot that only a TPM and a FIDO2 key open together (a policy of `tpm2 AND
    /// fido2`): its secret is made of a secret sealed to the TPM (with `tpm_pin` and `pcrs`,
    /// as for AddTPM2) and the key's hmac-secret (with `fido2_pin`, as for AddFIDO2).
    public static let addTPM2AndFIDO2 = Takes<
      ObjectPath, String, Secret, String, Secret, [UInt32], Secret
    >.Returns<Int64>(
      slotsInterface, "AddTPM2AndFIDO2",
      ["collection", "proof_kind", "proof", "label", "tpm_pin", "pcrs", "fido2_pin"], ["slot"],
      errors: [
        .noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject, .failed, .ioError,
      ])
    /// Unlocks the collection with a slot that needs the TPM and the FIDO2 key together.
    public static let unlockWithTPM2AndFIDO2 = Takes<ObjectPath, Secret, Secret>.Returns<Int64>(
      slotsInterface, "UnlockWithTPM2AndFIDO2", ["collection", "tpm_pin", "fido2_pin"], ["slot"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .failed, .ioError])
    /// Removes slot `slot`, proved as for AddRecovery. The password slot (0) cannot be removed.
    public static let remove = Takes<ObjectPath, Int64, String, Secret>.ReturnsNothing(
      slotsInterface, "Remove", ["collection", "slot", "proof_kind", "proof"],
      errors: [.noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject, .ioError])
    /// Checks that `secret` opens slot `slot` (a password for slot 0, a recovery key for a
    /// recovery slot, the PIN, or nothing, for a TPM or FIDO2 slot; the TPM's PIN, a NUL and
    /// the key's for a tpm2+fido2 slot), changing nothing; an error says why not.
    public static let test = Takes<ObjectPath, Int64, Secret>.ReturnsNothing(
      slotsInterface, "Test", ["collection", "slot", "secret"],
      errors: [.noSession, .accessDenied, .gnomeDenied, .invalidArgs, .noSuchObject])
    /// Unlocks the collection with a recovery key.
    public static let unlockWithRecoveryKey = Takes<ObjectPath, Secret>.ReturnsNothing(
      slotsInterface, "UnlockWithRecoveryKey", ["collection", "recovery_key"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .ioError])
    /// Sets a new password with a recovery key, for a password that was lost; the collection
    /// is unlocked after.
    public static let resetPassword = Takes<ObjectPath, Secret, Secret>.ReturnsNothing(
      slotsInterface, "ResetPassword", ["collection", "recovery_key", "new_password"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .ioError])
  }
}

/// One slot as `org.keychain_linux.Slots.List` answers it.
public struct SlotListing: Codable, Sendable, Equatable {
  public var id: Int64
  /// `password`, `recovery`, `tpm2`, `fido2` or `tpm2+fido2`.
  public var kind: String
  public var label: String
  /// Unix time.
  public var created: Int64
  /// Unix time it last opened the collection; nil when never, or not recorded (the password).
  public var lastUsed: Int64?
  /// What else opening it takes (`pin`, `pcrs=7+14`), comma-separated; for a tpm2+fido2
  /// slot, the TPM's and the key's (`tpm2=pin,pcrs=7;fido2=`); nil when nothing.
  public var policy: String?

  public init(
    id: Int64, kind: String, label: String, created: Int64, lastUsed: Int64?,
    policy: String? = nil
  ) {
    (self.id, self.kind, self.label, self.created, self.lastUsed, self.policy) =
      (id, kind, label, created, lastUsed, policy)
  }
}
