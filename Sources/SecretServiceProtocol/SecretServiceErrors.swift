// SPDX-License-Identifier: MIT
//
// The errors a Secret Service provider answers, named and worded as gnome-keyring 42.1 answers
// them (measured on its bus: every call a client can get wrong, side by side with keychaind in
// GnomeKeyringParityTests). Clients act on the names; people read the words in their logs.

import KeychainDBus

extension ErrorName {
  /// A prompt was asked to show a second time.
  public static let alreadyExists: ErrorName = "org.freedesktop.Secret.Error.AlreadyExists"
}

/// gnome-keyring's errors, one place for every handler.
public enum SecretServiceError {
  /// A session that does not exist, or that another connection opened, given to read secrets.
  public static let noSession = DBusError(.noSession, "The session does not exist")
  /// The same, for the session a given secret is wrapped in (CreateItem, SetSecret, passwords).
  public static let noWrappingSession = DBusError(
    .noSession, "The session wrapping the secret does not exist")
  /// A session or prompt of another connection.
  public static let invalidCaller = DBusError(.accessDenied, "Invalid caller")
  /// A collection path that names none.
  public static let noSuchCollection = DBusError(.noSuchObject, "The collection does not exist")
  /// A path that is not a collection's at all.
  public static let invalidCollectionPath = DBusError(
    .invalidArgs, "Invalid collection object path")
  /// CreateCollection with a property it does not know, or of the wrong type.
  public static let invalidProperties = DBusError(.invalidArgs, "Invalid properties")
  /// CreateItem or CreateWithMasterPassword with such a property.
  public static let invalidPropertiesArgument = DBusError(
    .invalidArgs, "Invalid properties argument")
  /// CreateItem setting a property no one sets (Locked, Created, Modified).
  public static let readOnlyField = DBusError(
    .failed, "Couldn't create item: The field is read-only")
  /// A master password that does not open the collection.
  public static let wrongPassword = DBusError(.gnomeDenied, "The password was invalid")
  /// `Prompt()` called a second time.
  public static let promptShown = DBusError(.alreadyExists, "This prompt has already been shown.")
  /// A DH public key no key agreement can use.
  public static let badPublicKey = DBusError(.failed, "Failed to create necessary crypto key.")

  /// Locked objects, by what was asked of them.
  public enum Locked {
    public static let getSecret = DBusError(.isLocked, "Cannot get secret of a locked object")
    public static let setSecret = DBusError(.isLocked, "Cannot set secret of a locked item")
    public static let createItem = DBusError(
      .isLocked, "Cannot create an item in a locked collection")
    public static let setProperty = DBusError(.isLocked, "Cannot set property on a locked object")
    public static let delete = DBusError(.isLocked, "Cannot delete a locked item")
  }

  /// An algorithm OpenSession does not know: clients fall back to `plain` on this name only.
  public static func algorithmNotSupported(_ algorithm: String) -> DBusError {
    DBusError(.notSupported, "The algorithm '\(algorithm.prefix(64))' is not supported")
  }

  /// An OpenSession input of the wrong type for its algorithm.
  public static func invalidAlgorithmInput(_ algorithm: String) -> DBusError {
    DBusError(.invalidArgs, "The session algorithm input argument (\(algorithm)) was invalid")
  }
}

/// The property names of `CreateCollection`, `CreateItem` and `CreateWithMasterPassword`.
public enum CollectionProperties {
  public static let label = SecretService.CollectionProperty.label.qualifiedName
}

public enum ItemProperties {
  public static let label = SecretService.ItemProperty.label.qualifiedName
  public static let attributes = SecretService.ItemProperty.attributes.qualifiedName
  public static let type = SecretService.ItemProperty.type.qualifiedName
  /// Properties a client cannot set: CreateItem with one of them fails as with gnome-keyring.
  public static let readOnly: Set<String> = [
    SecretService.ItemProperty.locked.qualifiedName,
    SecretService.ItemProperty.created.qualifiedName,
    SecretService.ItemProperty.modified.qualifiedName,
  ]
}
