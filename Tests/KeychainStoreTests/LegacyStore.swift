// SPDX-License-Identifier: MIT
//
// Stores as older versions wrote them, for MigrationTests: a store directory whose database is
// at schema v1, v2, v3 or v4 (GRDB's `migrate(_:upTo:)`), holding rows written the way the code
// that shipped with that migration wrote them. From `git log -p -- Sources/KeychainStore`:
//
// - v1 (a5a9bdc): no meta table; collections without keyMAC, items without indexMAC.
// - v2 (8b8f34c): the migration writes meta's index-key-check; each collection row is written
//   with its keyMAC, and each item's index rows with the item's indexMAC.
// - v3 (73ccb7e): a merge records its source in import_source; an imported item keeps its
//   number and dates.
// - v4 (28a1c01): lock_policy rows, one per keychaind.conf setting a collection overrides.
//
// Unchanged from v1 to now, and spelt out here as it was then rather than taken from the store's
// helpers, so that a change to any of them fails the migration tests instead of changing both
// sides at once: AES-256-GCM sealed as nonce ‖ ciphertext ‖ tag; the associated data
// "item:<collection>:<id>", "collection label:<name>" and "collection key:<name>"; the item
// record (version byte 1, big-endian lengths); Argon2id over a version byte 1 and the password;
// the metadata key (HKDF-SHA256 of index.key, "keychain-linux collection labels"); the attribute
// digest (HMAC-SHA256 of name NUL value, 16 bytes); and since v2 the check values (HMAC-SHA256
// over length-prefixed parts, 16 bytes). KeychainCrypto's primitives are used as they are: their
// output did not change either. The migrations' SQL is the store's own, also unchanged.

import Foundation
import GRDB
import KeychainCrypto
import KeychainTesting
import Testing

@testable import KeychainStore

/// A schema version a store can be written at: the last migration it has.
enum SchemaVersion: Int, CaseIterable, Comparable, Sendable, CustomTestStringConvertible {
  case v1 = 1
  case v2, v3, v4

  /// Every migration, in order. The store must keep these names: GRDB takes a database with a
  /// migration it does not know for one from a newer version, and keychaind refuses it.
  static let migrations = [
    "v1-collections-items-index", "v2-check-values", "v3-import-sources", "v4-lock-policies",
    "v5-commit-count", "v6-access", "v7-key-slots",
  ]

  var migration: String { Self.migrations[rawValue - 1] }
  /// The migration after this version's.
  var next: String { Self.migrations[rawValue] }
  var testDescription: String { "v\(rawValue)" }

  static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A collection as a test writes it and expects it back.
struct LegacyCollection {
  var name: String
  var label: String
  var password: String
  var created: Int64
  var modified: Int64
}

/// An item as a test writes it and expects it back.
struct LegacyItem {
  var collection: String
  var label: String
  var attributes: [String: String]
  var secret: [UInt8]
  var contentType = "text/plain"
  var created: Int64
  var modified: Int64
  /// The number an import kept (from v3); nil for one SQLite numbers.
  var id: Int64?
}

/// A store directory (0700; index.key and keychain.db 0600) written as `version` wrote it.
final class LegacyStore {
  static let collections = [
    LegacyCollection(
      name: "login", label: "Login", password: "login password", created: 1_700_000_000,
      modified: 1_700_000_900),
    LegacyCollection(
      name: "collection2", label: "Travail ✓ 仕事", password: "work password",
      created: 1_700_001_000, modified: 1_700_001_900),
  ]

  /// The items written at `version`, in the order they are written.
  static func items(at version: SchemaVersion) -> [LegacyItem] {
    var items = [
      LegacyItem(
        collection: "login", label: "Café ☕ – 日本語 🔑",
        attributes: [
          "service": "imap.example.com", "user": "zoë", "port": "993",
          "xdg:schema": "org.gnome.keyring.NetworkPassword",
        ], secret: Array("hunter2 ü".utf8), created: 1_700_000_100, modified: 1_700_000_150),
      LegacyItem(
        collection: "login", label: "binary",
        attributes: ["service": "imap.example.com", "kind": "binary"],
        secret: [0x00, 0xFF, 0x00, 0x41, 0xFE, 0xFF, 0x0A, 0x00],
        contentType: "application/octet-stream", created: 1_700_000_200, modified: 1_700_000_200),
      // No attributes (an index MAC over no digests), an empty label and an empty secret.
      LegacyItem(
        collection: "login", label: "", attributes: [:], secret: [], created: 1_700_000_300,
        modified: 1_700_000_400),
      LegacyItem(
        collection: "collection2", label: "VPN",
        attributes: ["service": "vpn.example.org", "user": "alice"],
        secret: Array("vpn secret".utf8), created: 1_700_001_100, modified: 1_700_001_100),
    ]
    if version >= .v3 {
      items.append(
        LegacyItem(
          collection: "login", label: "Imported from gnome-keyring",
          attributes: ["xdg:schema": "org.freedesktop.Secret.Generic", "origin": "login.keyring"],
          secret: Array("imported".utf8), created: 1_600_000_000, modified: 1_650_000_000, id: 40))
    }
    return items
  }

  /// The import record written from v3: an inode beyond Int64's range, as a file system may
  /// give, is stored by its bit pattern.
  static let importSource = ImportSource(
    path: "/home/user/.local/share/keyrings/login.keyring", collection: "login", device: 0xFD01,
    inode: UInt64.max - 7, size: 2_048, modifiedNanoseconds: 1_650_000_000_123_456_789,
    sha256: Array(0..<32), importedAt: Date(timeIntervalSince1970: 1_700_000_500),
    result: "1 item: 1 added")

  /// The lock policy written from v4, for collection2.
  static let lockPolicy = LockPolicy(onScreenLock: false, afterUnusedMinutes: 5)

  let temporary: TemporaryDirectory
  let version: SchemaVersion
  let indexKey: SecureBytes
  /// Every item written, by the number it got.
  private(set) var written: [Int64: LegacyItem] = [:]

  var directory: String { temporary.path + "/store" }
  var databasePath: String { directory + "/" + StoreFiles.databaseName }

  init(_ version: SchemaVersion) throws {
    _ = try Gcrypt.initialize()
    self.version = version
    temporary = try TemporaryDirectory(prefix: "legacy-store")
    guard mkdir(temporary.path + "/store", 0o700) == 0 else {
      throw TestingError("mkdir: errno \(errno)")
    }
    // As every version made it, so the store's own function: 32 random bytes, 0600, written
    // under a temporary name and renamed (StoreFiles.indexKey at a5a9bdc, createIndexKey since).
    indexKey = try StoreFiles.createIndexKey(in: temporary.path + "/store")
    let queue = try DatabaseQueue(path: temporary.path + "/store/" + StoreFiles.databaseName)
    // At v2 and later the v2 migration writes meta's index-key-check with today's StoreKeys,
    // whose MACs are those of 8b8f34c (since then only the HMAC key is kept open).
    try Schema.migrator(StoreKeys(index: indexKey)).migrate(queue, upTo: version.migration)
    // WAL, as v1's DatabasePool and later versions' createStore left the file.
    try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
    try queue.write { try fill($0) }
    try queue.close()
    chmod(databasePath, 0o600)
  }

  private func fill(_ db: Database) throws {
    var collections: [String: (id: Int64, key: SecureBytes)] = [:]
    for collection in Self.collections {
      collections[collection.name] = try insert(collection, db)
    }
    for item in Self.items(at: version) {
      let (collectionID, key) = collections[item.collection]!
      written[try insert(item, collectionID: collectionID, key: key, db)] = item
    }
    for (alias, collection) in ["default": "login", "work": "collection2"] {
      try db.execute(
        sql: "INSERT INTO alias (name, collectionID) VALUES (?, ?)",
        arguments: [alias, collections[collection]!.id])
    }
    if version >= .v3 {
      let source = Self.importSource
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO import_source
            (path, collection, device, inode, size, modifiedNS, sha256, importedAt, result)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          source.path, source.collection, Int64(bitPattern: source.device),
          Int64(bitPattern: source.inode), source.size, source.modifiedNanoseconds,
          Data(source.sha256), Int64(source.importedAt.timeIntervalSince1970), source.result,
        ])
    }
    if version >= .v4 {
      for (setting, value) in [("lock-on-screen-lock", 0), ("lock-after-unused", 5)] {
        try db.execute(
          sql: "INSERT INTO lock_policy (collectionID, setting, value) VALUES (?, ?, ?)",
          arguments: [collections["collection2"]!.id, setting, value])
      }
    }
  }

  /// A collection row and its new data key, wrapped under Argon2id of its password.
  private func insert(_ collection: LegacyCollection, _ db: Database) throws
    -> (id: Int64, key: SecureBytes)
  {
    let dataKey = SecureBytes.random(count: 32)
    let salt = Random.bytes(count: 16)
    let kdf = Argon2Parameters.testing
    let wrapKey = try KeyDerivation.argon2id(
      password: SecureBytes(copying: [1] + Array(collection.password.utf8)), salt: salt,
      parameters: kdf)
    let wrapped = try AESGCM.seal(
      dataKey, key: wrapKey, associatedData: Array("collection key:\(collection.name)".utf8))
    let label = try AESGCM.seal(
      Array(collection.label.utf8), key: try Self.metadataKey(indexKey),
      associatedData: Array("collection label:\(collection.name)".utf8))
    var columns = [
      "name", "sealedLabel", "created", "modified", "kdfSalt", "kdfIterations", "kdfMemoryKiB",
      "kdfParallelism", "wrappedKey",
    ]
    var values: [(any DatabaseValueConvertible)?] = [
      collection.name, Data(label), collection.created, collection.modified, Data(salt),
      kdf.iterations, kdf.memoryKiB, kdf.parallelism, Data(wrapped),
    ]
    if version >= .v2 {
      columns.append("keyMAC")
      let numbers = [kdf.iterations, kdf.memoryKiB, kdf.parallelism].map { Array("\($0)".utf8) }
      values.append(
        try Self.mac(
          Self.metadataKey(indexKey),
          [Array("collection key record".utf8), Array(collection.name.utf8), salt] + numbers
            + [wrapped]))
    }
    try db.execute(
      sql: "INSERT INTO collection (\(columns.joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")",
      arguments: StatementArguments(values))
    return (db.lastInsertedRowID, dataKey)
  }

  /// An item row, sealed once SQLite has numbered it (the number is in the associated data),
  /// and its index rows.
  private func insert(_ item: LegacyItem, collectionID: Int64, key: SecureBytes, _ db: Database)
    throws -> Int64
  {
    try db.execute(
      sql:
        "INSERT INTO item (id, collectionID, created, modified, sealed) VALUES (?, ?, ?, ?, x'')",
      arguments: [item.id, collectionID, item.created, item.modified])
    let id = db.lastInsertedRowID
    let sealed = try AESGCM.seal(
      Self.record(item), key: key, associatedData: Array("item:\(item.collection):\(id)".utf8))
    try db.execute(sql: "UPDATE item SET sealed = ? WHERE id = ?", arguments: [Data(sealed), id])
    let digests = try Set(item.attributes.map { try Self.digest(indexKey, $0.key, $0.value) })
    for digest in digests {
      try db.execute(
        sql: "INSERT INTO item_digest (digest, itemID) VALUES (?, ?)", arguments: [digest, id])
    }
    if version >= .v2 {
      try db.execute(
        sql: "UPDATE item SET indexMAC = ? WHERE id = ?",
        arguments: [try Self.indexMAC(indexKey, item: id, digests: digests), id])
    }
    return id
  }

  // MARK: The formats, as v1 (and, for the check values, v2) had them

  /// The item record: version 1, the attribute count, then label, content type, each name and
  /// value (by name) and the secret, each behind its big-endian 32-bit length.
  static func record(_ item: LegacyItem) -> [UInt8] {
    func length(_ count: Int) -> [UInt8] {
      withUnsafeBytes(of: UInt32(count).bigEndian, Array.init)
    }
    let texts =
      [item.label, item.contentType]
      + item.attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    return [1] + length(item.attributes.count)
      + texts.flatMap { length($0.utf8.count) + Array($0.utf8) } + length(item.secret.count)
      + item.secret
  }

  static func metadataKey(_ indexKey: SecureBytes) throws -> SecureBytes {
    try HKDF.deriveKey(
      inputKey: indexKey, info: Array("keychain-linux collection labels".utf8), length: 32)
  }

  /// The first 16 bytes of HMAC-SHA256 under `key`.
  private static func truncatedMAC(_ key: SecureBytes, _ message: [UInt8]) throws -> Data {
    Data(try HMACSHA256.authenticationCode(key: key, message: message).copyBytes().prefix(16))
  }

  /// An attribute pair's index digest.
  static func digest(_ indexKey: SecureBytes, _ name: String, _ value: String) throws -> Data {
    try truncatedMAC(indexKey, Array(name.utf8) + [0] + Array(value.utf8))
  }

  /// A check value (v2): the parts each behind its big-endian 32-bit length.
  static func mac(_ key: SecureBytes, _ parts: [[UInt8]]) throws -> Data {
    try truncatedMAC(
      key, parts.flatMap { withUnsafeBytes(of: UInt32($0.count).bigEndian, Array.init) + $0 })
  }

  static func keyCheck(_ indexKey: SecureBytes) throws -> Data {
    try mac(indexKey, [Array("keychain-linux index key check".utf8)])
  }

  static func indexMAC(_ indexKey: SecureBytes, item: Int64, digests: Set<Data>) throws -> Data {
    let sorted = digests.sorted { $0.lexicographicallyPrecedes($1) }.map { Array($0) }
    return try mac(indexKey, [Array("item index".utf8), Array(String(item).utf8)] + sorted)
  }
}
