// SPDX-License-Identifier: MIT
//
// The few Qt `QDataStream` forms (Qt 5, big-endian) that cross KWallet's D-Bus API inside
// `ay` values: a `QString` (a password as `readEntry` returns it) and a `QMap<QString,QString>`
// (`writeMap`'s argument, `readMap`'s reply). Written here by hand: no Swift library reads Qt's
// serialisation, and these two forms are a dozen lines each.

/// Qt's serialisation of strings and string maps.
public enum QDataStream {
  /// Why bytes are not the form expected.
  public struct Malformed: Error, CustomStringConvertible, Equatable {
    /// Where, in bytes from the start, the form broke off.
    public let offset: Int
    public var description: String { "not a Qt data stream value (at byte \(offset))" }
  }

  /// `QString`: a 32-bit byte length (0xFFFFFFFF for a null string), then UTF-16BE.
  public static func encode(_ string: String) -> [UInt8] {
    var out: [UInt8] = []
    append(string, to: &out)
    return out
  }

  /// `QMap<QString,QString>`: a 32-bit count, then each key and value, in descending key order
  /// as Qt 5 writes them (readers accept any order).
  public static func encode(_ map: [String: String]) -> [UInt8] {
    var out: [UInt8] = []
    appendUInt32(UInt32(map.count), to: &out)
    // Qt orders QString keys by UTF-16 code units.
    for key in map.keys.sorted(by: { $0.utf16.lexicographicallyPrecedes($1.utf16) })
      .reversed()
    {
      append(key, to: &out)
      append(map[key] ?? "", to: &out)
    }
    return out
  }

  /// The string `bytes` holds, which must be exactly one `QString`.
  public static func decodeString(_ bytes: [UInt8]) throws(Malformed) -> String {
    var reader = Reader(bytes: bytes)
    let string = try reader.string()
    try reader.end()
    return string
  }

  /// The map `bytes` holds, which must be exactly one `QMap<QString,QString>`; a repeated key
  /// keeps its last value.
  public static func decodeMap(_ bytes: [UInt8]) throws(Malformed) -> [String: String] {
    var reader = Reader(bytes: bytes)
    let count = try reader.uint32()
    // Each pair takes at least 8 bytes: a count larger than that cannot be honest.
    guard Int(count) <= (bytes.count - 4) / 8 else { throw Malformed(offset: 0) }
    var map: [String: String] = [:]
    for _ in 0..<count {
      let key = try reader.string()
      map[key] = try reader.string()
    }
    try reader.end()
    return map
  }

  private static func append(_ string: String, to out: inout [UInt8]) {
    let units = Array(string.utf16)
    appendUInt32(UInt32(units.count * 2), to: &out)
    for unit in units { out += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
  }

  private static func appendUInt32(_ value: UInt32, to out: inout [UInt8]) {
    out += [
      UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF),
      UInt8(value & 0xFF),
    ]
  }

  private struct Reader {
    let bytes: [UInt8]
    var offset = 0

    mutating func uint32() throws(Malformed) -> UInt32 {
      guard bytes.count - offset >= 4 else { throw Malformed(offset: offset) }
      defer { offset += 4 }
      return bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// A `QString`; a null one reads as empty.
    mutating func string() throws(Malformed) -> String {
      let start = offset
      let length = try uint32()
      if length == 0xFFFF_FFFF { return "" }
      guard length % 2 == 0, bytes.count - offset >= Int(length) else {
        throw Malformed(offset: start)
      }
      var units: [UInt16] = []
      units.reserveCapacity(Int(length) / 2)
      for index in stride(from: offset, to: offset + Int(length), by: 2) {
        units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
      }
      offset += Int(length)
      return String(decoding: units, as: UTF16.self)
    }

    func end() throws(Malformed) {
      guard offset == bytes.count else { throw Malformed(offset: offset) }
    }
  }
}
