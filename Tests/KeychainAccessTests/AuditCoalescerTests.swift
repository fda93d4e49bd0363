// SPDX-License-Identifier: MIT
//
// Repeated reads in the audit log: the first is written at once, its repeats within a minute
// become one chained line with their count when the minute is over or the log is read, and
// nothing else is ever held back.

import Foundation
import KeychainAccess
import KeychainTesting
import Logging
import Testing

@Suite struct AuditCoalescerTests {
  let scratch = try! TemporaryDirectory(prefix: "audit-repeats")
  let key = AuditChainTests.chainKey
  let app = AuditChainTests.reader
  let item = "/org/freedesktop/secrets/collection/login/1"

  func read(
    at time: Date, item: String? = nil, sender: String = ":1.7",
    _ op: AuditRecord.Operation = .read, _ decision: AuditRecord.Decision = .owner
  ) -> AuditRecord {
    AuditRecord(
      time: time, op: op, decision: decision, app: app, sender: sender, item: item ?? self.item)
  }

  func newLog() throws -> (AuditLog, String) {
    let directory = scratch.path + "/log-\(UUID().uuidString)"
    let log = try AuditLog(directory: directory, logger: Logger(label: "test"))
    log.setKey(key)
    return (log, directory)
  }

  /// The records in the live file as it is now, without writing what the log holds.
  func onDisk(_ directory: String) -> [AuditRecord] {
    ((try? String(contentsOfFile: directory + "/audit.jsonl", encoding: .utf8)) ?? "")
      .split(separator: "\n").compactMap(AuditChain.record)
  }

  /// Waits until the file holds `count` records: the batch's and the minute's timers write
  /// them. The bound is on a hang, not a guess at the timers.
  func waitForRecords(_ count: Int, in directory: String) async throws -> [AuditRecord] {
    let deadline = ContinuousClock.now + .seconds(120)
    while onDisk(directory).count < count {
      guard ContinuousClock.now < deadline else {
        throw TestingError("the log has \(onDisk(directory).count) records, not \(count)")
      }
      try await Task.sleep(for: .milliseconds(5))
    }
    return onDisk(directory)
  }

  @Test func repeatsOfAReadAreOneLineWithTheirCountOnceTheLogIsRead() async throws {
    let (log, directory) = try newLog()
    let start = Date()
    log.append((0..<5).map { read(at: start.addingTimeInterval(Double($0))) })
    // The first read is on disk without anything asking for it; its repeats are held.
    #expect(try await waitForRecords(1, in: directory).map(\.count) == [nil])
    let verdict = try #require(log.verify())
    #expect(verdict.problem == nil)
    let records = onDisk(directory)
    #expect(records.count == 2)
    #expect(records.last?.count == 4)
    #expect(records.last?.time == start.addingTimeInterval(4).timeIntervalSince1970.rounded6)
    #expect(records.last?.seq == 2)
    // The minute was closed by the read: the next read is written at once again.
    log.append(read(at: start.addingTimeInterval(5)))
    #expect(try await waitForRecords(3, in: directory).last?.count == nil)
  }

  @Test func aMinuteLaterAReadIsWrittenAndTheHeldLineBeforeIt() async throws {
    let (log, directory) = try newLog()
    let start = Date()
    log.append([read(at: start), read(at: start.addingTimeInterval(1))])
    log.append([read(at: start.addingTimeInterval(2)), read(at: start.addingTimeInterval(61))])
    let records = try await waitForRecords(3, in: directory)
    #expect(records.map(\.count) == [nil, 2, nil])
    #expect(records.map(\.seq) == [1, 2, 3])
    #expect(log.verify()?.problem == nil)
  }

  @Test func aWallClockSetBackEndsTheMinute() async throws {
    let (log, directory) = try newLog()
    let start = Date()
    log.append([read(at: start), read(at: start.addingTimeInterval(1))])
    log.append([read(at: start.addingTimeInterval(2)), read(at: start.addingTimeInterval(-3600))])
    // The read an hour "before" is no repeat: it is written, the held line before it.
    let records = try await waitForRecords(3, in: directory)
    #expect(records.map(\.count) == [nil, 2, nil])
    #expect(log.verify()?.problem == nil)
  }

  @Test func onlyIdenticalReadsAreCounted() async throws {
    let (log, directory) = try newLog()
    let now = Date()
    let first = read(at: now)
    log.append([
      first, read(at: now, item: item + "0"), read(at: now, sender: ":1.8"),
      read(at: now, .read, .wouldAsk), read(at: now, .write), read(at: now, .write),
      read(at: now, .delete),
    ])
    let records = try await waitForRecords(7, in: directory)
    #expect(records.allSatisfy { $0.count == nil })
    var otherProcess = first
    otherProcess.app = AuditRecord.App(
      AppIdentity(kind: .system, key: "exe:/usr/bin/true", display: "true", verified: true),
      pid: 43)
    log.append(otherProcess)
    #expect(try await waitForRecords(8, in: directory).count == 8)
  }

  @Test func theMinuteWritesItsLineByItself() async throws {
    let (log, directory) = try newLog()
    // A minute that began almost a minute ago: its timer fires a moment from now.
    let opened = Date().addingTimeInterval(-59.9)
    log.append([read(at: opened), read(at: opened), read(at: opened.addingTimeInterval(1))])
    let records = try await waitForRecords(2, in: directory)
    #expect(records.map(\.count) == [nil, 2])
    #expect(log.verify()?.problem == nil)
  }

  @Test func aSingleRepeatIsAnOrdinaryLine() async throws {
    let (log, directory) = try newLog()
    let now = Date()
    log.append([read(at: now), read(at: now)])
    log.sync()
    #expect(onDisk(directory).map(\.count) == [nil, nil])
  }

  @Test func closingTheLogWritesWhatItHeld() async throws {
    let directory: String
    do {
      let (log, path) = try newLog()
      directory = path
      let now = Date()
      log.append((0..<3).map { _ in read(at: now) })
    }
    // The log is gone once its batch is written (the minute's timer does not keep it): its
    // deinit wrote the held line.
    #expect(try await waitForRecords(2, in: directory).map(\.count) == [nil, 2])
  }
}

extension Double {
  /// To the microsecond, as records keep their time.
  fileprivate var rounded6: Double { (self * 1_000_000).rounded() / 1_000_000 }
}
