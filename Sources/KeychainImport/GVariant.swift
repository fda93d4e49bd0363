// SPDX-License-Identifier: MIT
//
// The few GVariant shapes of libsecret's and oo7's keyring files, read strictly and written in
// normal form. This is GLib's serialisation, not D-Bus marshalling: integers little-endian at
// their natural alignment, counted from the start of the value; strings with their NUL; a
// variable-sized container keeps the end of each variable member (a struct's last one aside)
// or element as a framing offset at its own end, each offset as wide as the container's size
// needs (1, 2, 4 or 8 bytes), a struct's in reverse member order.
//
// Reading checks every offset against its container and rejects what normal form never holds
// (offsets out of order, padding that is not zero, a string without its NUL or with an inner
// one, invalid UTF-8), so a damaged file is reported with the byte where it is wrong, never
// half read. Hand-written: no Swift package reads or writes GVariant.

import KeychainCrypto

/// One serialised value inside a borrowed buffer, as a range of it.
struct GVariantValue {
  // Invariant, as for `ByteReader`: `bytes` is borrowed inside the `withUnsafeBytes` closure of
  // the buffer it views, and no value outlives that closure.
  let bytes: UnsafeRawBufferPointer
  let range: Range<Int>
  let file: String
  /// Where `bytes` start in the file, so that errors name the file's offset.
  let base: Int

  /// The shape of one member of a struct.
  enum Member {
    case fixed(size: Int, alignment: Int)
    case variable(alignment: Int)
  }

  var count: Int { range.count }

  func damaged(_ reason: String, at position: Int? = nil) -> KeyringFileError {
    .malformed(
      file: file, position: "byte \(base + (position ?? range.lowerBound))", reason: reason)
  }

  /// The width of the framing offsets of a container of `size` bytes.
  static func offsetWidth(_ size: Int) -> Int {
    size == 0 ? 0 : size <= 0xFF ? 1 : size <= 0xFFFF ? 2 : size <= 0xFFFF_FFFF ? 4 : 8
  }

  static func aligned(_ offset: Int, _ alignment: Int) -> Int {
    (offset + alignment - 1) & ~(alignment - 1)
  }

  private func slice(_ start: Int, _ end: Int) -> GVariantValue {
    GVariantValue(
      bytes: bytes, range: (range.lowerBound + start)..<(range.lowerBound + end), file: file,
      base: base)
  }

  /// The little-endian unsigned number of `width` bytes at `offset` (relative).
  private func number(at offset: Int, width: Int) -> UInt64 {
    var value: UInt64 = 0
    for index in (0..<width).reversed() {
      value = value << 8 | UInt64(bytes[range.lowerBound + offset + index])
    }
    return value
  }

  /// The framing offset `index` words from the end (0 = the last word), checked to lie before
  /// the offsets themselves.
  private func framingOffset(_ index: Int, _ what: String) throws -> Int {
    let width = Self.offsetWidth(count)
    let at = count - (index + 1) * width
    guard width > 0, at >= 0 else { throw damaged("\(what) is too short for its framing") }
    let value = number(at: at, width: width)
    guard value <= UInt64(at) else {
      throw damaged("\(what) has a framing offset of \(value) past its end", at: at)
    }
    return Int(value)
  }

  /// Checks that the padding in `from..<to` (relative) is zero, as normal form writes it.
  private func checkPadding(_ from: Int, _ to: Int, _ what: String) throws {
    for offset in from..<to where bytes[range.lowerBound + offset] != 0 {
      throw damaged("\(what) has padding that is not zero", at: range.lowerBound + offset)
    }
  }

  /// A struct's members. Every layout here ends in a variable-sized member, which takes what is
  /// left before the framing offsets.
  func members(_ layout: [Member], _ what: String) throws -> [GVariantValue] {
    let width = Self.offsetWidth(count)
    let framed = layout.dropLast().filter { if case .variable = $0 { true } else { false } }.count
    let limit = count - framed * width
    guard limit >= 0 else { throw damaged("\(what) is too short for its framing") }
    var members: [GVariantValue] = []
    var position = 0
    var used = 0
    for (index, member) in layout.enumerated() {
      let end: Int
      let start: Int
      switch member {
      case .fixed(let size, let alignment):
        start = Self.aligned(position, alignment)
        end = start + size
      case .variable(let alignment):
        start = Self.aligned(position, alignment)
        if index == layout.count - 1 {
          end = limit
        } else {
          end = try framingOffset(used, what)
          used += 1
        }
      }
      guard start <= end, end <= limit else {
        throw damaged("\(what) has a member that runs past its end", at: range.lowerBound + start)
      }
      try checkPadding(position, start, what)
      members.append(slice(start, end))
      position = end
    }
    return members
  }

  /// An array's elements, each variable-sized and aligned to `alignment`; at most `limit`.
  func elements(alignment: Int, limit: Int, _ what: String) throws -> [GVariantValue] {
    guard count > 0 else { return [] }
    let width = Self.offsetWidth(count)
    let tableStart = try framingOffset(0, what)
    let table = count - tableStart
    guard table % width == 0 else {
      throw damaged("\(what) has a table of framing offsets of \(table) bytes", at: tableStart)
    }
    let elements = table / width
    guard elements <= limit else { throw damaged("\(what) holds over \(limit) elements") }
    var values: [GVariantValue] = []
    values.reserveCapacity(elements)
    var position = 0
    for index in 0..<elements {
      let start = Self.aligned(position, alignment)
      let end = number(at: tableStart + index * width, width: width)
      guard start <= tableStart, UInt64(start) <= end, end <= UInt64(tableStart) else {
        throw damaged(
          "\(what): element \(index)'s framing offset \(end) is out of order",
          at: range.lowerBound + tableStart + index * width)
      }
      try checkPadding(position, start, what)
      values.append(slice(start, Int(end)))
      position = Int(end)
    }
    return values
  }

  func u32(_ what: String) throws -> UInt32 {
    guard count == 4 else { throw damaged("\(what) is not 4 bytes") }
    return UInt32(number(at: 0, width: 4))
  }

  func u64(_ what: String) throws -> UInt64 {
    guard count == 8 else { throw damaged("\(what) is not 8 bytes") }
    return number(at: 0, width: 8)
  }

  /// The bytes of an `ay`.
  var byteArray: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[range]) }

  /// A string: valid UTF-8, ending in its only NUL.
  func string(_ what: String) throws -> String {
    guard count > 0, bytes[range.upperBound - 1] == 0 else {
      throw damaged("\(what) does not end in a NUL")
    }
    let text = UnsafeRawBufferPointer(rebasing: bytes[range.lowerBound..<(range.upperBound - 1)])
    guard !text.contains(0), let string = String(validating: text, as: UTF8.self) else {
      throw damaged("\(what) is not valid UTF-8 text")
    }
    return string
  }
}

/// Writes values in GVariant's normal form. What it writes holds no secret but an item's
/// plaintext, which `V1Writer` lays out in secure memory itself with `structLayout`.
enum GVariantWriter {
  /// The width of the framing offsets of a container whose content is `body` bytes with
  /// `offsets` framing offsets, as GLib chooses it: the smallest that can say the total size.
  static func offsetWidth(body: Int, offsets: Int) -> Int {
    if offsets == 0 { return 0 }
    for width in [1, 2, 4] where body + offsets * width <= (1 << (8 * width)) - 1 {
      return width
    }
    return 8
  }

  static func appendNumber(_ value: UInt64, width: Int, to out: inout [UInt8]) {
    for index in 0..<width { out.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
  }

  static func pad(_ out: inout [UInt8], to alignment: Int) {
    while out.count % alignment != 0 { out.append(0) }
  }

  static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

  /// An array of variable-sized elements, each aligned to `alignment`.
  static func array(_ elements: [[UInt8]], alignment: Int) -> [UInt8] {
    var out: [UInt8] = []
    var ends: [Int] = []
    for element in elements {
      pad(&out, to: alignment)
      out += element
      ends.append(out.count)
    }
    let width = offsetWidth(body: out.count, offsets: ends.count)
    for end in ends { appendNumber(UInt64(end), width: width, to: &out) }
    return out
  }

  /// A struct of `members` (bytes and alignment) whose last member is variable-sized and whose
  /// other variable-sized members are flagged `framed`.
  static func structure(_ members: [(bytes: [UInt8], alignment: Int, framed: Bool)]) -> [UInt8] {
    var out: [UInt8] = []
    var ends: [Int] = []
    for member in members {
      pad(&out, to: member.alignment)
      out += member.bytes
      if member.framed { ends.append(out.count) }
    }
    let width = offsetWidth(body: out.count, offsets: ends.count)
    for end in ends.reversed() { appendNumber(UInt64(end), width: width, to: &out) }
    return out
  }

  /// A dictionary entry `{sX}` of a string key and a variable-sized value.
  static func entry(_ key: String, _ value: [UInt8]) -> [UInt8] {
    structure([(string(key), 1, true), (value, 1, false)])
  }
}
