// SPDX-License-Identifier: MIT
//
// FIDO2 key slots: a credential made on a FIDO2 key for keychaind, whose hmac-secret for a
// random salt wraps the collection's key as any slot does. The key must be touched each time
// (user presence), and given its PIN when the slot was made with one. What the slot keeps is
// the salt (32 bytes) and the credential id: useless without the key. One slot per key.

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainFIDO2
import KeychainStore
import SecretServiceProtocol

extension SlotsInterface {
  func addFIDO2(
    _ request: MethodRequest, collection path: ObjectPath, proofKind: String, proof: Secret,
    label: String, pin: Secret
  ) async throws -> Int64 {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(proofKind, proof, request)
    let pin = try core.sessions.password(in: pin, caller: request.caller)
    let device = fido2Device
    let slot = try await view.write { store in
      try store.addDerivedSlot(
        .fido2, to: collection, proof: given, label: label, policy: pin.count > 0 ? "pin" : nil
      ) {
        let salt = Random.bytes(count: 32)
        let (credential, secret) = try Self.fido2 { () throws(FIDO2.Failure) in
          try FIDO2.enroll(device: device, pin: pin, salt: salt)
        }
        return (secret, salt + credential)
      }
    }
    changed("added FIDO2 slot \(slot.id) to \(collection)", view, path)
    return slot.id
  }

  func unlockWithFIDO2(_ request: MethodRequest, collection path: ObjectPath, pin: Secret)
    async throws -> Int64
  {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let pin = try core.sessions.password(in: pin, caller: request.caller)
    let (device, unlocker) = (fido2Device, core.unlocker)
    let (slot, outcome) = try await view.write { store in
      let slots = try store.sealedSlots(of: collection, kind: .fido2)
      guard !slots.isEmpty else {
        throw DBusError(.invalidArgs, "collection '\(collection)' has no FIDO2 slot")
      }
      var failures: [String] = []
      for slot in slots where slot.sealed.count > 32 {
        guard (slot.policy == "pin") == (pin.count > 0) else {
          failures.append(
            "slot \(slot.id) " + (pin.count > 0 ? "has no PIN" : "needs the key's PIN"))
          continue
        }
        let secret: SecureBytes
        do throws(FIDO2.Failure) {
          secret = try FIDO2.secret(
            device: device, pin: pin, credential: Array(slot.sealed.dropFirst(32)),
            salt: Array(slot.sealed.prefix(32)))
        } catch {
          // Another key's slot: this one holds no such credential. Any other failure is final.
          guard error.kind == .otherKey else { throw Self.dbusError(error) }
          failures.append("slot \(slot.id) belongs to another key")
          continue
        }
        let outcome = try unlocker.unlock(
          collection, with: .sealedSecret(slot: slot.id, secret), route: UnlockRecord.Route.fido2)
        return (slot.id, outcome)
      }
      throw DBusError(
        .accessDenied, "no FIDO2 slot opened it: " + failures.joined(separator: "; "))
    }
    changed("unlocked \(collection) with FIDO2 slot \(slot)", view, path)
    view.record(contentsOf: outcome.events(of: collection))
    return slot
  }

  /// `Test` of a FIDO2 slot: derives its secret on the key and checks that it opens the
  /// collection.
  func testFIDO2(_ slot: Int64, of collection: String, pin: SecureBytes, _ view: StoreView)
    async throws
  {
    let device = fido2Device
    try await view.write { store in
      guard
        let kept = try store.sealedSlots(of: collection, kind: .fido2).first(where: {
          $0.id == slot
        }), kept.sealed.count > 32
      else { throw DBusError(.invalidArgs, "slot \(slot) cannot be tested by this keychaind") }
      let secret = try Self.fido2 { () throws(FIDO2.Failure) in
        try FIDO2.secret(
          device: device, pin: pin, credential: Array(kept.sealed.dropFirst(32)),
          salt: Array(kept.sealed.prefix(32)))
      }
      try store.testSlot(slot, of: collection, with: .sealedSecret(slot: slot, secret))
    }
  }

  /// Runs a FIDO2 operation; its failure becomes the error a client shows.
  static func fido2<T>(_ body: () throws(FIDO2.Failure) -> T) throws(DBusError) -> T {
    do {
      return try body()
    } catch {
      throw dbusError(error)
    }
  }

  static func dbusError(_ failure: FIDO2.Failure) -> DBusError {
    let name: ErrorName =
      switch failure.kind {
      case .pin, .pinBlocked, .noPresence, .otherKey: .accessDenied
      default: .failed
      }
    return DBusError(name, "FIDO2: \(failure.message)")
  }
}
