// SPDX-License-Identifier: MIT
//
// gnome-keyring's binary encoding, read with every bound checked: big-endian u32s, strings and
// byte arrays as a u32 length (0xFFFFFFFF for NULL) and the bytes, times as two u32s. A count
// or length is compared with the bytes left before anything is taken or allocated from it.

import Foundation

struct ByteReader {
  // Invariant: `bytes` is borrowed, not owned. A reader is made inside the `withUnsafeBytes`
  // closure of the buffer it reads and lives in that closure's scope only (a local, passed on
  // `inout`), so the bytes outlive it; what it returns is copied out or a range of offsets.
  let bytes: UnsafeRawBufferPointer
  let file: String
  /// Where `bytes` start in the file, so that errors name the file's offset.
  let base: Int
  private(set) var offset = 0

  init(_ bytes: UnsafeRawBufferPointer, file: String, base: Int = 0) {
    self.bytes = bytes
    self.file = file
    self.base = base
  }

  var remaining: Int { bytes.count - offset }

  func damaged(_ reason: String, at position: Int? = nil) -> KeyringFileError {
    .malformed(file: file, position: "byte \(base + (position ?? offset))", reason: reason)
  }

  /// The next `count` bytes' range, or the file is damaged.
  mutating func take(_ count: Int, _ what: String) throws -> Range<Int> {
    guard count >= 0, count <= remaining else {
      throw damaged("\(what) runs past the end (\(count) bytes wanted, \(remaining) left)")
    }
    defer { offset += count }
    return offset..<(offset + count)
  }

  mutating func byte(_ what: String) throws -> UInt8 {
    bytes[try take(1, what).lowerBound]
  }

  mutating func u32(_ what: String) throws -> UInt32 {
    let range = try take(4, what)
    return bytes[range].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }

  /// A count of things at least `minimumSize` bytes each, checked against what is left.
  mutating func count(_ what: String, minimumSize: Int, limit: Int) throws -> Int {
    let start = offset
    let value = Int(try u32(what))
    guard value <= limit else { throw damaged("\(value) \(what) are over \(limit)", at: start) }
    guard value * minimumSize <= remaining else {
      throw damaged("\(value) \(what) cannot fit in the \(remaining) bytes left", at: start)
    }
    return value
  }

  /// A time: seconds since 1970 as two u32s, high word first.
  mutating func time(_ what: String) throws -> UInt64 {
    UInt64(try u32(what)) << 32 | UInt64(try u32(what))
  }

  /// The range of a length-prefixed byte array; nil for NULL (0xFFFFFFFF).
  mutating func byteArray(_ what: String) throws -> Range<Int>? {
    let start = offset
    let length = try u32(what)
    if length == 0xFFFF_FFFF { return nil }
    guard length < 0x7FFF_FFFF else { throw damaged("\(what) has length \(length)", at: start) }
    return try take(Int(length), what)
  }

  /// A length-prefixed UTF-8 string without NUL; NULL reads as nil.
  mutating func string(_ what: String) throws -> String? {
    let start = offset
    guard let range = try byteArray(what) else { return nil }
    let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
    guard !slice.contains(0), let text = String(validating: slice, as: UTF8.self) else {
      throw damaged("\(what) is not valid UTF-8 text", at: start)
    }
    return text
  }
}
