// SPDX-License-Identifier: MIT
//
// The access dialog inside an Unlock prompt. libsecret, SecretStorage, keyring and Chromium
// call Unlock on what SearchItems listed as locked; for items locked only for this caller
// (`protect`), the prompt asks the user whether the caller's application may read them, after
// any collection password. One dialog covers every item of the call.

import Foundation
import KeychainAccess
import KeychainDBus
import KeychainPrompt
import KeychainStore

/// Items a caller asked to unlock that its application may not read yet.
package struct AccessAsk: Sendable {
  let caller: CallerApp
  package let items: [ItemID]
}

extension AccessControl {
  /// Whether the items of `ask` that still need an answer are allowed, asking the user in
  /// `dialog`: "Allow once" for this connection, "Always allow" stored as grants, "Deny" for
  /// a few seconds' quiet. Every answer goes to the audit log.
  func ask(_ ask: AccessAsk, in dialog: any KeyringDialog, store: KeychainStore) -> Bool {
    let caller = ask.caller
    var changed = false
    let pending = ask.items.filter { item in
      guard !store.isLocked(item.collection) else { return false }
      guard case .ask(let was) = answer(for: caller, item: item, in: store) else { return false }
      changed = changed || was
      return true
    }
    guard !pending.isEmpty else { return true }
    let labels = pending.map { (try? store.itemInfo($0).label) ?? "an item" }
    let question = AccessQuestion(
      app: caller.identity.name, identification: Self.identification(caller.identity),
      labels: labels, canRemember: caller.identity.isRememberable, changed: changed,
      forSession: caller.identity.isSessionBound,
      allowCommand: Self.allowCommand(
        caller.identity.key, pending.map { Resolver.path(of: $0).rawValue }, passwordStdin: false))
    let choice: AccessChoice
    do {
      choice = try dialog.askAccess(question)
    } catch {
      logger.notice("access dialog failed: \(error)")
      noDialog(AccessAsk(caller: caller, items: pending))
      return false
    }
    var records: [AuditRecord] = []
    func record(_ op: AuditRecord.Operation, _ decision: AuditRecord.Decision, _ item: ItemID) {
      records.append(
        AuditRecord(
          op: op, decision: decision, app: caller.auditApp, sender: caller.sender.rawValue,
          item: Resolver.path(of: item).rawValue))
    }
    defer { log(records) }
    switch choice {
    case .allowOnce:
      allowOnce(caller, pending)
      return true
    case .allowAlways where caller.identity.isSessionBound:
      allowInSession(caller, pending)
      for item in pending { record(.read, .allowedInSession, item) }
      return true
    case .allowAlways:
      for item in pending {
        do {
          try store.addGrant(
            AccessGrant(
              app: caller.identity.key, pin: caller.identity.pin, collection: item.collection,
              item: item.id, source: "dialog"))
          record(.grant, .allowedAlways, item)
        } catch {
          logger.warning("could not store an access grant: \(error); allowed once instead")
          allowOnce(caller, [item])
        }
      }
      return true
    case .deny:
      deny(caller, pending)
      for item in pending { record(.read, .denied, item) }
      return false
    }
  }

  /// No dialog could be shown for `ask`: its items are refused, and recorded as such (nobody
  /// was asked, so nobody denied them).
  func noDialog(_ ask: AccessAsk) {
    log(
      ask.items.map {
        AuditRecord(
          op: .read, decision: .noDialog, app: ask.caller.auditApp,
          sender: ask.caller.sender.rawValue, item: Resolver.path(of: $0).rawValue)
      })
  }

  /// How an identity was established, for the dialog.
  static func identification(_ identity: AppIdentity) -> String {
    switch identity.kind {
    case .portal, .flatpak, .snap: "It is identified by its sandbox."
    case .system: "It is identified by its path \(identity.key.dropFirst(4))."
    case .user: "It is identified by its path \(identity.key.dropFirst(4)) and its content."
    case .script: "It is identified only by its command line, which it could change."
    case .via where identity.isSessionBound:
      "It was run in a terminal or login, and is told apart from the same tool in any other."
    case .via: "It is identified by the program that ran it."
    case .unit: "It is a systemd unit, named by systemd's own connection."
    case .share: "It calls through a share made with keychainctl share."
    case .unknown:
      identity.unknownReason.map { "It could not be identified: \($0)." }
        ?? "It could not be identified."
    }
  }
}
