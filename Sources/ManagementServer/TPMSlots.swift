// SPDX-License-Identifier: MIT
//
// Opening a collection with its TPM slots: for `keychainctl unlock --tpm2`, and before a
// password dialog, where a slot without a PIN opens the collection with nothing typed (after a
// login with no password, PAM had nothing to unlock the keyring with). Blocking: a real TPM
// takes tens to hundreds of milliseconds a command.

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import KeychainTPM
import Logging

struct TPMSlots: Sendable {
  let tcti: String
  let store: KeychainStore
  let unlocker: Unlocker
  let logger: Logger

  /// Opens `collection` with the first of its TPM slots that `pin` fits (empty: those
  /// without a PIN); returns the slot and the outcome. The error says why each slot failed.
  func open(_ collection: String, pin: SecureBytes) throws -> (Int64, Unlocker.Outcome) {
    let slots = try store.sealedSlots(of: collection, kind: .tpm2)
    guard !slots.isEmpty else {
      throw DBusError(.invalidArgs, "collection '\(collection)' has no TPM slot")
    }
    var failures: [String] = []
    for slot in slots {
      guard let policy = TPM2.Policy(slot.policy) else {
        failures.append("slot \(slot.id) asks for what this keychaind cannot give")
        continue
      }
      guard policy.pin == (pin.count > 0) else {
        failures.append("slot \(slot.id) " + (policy.pin ? "needs its PIN" : "has no PIN"))
        continue
      }
      do throws(TPM2.Failure) {
        let secret = try TPM2.unseal(slot.sealed, pin: pin, pcrs: policy.pcrs, tcti: tcti)
        guard
          let outcome = try? unlocker.unlock(
            collection, with: .sealedSecret(slot: slot.id, secret), route: UnlockRecord.Route.tpm2)
        else {
          failures.append("slot \(slot.id): what the TPM gave back does not open it")
          continue
        }
        return (slot.id, outcome)
      } catch {
        failures.append("slot \(slot.id): \(error.message)")
      }
    }
    throw DBusError(.accessDenied, "no TPM slot opened it: " + failures.joined(separator: "; "))
  }

  /// What `DeviceUnlocks` tries before a password dialog: a TPM slot without a PIN. Nil, and
  /// the dialog, when there is none or none opens (the reason goes to the log).
  func openWithNothingTyped(_ collection: String) -> Unlocker.Outcome? {
    guard
      let slots = try? store.sealedSlots(of: collection, kind: .tpm2),
      slots.contains(where: { TPM2.Policy($0.policy)?.pin == false })
    else { return nil }
    do {
      let (slot, outcome) = try open(collection, pin: SecureBytes(copying: []))
      logger.notice("key slots: unlocked \(collection) with TPM slot \(slot) instead of a dialog")
      return outcome
    } catch {
      logger.notice("key slots: \(collection) not opened by the TPM, so the dialog asks: \(error)")
      return nil
    }
  }
}
