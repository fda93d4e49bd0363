// SPDX-License-Identifier: MIT
//
// Locking, unlocking, passwords, labels, deletion and aliases of collections.

import Foundation
import GRDB
import KeychainCrypto

extension KeychainStore {
  /// What Argon2id derives the wrapping key from: a version byte, then the password. Empty
  /// passwords are allowed (an unprotected keyring), and libgcrypt refuses empty input.
  static func kdfInput(_ password: SecureBytes) -> SecureBytes {
    SecureBytes(count: password.count + 1) { out in
      out[0] = 1
      password.withUnsafeBytes { bytes in
        if bytes.count > 0 {
          (out.baseAddress! + 1).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        }
      }
    }
  }

  /// The data key that `password` unwraps from `collection`'s key record, or
  /// `wrongPassword`; changes nothing. The record is checked with the metadata key first: a
  /// damaged record is `corrupt`, never mistaken for a wrong password.
  func unwrap(_ collection: String, _ password: SecureBytes) throws -> SecureBytes {
    let row = try lookup(persistent) { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: """
            SELECT name, kdfSalt, kdfIterations, kdfMemoryKiB, kdfParallelism, wrappedKey, keyMAC
            FROM collection WHERE name = ?
            """, arguments: [collection])
      else { throw StoreError.noSuchCollection(collection) }
      return row
    }
    guard let stored = row["keyMAC"] as Data?, stored == (try keys.collectionKeyMAC(row)) else {
      throw StoreError.corrupt(
        "the key record of collection '\(collection)' is damaged; no password can open it")
    }
    return try Self.unwrapKey(row, collection: collection, password: password)
  }

  /// The data key in a collection row's key record (its KDF columns and `wrappedKey`), or
  /// `wrongPassword`.
  static func unwrapKey(_ row: Row, collection: String, password: SecureBytes) throws
    -> SecureBytes
  {
    let wrapKey = try KeyDerivation.argon2id(
      password: kdfInput(password), salt: Array(row["kdfSalt"] as Data),
      parameters: Argon2Parameters(
        iterations: row["kdfIterations"], memoryKiB: row["kdfMemoryKiB"],
        parallelism: row["kdfParallelism"]))
    do {
      return try AESGCM.open(
        Array(row["wrappedKey"] as Data), key: wrapKey, associatedData: keyAAD(collection))
    } catch CryptoError.authenticationFailed {
      throw StoreError.wrongPassword
    }
  }

  /// Unlocks `collection` with `password`. A wrong password throws `wrongPassword` and
  /// changes nothing, on disk or in memory.
  public func unlock(_ collection: String, password: SecureBytes) throws {
    guard collection != Self.sessionCollection else { return }
    let key = try CipherKey.gcm(unwrap(collection, password))
    unlocked.withLock { $0[collection] = key }
  }

  /// Checks `password` against `collection` without unlocking it: `wrongPassword` if it is
  /// not the one (for changes that need the user's presence, such as access grants).
  public func checkPassword(_ collection: String, _ password: SecureBytes) throws {
    guard collection != Self.sessionCollection else { return }
    _ = try unwrap(collection, password)
  }

  /// Forgets the data key of `collection`: its items can no longer be read until unlocked.
  /// The in-memory `session` collection cannot be locked.
  public func lock(_ collection: String) throws {
    guard collection != Self.sessionCollection else { return }
    _ = try self.collection(collection)
    unlocked.withLock { $0[collection] = nil }
    accessCache.forget(collection)
  }

  /// Whether `collection` is locked.
  public func isLocked(_ collection: String) -> Bool {
    unlocked.withLock { $0[collection] == nil }
  }

  /// Re-wraps the data key of `collection` under `newPassword`; items are not touched.
  public func changePassword(
    _ collection: String, from oldPassword: SecureBytes, to newPassword: SecureBytes
  )
    throws
  {
    guard collection != Self.sessionCollection else {
      throw StoreError.invalid("the session collection has no password")
    }
    let key = try unwrap(collection, oldPassword)
    try rewrapPassword(of: collection, dataKey: key, newPassword: newPassword)
  }

  /// Wraps `dataKey` under a new `newPassword` (a fresh salt, today's KDF parameters) in the
  /// collection row, and keeps the collection unlocked with it.
  func rewrapPassword(of collection: String, dataKey key: SecureBytes, newPassword: SecureBytes)
    throws
  {
    let salt = Random.bytes(count: 16)
    let wrapKey = try KeyDerivation.argon2id(
      password: Self.kdfInput(newPassword), salt: salt, parameters: kdf)
    let wrapped = Data(try AESGCM.seal(key, key: wrapKey, associatedData: Self.keyAAD(collection)))
    let mac = try keys.collectionKeyMAC(
      name: collection, salt: Data(salt), parameters: kdf, wrappedKey: wrapped)
    try commit { db in
      try db.execute(
        sql: """
          UPDATE collection SET kdfSalt = ?, kdfIterations = ?, kdfMemoryKiB = ?, kdfParallelism = ?,
            wrappedKey = ?, keyMAC = ?, modified = ? WHERE name = ?
          """,
        arguments: [
          Data(salt), kdf.iterations, kdf.memoryKiB, kdf.parallelism, wrapped, mac,
          Self.seconds(now()), collection,
        ])
    }
    let cipherKey = try CipherKey.gcm(key)
    unlocked.withLock { $0[collection] = cipherKey }
  }

  /// Changes the label of `collection`; allowed while locked, as labels are not under its key.
  public func setLabel(_ label: String, ofCollection collection: String) throws {
    guard label.utf8.count <= StoreLimits.maxTextBytes else {
      throw StoreError.limitExceeded("label too long")
    }
    let sealed = try AESGCM.seal(
      Array(label.utf8), key: keys.metadata, associatedData: Self.labelAAD(collection))
    try write(collection) { db in
      _ = try collectionID(collection, db)
      try db.execute(
        sql: "UPDATE collection SET sealedLabel = ?, modified = ? WHERE name = ?",
        arguments: [Data(sealed), Self.seconds(now()), collection])
    }
  }

  /// Deletes `collection` with all its items and the aliases naming it.
  public func deleteCollection(_ collection: String) throws {
    guard collection != Self.sessionCollection else {
      throw StoreError.invalid("the session collection cannot be deleted")
    }
    try commitFreeingSpace { db in
      let id = try collectionID(collection, db)
      try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [id])
    }
    unlocked.withLock { $0[collection] = nil }
    knownItems.forgetCollection(collection)
    metadata.forgetCollection(collection)
  }

  // MARK: Aliases

  /// The collection an alias names, or nil. `session` always names the in-memory collection
  /// and `login` the login collection when there is one, as with gnome-keyring (libsecret's
  /// `secret-tool lock --collection=login` resolves the alias).
  public func alias(_ name: String) throws -> String? {
    guard name != Self.sessionCollection else { return Self.sessionCollection }
    if name == Self.loginCollection {
      return try hasCollection(Self.loginCollection) ? Self.loginCollection : nil
    }
    return try lookup(persistent) { db in
      try RawRead(db.cachedStatement(sql: StoreStatements.alias), [.text(name)]).first {
        $0.text(0)
      }
    }
  }

  /// Points `name` at `collection`, or removes the alias when `collection` is nil.
  public func setAlias(_ name: String, to collection: String?) throws {
    guard !name.isEmpty, name != Self.sessionCollection, name != Self.loginCollection else {
      throw StoreError.invalid("the alias '\(name)' cannot be set")
    }
    guard collection != Self.sessionCollection else {
      throw StoreError.invalid("an alias cannot name the in-memory session collection")
    }
    try commit { db in
      try db.execute(sql: "DELETE FROM alias WHERE name = ?", arguments: [name])
      if let collection {
        let id = try collectionID(collection, db)
        try db.execute(
          sql: "INSERT INTO alias (name, collectionID) VALUES (?, ?)", arguments: [name, id])
      }
    }
  }
}
