// SPDX-License-Identifier: MIT
//
// How audit lines are chained. Each line is the record's JSON followed by a MAC:
//
//     {"app":{…},"decision":"owner",…,"v":1,"mac":"<hex>"}
//
// where the MAC is HMAC-SHA256(key, MAC of the line before ‖ the line without its MAC field).
// The key is kept in the encrypted store, so a process of the same user can edit the file but
// not make a changed, dropped or reordered line check out: `verify` names the first one that
// does not.

import Foundation
import KeychainCrypto

/// Encodes and checks chained audit lines.
public struct AuditChain: Sendable {
  let key: HMACKey

  public init(key: HMACKey) { self.key = key }

  /// The MAC of the first line's predecessor.
  public static let start = [UInt8](repeating: 0, count: 32)

  /// Where the chain had got to: its last sequence number and that line's MAC. The store keeps
  /// one, sealed beside the key, so that records cut from the end of the log while keychaind
  /// was not running are found when it starts again.
  public struct Anchor: Sendable, Equatable {
    public var seq: UInt64
    public var mac: [UInt8]

    public init(seq: UInt64, mac: [UInt8]) {
      self.seq = seq
      self.mac = mac
    }
  }

  /// The line for `record` after a line whose MAC was `previous`, and this line's MAC.
  public func line(_ record: AuditRecord, after previous: [UInt8]) throws -> (
    line: String, mac: [UInt8]
  ) {
    var text = record.json
    let mac = try self.mac(body: Array(text.utf8), previous: previous)
    text.removeLast()
    text += ",\"mac\":\"\(Self.hex(mac))\"}"
    return (text, mac)
  }

  func mac(body: [UInt8], previous: [UInt8]) throws -> [UInt8] {
    try previous.withUnsafeBytes { p in
      try body.withUnsafeBytes { try key.authenticationCode([p, $0]) }
    }
  }

  /// Splits a line into its record's JSON and its MAC; nil if it has no MAC field at the end.
  public static func split(_ line: Substring) -> (body: [UInt8], mac: [UInt8])? {
    let marker = ",\"mac\":\""
    guard line.hasSuffix("\"}"), let range = line.range(of: marker, options: .backwards)
    else { return nil }
    let hexText = line[range.upperBound..<line.index(line.endIndex, offsetBy: -2)]
    guard let mac = bytes(hex: hexText), mac.count == 32 else { return nil }
    return (Array((line[..<range.lowerBound] + "}").utf8), mac)
  }

  /// The record a line holds (its MAC not checked).
  public static func record(_ line: Substring) -> AuditRecord? {
    guard let (body, _) = split(line) else { return nil }
    return try? JSONDecoder().decode(AuditRecord.self, from: Data(body))
  }

  /// What `verify` found.
  public struct Verdict: Sendable, Equatable {
    /// How many lines checked out.
    public var good = 0
    /// The first problem: which file and line, and what is wrong with it.
    public var problem: String?
    /// The chain's last sequence number and MAC, to continue from.
    public var lastSeq: UInt64 = 0
    public var lastMAC = AuditChain.start
  }

  /// Checks `files` (oldest first) as one chain. The first line of the oldest file is taken
  /// on trust for its predecessor (older files were rotated away); from then on every line
  /// must follow. `expectedLast`, when known, catches lines cut from the end.
  public func verify(_ files: [(name: String, text: String)], expectedLast: UInt64? = nil)
    -> Verdict
  {
    var verdict = Verdict()
    var first = true
    for (name, text) in files {
      for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated()
      {
        let place = "\(name) line \(index + 1)"
        guard let (body, mac) = Self.split(line),
          let record = try? JSONDecoder().decode(AuditRecord.self, from: Data(body))
        else {
          verdict.problem = "\(place) is not an audit record"
          return verdict
        }
        let checked = try? self.mac(body: body, previous: verdict.lastMAC)
        if first {
          first = false
          // Record 1 follows the chain's start; a later first record's predecessor is gone.
          if record.seq == 1, checked != mac {
            verdict.problem = "\(place) (record 1) was changed"
            return verdict
          }
        } else if record.seq != verdict.lastSeq + 1 {
          verdict.problem =
            "\(place) has sequence number \(record.seq) where \(verdict.lastSeq + 1) was due: "
            + (record.seq > verdict.lastSeq + 1 ? "records were removed" : "records were reordered")
          return verdict
        } else if checked != mac {
          verdict.problem = "\(place) (record \(record.seq)) was changed"
          return verdict
        }
        verdict.good += 1
        verdict.lastSeq = record.seq
        verdict.lastMAC = mac
      }
    }
    if let expectedLast, expectedLast > verdict.lastSeq {
      verdict.problem =
        "the log ends at record \(verdict.lastSeq), but keychaind wrote up to \(expectedLast): "
        + "records were cut from the end"
    }
    return verdict
  }

  static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
      for (index, byte) in bytes.enumerated() {
        buffer[index * 2] = digits[Int(byte >> 4)]
        buffer[index * 2 + 1] = digits[Int(byte & 0xF)]
      }
      return bytes.count * 2
    }
  }

  static func bytes(hex: Substring) -> [UInt8]? {
    guard hex.count % 2 == 0 else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(hex.count / 2)
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
      result.append(byte)
      index = next
    }
    return result
  }
}
