// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Access`, on the service object: what `keychainctl access`
// and `keychainctl audit verify` ask. Granting needs the keyring's password, sent through the
// caller's session: keychainctl is itself a program of the user, and so is anything that could
// call this method, so knowing the password is what proves the user asked.

import KeychainDBus

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
    /// Checks the audit log's chain: whether it is intact, the first problem, records checked.
    public static let verifyAudit = NoArguments.Returns<Bool, String, UInt64>(
      accessInterface, "VerifyAudit", [], ["intact", "problem", "records"],
      errors: [.isLocked])
  }
}
