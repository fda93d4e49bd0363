// SPDX-License-Identifier: MIT
//
// The digest KWallet files carry, which is not quite SHA-1: KWallet's own SHA-1 class reads each
// 64-byte block as sixteen little-endian words and writes its five state words little-endian
// (on little-endian machines, where every KWallet file of the last fifteen years was written).
// Padding and rounds are SHA-1's. Written here: no library computes this variant; libgcrypt's
// SHA-1 serves KDE 4's files, which used the real one. Only for checking a wallet's content
// and deriving KDE 4's keys; never for security.

enum KWalletDigest {
  /// The variant digest of `data`: 20 bytes.
  static func sha1(_ data: [UInt8]) -> [UInt8] {
    var state: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
      0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )
    var message = data
    message.append(0x80)
    while message.count % 64 != 56 { message.append(0) }
    let bits = UInt64(data.count) &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      message.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    var words = [UInt32](repeating: 0, count: 80)
    for block in stride(from: 0, to: message.count, by: 64) {
      for index in 0..<16 {
        let at = block + index * 4
        // The variant: little-endian words.
        words[index] =
          UInt32(message[at]) | UInt32(message[at + 1]) << 8 | UInt32(message[at + 2]) << 16
          | UInt32(message[at + 3]) << 24
      }
      for index in 16..<80 {
        let mixed = words[index - 3] ^ words[index - 8] ^ words[index - 14] ^ words[index - 16]
        words[index] = mixed << 1 | mixed >> 31
      }
      var (a, b, c, d, e) = state
      for index in 0..<80 {
        let (f, k): (UInt32, UInt32)
        switch index {
        case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
        case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
        case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
        default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
        }
        let next = (a << 5 | a >> 27) &+ f &+ e &+ k &+ words[index]
        (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, next)
      }
      state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }
    return [state.0, state.1, state.2, state.3, state.4].flatMap { word in
      (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32($0 * 8)) }
    }
  }
}
