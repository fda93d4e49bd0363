// SPDX-License-Identifier: MIT
//
// The store's directory and the index key file beside the database. The directory is 0700 and
// every file 0600; a store whose files are open to others is refused rather than "fixed",
// because the secrets may already have been read.

import Foundation
import GRDB
import KeychainCrypto
import KeychainSystem
import SystemPackage

enum StoreFiles {
  static let databaseName = "keychain.db"
  static let indexKeyName = "index.key"

  /// Creates `directory` (0700) if needed and checks that it is private.
  static func prepare(_ directory: String) throws {
    var info = stat()
    if stat(directory, &info) != 0 {
      guard errno == ENOENT else {
        throw StoreError.invalid(
          "cannot read \(directory): \(String(cString: strerror(errno)))")
      }
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
      )
      chmod(directory, 0o700)
      return
    }
    try checkPrivate(directory, info)
  }

  /// Refuses a file or directory that anyone but its owner can read, write or enter.
  static func checkPrivate(_ path: String, _ info: stat? = nil) throws {
    var status = info ?? stat()
    if info == nil {
      guard stat(path, &status) == 0 else { return }
    }
    let mode = UInt32(status.st_mode) & 0o777
    guard mode & 0o077 == 0 else { throw StoreError.unsafePermissions(path: path, mode: mode) }
  }

  /// Refuses a store keychaind could read but not write (a file or the directory made
  /// read-only, a file system mounted read-only): SQLite would open it and fail every write
  /// with an error no client can explain. `path` is skipped when it does not exist.
  static func checkWritable(_ path: String, directory: Bool = false) throws {
    let wanted = R_OK | W_OK | (directory ? X_OK : 0)
    guard access(path, wanted) != 0, errno != ENOENT else { return }
    let why = String(cString: strerror(errno))
    var info = stat()
    let mode = stat(path, &info) == 0 ? String(UInt32(info.st_mode) & 0o777, radix: 8) : "?"
    throw StoreError.damaged(
      path: path, problem: "keychaind may not write it (\(why); mode \(mode))",
      remedy:
        "Make it writable by you again (chmod u+rw\(directory ? "x" : "") \(path)), or remount its file system read-write if it was mounted read-only."
    )
  }

  /// A database being made by a first start, renamed to `databaseName` once it is whole.
  static let unfinishedName = "keychain.db.new"

  /// The index key of an existing store.
  static func readIndexKey(in directory: String) throws -> SecureBytes {
    let path = directory + "/" + indexKeyName
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(path: path, .readOnly, options: [.closeOnExec, .noFollow])
    } catch {
      throw StoreError.invalid("cannot read \(path): \(error)")
    }
    defer { file.closeQuietly() }
    try checkPrivate(path)
    // One byte more than a key is asked for: a longer file is not one of ours either.
    let scratch = SecureScratch(capacity: 33)
    let count = scratch.withUnsafeMutableBytes { (try? file.read(filling: $0)) ?? -1 }
    guard count == 32 else {
      throw StoreError.damaged(
        path: path, problem: "this is not a 32-byte key",
        remedy: "Restore index.key from the backup it was taken with.")
    }
    return scratch.prefix(32)
  }

  /// Makes and durably writes the index key of a new store.
  static func createIndexKey(in directory: String) throws -> SecureBytes {
    let path = directory + "/" + indexKeyName
    let key = SecureBytes.random(count: 32, level: .longTerm)
    // Written to a temporary name and renamed, so a crash never leaves half a key.
    let written = key.withUnsafeBytes { bytes in
      Result { () throws(Errno) in try SystemFiles.replace(atPath: path, with: bytes) }
    }
    if case .failure(let error) = written {
      throw StoreError.invalid("cannot write \(path): \(error)")
    }
    return key
  }

  /// Disk space kept allocated beside the store so that deleting still works when the disk is
  /// full: in WAL mode a delete is written (to the log) before anything is freed.
  static let reserveName = "keychain.reserve"
  /// Enough for a few deletes of ordinary items (each writes 5 to 7 pages of 4 KiB to the log).
  static let reserveBytes = 256 << 10

  /// Allocates the reserve if it is not there; false when the disk has no room for it.
  @discardableResult
  static func ensureReserve(in directory: String) -> Bool {
    guard
      let file = try? FileDescriptor.open(
        path: directory + "/" + reserveName, .writeOnly, options: [.create, .closeOnExec],
        permissions: [.ownerReadWrite])
    else { return false }
    defer { file.closeQuietly() }
    return posix_fallocate(file.rawValue, 0, off_t(reserveBytes)) == 0
  }

  /// Frees the reserve for a delete on a full disk; false if there was none.
  static func releaseReserve(in directory: String) -> Bool {
    unlink(directory + "/" + reserveName) == 0
  }

  /// Makes the store's files private: the database and SQLite's WAL and shared-memory files.
  static func restrictDatabaseFiles(in directory: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
      chmod(directory + "/" + databaseName + suffix, 0o600)
    }
  }

}

extension StoreFiles {
  /// Makes a new store: the database is built whole under a temporary name and renamed into
  /// place, so that keychain.db is never a file SQLite would take for an empty database.
  static func createStore(in directory: String, migrator: (StoreKeys) -> DatabaseMigrator)
    throws -> StoreKeys
  {
    let unfinished = directory + "/" + unfinishedName
    for suffix in ["", "-journal", "-wal", "-shm"] { unlink(unfinished + suffix) }
    // The half-made database comes first: an index key found alone, with neither database
    // beside it, then means a database that was lost, never an interrupted first start.
    let queue = try DatabaseQueue(path: unfinished)
    let keys = try StoreKeys(index: createIndexKey(in: directory))
    try migrator(keys).migrate(queue)
    // WAL is recorded in the file's header; closing checkpoints into the file and removes the log.
    try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
    try queue.close()
    do {
      try SystemFiles.commit(unfinished, to: directory + "/" + databaseName)
    } catch {
      throw StoreError.invalid("cannot create \(directory)/\(databaseName): \(error)")
    }
    return keys
  }

  /// A read-only connection to an existing database, after checking that it is a store of
  /// ours, of a version this code knows, made with this index key.
  static func openChecked(_ path: String, keys: StoreKeys, migrator: DatabaseMigrator) throws
    -> DatabaseQueue
  {
    func damaged(_ problem: String, _ remedy: String) -> StoreError {
      .damaged(path: path, problem: problem, remedy: remedy)
    }
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)
    // A read-only connection to a WAL database makes the log and shared-memory files when they
    // are missing (after a clean stop); a refused store is left without them, as it was found.
    let scratch = [path + "-wal", path + "-shm"].filter {
      !FileManager.default.fileExists(atPath: $0)
    }
    var queue: DatabaseQueue?
    do {
      let opened = try DatabaseQueue(path: path, configuration: configuration)
      queue = opened
      try opened.read { db in try check(db) }
      return opened
    } catch {
      try? queue?.close()
      for file in scratch { unlink(file) }
      guard let error = error as? DatabaseError else { throw error }
      throw damaged(
        "SQLite cannot read it (\(error.resultCode): \(error.message ?? "no detail"))",
        "Restore it from a backup; keychainctl check describes the damage.")
    }

    /// A store of ours, of a version this code knows, made with this index key.
    func check(_ db: Database) throws {
      let tables = try String.fetchSet(
        db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
      guard tables.contains("grdb_migrations") else {
        throw damaged(
          "this is not a keychaind database (it has no schema)",
          "Move it aside if it is not yours; restore keychain.db from a backup otherwise.")
      }
      guard try !migrator.hasBeenSuperseded(db) else {
        throw StoreError.newerSchema(path: path)
      }
      let missing = Schema.tables.filter { !tables.contains($0) }
      guard missing.isEmpty else {
        throw damaged(
          "its schema lacks the table(s) \(missing.joined(separator: ", "))",
          "Restore keychain.db from a backup.")
      }
      let wrongKey = damaged(
        "index.key beside it is not the key this database was made with",
        "Restore the index.key that was backed up with this keychain.db.")
      if tables.contains("meta") {
        let check = try Data.fetchOne(
          db, sql: "SELECT value FROM meta WHERE name = 'index-key-check'")
        guard check == (try keys.keyCheck()) else { throw wrongKey }
      } else if let row = try Row.fetchOne(db, sql: "SELECT name, sealedLabel FROM collection") {
        // A store from before the check value (v1): its first collection label, sealed with
        // a key derived from index.key, is the check. The migration to v2 would otherwise
        // record the check value of whatever key lies beside it.
        let name: String = row["name"]
        let sealed: Data = row["sealedLabel"]
        guard
          (try? AESGCM.open(
            Array(sealed), key: keys.metadata, associatedData: KeychainStore.labelAAD(name)))
            != nil
        else { throw wrongKey }
      }
      // Before anything writes: a store that lost acknowledged changes is refused too.
      try CommitLedger.check(
        directory: (path as NSString).deletingLastPathComponent,
        databaseCount: try Schema.commitCount(db))
    }
  }

  /// Runs `body` on a read-only connection of its own to the store's file, closed after: for
  /// long reads that must not hold up the lookup connection.
  static func withReader<T>(_ directory: String, _ body: (Database) throws -> T) throws -> T {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.busyMode = .timeout(5)
    let queue = try DatabaseQueue(
      path: directory + "/" + databaseName, configuration: configuration)
    defer { try? queue.close() }
    return try queue.read(body)
  }

  /// The settings of every connection that writes: freed pages zeroed (secure_delete), so
  /// that a deleted secret's ciphertext does not linger; with `journal`, the file's WAL set up
  /// here (GRDB leaves the journal to `prepareDatabase` on a DatabaseQueue in its default mode).
  static func configuration(journal: Bool) -> Configuration {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA secure_delete = ON")
      guard journal else { return }
      // synchronous=FULL: in WAL mode, each commit's frames are synced before COMMIT returns.
      // Checkpoints run more often than SQLite's default (1000 pages) and the log is cut back
      // after them: a burst of writes costs a few hundred KiB of log, not 4 MiB, on a small disk.
      try db.execute(
        sql: """
          PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 128;
          PRAGMA journal_size_limit = 524288
          """)
    }
    return configuration
  }

  /// The writing connection of an existing store, checked to sync every commit: both pragmas
  /// are read back, and a store that would acknowledge writes it has not synced is not served.
  ///
  /// A DatabaseQueue and not a DatabasePool: the pool sets up WAL itself after
  /// `prepareDatabase` has run, lowering synchronous to NORMAL (under which a commit is not
  /// synced before it returns), and writes a transaction at every open when the log is empty;
  /// reads have their own connection anyway.
  static func openWriter(_ path: String) throws -> DatabaseQueue {
    let queue = try DatabaseQueue(path: path, configuration: configuration(journal: true))
    try queue.writeWithoutTransaction { db in
      let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
      let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous")
      guard mode == "wal", synchronous == 2 else {
        throw StoreError.invalid(
          "SQLite runs the store with journal_mode=\(mode ?? "?") and synchronous="
            + "\(synchronous.map(String.init) ?? "?"), not wal and 2 (FULL): acknowledged writes "
            + "could be lost, so the store is not opened")
      }
    }
    return queue
  }
}
