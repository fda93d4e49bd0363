// SPDX-License-Identifier: MIT
//
// What a program is told when the access rules refuse it, worded in one place: each refusal
// says who was refused and why, and, where one command allows it, that command, to be pasted
// as it is (a program refused in a loop is the user's to allow, not the program's). The
// decisions are made where the call is; only their words are here, so that two refusals of one
// kind cannot drift apart.

import KeychainAccess
import KeychainDBus
import SecretServiceProtocol

/// A refusal by the access rules, as the caller is told it (`error`).
package enum AccessRefusal {
  /// `app` may not replace `item`, another program's (CreateItem with replace).
  case replace(AppIdentity, item: String)
  /// `app` may not read `items` (paths), and there is no display to ask on.
  case readWithoutDisplay(AppIdentity, items: [String])
  /// `app` may make `change` only if the user allows it in a dialog, and there is no display.
  case changeWithoutDisplay(AppIdentity, change: String)
  /// The user did not allow `change` in the dialog.
  case changeNotAllowed(change: String)
  /// Deleting a collection whose owners are sealed with its key, while it is locked.
  case deletionWhileLocked
  /// A program that cannot be identified named an access group.
  case unidentifiedInNoGroup(AppIdentity)
  /// `app` named `group`, a named group (`group:…`) it is not a member of.
  case notMember(AppIdentity, group: String)
  /// `app` named another application's own group.
  case otherApplicationsGroup(AppIdentity, group: String)
  /// `app`, not keychainctl, said which command it runs (`RunsCommand`).
  case notKeychainctl(AppIdentity)
  /// A write through a read-only share.
  case shareIsReadOnly
  /// A method (`interface.member`) a share does not offer.
  case notThroughShare(method: String)

  /// The D-Bus error the caller gets.
  package var error: DBusError {
    switch self {
    case .replace(let app, let item):
      DBusError(
        .accessDenied,
        "an item with these attributes belongs to another program, which “\(app.display)” may not replace; allow it with: "
          + AccessControl.allowCommand(app.key, [item]))
    case .readWithoutDisplay(let app, let items):
      DBusError(
        .accessDenied,
        "“\(app.display)” may not read \(items.count == 1 ? "this item" : "these items") "
          + "and there is no display to ask on; allow it with: "
          + AccessControl.allowCommand(app.key, items))
    case .changeWithoutDisplay(let app, let change):
      DBusError(
        .accessDenied,
        "with access-control = protect, “\(app.display)” may \(change) only if you allow it in a dialog, and there is no display to show one on: run it in your desktop session"
      )
    case .changeNotAllowed(let change):
      DBusError(.accessDenied, "the change was not allowed: \(change)")
    case .deletionWhileLocked:
      DBusError(
        .accessDenied, "unlock the collection first: its items' owners are sealed with its key")
    case .unidentifiedInNoGroup(let app):
      DBusError(
        .notInAccessGroup, "\(app.display) cannot be identified, so it is in no access group")
    case .notMember(let app, let group):
      DBusError(
        .notInAccessGroup,
        "\(app.display) is not in the access group \(group); add it with: "
          + KeychainctlCommand.accessGroupAdd(
            String(group.dropFirst(AccessGrant.groupPrefix.count)), app: app.key))
    case .otherApplicationsGroup(let app, let group):
      DBusError(
        .notInAccessGroup, "\(app.display) is not in the access group \(group): it is \(app.key)")
    case .notKeychainctl(let app):
      DBusError(
        .accessDenied,
        "only keychainctl exec says which command it runs, and \(app.display) is not it")
    case .shareIsReadOnly:
      DBusError(.accessDenied, "this share is read-only")
    case .notThroughShare(let method):
      DBusError(.accessDenied, "\(method) is not available through a share")
    }
  }
}
