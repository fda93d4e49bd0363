// SPDX-License-Identifier: MIT
//
// Lower-case hexadecimal, for digests and checks written into files. By hand because
// `String(format: "%02x")` goes through Foundation's formatter for every byte: it was the
// larger part of a commit's ledger record and of an audit line.

/// Bytes as lower-case hexadecimal text. Arrays rather than generic collections: a generic
/// public function is not specialised in the modules that call it, and went byte by byte
/// through protocol witnesses.
public enum Hex {
  static let digits = Array("0123456789abcdef".utf8)

  /// `bytes` as text, two digits a byte.
  public static func string(_ bytes: [UInt8]) -> String {
    String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
      var index = 0
      for byte in bytes {
        buffer[index] = digits[Int(byte >> 4)]
        buffer[index + 1] = digits[Int(byte & 0xF)]
        index += 2
      }
      return index
    }
  }

  /// Appends `bytes`, two digits a byte, to `out`.
  public static func append(_ bytes: [UInt8], to out: inout [UInt8]) {
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0xF)])
    }
  }
}
