// SPDX-License-Identifier: MIT
//
// One line of the audit log: who touched which item, how, and what was decided. It names the
// item by its object path and the application by its identity; it never holds a secret, a
// label or an attribute value, so the file says who read what without saying what it was.

import Foundation

/// One access, as the audit log records it.
public struct AuditRecord: Codable, Sendable, Equatable {
  /// What was done.
  public enum Operation: String, Codable, Sendable, CaseIterable {
    case read, create, write, delete, search, grant, revoke, mode
    /// An alias (the default keyring) pointed elsewhere.
    case alias
    /// A key slot added or removed, or a collection opened or given a new password through a
    /// slot other than its password (a recovery key).
    case slot
    /// The log's first record in a new file: the one before it is in the file rotated out.
    case rotate
    /// keychaind got the chain's key: this record's MAC vouches for the hashed records before.
    case seal
  }

  /// What was decided, and why.
  public enum Decision: String, Codable, Sendable, CaseIterable {
    /// The application owns the item.
    case owner
    /// A remembered grant allowed it.
    case grant
    /// The user allowed it once, for this process.
    case allowedOnce = "allowed-once"
    /// The user chose "Always allow" just now.
    case allowedAlways = "allowed-always"
    /// The user allowed a tool run in a terminal or login, for that session.
    case allowedInSession = "allowed-in-session"
    /// The user or a recent denial refused it.
    case denied
    /// The caller has no local display, so nobody could be asked.
    case noDisplay = "no-display"
    /// No dialog could be shown (no pinentry, or one that failed): nobody was asked.
    case noDialog = "no-dialog"
    /// `audit` mode: allowed, but `protect` would have asked.
    case wouldAsk = "would-ask"
    /// Nothing to decide: the caller's own action on the access rules, or an unowned item
    /// in `audit` mode.
    case allowed
  }

  /// The application, as identified.
  public struct App: Codable, Sendable, Equatable {
    public var key: String
    public var kind: String
    public var display: String
    /// How sure the identification is (`AppIdentity.strength`).
    public var strength: String
    public var verified: Bool
    public var pid: UInt32?
    /// These fields as JSON, made once per application rather than once per record.
    let json: String

    enum CodingKeys: String, CodingKey {
      case key, kind, display, strength, verified, pid
    }

    /// `strength` when given says how sure the identification is instead of the identity's
    /// kind (a command keychainctl exec says it runs: its word).
    public init(_ identity: AppIdentity, pid: UInt32?, strength: String? = nil) {
      key = identity.key
      kind = identity.kind.rawValue
      display = identity.display
      self.strength = strength ?? identity.strength
      verified = identity.verified
      self.pid = pid
      json = Self.json(key, kind, display, self.strength, verified, pid)
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      key = try container.decode(String.self, forKey: .key)
      kind = try container.decode(String.self, forKey: .kind)
      display = try container.decode(String.self, forKey: .display)
      strength = try container.decode(String.self, forKey: .strength)
      verified = try container.decode(Bool.self, forKey: .verified)
      pid = try container.decodeIfPresent(UInt32.self, forKey: .pid)
      json = Self.json(key, kind, display, strength, verified, pid)
    }

    static func json(
      _ key: String, _ kind: String, _ display: String, _ strength: String, _ verified: Bool,
      _ pid: UInt32?
    ) -> String {
      var text = "{\"display\":"
      AuditRecord.quote(display, into: &text)
      text += ",\"key\":"
      AuditRecord.quote(key, into: &text)
      text += ",\"kind\":"
      AuditRecord.quote(kind, into: &text)
      if let pid { text += ",\"pid\":\(pid)" }
      text += ",\"strength\":"
      AuditRecord.quote(strength, into: &text)
      text += ",\"verified\":\(verified)}"
      return text
    }
  }

  /// The record format's version.
  public var v = 1
  /// Its place in the chain: one more than the record before it.
  public var seq: UInt64 = 0
  /// When, as Unix time with microseconds.
  public var time: Double
  public var op: Operation
  public var decision: Decision
  public var app: App
  /// The caller's unique bus name.
  public var sender: String
  /// The item's object path, or a collection's for collection-wide operations.
  public var item: String?
  /// How many identical reads the line stands for, the last at `time`, when it is more than
  /// one: repeats of a read within a minute are written as one line (`AuditCoalescer`).
  public var count: Int?
  /// What changed, in words, for records that name no item (`mode`: "protect → off").
  public var detail: String?
  /// `rotate`: the link of the record before it (`AuditChain.Link`, hex), in the file before.
  public var prev: String?
  /// `rotate`: the last record the rotation dropped with the oldest file (0: none).
  public var dropped: UInt64?
  /// `seal`: the first record the sealing keychaind wrote itself; hashed records before it
  /// it found in the file, written by a keychaind that stopped before sealing them.
  public var resumed: UInt64?

  public init(
    time: Date = Date(), op: Operation, decision: Decision, app: App, sender: String,
    item: String? = nil, count: Int? = nil
  ) {
    self.time = (time.timeIntervalSince1970 * 1_000_000).rounded() / 1_000_000
    self.op = op
    self.decision = decision
    self.app = app
    self.sender = sender
    self.item = item
    self.count = count
  }

  /// The record's time.
  public var date: Date { Date(timeIntervalSince1970: time) }

  /// The record as one line of JSON, keys in order (see `appendJSON`); `JSONDecoder` reads it
  /// back.
  public var json: String {
    var bytes: [UInt8] = []
    appendJSON(to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Appends the record's JSON, keys in order, to `out`. Written by hand, in bytes, numbers
  /// included: it is made for every read (Foundation's encoder took ten times as long, and
  /// building a `String` piece by piece twice as long as this). Each field is spelled out with
  /// its key as one literal: helpers taking the key's name cost a read 4,000 instructions.
  public func appendJSON(to out: inout [UInt8]) {
    out.reserveCapacity(out.count + app.json.utf8.count + (item?.utf8.count ?? 0) + 160)
    out.append(contentsOf: #"{"app":"#.utf8)
    out.append(contentsOf: app.json.utf8)
    if let count {
      out.append(contentsOf: #","count":"#.utf8)
      Self.appendDecimal(count, to: &out)
    }
    out.append(contentsOf: #","decision":""#.utf8)
    out.append(contentsOf: decision.rawValue.utf8)
    out.append(UInt8(ascii: "\""))
    if let detail {
      out.append(contentsOf: #","detail":"#.utf8)
      Self.quote(detail, into: &out)
    }
    if let dropped {
      out.append(contentsOf: #","dropped":"#.utf8)
      Self.appendDecimal(dropped, to: &out)
    }
    if let item {
      out.append(contentsOf: #","item":"#.utf8)
      Self.quote(item, into: &out)
    }
    out.append(contentsOf: #","op":""#.utf8)
    out.append(contentsOf: op.rawValue.utf8)
    out.append(UInt8(ascii: "\""))
    if let prev {
      out.append(contentsOf: #","prev":"#.utf8)
      Self.quote(prev, into: &out)
    }
    if let resumed {
      out.append(contentsOf: #","resumed":"#.utf8)
      Self.appendDecimal(resumed, to: &out)
    }
    out.append(contentsOf: #","sender":"#.utf8)
    Self.quote(sender, into: &out)
    out.append(contentsOf: #","seq":"#.utf8)
    Self.appendDecimal(seq, to: &out)
    out.append(contentsOf: #","time":"#.utf8)
    Self.appendTime(time, to: &out)
    out.append(contentsOf: #","v":"#.utf8)
    Self.appendDecimal(v, to: &out)
    out.append(UInt8(ascii: "}"))
  }

  /// `value` in decimal.
  static func appendDecimal(_ value: some BinaryInteger, to out: inout [UInt8]) {
    if value < 0 { out.append(UInt8(ascii: "-")) }
    appendDigits(UInt64(value.magnitude), width: 1, to: &out)
  }

  /// `value`'s decimal digits, at least `width` of them (zeros in front).
  private static func appendDigits(_ value: UInt64, width: Int, to out: inout [UInt8]) {
    var divisor: UInt64 = 1
    var places = 1
    while places < width || value / divisor >= 10 {
      divisor *= 10
      places += 1
    }
    var rest = value
    while divisor > 0 {
      out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
      rest %= divisor
      divisor /= 10
    }
  }

  /// A time rounded to microseconds as Swift prints it (`1732790000.1234`, `1732790000.0`):
  /// seconds, a point, and the microseconds without their trailing zeros. `JSONDecoder` reads
  /// back the same `Double`.
  static func appendTime(_ time: Double, to out: inout [UInt8]) {
    let micros = Int64((time * 1_000_000).rounded())
    guard time >= 0, time < 1e12, Double(micros) / 1_000_000 == time else {
      out.append(contentsOf: "\(time)".utf8)  // not a rounded time: Swift's own text
      return
    }
    appendDecimal(micros / 1_000_000, to: &out)
    out.append(UInt8(ascii: "."))
    var fraction = micros % 1_000_000
    var width = 6
    while width > 1, fraction % 10 == 0 {
      fraction /= 10
      width -= 1
    }
    appendDigits(UInt64(fraction), width: width, to: &out)
  }

  /// `value` as a JSON string: quotes, backslashes and control characters escaped.
  static func quote(_ value: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"):
        out.append(UInt8(ascii: "\\"))
        out.append(byte)
      case 0..<0x20, 0x7F:
        let digits = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
      default:
        out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// `value` as a JSON string (see `quote(_:into:)`), appended to `text`.
  static func quote(_ value: String, into text: inout String) {
    var bytes: [UInt8] = []
    quote(value, into: &bytes)
    text += String(decoding: bytes, as: UTF8.self)
  }

  /// How records keychaind writes about its own log (`rotate`, `seal`) name it.
  public static let keychaind = App(
    AppIdentity(kind: .system, key: "keychaind", display: "keychaind", verified: true), pid: nil)

  /// Whether the record shows something the user did not plainly allow.
  public var isRefusal: Bool {
    decision == .denied || decision == .noDisplay || decision == .noDialog
  }
}
