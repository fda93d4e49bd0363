// SPDX-License-Identifier: MIT

import KeychainCore

/// Why a store operation failed. Messages never contain a secret, label or attribute value.
public enum StoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The collection is locked; unlock it first.
  case locked(collection: String)
  /// The password does not unlock the collection. Nothing was changed.
  case wrongPassword
  /// No recovery key slot of the collection opens with the key given. Nothing was changed.
  case wrongRecoveryKey
  case noSuchCollection(String)
  case noSuchItem
  /// A collection with this name exists already.
  case collectionExists(String)
  /// The database was written by a newer version of keychaind; it is left untouched.
  case newerSchema(path: String)
  /// The store's files are readable by others; refusing to use them.
  case unsafePermissions(path: String, mode: UInt32)
  /// A documented limit (secret size, attribute count or length) was exceeded.
  case limitExceeded(String)
  /// A file or record could not be read: the store is damaged or not ours.
  case corrupt(String)
  /// A file of an existing store cannot be opened without losing or replacing data. Nothing
  /// was changed; `remedy` says what the user can do.
  case damaged(path: String, problem: String, remedy: String)
  /// The file system is full: the change was not made.
  case noSpace
  /// The request makes no sense (an empty name, a reserved alias…).
  case invalid(String)
  /// The caller may not do this to the item (per-application access: it is another's).
  case notAllowed(String)

  public var description: String {
    switch self {
    case .locked(let name): "collection '\(name)' is locked"
    case .wrongPassword: "the password is not correct"
    case .wrongRecoveryKey: "the recovery key is not one of this collection's"
    case .noSuchCollection(let name): "no collection '\(name)'"
    case .noSuchItem: "no such item"
    case .collectionExists(let name): "a collection '\(name)' exists already"
    case .newerSchema(let path):
      "\(path) was written by a newer version of keychaind; it was not modified"
    case .unsafePermissions(let path, let mode):
      "\(path) has mode \(String(mode, radix: 8)); it must not be accessible to other users"
    case .limitExceeded(let what): "limit exceeded: \(what)"
    case .corrupt(let what): "damaged store: \(what)"
    case .damaged(let path, let problem, let remedy):
      "\(path): \(problem). keychaind changed nothing. \(remedy)"
    case .noSpace: "no space left for the keyring: free some disk space and try again"
    case .invalid(let what): what
    case .notAllowed(let why): why
    }
  }

  /// The Keychain status code this failure reports through `SecItem…` calls.
  public var status: KeychainStatus {
    switch self {
    case .locked: .interactionNotAllowed
    case .wrongPassword, .wrongRecoveryKey: .authFailed
    case .noSuchCollection: .noSuchKeychain
    case .noSuchItem: .itemNotFound
    case .collectionExists: .duplicateItem
    case .limitExceeded, .invalid: KeychainStatus.param(description)
    case .newerSchema, .unsafePermissions, .corrupt, .damaged: .notAvailable
    case .noSpace: .diskFull
    case .notAllowed: .missingEntitlement
    }
  }
}

/// Limits the store enforces, so that no request can grow it without bound.
public enum StoreLimits {
  /// The largest secret: 16 MiB.
  public static let maxSecretBytes = 16 << 20
  /// The most attributes one item may have.
  public static let maxAttributes = 256
  /// The longest attribute name or value, and the longest label, in UTF-8 bytes.
  public static let maxTextBytes = 64 << 10
}
