// SPDX-License-Identifier: MIT
//
// Slots that a TPM and a FIDO2 key open only together: a policy of `tpm2 AND fido2`. The
// slot's secret is both devices' secrets joined (a random secret sealed to the TPM, and the
// key's hmac-secret), so neither device, nor anything learned from one, opens it alone. What the
// slot keeps: the TPM's sealed object (after its length, two bytes), then the key's salt (32
// bytes) and credential id. Its policy says what each device needs: `tpm2=pin,pcrs=7;fido2=pin`.

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainFIDO2
import KeychainStore
import KeychainTPM
import SecretServiceProtocol

extension SlotsInterface {
  /// What a tpm2+fido2 slot keeps, and what each of its devices needs.
  struct Both {
    var sealed: [UInt8]
    var salt: [UInt8]
    var credential: [UInt8]
    var tpm: TPM2.Policy
    var fido2PIN: Bool

    var kept: [UInt8] {
      [UInt8(sealed.count >> 8), UInt8(sealed.count & 0xFF)] + sealed + salt + credential
    }
    var policy: String { "tpm2=\(tpm.text ?? "");fido2=\(fido2PIN ? "pin" : "")" }

    init(sealed: [UInt8], salt: [UInt8], credential: [UInt8], tpm: TPM2.Policy, fido2PIN: Bool) {
      (self.sealed, self.salt, self.credential) = (sealed, salt, credential)
      (self.tpm, self.fido2PIN) = (tpm, fido2PIN)
    }

    /// A slot's record read back; nil when it is not one this keychaind can follow.
    init?(_ slot: SealedSlot) {
      let bytes = slot.sealed
      guard bytes.count > 2 else { return nil }
      let length = Int(bytes[0]) << 8 | Int(bytes[1])
      guard bytes.count > 2 + length + 32 else { return nil }
      let parts = (slot.policy ?? "").split(separator: ";").map(String.init)
      guard parts.count == 2, parts[0].hasPrefix("tpm2="), parts[1].hasPrefix("fido2="),
        let tpm = TPM2.Policy(String(parts[0].dropFirst(5)).nilIfEmpty)
      else { return nil }
      self.init(
        sealed: Array(bytes[2..<(2 + length)]),
        salt: Array(bytes[(2 + length)..<(2 + length + 32)]),
        credential: Array(bytes[(2 + length + 32)...]), tpm: tpm,
        fido2PIN: parts[1] == "fido2=pin")
    }
  }

  func addTPM2AndFIDO2(
    _ request: MethodRequest, collection path: ObjectPath, proofKind: String, proof: Secret,
    label: String, tpmPIN: Secret, pcrs: [UInt32], fido2PIN: Secret
  ) async throws -> Int64 {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(proofKind, proof, request)
    let tpmPIN = try core.sessions.password(in: tpmPIN, caller: request.caller)
    let fido2PIN = try core.sessions.password(in: fido2PIN, caller: request.caller)
    if let bad = pcrs.first(where: { !TPM2.pcrRange.contains(Int($0)) }) {
      throw DBusError(.invalidArgs, "PCR \(bad) does not exist: PCRs are 0 to 23")
    }
    let tpmPolicy = TPM2.Policy(pin: tpmPIN.count > 0, pcrs: pcrs.map(Int.init))
    let policy = Both(
      sealed: [], salt: [], credential: [], tpm: tpmPolicy, fido2PIN: fido2PIN.count > 0
    ).policy
    let (tcti, device) = (tpm2TCTI, fido2Device)
    let slot = try await view.write { store in
      try store.addDerivedSlot(
        .tpm2AndFIDO2, to: collection, proof: given, label: label, policy: policy
      ) {
        let salt = Random.bytes(count: 32)
        let (credential, keySecret) = try Self.fido2 { () throws(FIDO2.Failure) in
          try FIDO2.enroll(device: device, pin: fido2PIN, salt: salt)
        }
        let tpmSecret = SecureBytes.random(count: 32, level: .longTerm)
        let sealed = try Self.tpm { () throws(TPM2.Failure) in
          try TPM2.seal(tpmSecret, pin: tpmPIN, pcrs: tpmPolicy.pcrs, tcti: tcti)
        }
        let both = Both(
          sealed: sealed, salt: salt, credential: credential, tpm: tpmPolicy,
          fido2PIN: fido2PIN.count > 0)
        return (Self.joined(tpmSecret, keySecret), both.kept)
      }
    }
    changed("added TPM and FIDO2 slot \(slot.id) (\(policy)) to \(collection)", view, path)
    return slot.id
  }

  func unlockWithTPM2AndFIDO2(
    _ request: MethodRequest, collection path: ObjectPath, tpmPIN: Secret, fido2PIN: Secret
  ) async throws -> Int64 {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let tpmPIN = try core.sessions.password(in: tpmPIN, caller: request.caller)
    let fido2PIN = try core.sessions.password(in: fido2PIN, caller: request.caller)
    let unlocker = core.unlocker
    let (slot, outcome) = try await view.write { store in
      let slots = try store.sealedSlots(of: collection, kind: .tpm2AndFIDO2)
      guard !slots.isEmpty else {
        throw DBusError(
          .invalidArgs, "collection '\(collection)' has no slot that needs the TPM and a FIDO2 key")
      }
      var failures: [String] = []
      for slot in slots {
        guard let both = Both(slot) else {
          failures.append("slot \(slot.id) asks for what this keychaind cannot give")
          continue
        }
        guard both.tpm.pin == (tpmPIN.count > 0), both.fido2PIN == (fido2PIN.count > 0) else {
          failures.append("slot \(slot.id) needs other PINs (\(both.policy))")
          continue
        }
        let secret: SecureBytes
        do {
          secret = try self.secret(of: both, tpmPIN: tpmPIN, fido2PIN: fido2PIN)
        } catch let error as FIDO2.Failure where error.kind == .otherKey {
          failures.append("slot \(slot.id) belongs to another FIDO2 key")
          continue
        }
        let outcome = try unlocker.unlock(
          collection, with: .sealedSecret(slot: slot.id, secret),
          route: UnlockRecord.Route.tpm2AndFIDO2)
        return (slot.id, outcome)
      }
      throw DBusError(.accessDenied, "no slot opened it: " + failures.joined(separator: "; "))
    }
    changed("unlocked \(collection) with TPM and FIDO2 slot \(slot)", view, path)
    view.record(contentsOf: outcome.events(of: collection))
    return slot
  }

  /// `Test` of a tpm2+fido2 slot, with the two PINs sent as one secret, NUL between them.
  func testTPM2AndFIDO2(_ slot: Int64, of collection: String, pins: SecureBytes, _ view: StoreView)
    async throws
  {
    let parts = pins.copyBytes().split(separator: 0, omittingEmptySubsequences: false)
    let tpmPIN = SecureBytes(copying: parts.first ?? [])
    let fido2PIN = SecureBytes(copying: parts.count > 1 ? parts[1] : [])
    try await view.write { store in
      guard
        let kept = try store.sealedSlots(of: collection, kind: .tpm2AndFIDO2).first(where: {
          $0.id == slot
        }), let both = Both(kept)
      else { throw DBusError(.invalidArgs, "slot \(slot) cannot be tested by this keychaind") }
      let secret = try self.secret(of: both, tpmPIN: tpmPIN, fido2PIN: fido2PIN)
      try store.testSlot(slot, of: collection, with: .sealedSecret(slot: slot, secret))
    }
  }

  /// Both devices' secrets, joined; a FIDO2 key that holds no such credential throws its
  /// `FIDO2.Failure` (the caller tries the next slot), any other failure a `DBusError`.
  private func secret(of both: Both, tpmPIN: SecureBytes, fido2PIN: SecureBytes) throws
    -> SecureBytes
  {
    let keySecret: SecureBytes
    do throws(FIDO2.Failure) {
      keySecret = try FIDO2.secret(
        device: fido2Device, pin: fido2PIN, credential: both.credential, salt: both.salt)
    } catch {
      guard error.kind != .otherKey else { throw error }
      throw Self.dbusError(error)
    }
    let tcti = tpm2TCTI
    let tpmSecret = try Self.tpm { () throws(TPM2.Failure) in
      try TPM2.unseal(both.sealed, pin: tpmPIN, pcrs: both.tpm.pcrs, tcti: tcti)
    }
    return Self.joined(tpmSecret, keySecret)
  }

  /// `first` then `second`, in secure memory: the input of the slot's key derivation.
  static func joined(_ first: SecureBytes, _ second: SecureBytes) -> SecureBytes {
    SecureBytes(count: first.count + second.count) { out in
      first.withUnsafeBytes { out.copyMemory(from: $0) }
      second.withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: out[first.count...]).copyMemory(from: $0)
      }
    }
  }
}

extension String {
  fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
