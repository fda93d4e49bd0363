// SPDX-License-Identifier: MIT
//
// The access-control mode, kept in the store (see `KeychainStore.keepAccessMode`) so that it
// is lowered only on purpose: keychaind runs in the higher of keychaind.conf's mode and the one
// the keyring was set to, says so loudly at start when the file asks for less, and finds at
// each unlock a kept mode lowered outside keychaind (the sealed copy outranks the plain one).
// Lowering takes the keyring's password (`keychainctl access mode`), and every change of mode
// is an audit record, written before the log stops for `off`.

import KeychainAccess
import KeychainStore
import Logging
import SecretServiceProtocol

extension AccessControl {
  /// The mode to start in: keychaind.conf's, unless the store keeps a higher one.
  static func startingMode(configured: AccessMode, store: KeychainStore, logger: Logger)
    -> AccessMode
  {
    let kept: AccessMode?
    do {
      kept = try store.keptAccessMode()
    } catch {
      logger.error("access-control: cannot read the mode kept in the store: \(error)")
      kept = nil
    }
    guard let kept, kept > configured else {
      if kept != configured {
        do { try store.keepAccessMode(configured) } catch {
          logger.warning("access-control: cannot keep the mode in the store: \(error)")
        }
      }
      return configured
    }
    logger.error(
      "access-control: keychaind.conf asks for \(configured.rawValue), but the keyring was set to \(kept.rawValue), which stays; lower it with: \(KeychainctlCommand.accessMode(configured.rawValue))"
    )
    return kept
  }

  /// An audit record of a change of mode (or of a refused one).
  static func modeRecord(_ decision: AuditRecord.Decision, _ detail: String) -> AuditRecord {
    var record = AuditRecord(
      op: .mode, decision: decision, app: AuditRecord.keychaind, sender: "")
    record.detail = detail
    return record
  }

  /// Puts `mode` in force and keeps it in the store.
  package func setMode(_ mode: AccessMode) throws {
    let before = self.mode
    guard mode != before else { return }
    // Written while the log still runs: turning it off is the last thing it records.
    log([Self.modeRecord(.allowed, "\(before.rawValue) → \(mode.rawValue)")])
    flushAudit()
    try store.keepAccessMode(mode)
    currentMode.store(Self.code(of: mode), ordering: .relaxed)
    logger.notice("access-control is \(mode.rawValue) now")
  }

  /// At an unlock: a sealed copy of the mode higher than the one in force means the plain copy
  /// was lowered outside keychaind; the higher one is put back in force. Otherwise the
  /// collections' sealed copies are brought up to date.
  func checkKeptMode(in collections: [String]) {
    var highest = mode
    for collection in collections where collection != KeychainStore.sessionCollection {
      do {
        if let sealed = try store.sealedAccessMode(in: collection), sealed > highest {
          highest = sealed
        }
      } catch {
        logger.error("access-control: \(error)")
      }
    }
    let current = mode
    if highest > current {
      logger.error(
        "access-control: the mode kept in the store was lowered to \(current.rawValue) outside keychaind; \(highest.rawValue) is back in force"
      )
      log([
        Self.modeRecord(
          .denied,
          "kept mode lowered to \(current.rawValue) outside keychaind; \(highest.rawValue) stays")
      ])
      currentMode.store(Self.code(of: highest), ordering: .relaxed)
    }
    do { try store.keepAccessMode(highest) } catch {
      logger.warning("access-control: cannot keep the mode in the store: \(error)")
    }
  }
}
