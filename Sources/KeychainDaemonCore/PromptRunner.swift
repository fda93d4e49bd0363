// SPDX-License-Identifier: MIT
//
// Running prompts: one at a time (N applications asking at login get one dialog, as with
// gnome-keyring's unlock queue), each on a thread of its own, because a dialog waits for a
// person and key derivation takes a third of a second: neither may hold a cooperative thread.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainPrompt
import KeychainStore
import KeychainSystemPrompt
import Logging
import SecretServiceProtocol
import Synchronization

/// What a finished prompt reports in `Completed`, and what it changed.
package struct PromptOutcome: Sendable {
  package var dismissed: Bool
  package var result: DBusValue
  /// Collections this prompt unlocked.
  package var unlocked: [String] = []
  /// A collection this prompt created.
  package var created: String?
  /// A collection whose password this prompt changed.
  var changed: String?
  /// A collection this prompt deleted.
  var deleted: String?
  /// What the password hook did with the password typed.
  var hooked = PasswordHookEffects()

  /// What clients hear of it: the new collection, the unlock, what the hook did.
  package var events: [StoreEvent] {
    if let deleted { return [.collectionDeleted(deleted)] }
    let created = self.created.map { [StoreEvent.collectionCreated($0)] } ?? []
    return created + StoreEvent.unlocked(unlocked, changed: Set(unlocked), hooked: hooked)
  }
}

/// Runs the action of a prompt in a pinentry dialog.
package final class PromptRunner: Sendable {
  let store: KeychainStore
  /// The pinentry program; nil when prompting is turned off.
  let pinentry: String?
  let logger: Logger
  let unlocker: Unlocker
  /// Asks about items an application may not read yet.
  let access: AccessControl
  private let queue = PromptQueue()

  init(
    store: KeychainStore, pinentry: String?, logger: Logger, unlocker: Unlocker,
    access: AccessControl
  ) {
    self.access = access
    self.store = store
    self.pinentry = pinentry
    self.logger = logger
    self.unlocker = unlocker
  }

  /// Waits for its turn, then runs `action`. Cancelling the task closes the dialog.
  package func run(_ action: PromptAction) async -> PromptOutcome {
    await queue.acquire()
    let outcome = await runInTurn(action)
    await queue.release()
    return outcome
  }

  private func runInTurn(_ action: PromptAction) async -> PromptOutcome {
    let dismissed = PromptOutcome(dismissed: true, result: action.emptyResult)
    if Task.isCancelled { return dismissed }
    let handle = DialogHandle()
    return await withTaskCancellationHandler {
      await Blocking.run { [self] in
        do {
          return try perform(action, handle)
        } catch let error as PinentryError {
          report(error)
        } catch {
          logger.warning("prompt failed: \(error)")
        }
        return dismissed
      }
    } onCancel: {
      handle.cancel()
    }
  }

  private func report(_ error: PinentryError) {
    switch error {
    case .cancelled, .notConfirmed:
      logger.debug("prompt dismissed")
    case .cannotStart(let why), .failed(let why):
      // One line, the same whether no pinentry exists or the one there cannot show a dialog
      // (pinentry-gnome3 with no display and no terminal), with a route that works now.
      logger.notice("\(Self.noDialog(why))")
    }
  }

  /// What the log says when no password dialog can be shown.
  static func noDialog(_ why: String) -> String {
    "no password dialog could be shown (\(why)); unlock with: "
      + "\(KeychainctlCommand.unlockFromStandardInput), "
      + "or set PINENTRY or 'pinentry =' in keychaind.conf to a pinentry that can show one"
  }

  /// The prompt's dialog: GNOME's system prompt or a pinentry, as `pinentry` names it.
  private func openDialog(_ handle: DialogHandle) throws -> any KeyringDialog {
    try handle.open(pinentry, systemDialog: SystemPromptDialog.open, logger: logger)
  }

  /// The prompt's work, blocking: dialogs, key derivation, the store.
  private func perform(_ action: PromptAction, _ handle: DialogHandle) throws -> PromptOutcome {
    switch action {
    case .unlock(let collections, let objects, let app, let access):
      // Another prompt may have unlocked them while this one waited in the queue.
      var locked = collections.filter { store.isLocked($0) }
      var outcome = PromptOutcome(dismissed: false, result: objects.dbusValue)
      // What a slot that needs nothing typed opens (a TPM slot without a PIN) needs no dialog.
      for collection in locked {
        guard let opened = unlocker.devices.open(collection) else { continue }
        outcome.unlocked.append(collection)
        outcome.hooked.merge(opened.hooked)
      }
      locked.removeAll { outcome.unlocked.contains($0) }
      guard !locked.isEmpty || access != nil else { return outcome }
      let dialog: any KeyringDialog
      do {
        dialog = try openDialog(handle)
      } catch {
        if let access { self.access.noDialog(access) }
        throw error
      }
      defer { dialog.close() }
      for collection in locked {
        let label = (try? store.collection(collection).label) ?? collection
        var hooked: PasswordHookEffects?
        let accepted = try dialog.askExisting(
          .unlock(label: label, isLogin: collection == KeychainStore.loginCollection, app: app),
          wrongPassword: PromptTexts.wrongUnlockPassword
        ) { password in
          hooked = try unlocks(collection, password, runningHook: true)?.hooked
          return hooked != nil
        }
        guard accepted, let hooked else {
          outcome.dismissed = true
          outcome.result = action.emptyResult
          return outcome
        }
        outcome.unlocked.append(collection)
        outcome.hooked.merge(hooked)
      }
      if let access, !self.access.ask(access, in: dialog, store: store) {
        outcome.dismissed = true
        outcome.result = action.emptyResult
      }
      return outcome
    case .createCollection(let label, let alias):
      if !alias.isEmpty, let existing = try store.alias(alias) {
        return PromptOutcome(
          dismissed: false, result: .objectPath(Resolver.path(ofCollection: existing)))
      }
      let dialog = try openDialog(handle)
      defer { dialog.close() }
      let password = try dialog.askNew(.create(label: label.isEmpty ? "Unnamed" : label))
      let (name, created) = try unlocker.create(label: label, alias: alias, password: password)
      return PromptOutcome(
        dismissed: false, result: .objectPath(Resolver.path(ofCollection: name)), created: name,
        hooked: created.hooked)
    case .confirm(let question):
      let dialog = try openDialog(handle)
      defer { dialog.close() }
      return PromptOutcome(dismissed: !(try dialog.askChange(question)), result: action.emptyResult)
    case .deleteCollection(let collection, let question, let deletion):
      let dialog = try openDialog(handle)
      defer { dialog.close() }
      let allowed = try dialog.askChange(question)
      access.log(
        deletion.items.map {
          AuditRecord(
            op: .delete, decision: allowed ? .allowedOnce : .denied, app: deletion.caller.auditApp,
            sender: deletion.caller.sender.rawValue, item: Resolver.path(of: $0).rawValue)
        })
      guard allowed else { return PromptOutcome(dismissed: true, result: action.emptyResult) }
      try store.deleteCollection(collection)
      return PromptOutcome(dismissed: false, result: action.emptyResult, deleted: collection)
    case .changePassword(let collection):
      let label = try store.collection(collection).label
      let dialog = try openDialog(handle)
      defer { dialog.close() }
      var current: SecureBytes?
      let accepted = try dialog.askExisting(
        .changeOld(label: label), wrongPassword: PromptTexts.wrongOriginalPassword
      ) { password in
        current = password
        return try unlocks(collection, password, runningHook: false) != nil
      }
      guard accepted, let current else {
        return PromptOutcome(dismissed: true, result: action.emptyResult)
      }
      let new = try dialog.askNew(.changeNew(label: label))
      try store.changePassword(collection, from: current, to: new)
      return PromptOutcome(
        dismissed: false, result: .objectPath(Resolver.path(ofCollection: collection)),
        unlocked: [collection], changed: collection)
    }
  }

  /// What unlocking `collection` with `password` did (it is unlocked then), or nil for a
  /// wrong password.
  private func unlocks(_ collection: String, _ password: SecureBytes, runningHook: Bool) throws
    -> Unlocker.Outcome?
  {
    do {
      return try unlocker.unlock(
        collection, with: password, route: UnlockRecord.Route.passwordDialog,
        runningHook: runningHook)
    } catch StoreError.wrongPassword {
      logger.info("a wrong password was typed for a keyring")
      return nil
    }
  }
}

/// Collection creation shared by prompts and gnome-keyring's CreateWithMasterPassword.
enum Collections {
  /// Creates a collection and points `alias` at it. The alias `login` names the collection
  /// called login itself, so that one is made under that name; others are named after their
  /// label as gnome-keyring names them ("Default keyring" → `Default_5fkeyring`), so that
  /// scripts written against gnome-keyring's paths find them.
  static func create(label: String, alias: String, password: SecureBytes, in store: KeychainStore)
    throws -> String
  {
    let base = alias == KeychainStore.loginCollection ? alias : name(forLabel: label)
    var suffix = 1
    while true {
      let name = suffix == 1 ? base : "\(base)\(suffix)"
      suffix += 1
      guard name != KeychainStore.sessionCollection, try !store.hasCollection(name) else {
        if alias == KeychainStore.loginCollection { throw StoreError.collectionExists(name) }
        continue
      }
      do {
        let info = try store.createCollection(name: name, label: label, password: password)
        if !alias.isEmpty, alias != KeychainStore.loginCollection {
          try store.setAlias(alias, to: info.name)
        }
        return info.name
      } catch StoreError.collectionExists {
        continue  // made by another caller since the check
      }
    }
  }

  /// gnome-keyring's identifier for a label: letters and digits kept, the rest `_`, then
  /// escaped as a path element.
  static func name(forLabel label: String) -> String {
    let kept = String(
      label.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    return kept.isEmpty ? "collection" : ObjectPath.escapeElement(kept)
  }
}
