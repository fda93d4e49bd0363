// SPDX-License-Identifier: MIT
//
// Checking an audit log as one chain from both ends: every line's link (MAC or hash) against
// the line before, sequence numbers without gap or swap, the start no later than the floor
// the store keeps (and than the last rotation left), the end no earlier than the anchor the
// store keeps. A cut, an edit or a swap anywhere is named by file and line.

import Foundation
import KeychainCrypto

extension AuditChain {
  /// What `verify` found.
  public struct Verdict: Sendable, Equatable {
    /// How many lines checked out.
    public var good = 0
    /// The first problem: which file and line, and what is wrong with it.
    public var problem: String?
    /// Records that are there, in order, but that no MAC vouches for: written before the key
    /// was known by a keychaind that stopped before it could seal them.
    public var unproven: [ClosedRange<UInt64>] = []
    /// The chain's last sequence number and link, to continue from.
    public var lastSeq: UInt64 = 0
    public var lastLink = AuditChain.start
  }

  /// Checks `files` (oldest first) as one chain (see the top of this file). `floor` is the
  /// store's (nil: none kept, so record 1, unless a rotation says otherwise); `expectedLast`,
  /// when known, the last record keychaind wrote.
  public func verify(
    _ files: [(name: String, text: String)], floor: Floor? = nil, expectedLast: UInt64? = nil
  ) -> Verdict {
    var verdict = Verdict()
    var previous: [UInt8]?
    // The first record the log must hold: the floor, raised by each rotation's `dropped`.
    var mustStartBy = floor?.seq ?? 1
    var firstChecked: UInt64?
    var unkeyedFrom: UInt64?
    for (name, text) in files {
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated()
      {
        let place = "\(name) line \(index + 1)"
        guard let (body, link) = Self.split(line),
          let record = try? JSONDecoder().decode(AuditRecord.self, from: Data(body))
        else {
          verdict.problem = "\(place) is not an audit record"
          return verdict
        }
        if let floor, record.seq < floor.seq, firstChecked == nil {
          // Kept from before the floor was set: no longer required, not checked.
          (previous, verdict.lastSeq) = (link.bytes, record.seq)
          continue
        }
        let before: [UInt8]
        if let floor, record.seq == floor.seq {
          before = floor.prev
        } else if let previous, firstChecked != nil || floor != nil {
          guard record.seq == verdict.lastSeq + 1 else {
            verdict.problem =
              "\(place) has sequence number \(record.seq) where \(verdict.lastSeq + 1) was due: "
              + (record.seq > verdict.lastSeq + 1
                ? "records were removed" : "records were reordered")
            return verdict
          }
          before = previous
        } else if record.op == .rotate, let prev = record.prev.flatMap({ Self.bytes(hex: $0[...]) })
        {
          before = prev
        } else if record.seq == 1 {
          before = Self.start
        } else {
          verdict.problem =
            "\(place) is record \(record.seq), and records before it were cut from the start"
          return verdict
        }
        let computed =
          switch link {
          case .mac: try? Self.mac(key, body: body, previous: before)
          case .hash: Self.hash(body: body, previous: before)
          }
        guard computed == link.bytes,
          record.op != .rotate || record.prev == Hex.string(before)
        else {
          verdict.problem = "\(place) (record \(record.seq)) was changed"
          return verdict
        }
        if firstChecked == nil { firstChecked = record.seq }
        if record.op == .rotate, let dropped = record.dropped {
          mustStartBy = max(mustStartBy, dropped + 1)
        }
        switch link {
        case .hash: unkeyedFrom = unkeyedFrom ?? record.seq
        case .mac:
          // A MAC vouches for the hashes before it; those older than the keychaind that sealed
          // them it only found in the file.
          if let from = unkeyedFrom, let resumed = record.resumed, resumed > from {
            verdict.unproven.append(from...(resumed - 1))
          }
          unkeyedFrom = nil
        }
        verdict.good += 1
        (previous, verdict.lastSeq, verdict.lastLink) = (link.bytes, record.seq, link.bytes)
      }
    }
    if let first = firstChecked, first > mustStartBy {
      verdict.problem =
        "the log starts at record \(first), but records from \(mustStartBy) on must still be there: records were cut from its start"
      return verdict
    }
    if firstChecked == nil, let expectedLast, expectedLast >= mustStartBy {
      verdict.problem =
        "the log holds no record, but keychaind wrote up to \(expectedLast): records were removed"
      return verdict
    }
    if let from = unkeyedFrom { verdict.unproven.append(from...verdict.lastSeq) }
    if let expectedLast, expectedLast > verdict.lastSeq {
      verdict.problem =
        "the log ends at record \(verdict.lastSeq), but keychaind wrote up to \(expectedLast): "
        + "records were cut from the end"
    }
    return verdict
  }
}
