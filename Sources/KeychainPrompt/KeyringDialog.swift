// SPDX-License-Identifier: MIT
//
// The questions keychaind asks a person, whatever shows them: a pinentry (`PasswordDialog`, any
// flavour), or GNOME's own system prompt (`SystemPromptDialog`), which looks like every other
// GNOME dialog and has a check box for "Always allow" that pinentry-gnome3 cannot show.

import KeychainCrypto

/// One dialog, open for the questions of one prompt.
public protocol KeyringDialog: Sendable {
  /// Asks for the password of an existing keyring until `accept` takes it; false when every
  /// attempt was wrong. `accept` does the unlocking: the password is not kept.
  func askExisting(
    _ texts: PromptTexts, wrongPassword: String, accept: (SecureBytes) throws -> Bool
  ) throws -> Bool

  /// Asks for a new password, confirmed; an empty one only once the person confirms it.
  func askNew(_ texts: PromptTexts) throws -> SecureBytes

  /// Asks whether an application may read items it did not store.
  func askAccess(_ question: AccessQuestion) throws -> AccessChoice

  /// Asks whether a program may make a change to the keyrings; true when the person allows it.
  func askChange(_ question: ChangeQuestion) throws -> Bool

  /// Ends the question showing, from another thread (Dismiss, the caller gone): the waiting
  /// question throws `cancelled`.
  func cancel()

  /// Closes the dialog.
  func close()
}

extension PasswordDialog: KeyringDialog {
  public func cancel() { pinentry.cancel() }
}
