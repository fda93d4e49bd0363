// SPDX-License-Identifier: MIT
//
// Collections created, unlocked and re-keyed with a password the caller gives, for scripts and
// machines with no one to answer a prompt. The Secret Service has no such calls; gnome-keyring's
// `org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface` does (Seahorse and
// `gnome-keyring-daemon --unlock` use it), and keychaind offers the same interface. The
// passwords travel as Secret structs through the session, encrypted when it is a DH session.

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// Creates a collection protected by `password`, with no prompt; with an `alias`, points the
  /// alias at it.
  public func createCollection(label: String, alias: String = "", password: SecureBytes)
    async throws -> ObjectPath
  {
    let properties = NewCollectionProperties(label: label).dbusProperties
    let collection = try await call(
      Self.service, SecretService.GnomeKeyringMethods.createWithMasterPassword, properties,
      try secretValue(password, contentType: "text/plain"))
    guard collection.rawValue != "/" else {
      throw DBusError(.failed, "CreateWithMasterPassword answered oddly")
    }
    if !alias.isEmpty { try await setAlias(alias, to: collection) }
    return collection
  }

  /// Unlocks `collection` with its password, with no prompt. A wrong password is an error
  /// whose name `meansWrongPassword`.
  public func unlock(_ collection: ObjectPath, password: SecureBytes) async throws {
    try await call(
      Self.service, SecretService.GnomeKeyringMethods.unlockWithMasterPassword, collection,
      try secretValue(password, contentType: "text/plain"))
  }

  /// Changes the password of `collection` from `old` to `new`, with no prompt.
  public func changePassword(of collection: ObjectPath, from old: SecureBytes, to new: SecureBytes)
    async throws
  {
    try await call(
      Self.service, SecretService.GnomeKeyringMethods.changeWithMasterPassword, collection,
      try secretValue(old, contentType: "text/plain"),
      try secretValue(new, contentType: "text/plain"))
  }
}
