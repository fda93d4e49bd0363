// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Slots` on the service object: `keychainctl slot`,
// `keychainctl unlock --recovery` and `keychainctl passwd --recovery`. The store does the work
// (KeychainStore+Slots); here proofs are read from the caller's session, every change and every
// opening by a recovery key goes to the log and the audit log, and an unlock is announced as
// any other is.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

struct SlotsInterface: DBusInterface {
  let core: DaemonCore
  /// Where the TPM is (keychaind.conf's `tpm2-tcti`).
  let tpm2TCTI: String
  /// The FIDO2 key (keychaind.conf's `fido2-device`; "" for the first plugged in).
  let fido2Device: String

  typealias Methods = SecretService.SlotMethods

  static let table = InterfaceTable<SlotsInterface>(SecretService.Interfaces.slots) { table in
    table.on(Methods.list, list)
    table.on(Methods.addRecovery, addRecovery)
    table.on(Methods.addTPM2, addTPM2)
    table.on(Methods.unlockWithTPM2, unlockWithTPM2)
    table.on(Methods.addFIDO2, addFIDO2)
    table.on(Methods.unlockWithFIDO2, unlockWithFIDO2)
    table.on(Methods.addTPM2AndFIDO2, addTPM2AndFIDO2)
    table.on(Methods.unlockWithTPM2AndFIDO2, unlockWithTPM2AndFIDO2)
    table.on(Methods.remove, remove)
    table.on(Methods.test, test)
    table.on(Methods.unlockWithRecoveryKey, unlockWithRecoveryKey)
    table.on(Methods.resetPassword, resetPassword)
  }

  func list(_ request: MethodRequest, collection path: ObjectPath) async throws -> String {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let slots = try view.metadata { try $0.keySlots(of: collection) }
    let listing = slots.map {
      SlotListing(
        id: $0.id, kind: $0.kind.rawValue, label: $0.label,
        created: Int64($0.created.timeIntervalSince1970),
        lastUsed: $0.lastUsed.map { Int64($0.timeIntervalSince1970) }, policy: $0.policy)
    }
    return String(decoding: try JSONEncoder().encode(listing), as: UTF8.self)
  }

  func addRecovery(
    _ request: MethodRequest, collection path: ObjectPath, proofKind: String, proof: Secret,
    label: String
  ) async throws -> (Int64, Secret) {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(proofKind, proof, request)
    let (slot, key) = try await view.write {
      try $0.addRecoverySlot(to: collection, proof: given, label: label)
    }
    changed("added recovery key slot \(slot.id) to \(collection)", view, path)
    return (
      slot.id,
      try core.sessions.secret(
        key.text, in: proof.session, caller: request.caller, contentType: "text/plain")
    )
  }

  func remove(
    _ request: MethodRequest, collection path: ObjectPath, slot: Int64, proofKind: String,
    proof: Secret
  ) async throws {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(proofKind, proof, request)
    try await view.write { try $0.removeSlot(slot, of: collection, proof: given) }
    changed("removed key slot \(slot) of \(collection)", view, path)
  }

  func test(_ request: MethodRequest, collection path: ObjectPath, slot: Int64, secret: Secret)
    async throws
  {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let kind = try view.metadata { try $0.keySlots(of: collection) }.first { $0.id == slot }?.kind
    guard let kind else {
      throw DBusError(.invalidArgs, "collection '\(collection)' has no key slot \(slot)")
    }
    switch kind {
    case .tpm2, .fido2, .tpm2AndFIDO2:
      // The secret sent is the slot's PIN, or empty (both PINs for tpm2+fido2).
      let pin = try core.sessions.password(in: secret, caller: request.caller)
      switch kind {
      case .fido2: return try await testFIDO2(slot, of: collection, pin: pin, view)
      case .tpm2AndFIDO2: return try await testTPM2AndFIDO2(slot, of: collection, pins: pin, view)
      default: return try await testTPM2(slot, of: collection, pin: pin, view)
      }
    case .password, .recovery:
      let given = try self.proof(kind.rawValue, secret, request)
      try await view.write { try $0.testSlot(slot, of: collection, with: given) }
    }
  }

  func unlockWithRecoveryKey(_ request: MethodRequest, collection path: ObjectPath, key: Secret)
    async throws
  {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(KeySlot.Kind.recovery.rawValue, key, request)
    let unlocker = core.unlocker
    let outcome = try await view.write { _ in
      try unlocker.unlock(collection, with: given, route: UnlockRecord.Route.recoveryKey)
    }
    changed("unlocked \(collection) with a recovery key", view, path)
    view.record(contentsOf: outcome.events(of: collection))
  }

  func resetPassword(
    _ request: MethodRequest, collection path: ObjectPath, key: Secret, newPassword: Secret
  ) async throws {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let recoveryKey = try RecoveryKey(
      parsing: core.sessions.password(in: key, caller: request.caller))
    let password = try core.sessions.password(in: newPassword, caller: request.caller)
    let wasLocked = view.isLocked(collection)
    try await view.write {
      try $0.resetPassword(collection, recoveryKey: recoveryKey, to: password)
    }
    changed("set a new password on \(collection) with a recovery key", view, path)
    view.record(.collectionChanged(collection))
    if wasLocked {
      view.record(contentsOf: StoreEvent.unlocked([collection], changed: [collection]))
    }
  }

  /// The proof a caller sent: its kind (`password` or `recovery`) and its secret, decrypted
  /// with the caller's session; a recovery key must be one as typed. A TPM or FIDO2 slot
  /// proves nothing: without a PIN, any program of the user could have keychaind unseal a TPM
  /// slot, and a FIDO2 key left plugged in answers whoever touches it.
  func proof(_ kind: String, _ secret: Secret, _ request: MethodRequest) throws -> KeyProof {
    let bytes = try core.sessions.password(in: secret, caller: request.caller)
    switch KeySlot.Kind(rawValue: kind) {
    case .password: return .password(bytes)
    case .recovery: return .recoveryKey(try RecoveryKey(parsing: bytes))
    case .tpm2, .fido2, .tpm2AndFIDO2, nil:
      throw DBusError(
        .invalidArgs, "a proof is a 'password' or a 'recovery' key, not '\(kind)'")
    }
  }

  /// Says in the log, and in the audit log, what changed the ways into a collection.
  func changed(_ what: String, _ view: StoreView, _ path: ObjectPath) {
    core.logger.notice("key slots: \(what)")
    view.note(.slot, .allowed, path)
  }

  /// The in-memory session collection has no password and no slots.
  static func persistent(_ collection: String) throws(DBusError) -> String {
    guard collection != KeychainStore.sessionCollection else {
      throw DBusError(.invalidArgs, "the in-memory session collection has no key slots")
    }
    return collection
  }
}
