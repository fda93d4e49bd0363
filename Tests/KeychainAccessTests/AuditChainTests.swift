// SPDX-License-Identifier: MIT
//
// The audit log's chain: every kind of tampering a same-uid process can do to the file is
// found and named, and the files rotate at their bound without breaking the chain.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainTesting
import Logging
import Testing

@Suite struct AuditChainTests {
  /// This test's logs live here, and go with it (each test has its own suite value).
  let scratch = try! TemporaryDirectory(prefix: "audit")
  let key = Self.chainKey
  let app = Self.reader

  /// The chain's key in the audit tests.
  static let chainKey = try! HMACKey(SecureBytes(copying: Array(repeating: 7, count: 32)))
  /// The application their records name.
  static let reader = AuditRecord.App(
    AppIdentity(kind: .system, key: "exe:/usr/bin/true", display: "true", verified: true),
    pid: 42)

  func record(_ index: Int) -> AuditRecord {
    AuditRecord(
      op: .read, decision: .owner, app: app, sender: ":1.\(index)",
      item: "/org/freedesktop/secrets/collection/login/\(index)")
  }

  /// A log of `count` records in a new directory, with its key set.
  func log(_ count: Int, maximumBytes: Int = 8 << 20) throws -> (AuditLog, String) {
    let directory = scratch.path + "/log-\(UUID().uuidString)"
    let log = try AuditLog(
      directory: directory, logger: Logger(label: "test"), maximumBytes: maximumBytes)
    log.setKey(key)
    log.append((1...count).map(record))
    log.sync()
    return (log, directory)
  }

  func lines(_ directory: String) throws -> [String] {
    try String(contentsOfFile: directory + "/audit.jsonl", encoding: .utf8)
      .split(separator: "\n").map(String.init)
  }

  func write(_ lines: [String], _ directory: String) throws {
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: directory + "/audit.jsonl", atomically: false, encoding: .utf8)
  }

  @Test func anUntouchedLogVerifies() throws {
    let (log, _) = try log(5)
    let verdict = try #require(log.verify())
    #expect(verdict.problem == nil)
    #expect(verdict.good == 5)
  }

  @Test func aChangedRecordIsNamed() throws {
    let (log, directory) = try log(5)
    var lines = try lines(directory)
    lines[2] = lines[2].replacingOccurrences(of: "\"owner\"", with: "\"grant\"")
    try write(lines, directory)
    #expect(log.verify()?.problem == "audit.jsonl line 3 (record 3) was changed")
  }

  @Test func aRemovedRecordIsFound() throws {
    let (log, directory) = try log(5)
    var lines = try lines(directory)
    lines.remove(at: 1)
    try write(lines, directory)
    #expect(log.verify()?.problem?.contains("records were removed") == true)
  }

  @Test func reorderedRecordsAreFound() throws {
    let (log, directory) = try log(5)
    var lines = try lines(directory)
    lines.swapAt(1, 2)
    try write(lines, directory)
    #expect(log.verify()?.problem?.contains("line 2") == true)
  }

  @Test func recordsCutFromTheEndAreFound() throws {
    let (log, directory) = try log(5)
    try write(Array(try lines(directory).prefix(3)), directory)
    #expect(log.verify()?.problem?.contains("cut from the end") == true)
  }

  @Test func aForgedRecordWithoutTheKeyDoesNotVerify() throws {
    let (log, directory) = try log(2)
    let forger = AuditChain(key: try HMACKey(SecureBytes(copying: Array(repeating: 9, count: 32))))
    var forged = record(3)
    forged.seq = 3
    let last = try #require(AuditChain.split(Substring(try lines(directory)[1])))
    let (line, _) = try forger.line(forged, after: last.link.bytes)
    try write(try lines(directory) + [line], directory)
    #expect(log.verify()?.problem?.contains("record 3") == true)
  }

  /// The start of the log cut (in place, the same inode), then one more
  /// record written: the records from the floor on must be there.
  @Test func recordsCutFromTheStartAreFound() throws {
    let (log, directory) = try log(6)
    try write(Array(try lines(directory).suffix(2)), directory)
    log.append(record(7))
    #expect(log.verify()?.problem?.contains("cut from the start") == true, "\(log.verify()!)")
    // The whole live file emptied, then one record: the same.
    try write([], directory)
    log.append(record(8))
    #expect(log.verify()?.problem?.contains("cut from the start") == true)
  }

  /// The first record left rewritten, its MAC kept: every line is
  /// checked, the first against the link the floor keeps.
  @Test func theFirstRecordIsCheckedToo() throws {
    let (log, directory) = try log(3)
    var lines = try lines(directory)
    lines[0] = lines[0].replacingOccurrences(
      of: "exe:/usr/bin/true", with: "exe:/usr/bin/evolution")
    try write(lines, directory)
    #expect(log.verify()?.problem == "audit.jsonl line 1 (record 1) was changed")
  }

  /// A rotated log: every file after the first begins with a rotation record; removing the
  /// oldest files, or the live file's first line, is found; the floor moves with rotations,
  /// and comes back from the store after a reopen.
  @Test func cutsAcrossRotatedFilesAreFound() throws {
    let (log, directory) = try log(60, maximumBytes: 2048)
    #expect(log.verify()?.problem == nil)
    let anchor = try #require(log.anchor)
    #expect((anchor.floor?.seq ?? 0) > 1, "the oldest files were dropped: \(anchor)")
    let first = try #require(AuditLog.firstRecord(of: directory + "/audit.jsonl"))
    #expect(first.op == .rotate && first.prev != nil && first.dropped != nil)
    // The oldest file removed, while the rotation records say what must be there.
    let oldest = directory + "/audit.jsonl.4"
    let saved = try Data(contentsOf: URL(fileURLWithPath: oldest))
    try FileManager.default.removeItem(atPath: oldest)
    #expect(log.verify()?.problem?.contains("cut from its start") == true, "\(log.verify()!)")
    try saved.write(to: URL(fileURLWithPath: oldest))
    #expect(log.verify()?.problem == nil)
    // A reopened log, given the store's anchor, still knows where it must start.
    let reopened = try AuditLog(
      directory: directory, logger: Logger(label: "test"), maximumBytes: 2048)
    reopened.setKey(key, anchor: anchor)
    for index in 2...4 {
      try FileManager.default.removeItem(atPath: directory + "/audit.jsonl.\(index)")
    }
    #expect(reopened.verify()?.problem?.contains("cut from") == true, "\(reopened.verify()!)")
  }

  /// ISSUE 40: records are written before the key is known (hashed), a kill -9 loses at most a
  /// batch, and the seal that comes with the key vouches for them: editing one is found.
  @Test func recordsAreWrittenBeforeTheKeyAndSealedWhenItComes() throws {
    let directory = scratch.path + "/log-\(UUID().uuidString)"
    let first = try AuditLog(directory: directory, logger: Logger(label: "test"))
    first.append(record(1))
    first.append(record(2))
    first.sync()
    let written = try lines(directory)
    #expect(written.count == 2 && written.allSatisfy { $0.contains("\"hash\":") }, "\(written)")
    first.setKey(key)
    first.append(record(3))
    first.sync()
    let sealed = try lines(directory)
    #expect(sealed.count == 4 && sealed[2].contains("\"op\":\"seal\""), "\(sealed)")
    let verdict = try #require(first.verify())
    #expect(verdict.problem == nil && verdict.good == 4 && verdict.unproven.isEmpty, "\(verdict)")
    // Edited: its hash no longer fits. Edited with its hash made anew (no key needed): the
    // seal's MAC no longer fits.
    var edited = sealed
    edited[1] = edited[1].replacingOccurrences(of: ":1.2", with: ":1.9")
    try write(edited, directory)
    #expect(first.verify()?.problem == "audit.jsonl line 2 (record 2) was changed")
    var forged = record(2)
    forged.seq = 2
    forged.sender = ":1.9"
    let before = try #require(AuditChain.split(Substring(sealed[0]))).link.bytes
    edited[1] = try AuditChain.line(forged, after: before, key: nil).line
    try write(edited, directory)
    #expect(first.verify()?.problem == "audit.jsonl line 3 (record 3) was changed")
  }

  /// Hashed records a keychaind left unsealed (it stopped before the key came) are sealed by
  /// the next, which says they were there before it started: kept, in order, but unproven.
  @Test func recordsLeftUnsealedAreSaidToBeUnproven() throws {
    let directory = scratch.path + "/log-\(UUID().uuidString)"
    do {
      let first = try AuditLog(directory: directory, logger: Logger(label: "test"))
      first.append([record(1), record(2)])
      first.sync()
    }
    let second = try AuditLog(directory: directory, logger: Logger(label: "test"))
    second.append(record(3))
    second.setKey(key)
    let verdict = try #require(second.verify())
    #expect(verdict.problem == nil && verdict.good == 4, "\(verdict)")
    #expect(verdict.unproven == [1...2], "\(verdict)")
  }

  /// Start-up reads the end of the live file, not the history before it: a file whose
  /// beginning is not even text opens, and goes on from its last record.
  @Test func startUpReadsOnlyTheEndOfTheLog() throws {
    let (log, directory) = try log(3)
    let tail = try String(contentsOfFile: directory + "/audit.jsonl", encoding: .utf8)
    let junk = String(repeating: "\u{1}", count: 200_000) + "\n"
    try (junk + tail).write(toFile: directory + "/audit.jsonl", atomically: false, encoding: .utf8)
    _ = log
    let reopened = try AuditLog(directory: directory, logger: Logger(label: "test"))
    reopened.setKey(key)
    reopened.append(record(4))
    reopened.sync()
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(!names.contains { $0.contains("damaged") }, "\(names)")
    #expect(try lines(directory).last?.contains("\"seq\":4") == true)
  }

  @Test func theLogRotatesAtItsBoundAndStillVerifies() throws {
    let (log, directory) = try log(40, maximumBytes: 4096)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    #expect(names.contains("audit.jsonl.1"), "\(names)")
    #expect(names.count <= 5)
    let size = try FileManager.default.attributesOfItem(atPath: directory + "/audit.jsonl")[.size]
    #expect((size as? Int ?? .max) <= 4096)
    #expect(log.verify()?.problem == nil)
  }

  @Test func readsAreSyncedInBatchesNotOneByOne() throws {
    let (log, _) = try log(AuditLog.syncEvery * 2)
    #expect(log.syncCount <= 3, "\(log.syncCount) fsyncs for \(AuditLog.syncEvery * 2) records")
  }

  @Test func aDamagedLastLineIsKeptAsideAndANewFileBegun() throws {
    let (_, directory) = try log(2)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/audit.jsonl"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("{\"half a rec".utf8))
    try handle.close()
    _ = try AuditLog(directory: directory, logger: Logger(label: "test"))
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names.contains { $0.hasPrefix("audit.jsonl.damaged-") }, "\(names)")
  }
}
