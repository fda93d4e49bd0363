// SPDX-License-Identifier: MIT
//
// How far the store had got, kept outside the database: every durable transaction bumps a
// counter in the database (`meta.commit-count`, one row, in the same transaction), and once it
// is synced the leader writes the new count here before any caller is answered. At start-up a
// database (with its write-ahead log replayed) whose counter is below the ledger's lost
// acknowledged writes: its log was deleted or cut short, or keychain.db was restored alone from
// a backup. SQLite opens such a store without a word; keychaind refuses it (`check`).
//
// The cost is one pwrite of 128 bytes per transaction, with no sync of its own: a process that
// is killed leaves the page cache behind, so the record is there. Each checkpoint, about a
// second after a burst, syncs it with the count the checkpoint copied into keychain.db. After a
// power cut the ledger may therefore lag by the last second's writes: a lagging ledger never
// refuses a good store, it only misses a later loss of those writes' log, which a power cut
// alone does not cause (the log itself was synced before each reply).

import Foundation
import KeychainCrypto
import KeychainSystem
import Synchronization
import SystemPackage

/// The record of acknowledged and checkpointed writes beside the database.
final class CommitLedger: Sendable {
  static let fileName = "keychain.ledger"

  /// What the ledger says.
  struct Record: Equatable {
    /// The commit count of the last transaction a caller was told is durable.
    var acknowledged: Int64
    /// The commit count keychain.db itself held after the last complete checkpoint.
    var checkpointed: Int64
  }

  // Invariant: the file is opened in `init`, closed (nil) in `close`, and written only with
  // the mutex held, so records never interleave.
  private let state: Mutex<(file: FileDescriptor?, record: Record)>

  /// Opens the ledger in `directory`, or starts one there at `count` (a new store, a store
  /// from before the ledger, or one whose ledger the user removed to accept an older copy).
  init(directory: String, count: Int64) throws {
    let path = directory + "/" + Self.fileName
    var record = Record(acknowledged: count, checkpointed: count)
    if case .valid(let found) = Self.read(in: directory) {
      record = Record(
        acknowledged: max(found.acknowledged, count), checkpointed: found.checkpointed)
    } else {
      try Self.create(path, record)
    }
    do {
      let file = try FileDescriptor.open(
        path: path, .writeOnly, options: [.closeOnExec, .noFollow])
      state = Mutex((file, record))
    } catch {
      throw StoreError.invalid("cannot open \(path): \(error)")
    }
  }

  /// Records that the transaction numbered `count` is durable: called by the group commit's
  /// leader after the commit's sync, before it answers anyone.
  func acknowledge(_ count: Int64) {
    state.withLock { state in
      state.record.acknowledged = count
      Self.write(state.record, to: state.file)
    }
  }

  /// Records that keychain.db holds every transaction up to `count`, and syncs the ledger.
  func checkpointed(_ count: Int64) {
    state.withLock { state in
      state.record.checkpointed = count
      state.record.acknowledged = max(state.record.acknowledged, count)
      Self.write(state.record, to: state.file)
      _ = try? state.file?.synchronizeData()
    }
  }

  func close() {
    state.withLock { state in
      guard let file = state.file else { return }
      _ = try? file.synchronizeData()
      file.closeQuietly()
      state.file = nil
    }
  }

  deinit { close() }

  // MARK: Checking a store against it

  /// Refuses a store that holds fewer transactions than were acknowledged: `count` is the
  /// database's counter with its log replayed, read before anything writes.
  static func check(directory: String, databaseCount count: Int64) throws(StoreError) {
    guard case .valid(let record) = read(in: directory), count < record.acknowledged else {
      return
    }
    let database = directory + "/" + StoreFiles.databaseName
    let log = database + "-wal"
    let ledger = directory + "/" + fileName
    let lost = record.acknowledged - count
    let changes = lost == 1 ? "change" : "changes"
    let logIsEmpty = ((try? StoreInspection.fileSize(log)) ?? 0) <= 32
    if !logIsEmpty {
      throw .damaged(
        path: log,
        problem: "it was cut short or damaged: with it the store ends \(lost) acknowledged "
          + "\(changes) early (at change \(count) of \(record.acknowledged)), and SQLite would "
          + "open it without them",
        remedy: "Restore keychain.db and keychain.db-wal together from a backup. To open the "
          + "store without those changes, delete \(ledger).")
    }
    if count >= record.checkpointed {
      throw .damaged(
        path: log,
        problem: "it is missing or empty, but it held the last \(lost) acknowledged \(changes) "
          + "(keychain.db has changes up to \(count) of \(record.acknowledged))",
        remedy: "Put back the keychain.db-wal that belongs with this keychain.db. To open "
          + "keychain.db as it is, without those changes, delete \(ledger).")
    }
    throw .damaged(
      path: database,
      problem: "it is older than the store keychaind last wrote: it has changes up to \(count) "
        + "of \(record.acknowledged) (a backup restored without its ledger?)",
      remedy: "Put back the current keychain.db. To use this older copy and lose the later "
        + "changes, delete \(ledger).")
  }

  // MARK: The file

  enum Found: Equatable {
    case absent
    /// Unreadable (a torn write after a power cut): nothing can be concluded from it.
    case unreadable
    case valid(Record)
  }

  static func read(in directory: String) -> Found {
    let path = directory + "/" + fileName
    guard let bytes = try? StoreInspection.read(path, limit: recordSize + 1) else {
      return access(path, F_OK) == 0 ? .unreadable : .absent
    }
    return decode(bytes).map(Found.valid) ?? .unreadable
  }

  /// A fixed-size text record, readable with `cat`: a header, the two counts, and a check of
  /// those lines (the first 8 bytes of their SHA-256), so a torn write is told from a record.
  static let recordSize = 128

  static func encode(_ record: Record) -> [UInt8] {
    func field(_ name: String, _ value: Int64) -> String {
      let digits = String(value)
      return name + " " + String(repeating: "0", count: max(0, 19 - digits.count)) + digits + "\n"
    }
    let body =
      "keychaind commit ledger 1\n" + field("acknowledged", record.acknowledged)
      + field("checkpointed", record.checkpointed)
    let check = Hex.string(Array(SHA256.hash(Array(body.utf8)).prefix(8)))
    var bytes = Array((body + "check " + check + "\n").utf8)
    bytes += [UInt8](repeating: UInt8(ascii: "\n"), count: recordSize - bytes.count)
    return bytes
  }

  static func decode(_ bytes: [UInt8]) -> Record? {
    guard bytes.count == recordSize else { return nil }
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    guard lines.count == 4, lines[0] == "keychaind commit ledger 1",
      let acknowledged = value(lines[1], "acknowledged"),
      let checkpointed = value(lines[2], "checkpointed")
    else { return nil }
    let record = Record(acknowledged: acknowledged, checkpointed: checkpointed)
    return encode(record) == bytes ? record : nil
  }

  private static func value(_ line: String, _ name: String) -> Int64? {
    guard line.hasPrefix(name + " ") else { return nil }
    return Int64(line.dropFirst(name.count + 1))
  }

  /// Writes the whole record at offset 0: always the same size, so it never leaves a tail.
  private static func write(_ record: Record, to file: FileDescriptor?) {
    let bytes = encode(record)
    _ = try? file?.writeAll(toAbsoluteOffset: 0, bytes)
  }

  /// A new ledger, written whole under a temporary name and renamed into place.
  private static func create(_ path: String, _ record: Record) throws {
    do {
      try SystemFiles.replace(atPath: path, with: encode(record))
    } catch {
      throw StoreError.invalid("cannot write \(path): \(error)")
    }
  }
}
