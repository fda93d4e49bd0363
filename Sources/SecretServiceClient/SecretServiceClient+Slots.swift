// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Slots`, for `keychainctl slot`, `keychainctl unlock
// --recovery` and `keychainctl passwd --recovery`. Secrets travel through the session, as the
// master-password calls send them.

import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// What proves a change of slots: a collection's password, or one of its recovery keys as
  /// typed.
  public enum SlotProof: Sendable {
    case password(SecureBytes)
    case recoveryKey(SecureBytes)

    var kind: String {
      switch self {
      case .password: "password"
      case .recoveryKey: "recovery"
      }
    }

    var secret: SecureBytes {
      switch self {
      case .password(let bytes), .recoveryKey(let bytes): bytes
      }
    }
  }

  /// The slots of the collection at `collection`, the password first.
  public func keySlots(of collection: ObjectPath) async throws -> [SlotListing] {
    let json: String = try await call(Self.service, SecretService.SlotMethods.list, collection)
    return try JSONDecoder().decode([SlotListing].self, from: Data(json.utf8))
  }

  /// Adds a recovery key slot; returns its id and the key, as a person copies it.
  public func addRecoverySlot(to collection: ObjectPath, proof: SlotProof, label: String)
    async throws -> (slot: Int64, recoveryKey: SecureBytes)
  {
    let (slot, key) = try await call(
      Self.service, SecretService.SlotMethods.addRecovery, collection, proof.kind,
      try secretValue(proof.secret, contentType: "text/plain"), label)
    return (slot, try cipher.decrypt(parameters: key.parameters, value: key.value))
  }

  /// Adds a TPM slot opened with `pin` (empty for none) while the SHA-256 PCRs `pcrs` hold
  /// today's values (none: any); returns its id.
  public func addTPM2Slot(
    to collection: ObjectPath, proof: SlotProof, label: String, pin: SecureBytes, pcrs: [UInt32]
  ) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.addTPM2, collection, proof.kind,
      try secretValue(proof.secret, contentType: "text/plain"), label,
      try secretValue(pin, contentType: "text/plain"), pcrs)
  }

  /// Unlocks the collection with one of its TPM slots; returns the slot that opened it.
  @discardableResult
  public func unlockWithTPM2(_ collection: ObjectPath, pin: SecureBytes) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.unlockWithTPM2, collection,
      try secretValue(pin, contentType: "text/plain"))
  }

  /// Adds a FIDO2 slot on the key plugged in (`pin`: its PIN, or empty); returns its id.
  public func addFIDO2Slot(
    to collection: ObjectPath, proof: SlotProof, label: String, pin: SecureBytes
  ) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.addFIDO2, collection, proof.kind,
      try secretValue(proof.secret, contentType: "text/plain"), label,
      try secretValue(pin, contentType: "text/plain"))
  }

  /// Unlocks the collection with the FIDO2 key plugged in; returns the slot that opened it.
  @discardableResult
  public func unlockWithFIDO2(_ collection: ObjectPath, pin: SecureBytes) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.unlockWithFIDO2, collection,
      try secretValue(pin, contentType: "text/plain"))
  }

  /// Adds a slot that the TPM and the FIDO2 key plugged in open only together; returns its id.
  public func addTPM2AndFIDO2Slot(
    to collection: ObjectPath, proof: SlotProof, label: String, tpmPIN: SecureBytes,
    pcrs: [UInt32], fido2PIN: SecureBytes
  ) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.addTPM2AndFIDO2, collection, proof.kind,
      try secretValue(proof.secret, contentType: "text/plain"), label,
      try secretValue(tpmPIN, contentType: "text/plain"), pcrs,
      try secretValue(fido2PIN, contentType: "text/plain"))
  }

  /// Unlocks the collection with a slot that needs the TPM and the FIDO2 key together.
  @discardableResult
  public func unlockWithTPM2AndFIDO2(
    _ collection: ObjectPath, tpmPIN: SecureBytes, fido2PIN: SecureBytes
  ) async throws -> Int64 {
    try await call(
      Self.service, SecretService.SlotMethods.unlockWithTPM2AndFIDO2, collection,
      try secretValue(tpmPIN, contentType: "text/plain"),
      try secretValue(fido2PIN, contentType: "text/plain"))
  }

  /// Removes slot `slot` of the collection.
  public func removeSlot(_ slot: Int64, of collection: ObjectPath, proof: SlotProof) async throws {
    try await call(
      Self.service, SecretService.SlotMethods.remove, collection, slot, proof.kind,
      try secretValue(proof.secret, contentType: "text/plain"))
  }

  /// Checks that `secret` opens slot `slot`; throws the provider's reason when it does not.
  public func testSlot(_ slot: Int64, of collection: ObjectPath, secret: SecureBytes) async throws {
    try await call(
      Self.service, SecretService.SlotMethods.test, collection, slot,
      try secretValue(secret, contentType: "text/plain"))
  }

  /// Unlocks the collection with one of its recovery keys, as typed.
  public func unlock(_ collection: ObjectPath, recoveryKey: SecureBytes) async throws {
    try await call(
      Self.service, SecretService.SlotMethods.unlockWithRecoveryKey, collection,
      try secretValue(recoveryKey, contentType: "text/plain"))
  }

  /// Sets `newPassword` on the collection with one of its recovery keys.
  public func resetPassword(
    of collection: ObjectPath, recoveryKey: SecureBytes, to newPassword: SecureBytes
  ) async throws {
    try await call(
      Self.service, SecretService.SlotMethods.resetPassword, collection,
      try secretValue(recoveryKey, contentType: "text/plain"),
      try secretValue(newPassword, contentType: "text/plain"))
  }
}
