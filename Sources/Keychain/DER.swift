// SPDX-License-Identifier: MIT
//
// Just enough DER for PKCS #1 RSA keys: a SEQUENCE of INTEGERs, written and read.

enum DER {
  /// A SEQUENCE of unsigned INTEGERs (big-endian magnitudes).
  static func sequence(of integers: [[UInt8]]) -> [UInt8] {
    element(tag: 0x30, integers.flatMap { integer($0) })
  }

  /// The INTEGERs of a SEQUENCE that fills `bytes` exactly; nil for anything else.
  static func integers(inSequence bytes: [UInt8]) -> [[UInt8]]? {
    guard let (body, rest) = element(tag: 0x30, in: bytes[...]), rest.isEmpty else { return nil }
    var remaining = body
    var integers: [[UInt8]] = []
    while !remaining.isEmpty {
      guard let (value, rest) = element(tag: 0x02, in: remaining), !value.isEmpty,
        value.first! & 0x80 == 0
      else { return nil }
      integers.append(Array(value.drop { $0 == 0 }))
      remaining = rest
    }
    return integers
  }

  private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
    var body = Array(magnitude.drop { $0 == 0 })
    if body.isEmpty || body[0] & 0x80 != 0 { body.insert(0, at: 0) }
    return element(tag: 0x02, body)
  }

  private static func element(tag: UInt8, _ body: [UInt8]) -> [UInt8] {
    var out = [tag]
    if body.count < 0x80 {
      out.append(UInt8(body.count))
    } else {
      var length = body.count
      var digits: [UInt8] = []
      while length > 0 {
        digits.insert(UInt8(length & 0xff), at: 0)
        length >>= 8
      }
      out += [0x80 | UInt8(digits.count)] + digits
    }
    return out + body
  }

  private static func element(tag: UInt8, in bytes: ArraySlice<UInt8>) -> (
    body: ArraySlice<UInt8>, rest: ArraySlice<UInt8>
  )? {
    var index = bytes.startIndex
    guard index < bytes.endIndex, bytes[index] == tag else { return nil }
    index += 1
    guard index < bytes.endIndex else { return nil }
    var length = Int(bytes[index])
    index += 1
    if length & 0x80 != 0 {
      let count = length & 0x7f
      guard count >= 1, count <= 4, bytes.endIndex - index >= count else { return nil }
      length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
      index += count
    }
    guard bytes.endIndex - index >= length else { return nil }
    return (bytes[index..<(index + length)], bytes[(index + length)...])
  }
}
