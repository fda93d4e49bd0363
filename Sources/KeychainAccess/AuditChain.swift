// SPDX-License-Identifier: MIT
//
// How audit lines are chained. Each line is a record's JSON followed by a link to the line
// before it:
//
//     {"app":{…},"decision":"owner",…,"v":1,"mac":"<hex>"}
//     {"app":{…},"decision":"owner",…,"v":1,"hash":"<hex>"}
//
// `mac` is HMAC-SHA256(key, link of the line before ‖ the line without its link), with the key
// kept in the encrypted store: a process of the user can edit the file but not make a changed,
// dropped or reordered line check out. Until the store gives keychaind that key (at the first
// unlock), lines carry `hash`, SHA-256 over the same bytes: written at once, so that nothing
// waits in memory; proven once keychaind appends a `seal` record, whose MAC covers the hash
// chain before it. Each file after the first begins with a `rotate` record carrying the link
// before it (`prev`), so that the first line of what is left can be checked too, and saying
// which records the rotation dropped.

import Foundation
import KeychainCrypto

/// Encodes and checks chained audit lines.
public struct AuditChain: Sendable {
  let key: HMACKey

  public init(key: HMACKey) { self.key = key }

  /// The link of the first line's predecessor.
  public static let start = [UInt8](repeating: 0, count: 32)

  /// Where the chain had got to, as the store keeps it: its last sequence number and that
  /// line's MAC, so that records cut from the end while keychaind was not running are found
  /// when it starts again; and its floor, so that records cut from the start are.
  public struct Anchor: Sendable, Equatable {
    public var seq: UInt64
    public var mac: [UInt8]
    /// The first record the log must still hold, and the link before it; nil in an anchor
    /// kept before floors were.
    public var floor: Floor?

    public init(seq: UInt64, mac: [UInt8], floor: Floor? = nil) {
      self.seq = seq
      self.mac = mac
      self.floor = floor
    }
  }

  /// The oldest record the log must still hold (rotation dropped those before it), and the
  /// link of the line before it, which its MAC covers.
  public struct Floor: Sendable, Equatable {
    public var seq: UInt64
    public var prev: [UInt8]

    public init(seq: UInt64, prev: [UInt8]) {
      self.seq = seq
      self.prev = prev
    }

    /// A log that was never rotated: everything from record 1 on.
    public static let beginning = Floor(seq: 1, prev: AuditChain.start)
  }

  /// How a line links to the one before it.
  public enum Link: Sendable, Equatable {
    /// HMAC under the chain's key.
    case mac([UInt8])
    /// SHA-256, before the key was known; proven by a later line's MAC.
    case hash([UInt8])

    public var bytes: [UInt8] {
      switch self {
      case .mac(let bytes), .hash(let bytes): bytes
      }
    }

    var field: String {
      switch self {
      case .mac: "mac"
      case .hash: "hash"
      }
    }
  }

  /// The line for `record` after a line whose link was `previous`, MAC'd with `key` (hashed
  /// without one), and this line's link.
  public static func line(_ record: AuditRecord, after previous: [UInt8], key: HMACKey?) throws
    -> (line: String, link: Link)
  {
    var bytes: [UInt8] = []
    let link = try appendLine(record, after: previous, key: key, to: &bytes)
    return (String(decoding: bytes, as: UTF8.self), link)
  }

  /// Appends the line for `record` (see `line(_:after:key:)`), without a newline, to `out`;
  /// returns its link.
  static func appendLine(
    _ record: AuditRecord, after previous: [UInt8], key: HMACKey?, to out: inout [UInt8]
  ) throws -> Link {
    let start = out.count
    record.appendJSON(to: &out)
    let link: Link = try out.withUnsafeBytes { all in
      let body = UnsafeRawBufferPointer(rebasing: all[start...])
      if let key { return .mac(try mac(key, body: body, previous: previous)) }
      return .hash(SHA256.hash(previous + Array(body)))
    }
    out.removeLast()  // the record's closing brace: the link goes inside it
    out.append(contentsOf: ",\"\(link.field)\":\"".utf8)
    Hex.append(link.bytes, to: &out)
    out.append(contentsOf: "\"}".utf8)
    return link
  }

  /// The line for `record`, MAC'd (see `line(_:after:key:)`).
  public func line(_ record: AuditRecord, after previous: [UInt8]) throws -> (
    line: String, mac: [UInt8]
  ) {
    let (line, link) = try Self.line(record, after: previous, key: key)
    return (line, link.bytes)
  }

  static func mac(_ key: HMACKey, body: [UInt8], previous: [UInt8]) throws -> [UInt8] {
    try body.withUnsafeBytes { try mac(key, body: $0, previous: previous) }
  }

  static func mac(_ key: HMACKey, body: UnsafeRawBufferPointer, previous: [UInt8]) throws
    -> [UInt8]
  {
    try previous.withUnsafeBytes { try key.authenticationCode([$0, body]) }
  }

  static func hash(body: [UInt8], previous: [UInt8]) -> [UInt8] {
    SHA256.hash(previous + body)
  }

  /// Splits a line into its record's JSON and its link; nil if it ends in neither.
  public static func split(_ line: Substring) -> (body: [UInt8], link: Link)? {
    for field in ["mac", "hash"] {
      let marker = ",\"\(field)\":\""
      guard line.hasSuffix("\"}"), let range = line.range(of: marker, options: .backwards)
      else { continue }
      let hexText = line[range.upperBound..<line.index(line.endIndex, offsetBy: -2)]
      guard let bytes = bytes(hex: hexText), bytes.count == 32 else { return nil }
      let body = Array((line[..<range.lowerBound] + "}").utf8)
      return (body, field == "mac" ? .mac(bytes) : .hash(bytes))
    }
    return nil
  }

  /// The sequence number in a record's JSON (`"seq":N`), read without decoding the record:
  /// what start-up needs of the last line to chain on. Inside a string a quote is escaped, so
  /// the field can be no string's content.
  static func sequenceNumber(_ body: [UInt8]) -> UInt64? {
    let marker = Array(#","seq":"#.utf8)
    guard body.count > marker.count else { return nil }
    var index = body.count - marker.count
    while index >= 0, !body[index..<(index + marker.count)].elementsEqual(marker) { index -= 1 }
    guard index >= 0 else { return nil }
    let digits = body[(index + marker.count)...].prefix { (0x30...0x39).contains($0) }
    return digits.isEmpty ? nil : UInt64(String(decoding: digits, as: UTF8.self))
  }

  /// The record a line holds (its link not checked).
  public static func record(_ line: Substring) -> AuditRecord? {
    guard let (body, _) = split(line) else { return nil }
    return try? JSONDecoder().decode(AuditRecord.self, from: Data(body))
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
