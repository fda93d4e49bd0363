// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Access`, on the service object: what `keychainctl access`
// and `keychainctl audit verify` ask. Granting needs the keyring's password, sent through the
// caller's session: keychainctl is itself a program of the user, and so is anything that could
// call this method, so knowing the password is what proves the user asked.

import KeychainDBus

extension ErrorName {
  /// A Keychain client named an access group (`keychain:agrp`) its program is not in.
  public static let notInAccessGroup: ErrorName = "org.keychain_linux.Error.NotInAccessGroup"
}

extension SecretService {
  /// keychaind's `org.keychain_linux.Access`.
  public enum AccessMethods {
    /// The caller's own identity as keychaind resolves it: key, kind and display name.
    public static let identify = NoArguments.Returns<String, String, String>(
      accessInterface, "Identify", [], ["key", "kind", "display"], errors: [])
    /// The mode, grants and item owners of unlocked collections, as JSON (`AccessListing`).
    public static let list = NoArguments.Returns<String>(
      accessInterface, "List", [], ["json"], errors: [])
    /// Grants `app` (an identity key, a path or a Flatpak app id) read access to `objects`
    /// (items, or collections for all their items); the password of each collection involved
    /// must be sent. Returns how many grants were made.
    public static let allow = Takes<String, [ObjectPath], Secret>.Returns<UInt32>(
      accessInterface, "Allow", ["app", "objects", "password"], ["granted"],
      errors: [.noSession, .accessDenied, .noSuchObject, .isLocked, .ioError])
    /// Lets systemd unit `unit` (`NAME.service`) get `item`'s secret as its credential
    /// `credential` (`LoadCredential=credential:%t/keychaind/credentials`), while the item's
    /// collection is unlocked; the collection's password must be sent. Revoked as
    /// `unit:NAME.service` by Revoke.
    public static let allowCredential = Takes<String, String, ObjectPath, Secret>.Returns<UInt32>(
      accessInterface, "AllowCredential", ["unit", "credential", "item", "password"], ["granted"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .isLocked, .ioError])
    /// keychainctl exec is about to run the executable at `path` with what it reads next: the
    /// audit log names those reads as that command's, run by keychainctl. Only keychainctl may
    /// call it; what it may read is unchanged.
    public static let runsCommand = Takes<String>.ReturnsNothing(
      accessInterface, "RunsCommand", ["path"], errors: [.accessDenied, .invalidArgs])
    /// Removes `app`'s grants on `objects` (every grant of `app` in a collection named);
    /// needs no password. Returns how many were removed.
    public static let revoke = Takes<String, [ObjectPath]>.Returns<UInt32>(
      accessInterface, "Revoke", ["app", "objects"], ["revoked"],
      errors: [.noSuchObject, .isLocked, .ioError])
    /// Turns the reads of items their readers did not own that the audit log has seen
    /// (`would-ask`) into grants, with the password of the collections; with `dry_run`, only
    /// says which. Returns `APP ITEM_PATH` per grant.
    public static let learn = Takes<Secret, Bool>.Returns<[String]>(
      accessInterface, "Learn", ["password", "dry_run"], ["grants"],
      errors: [.noSession, .accessDenied, .isLocked, .ioError])
    /// Starts a learning period of `seconds` from now (in `audit` mode only): Learn and
    /// ApplyLearning then turn only the reads seen in it into grants. Returns its start and
    /// end, in Unix time.
    public static let startLearning = Takes<UInt64>.Returns<Int64, Int64>(
      accessInterface, "StartLearning", ["seconds"], ["start", "end"],
      errors: [.failed, .invalidArgs, .ioError])
    /// The learning period's start and end in Unix time, both 0 when there is none.
    public static let learning = NoArguments.Returns<Int64, Int64>(
      accessInterface, "Learning", [], ["start", "end"], errors: [])
    /// Makes the grants Learn would, except those of the applications in `except` (keys,
    /// paths or Flatpak app ids), with the password of the collections involved when there
    /// are any; ends the learning period, and turns `protect` on, kept for the next start.
    /// Returns `APP ITEM_PATH` per grant, and the file the mode was written to.
    public static let applyLearning = Takes<Secret, [String]>.Returns<[String], String>(
      accessInterface, "ApplyLearning", ["password", "except"], ["grants", "saved_in"],
      errors: [.noSession, .accessDenied, .isLocked, .failed, .ioError])
    /// Ends the learning period and grants nothing; returns whether there was one.
    public static let discardLearning = NoArguments.Returns<Bool>(
      accessInterface, "DiscardLearning", [], ["was_learning"], errors: [.ioError])
    /// Makes `app` a member of the named group `group` in `collections` (the default
    /// collection when none is named), so that it uses that group's items there and may store
    /// items in it; the password of each collection must be sent. Returns how many
    /// memberships were made.
    public static let groupAdd = Takes<String, String, [ObjectPath], Secret>.Returns<UInt32>(
      accessInterface, "GroupAdd", ["app", "group", "collections", "password"], ["added"],
      errors: [.noSession, .accessDenied, .invalidArgs, .noSuchObject, .isLocked, .ioError])
    /// Ends `app`'s membership of `group` in `collections` (every unlocked collection when
    /// none is named); needs no password. Returns how many were ended.
    public static let groupRemove = Takes<String, String, [ObjectPath]>.Returns<UInt32>(
      accessInterface, "GroupRemove", ["app", "group", "collections"], ["removed"],
      errors: [.invalidArgs, .noSuchObject, .isLocked, .ioError])
    /// The access group that owns `item` (an identity key or `group:NAME`; empty for an item
    /// from before access control), for a caller that may use the item.
    public static let groupOf = Takes<ObjectPath>.Returns<String>(
      accessInterface, "GroupOf", ["item"], ["group"], errors: [.noSuchObject, .isLocked])
    /// Checks the audit log's chain: whether it is intact, the first problem (or, when it is
    /// intact, what it cannot prove), records checked.
    public static let verifyAudit = NoArguments.Returns<Bool, String, UInt64>(
      accessInterface, "VerifyAudit", [], ["intact", "problem", "records"],
      errors: [.isLocked])
    /// Writes what keychaind holds for the audit log (the batch being made, the counts of
    /// reads repeated within the minute) to its file, and syncs it: a reader of the file then
    /// sees every access made so far. Nothing when access control is off.
    public static let flushAudit = NoArguments.ReturnsNothing(
      accessInterface, "FlushAudit", errors: [])
    /// The access-control mode in force, the one keychaind.conf asks for, and the one the
    /// keyring keeps (empty when none).
    public static let mode = NoArguments.Returns<String, String, String>(
      accessInterface, "Mode", [], ["mode", "configured", "kept"], errors: [])
    /// Puts `mode` in force and keeps it, in the keyring and in keychaind.conf; lowering it
    /// needs the password of every collection. Returns the file the mode was written to (empty
    /// when none), and whether keychaind must restart for it (from `off`).
    public static let setMode = Takes<String, Secret>.Returns<String, Bool>(
      accessInterface, "SetMode", ["mode", "password"], ["saved_in", "restart"],
      errors: [.noSession, .accessDenied, .invalidArgs, .isLocked, .ioError])
  }
}
