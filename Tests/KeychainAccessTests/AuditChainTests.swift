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
  let key = try! HMACKey(SecureBytes(copying: Array(repeating: 7, count: 32)))
  let app = AuditRecord.App(
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
    let (line, _) = try forger.line(forged, after: last.mac)
    try write(try lines(directory) + [line], directory)
    #expect(log.verify()?.problem?.contains("record 3") == true)
  }

  @Test func recordsWaitForTheKeyAndTheChainGoesOnAcrossAReopen() throws {
    let directory = scratch.path + "/log-\(UUID().uuidString)"
    let first = try AuditLog(directory: directory, logger: Logger(label: "test"))
    first.append(record(1))
    let written = try lines(directory)
    #expect(written.isEmpty, "a record was written before the key was known")
    first.setKey(key)
    first.sync()
    #expect(try lines(directory).count == 1)
    let second = try AuditLog(directory: directory, logger: Logger(label: "test"))
    second.setKey(key)
    second.append(record(2))
    let verdict = try #require(second.verify())
    #expect(verdict.problem == nil && verdict.good == 2 && verdict.lastSeq == 2)
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
