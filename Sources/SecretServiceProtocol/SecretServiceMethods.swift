// SPDX-License-Identifier: MIT
//
// The Secret Service's methods, declared once with their Swift types and the errors they answer
// (see `Takes`): the daemon dispatches to typed handlers and describes itself from these, and
// logs any error a handler answers that is not listed here; clients call through them. Every
// method may also answer `ErrorName.everyMethod` (InvalidArgs, UnknownMethod, Failed).
// Argument names are the specification's as gnome-keyring introspects them (dbus/
// org.freedesktop.Secret.xml is checked against the daemon's introspection).

import KeychainDBus

extension SecretService {
  /// `org.freedesktop.Secret.Service`, with gnome-keyring's LockService and ChangeLock.
  public enum ServiceMethods {
    public static let openSession = Takes<String, DBusValue>.Returns<DBusValue, ObjectPath>(
      serviceInterface, "OpenSession", ["algorithm", "input"], ["output", "result"],
      errors: [.notSupported, .limitsExceeded])
    public static let createCollection = Takes<[String: DBusValue], String>
      .Returns<ObjectPath, ObjectPath>(
        serviceInterface, "CreateCollection", ["properties", "alias"], ["collection", "prompt"],
        errors: [.limitsExceeded])
    public static let searchItems = Takes<[String: String]>.Returns<[ObjectPath], [ObjectPath]>(
      serviceInterface, "SearchItems", ["attributes"], ["unlocked", "locked"],
      errors: [.notInAccessGroup])
    public static let unlock = Takes<[ObjectPath]>.Returns<[ObjectPath], ObjectPath>(
      serviceInterface, "Unlock", ["objects"], ["unlocked", "prompt"],
      errors: [.limitsExceeded, .accessDenied])
    public static let lock = Takes<[ObjectPath]>.Returns<[ObjectPath], ObjectPath>(
      serviceInterface, "Lock", ["objects"], ["locked", "Prompt"], errors: [])
    public static let getSecrets = Takes<[ObjectPath], ObjectPath>.Returns<[ObjectPath: Secret]>(
      serviceInterface, "GetSecrets", ["items", "session"], ["secrets"],
      errors: [.noSession, .accessDenied])
    public static let readAlias = Takes<String>.Returns<ObjectPath>(
      serviceInterface, "ReadAlias", ["name"], ["collection"], errors: [])
    public static let setAlias = Takes<String, ObjectPath>.ReturnsNothing(
      serviceInterface, "SetAlias", ["name", "collection"],
      errors: [.noSuchObject, .accessDenied, .ioError])
    /// gnome-keyring's: desktops' "lock keyring" buttons call it.
    public static let lockService = NoArguments.ReturnsNothing(
      serviceInterface, "LockService", errors: [])
    /// gnome-keyring's: change a collection's password through a prompt.
    public static let changeLock = Takes<ObjectPath>.Returns<ObjectPath>(
      serviceInterface, "ChangeLock", ["collection"], ["prompt"],
      errors: [.noSuchObject, .notSupported, .limitsExceeded])
  }

  /// `org.freedesktop.Secret.Collection`.
  public enum CollectionMethods {
    public static let delete = NoArguments.Returns<ObjectPath>(
      collectionInterface, "Delete", [], ["prompt"],
      errors: [.noSuchObject, .accessDenied, .ioError])
    public static let searchItems = Takes<[String: String]>.Returns<[ObjectPath]>(
      collectionInterface, "SearchItems", ["attributes"], ["results"],
      errors: [.noSuchObject, .notInAccessGroup])
    public static let createItem = Takes<[String: DBusValue], Secret, Bool>
      .Returns<ObjectPath, ObjectPath>(
        collectionInterface, "CreateItem", ["properties", "secret", "replace"],
        ["item", "prompt"],
        errors: [
          .noSession, .accessDenied, .isLocked, .noSuchObject, .ioError, .limitsExceeded,
          .notInAccessGroup,
        ])
  }

  /// `org.freedesktop.Secret.Item`.
  public enum ItemMethods {
    public static let delete = NoArguments.Returns<ObjectPath>(
      itemInterface, "Delete", [], ["Prompt"], errors: [.isLocked, .noSuchObject, .ioError])
    public static let getSecret = Takes<ObjectPath>.Returns<Secret>(
      itemInterface, "GetSecret", ["session"], ["secret"],
      errors: [.noSession, .accessDenied, .isLocked, .noSuchObject])
    public static let setSecret = Takes<Secret>.ReturnsNothing(
      itemInterface, "SetSecret", ["secret"],
      errors: [.noSession, .accessDenied, .isLocked, .noSuchObject, .ioError, .limitsExceeded])
  }
}

extension SecretService {
  /// `org.freedesktop.Secret.Session`.
  public enum SessionMethods {
    public static let close = NoArguments.ReturnsNothing(
      sessionInterface, "Close", errors: [.noSession, .accessDenied])
  }

  /// `org.freedesktop.Secret.Prompt`.
  public enum PromptMethods {
    public static let prompt = Takes<String>.ReturnsNothing(
      promptInterface, "Prompt", ["window-id"], errors: [.accessDenied, .alreadyExists])
    public static let dismiss = NoArguments.ReturnsNothing(
      promptInterface, "Dismiss", errors: [.accessDenied])
  }

  /// gnome-keyring's extension: collections made, opened and re-keyed with a password the
  /// caller sends through its session, and Seahorse's "change password".
  public enum GnomeKeyringMethods {
    public static let changeWithMasterPassword = Takes<ObjectPath, Secret, Secret>
      .ReturnsNothing(
        gnomeInternalInterface, "ChangeWithMasterPassword", ["collection", "original", "master"],
        errors: [.noSession, .accessDenied, .noSuchObject, .gnomeDenied, .notSupported, .ioError])
    public static let changeWithPrompt = Takes<ObjectPath>.Returns<ObjectPath>(
      gnomeInternalInterface, "ChangeWithPrompt", ["collection"], ["prompt"],
      errors: [.noSuchObject, .notSupported, .limitsExceeded])
    public static let createWithMasterPassword = Takes<[String: DBusValue], Secret>
      .Returns<ObjectPath>(
        gnomeInternalInterface, "CreateWithMasterPassword", ["attributes", "password"],
        ["collection"], errors: [.noSession, .accessDenied, .ioError, .limitsExceeded])
    public static let unlockWithMasterPassword = Takes<ObjectPath, Secret>.ReturnsNothing(
      gnomeInternalInterface, "UnlockWithMasterPassword", ["collection", "master"],
      errors: [.noSession, .accessDenied, .noSuchObject, .gnomeDenied, .ioError])
  }

  /// keychaind's `org.keychain_linux.Import`.
  public enum ImportMethods {
    public static let importGnomeKeyring = Takes<String, [Secret], Bool>
      .Returns<[ImportFileReport]>(
        importInterface, "ImportGnomeKeyring", ["directory", "passwords", "dry_run"], ["files"],
        errors: [.noSession, .accessDenied, .ioError])
    /// oo7's v1 keyrings (`*.keyring` of `directory`, or of oo7's `keyrings/v1` when empty).
    public static let importOO7 = Takes<String, [Secret], Bool>
      .Returns<[ImportFileReport]>(
        importInterface, "ImportOO7", ["directory", "passwords", "dry_run"], ["files"],
        errors: [.noSession, .accessDenied, .ioError])
    /// KDE's wallets (`*.kwl` of `directory`, or of KWallet's own when empty).
    public static let importKWallet = Takes<String, [Secret], Bool>
      .Returns<[ImportFileReport]>(
        importInterface, "ImportKWallet", ["directory", "passwords", "dry_run"], ["files"],
        errors: [.noSession, .accessDenied, .ioError])
    public static let importBackup = Takes<String, Secret, Bool>.Returns<[ImportFileReport]>(
      importInterface, "ImportBackup", ["file", "passphrase", "dry_run"], ["collections"],
      errors: [.noSession, .accessDenied, .ioError])
  }

  /// keychaind's `org.keychain_linux.Locking`.
  public enum LockingMethods {
    public static let getLockPolicy = Takes<ObjectPath>
      .Returns<[String: DBusValue], [String: DBusValue]>(
        lockingInterface, "GetLockPolicy", ["collection"], ["own", "effective"],
        errors: [.noSuchObject])
    public static let setLockPolicy = Takes<ObjectPath, [String: DBusValue], [String]>
      .Returns<[String: DBusValue]>(
        lockingInterface, "SetLockPolicy", ["collection", "set", "reset"], ["own"],
        errors: [.noSuchObject, .ioError])
    public static let lastLoginUnlock = NoArguments.Returns<String, Int64, String>(
      lockingInterface, "LastLoginUnlock", [], ["route", "time", "boot_id"], errors: [])
  }

  /// The Secret portal's backend, `org.freedesktop.impl.portal.Secret`, which
  /// xdg-desktop-portal calls.
  public enum PortalMethods {
    public static let interface: InterfaceName = "org.freedesktop.impl.portal.Secret"
    public static let retrieveSecret = Takes<
      ObjectPath, String, PassedDescriptor, [String: DBusValue]
    >.Returns<UInt32, [String: DBusValue]>(
      interface, "RetrieveSecret", ["handle", "app_id", "fd", "options"], ["response", "results"],
      errors: [.accessDenied])
  }
}
