// SPDX-License-Identifier: MIT
//
// What the daemon and every client share: the bus name, interface names and error names of the
// freedesktop Secret Service 0.2, and gnome-keyring's extension that clients rely on.

import KeychainDBus

/// Names of the Secret Service API.
public enum SecretService {
  /// The well-known bus name of a provider.
  public static let busName: BusName = "org.freedesktop.secrets"

  /// `org.freedesktop.Secret.Service`
  public static let serviceInterface: InterfaceName = "org.freedesktop.Secret.Service"
  /// `org.freedesktop.Secret.Collection`
  public static let collectionInterface: InterfaceName = "org.freedesktop.Secret.Collection"
  /// `org.freedesktop.Secret.Item`
  public static let itemInterface: InterfaceName = "org.freedesktop.Secret.Item"
  /// `org.freedesktop.Secret.Session`
  public static let sessionInterface: InterfaceName = "org.freedesktop.Secret.Session"
  /// `org.freedesktop.Secret.Prompt`
  public static let promptInterface: InterfaceName = "org.freedesktop.Secret.Prompt"
  /// gnome-keyring's extension for prompt-free collection creation and unlocking, used by
  /// Seahorse and by headless scripts.
  public static let gnomeInternalInterface: InterfaceName =
    "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
  /// keychaind's own: importing gnome-keyring's keyrings on request (`keychainctl import`).
  public static let importInterface: InterfaceName = "org.keychain_linux.Import"
  /// keychaind's own: each collection's lock policy, and how login was last unlocked.
  public static let lockingInterface: InterfaceName = "org.keychain_linux.Locking"
  /// keychaind's own: per-application access grants and the audit log (`keychainctl access`,
  /// `keychainctl audit`).
  public static let accessInterface: InterfaceName = "org.keychain_linux.Access"
  /// keychaind's own: the key slots of collections (`keychainctl slot`).
  public static let slotsInterface: InterfaceName = "org.keychain_linux.Slots"
  /// keychaind's own: scoped shares, private buses that show a few items (`keychainctl share`).
  public static let sharesInterface: InterfaceName = "org.keychain_linux.Shares"
}

extension ErrorName {
  /// The object must be unlocked first.
  public static let isLocked: ErrorName = "org.freedesktop.Secret.Error.IsLocked"
  /// The session does not exist (or belongs to another connection).
  public static let noSession: ErrorName = "org.freedesktop.Secret.Error.NoSession"
  /// No such item or collection.
  public static let noSuchObject: ErrorName = "org.freedesktop.Secret.Error.NoSuchObject"
  /// A wrong password given to gnome-keyring's master-password methods; keychaind answers
  /// those methods with the same name, so scripts written for one work with the other.
  public static let gnomeDenied: ErrorName = "org.gnome.keyring.Error.Denied"

  /// Whether the error says a password given was not correct (gnome-keyring's name, or the
  /// generic AccessDenied another provider might use).
  public var meansWrongPassword: Bool { self == .gnomeDenied || self == .accessDenied }

  /// Whether the error says the object is not there. Providers differ: gnome-keyring answers a
  /// missing alias or item with UnknownMethod ("Object does not exist at path"), others with
  /// UnknownObject or NoSuchObject; libsecret and SecretStorage treat all three alike.
  public var meansNoSuchObject: Bool {
    self == .noSuchObject || self == .unknownObject || self == .unknownMethod
  }
}
