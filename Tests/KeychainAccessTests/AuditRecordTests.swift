// SPDX-License-Identifier: MIT
//
// An audit record's JSON is written by hand, numbers included: it must read back as the record
// it was, and print times and counts as Swift and JSONEncoder do.

import Foundation
import Testing

@testable import KeychainAccess

@Suite struct AuditRecordTests {
  static let app = AuditRecord.App(
    AppIdentity(
      kind: .user, key: "exe:/home/a/bin/tool \"x\"\\y", display: "tool\n", verified: false),
    pid: 4_242)

  @Test(arguments: [
    0, 1, 0.5, 1_732_790_000, 1_732_790_000.1, 1_732_790_000.123456, 1_732_790_000.000001,
    1_732_790_000.1234, 1_732_790_000.99999, 1_999_999_999.999999,
  ])
  func timesReadBackAndPrintAsSwiftDoes(seconds: Double) throws {
    var record = AuditRecord(
      time: Date(timeIntervalSince1970: seconds), op: .search, decision: .owner, app: Self.app,
      sender: ":1.42", item: "/org/freedesktop/secrets/collection/login", count: 12)
    record.seq = UInt64.max
    record.dropped = 0
    record.resumed = 1_000_000
    record.detail = "protect → off"
    record.prev = "00ff"
    let json = record.json
    #expect(json.contains(#""time":\#(record.time),"#), "\(json)")
    #expect(json.contains(#""seq":18446744073709551615,"#))
    #expect(json.contains(#""count":12,"#) && json.contains(#""resumed":1000000,"#))
    let decoded = try JSONDecoder().decode(AuditRecord.self, from: Data(json.utf8))
    #expect(decoded == record)
  }

  @Test func aTimeThatIsNotRoundedIsPrintedAsSwiftPrintsIt() throws {
    var record = AuditRecord(op: .read, decision: .owner, app: Self.app, sender: ":1.1")
    record.time = 1_732_790_000.123_456_7
    #expect(record.json.contains(#""time":\#(record.time),"#))
    let decoded = try JSONDecoder().decode(AuditRecord.self, from: Data(record.json.utf8))
    #expect(decoded.time == record.time)
  }
}
