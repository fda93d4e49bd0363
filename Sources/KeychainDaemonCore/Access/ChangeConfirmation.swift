// SPDX-License-Identifier: MIT
//
// Changes to the keyrings themselves that `protect` asks the user about, because a program
// could use them to get what others store without ever reading an item: making another keyring
// the default (SetAlias: every application stores there next), creating a keyring with a
// password the program chose (gnome-keyring's CreateWithMasterPassword, which with SetAlias
// would send everyone's new secrets under that password), and deleting a keyring that holds
// other programs' items. The dialog says who asks and what follows; with no display to show it
// on, the call is refused and says why. Every answer goes to the audit log.

import KeychainAccess
import KeychainDBus
import KeychainPrompt
import KeychainStore

extension StoreView {
  /// What must be asked before the caller `change`s something (`consequence` says what
  /// follows), or nil when nothing must (`access-control` is not `protect`). With no display
  /// to ask on, AccessDenied naming the change.
  package func changeQuestion(_ change: String, _ consequence: String) throws(DBusError)
    -> ChangeQuestion?
  {
    guard core.access.enforces, let caller else { return nil }
    guard caller.hasDisplay else {
      throw AccessRefusal.changeWithoutDisplay(caller.identity, change: change).error
    }
    return ChangeQuestion(
      app: caller.identity.name,
      identification: AccessControl.identification(caller.identity), change: change,
      consequence: consequence)
  }

  /// Asks `question` and waits for the answer (a call with no prompt of its own holds its
  /// reply meanwhile); AccessDenied unless the user allows it. The answer is noted on the call
  /// for the audit log as `operation` on `path`.
  package func confirm(
    _ question: ChangeQuestion, _ operation: AuditRecord.Operation, _ path: ObjectPath
  ) async throws(DBusError) {
    let outcome = await core.prompter.run(.confirm(question))
    note(operation, outcome.dismissed ? .denied : .allowedOnce, path)
    guard !outcome.dismissed else {
      throw AccessRefusal.changeNotAllowed(change: question.change).error
    }
  }
}

extension StoreView {
  /// In `protect`, what must be asked before the caller deletes `collection`, which holds
  /// items it may not use (other programs'), and which they are; nil when nothing must. The
  /// collection must be unlocked, so that its owners are known.
  package func deletionQuestion(for collection: String) throws -> (
    ChangeQuestion, PromptAction.Deletion
  )? {
    guard core.access.enforces, let caller, collection != KeychainStore.sessionCollection else {
      return nil
    }
    guard !isLocked(collection) else {
      throw AccessRefusal.deletionWhileLocked.error
    }
    // Unlocked: an item locked for this caller is one its application may not use.
    let others = try items(in: collection).filter { isLocked($0) }
    guard !others.isEmpty else { return nil }
    let label = try self.collection(collection).label
    do {
      guard
        let question = try changeQuestion(
          "delete the keyring “\(label)”",
          "It holds \(others.count) password(s) other programs stored, which would be gone.")
      else { return nil }
      return (question, PromptAction.Deletion(caller: caller, items: others))
    } catch {
      for item in others { note(.delete, .noDisplay, item) }
      throw error
    }
  }
}
