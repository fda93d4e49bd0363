// SPDX-License-Identifier: MIT

import Foundation
import GRDB
import KeychainCrypto
import Synchronization

/// A collection as callers see it.
public struct CollectionInfo: Hashable, Sendable {
  /// The object path element, such as `login`; stable for the collection's life.
  public var name: String
  public var label: String
  public var created: Date
  public var modified: Date
  public var isLocked: Bool
  /// True for the `session` collection, which is never written to disk.
  public var isInMemory: Bool
}

/// The encrypted keychain store: collections and items in SQLite (through GRDB), sealed with
/// AES-256-GCM, found through a keyed attribute index.
///
/// Key hierarchy: each collection has a random data key, wrapped by Argon2id(password); items
/// are sealed under the data key with associated data naming the item and its collection. The
/// index key (a file beside the database) keys the attribute digests and seals collection
/// labels, so searching and listing work while collections are locked. Every write is one
/// durable transaction, synced before the method returns; writes from concurrent threads share
/// their transaction and its sync (`GroupCommit`).
///
/// An existing store is opened only if that loses and replaces nothing: a damaged, cut-short or
/// foreign file, or an index key that is not the database's, is refused with
/// `StoreError.damaged` before any byte is written (`StoreInspection`). Only an empty directory
/// gets a new store.
///
/// Methods block (SQLite, Argon2id, fdatasync): call them off any event loop.
public final class KeychainStore: Sendable {
  /// The name of the in-memory collection, and of the alias that names it.
  public static let sessionCollection = "session"
  /// The name of the collection created on first use, and of the alias that names it.
  public static let loginCollection = "login"

  let directory: String
  /// The file's one writing connection; reads go to `lookupReader`, so a write waiting for its
  /// sync holds up no read.
  let persistent: DatabaseQueue
  /// Every write to the file goes through it: one sync per batch of concurrent writes.
  let writer: GroupCommit
  /// Holds writes while the file's pages are checked, and refuses them if damaged.
  let writeGate = WriteGate()
  /// One read-only connection to the same file: it checks the store before anything writes,
  /// and then serves single lookups (see `lookup`).
  let lookupReader: DatabaseQueue
  let memory: DatabaseQueue
  let keys: StoreKeys
  let kdf: Argon2Parameters
  let now: @Sendable () -> Date
  /// Data keys of unlocked collections, by collection name.
  let unlocked = Mutex<[String: CipherKey]>([:])
  /// False until an item is put in the in-memory session collection, so that searches skip
  /// that database while it is empty, as it usually is (set once, never cleared: a hint).
  let sessionHasItems = Mutex(false)
  let checkpoints: CheckpointSchedule
  /// The count of acknowledged transactions, kept beside the database (see `CommitLedger`).
  let ledger: CommitLedger
  /// Items' metadata seen while unlocked (see `ItemMetadataCache`).
  let metadata = ItemMetadataCache()
  /// Items seen to exist, so that resolving an item path needs no query (see `KnownItems`).
  let knownItems = KnownItems()
  /// Recent searches' answers, until the next write (see `SearchCache`).
  let searches = SearchCache()
  /// Unlocked collections' item owners and grants (see `KeychainStore+Access`).
  let accessCache = AccessCache()

  /// Opens the store in `directory`, or creates one there if the directory holds none.
  /// - Parameters:
  ///   - kdf: Argon2id cost for new passwords; existing collections keep their stored cost.
  ///   - now: the clock for item and collection timestamps.
  /// - Throws: `StoreError.damaged` (nothing was changed), `.newerSchema`,
  ///   `.unsafePermissions`, or a failure to read the directory.
  public init(
    directory: String, kdf: Argon2Parameters = .recommended,
    now: @escaping @Sendable () -> Date = Date.init
  ) throws {
    try Gcrypt.initialize()
    try StoreFiles.prepare(directory)
    let path = directory + "/" + StoreFiles.databaseName
    for suffix in ["", "-wal", "-shm"] { try StoreFiles.checkPrivate(path + suffix) }
    try StoreFiles.checkPrivate(directory + "/" + CommitLedger.fileName)
    try StoreFiles.checkWritable(directory, directory: true)
    for file in [path, path + "-wal", path + "-shm", directory + "/" + CommitLedger.fileName] {
      try StoreFiles.checkWritable(file)
    }
    self.directory = directory
    self.kdf = kdf
    self.now = now
    let oldMask = umask(0o077)
    defer { umask(oldMask) }

    let found = try StoreInspection(directory)
    if found.isEmpty {
      keys = try StoreFiles.createStore(in: directory, migrator: Schema.migrator)
    } else {
      try found.checkFiles()
      keys = try StoreKeys(index: StoreFiles.readIndexKey(in: directory))
    }
    let migrator = Schema.migrator(keys)
    lookupReader = try StoreFiles.openChecked(path, keys: keys, migrator: migrator)

    persistent = try StoreFiles.openWriter(path)
    if try !lookupReader.read({ try migrator.hasCompletedMigrations($0) }) {
      try migrator.migrate(persistent)
    }
    ledger = try CommitLedger(
      directory: directory, count: try persistent.read { try Schema.commitCount($0) })
    writer = GroupCommit(persistent, ledger: ledger)
    checkpoints = CheckpointSchedule(persistent, directory: directory, ledger: ledger)
    StoreFiles.restrictDatabaseFiles(in: directory)
    StoreFiles.ensureReserve(in: directory)

    memory = try DatabaseQueue(configuration: StoreFiles.configuration(journal: false))
    try Schema.copy(from: lookupReader, to: memory)
    try createSessionCollection()
  }

  /// Copies every change into keychain.db and empties the write-ahead log, so that the
  /// database file alone is the whole store (a backup of it is complete), then closes it. Call
  /// it once, when done; the store cannot be used afterwards.
  public func close() throws {
    defer {
      checkpoints.cancel()
      ledger.close()
    }
    // A file found damaged is left as it was found.
    if !writeGate.refuses { try checkpoints.now() }
    try lookupReader.close()
    try persistent.close()
  }

  /// Copies every acknowledged change into keychain.db now and empties the write-ahead log,
  /// as happens by itself a moment after each burst of writes; the database file alone then
  /// holds the whole store.
  public func checkpoint() throws {
    if !writeGate.refuses { try checkpoints.now() }
  }

  // MARK: Backends

  /// The database holding `collection`.
  func database(for collection: String) -> any DatabaseWriter {
    collection == Self.sessionCollection ? memory : persistent
  }

  var databases: [any DatabaseWriter] { [persistent, memory] }

  /// The databases that may hold items: the in-memory one only once it has had any.
  var itemDatabases: [any DatabaseWriter] {
    sessionHasItems.withLock { $0 } ? [persistent, memory] : [persistent]
  }

  /// A read for one lookup, which needs no snapshot across statements: no BEGIN/COMMIT around
  /// it, and on the in-memory queue no `PRAGMA query_only` toggling. Profiled under a
  /// SearchItems load, those made up a third of the daemon's time, the pragma also having
  /// SQLite re-prepare every cached statement of that connection on each call. The file's
  /// lookups go to a read-only connection of their own rather than to the pool, whose every
  /// read also checks out a connection and runs `PRAGMA schema_version` (another 15 %): the
  /// schema only changes when the store is opened, before that connection exists.
  func lookup<T>(_ database: any DatabaseWriter, _ body: (Database) throws -> T) throws -> T {
    if database === persistent { return try lookupReader.unsafeRead(body) }
    return try database.writeWithoutTransaction(body)
  }

  /// Runs `change` in a transaction of the database holding `collection`; one that frees
  /// space may use the reserve (`commitFreeingSpace`).
  func write<T>(
    _ collection: String, freeingSpace: Bool = false, _ change: (Database) throws -> T
  ) throws -> T {
    if collection == Self.sessionCollection {
      // After the change, whether it committed or not: a search that ran meanwhile is not kept.
      defer { searches.invalidate() }
      return try memory.write(change)
    }
    return freeingSpace ? try commitFreeingSpace(change) : try commit(change)
  }

  /// Runs `change` in a durable transaction of the file, through the group commit, and reports
  /// a full file system as `noSpace`.
  func commit<T>(_ change: (Database) throws -> T) throws -> T {
    try writeGate.waitUntilOpen()
    defer { searches.invalidate() }
    do {
      let result = try writer.commit(change)
      checkpoints.afterWrite()
      return result
    } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
      throw StoreError.noSpace
    }
  }

  /// `commit` for a change that frees space (a delete): on a full disk the reserve beside the
  /// store is given up to make room for it, and made again after the next checkpoint.
  func commitFreeingSpace<T>(_ change: (Database) throws -> T) throws -> T {
    do {
      return try commit(change)
    } catch StoreError.noSpace where StoreFiles.releaseReserve(in: directory) {
      return try commit(change)
    }
  }

  /// The row id of `collection`, or `noSuchCollection`.
  func collectionID(_ collection: String, _ db: Database) throws -> Int64 {
    guard
      let id = try RawRead(
        db.cachedStatement(sql: StoreStatements.collectionID), [.text(collection)]
      )
      .first({ $0.int64(0) })
    else { throw StoreError.noSuchCollection(collection) }
    return id
  }

  /// The data key of an unlocked collection, or `locked`.
  func dataKey(_ collection: String) throws -> CipherKey {
    guard let key = unlocked.withLock({ $0[collection] }) else {
      throw StoreError.locked(collection: collection)
    }
    return key
  }

  static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
  static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }

  // MARK: Collections

  /// All collections, the in-memory `session` one included.
  public func collections() throws -> [CollectionInfo] {
    try databases.flatMap { database in
      try lookup(database) { db in
        // Prepared once: Seahorse, KWallet's signals and the object tree's listings ask often.
        try Row.fetchAll(
          db.cachedStatement(
            sql: "SELECT name, sealedLabel, created, modified FROM collection ORDER BY id")
        )
        .map { row in try info(row, inMemory: database === memory) }
      }
    }
  }

  /// Whether a collection named `name` exists; reads no label, so it is cheap on every request.
  public func hasCollection(_ name: String) throws -> Bool {
    try lookup(database(for: name)) { db in
      try RawRead(db.cachedStatement(sql: StoreStatements.collectionID), [.text(name)])
        .first { _ in true } ?? false
    }
  }

  /// One collection.
  public func collection(_ name: String) throws -> CollectionInfo {
    let database = database(for: name)
    return try lookup(database) { db in
      guard
        let row = try Row.fetchOne(
          db.cachedStatement(
            sql: "SELECT name, sealedLabel, created, modified FROM collection WHERE name = ?"),
          arguments: [name])
      else { throw StoreError.noSuchCollection(name) }
      return try info(row, inMemory: database === memory)
    }
  }

  private func info(_ row: Row, inMemory: Bool) throws -> CollectionInfo {
    let name: String = row["name"]
    let sealed: Data = row["sealedLabel"]
    let label = try AESGCM.open(
      Array(sealed), key: keys.metadata, associatedData: Self.labelAAD(name))
    return CollectionInfo(
      name: name, label: String(decoding: label.copyBytes(), as: UTF8.self),
      created: Self.date(row["created"]), modified: Self.date(row["modified"]),
      isLocked: unlocked.withLock { $0[name] == nil }, isInMemory: inMemory)
  }

  static func labelAAD(_ collection: String) -> [UInt8] {
    Array("collection label:\(collection)".utf8)
  }
  static func keyAAD(_ collection: String) -> [UInt8] { Array("collection key:\(collection)".utf8) }

  /// Creates a collection protected by `password`, unlocked. With no `name`, one is chosen.
  @discardableResult
  public func createCollection(name: String? = nil, label: String, password: SecureBytes) throws
    -> CollectionInfo
  {
    guard name != Self.sessionCollection else {
      throw StoreError.collectionExists(Self.sessionCollection)
    }
    guard label.utf8.count <= StoreLimits.maxTextBytes else {
      throw StoreError.limitExceeded("label too long")
    }
    let dataKey = SecureBytes.random(count: AESGCM.keySize, level: .longTerm)
    let salt = Random.bytes(count: 16)
    let wrapKey = try KeyDerivation.argon2id(
      password: Self.kdfInput(password), salt: salt, parameters: kdf)
    let created = Self.seconds(now())
    let chosen: String = try commit { db in
      let chosen = try name ?? nextCollectionName(db)
      guard
        try Int64.fetchOne(db, sql: "SELECT id FROM collection WHERE name = ?", arguments: [chosen])
          == nil
      else { throw StoreError.collectionExists(chosen) }
      let wrapped = Data(
        try AESGCM.seal(dataKey, key: wrapKey, associatedData: Self.keyAAD(chosen)))
      try db.execute(
        sql: """
          INSERT INTO collection (name, sealedLabel, created, modified, kdfSalt, kdfIterations,
            kdfMemoryKiB, kdfParallelism, wrappedKey, keyMAC) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          chosen,
          Data(
            try AESGCM.seal(
              Array(label.utf8), key: keys.metadata, associatedData: Self.labelAAD(chosen))
          ),
          created, created, Data(salt), kdf.iterations, kdf.memoryKiB, kdf.parallelism, wrapped,
          try keys.collectionKeyMAC(
            name: chosen, salt: Data(salt), parameters: kdf, wrappedKey: wrapped),
        ])
      return chosen
    }
    let cipherKey = try CipherKey.gcm(dataKey)
    unlocked.withLock { $0[chosen] = cipherKey }
    return try collection(chosen)
  }

  private func nextCollectionName(_ db: Database) throws -> String {
    let next =
      (try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'collection'") ?? 0)
      + 1
    return "collection\(next)"
  }

  private func createSessionCollection() throws {
    let name = Self.sessionCollection
    let sealedLabel = try AESGCM.seal(
      Array("Session".utf8), key: keys.metadata, associatedData: Self.labelAAD(name))
    let created = Self.seconds(now())
    try memory.write { db in
      try db.execute(
        sql: """
          INSERT INTO collection (name, sealedLabel, created, modified, kdfSalt, kdfIterations,
            kdfMemoryKiB, kdfParallelism, wrappedKey) VALUES (?, ?, ?, ?, x'', 0, 0, 0, x'')
          """, arguments: [name, Data(sealedLabel), created, created])
    }
    // Never locked: its key exists only in this process and dies with it.
    let key = try CipherKey.gcm(SecureBytes.random(count: AESGCM.keySize))
    unlocked.withLock { $0[name] = key }
  }
}
