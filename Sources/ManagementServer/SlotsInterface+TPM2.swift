// SPDX-License-Identifier: MIT
//
// TPM key slots: a random secret sealed to this machine's TPM (KeychainTPM), which wraps the
// collection's key as any slot does (KeychainStore+Slots). The TPM is reached in the blocking
// pool: a real chip takes tens to hundreds of milliseconds per command.

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTPM
import SecretServiceProtocol

extension SlotsInterface {
  func addTPM2(
    _ request: MethodRequest, collection path: ObjectPath, proofKind: String, proof: Secret,
    label: String, pin: Secret, pcrs: [UInt32]
  ) async throws -> Int64 {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let given = try self.proof(proofKind, proof, request)
    let pin = try core.sessions.password(in: pin, caller: request.caller)
    if let bad = pcrs.first(where: { !TPM2.pcrRange.contains(Int($0)) }) {
      throw DBusError(.invalidArgs, "PCR \(bad) does not exist: PCRs are 0 to 23")
    }
    let policy = TPM2.Policy(pin: pin.count > 0, pcrs: pcrs.map(Int.init))
    let tcti = tpm2TCTI
    let slot = try await view.write { store in
      // The store checks the proof before it asks for the seal: a wrong password never
      // reaches the TPM.
      try store.addSealedSlot(
        .tpm2, to: collection, proof: given, label: label, policy: policy.text
      ) { secret in
        try Self.tpm { () throws(TPM2.Failure) in
          try TPM2.seal(secret, pin: pin, pcrs: policy.pcrs, tcti: tcti)
        }
      }
    }
    changed("added TPM slot \(slot.id) (\(policy.text ?? "no PIN")) to \(collection)", view, path)
    return slot.id
  }

  func unlockWithTPM2(_ request: MethodRequest, collection path: ObjectPath, pin: Secret)
    async throws -> Int64
  {
    let view = StoreView(request, core: core)
    let collection = try Self.persistent(view.namedCollection(path))
    let pin = try core.sessions.password(in: pin, caller: request.caller)
    let slots = TPMSlots(
      tcti: tpm2TCTI, store: core.store, unlocker: core.unlocker, logger: core.logger)
    let (slot, outcome) = try await view.write { _ in try slots.open(collection, pin: pin) }
    changed("unlocked \(collection) with TPM slot \(slot)", view, path)
    view.record(contentsOf: outcome.events(of: collection))
    return slot
  }

  /// `Test` of a TPM slot: unseals it with `pin` and checks that it opens the collection.
  func testTPM2(_ slot: Int64, of collection: String, pin: SecureBytes, _ view: StoreView)
    async throws
  {
    let tcti = tpm2TCTI
    try await view.write { store in
      guard
        let sealed = try store.sealedSlots(of: collection, kind: .tpm2).first(where: {
          $0.id == slot
        }),
        let policy = TPM2.Policy(sealed.policy)
      else { throw DBusError(.invalidArgs, "slot \(slot) cannot be tested by this keychaind") }
      let secret = try Self.tpm { () throws(TPM2.Failure) in
        try TPM2.unseal(sealed.sealed, pin: pin, pcrs: policy.pcrs, tcti: tcti)
      }
      try store.testSlot(slot, of: collection, with: .sealedSecret(slot: slot, secret))
    }
  }

  /// Runs a TPM operation; its failure becomes the error a client shows.
  static func tpm<T>(_ body: () throws(TPM2.Failure) -> T) throws(DBusError) -> T {
    do {
      return try body()
    } catch {
      let name: ErrorName =
        switch error.kind {
        case .wrongPIN, .lockout, .pcrsChanged: .accessDenied
        default: .failed
        }
      throw DBusError(name, "TPM: \(error.message)")
    }
  }
}
