// SPDX-License-Identifier: MIT
//
// Blowfish, for reading KDE's KWallet files only: KWallet encrypts a wallet with Blowfish under a
// 448-bit key, in CBC mode with a zero IV (current files) or block by block (KDE 4's). Decryption
// only; never used for anything keychaind keeps.

import CKeychainGcrypt

/// Blowfish decryption of whole 8-byte blocks, through libgcrypt.
public enum Blowfish {
  /// The cipher's block size.
  public static let blockSize = 8

  /// Decrypts `ciphertext` in CBC mode with an all-zero IV; nothing is removed.
  public static func decryptCBC(_ ciphertext: [UInt8], key: SecureBytes) throws -> SecureBytes {
    try decrypt(ciphertext, key: key, mode: GCRY_CIPHER_MODE_CBC)
  }

  /// Decrypts `ciphertext` block by block (ECB).
  public static func decryptECB(_ ciphertext: [UInt8], key: SecureBytes) throws -> SecureBytes {
    try decrypt(ciphertext, key: key, mode: GCRY_CIPHER_MODE_ECB)
  }

  private static func decrypt(_ ciphertext: [UInt8], key: SecureBytes, mode: gcry_cipher_modes)
    throws -> SecureBytes
  {
    guard ciphertext.count % blockSize == 0 else {
      throw CryptoError.invalidInput("Blowfish ciphertext must be a multiple of 8 bytes")
    }
    guard (4...72).contains(key.count) else {
      throw CryptoError.invalidInput("a Blowfish key is 4 to 72 bytes")
    }
    let cipher = try Cipher(algorithm: GCRY_CIPHER_BLOWFISH, mode: mode, key: key)
    if mode == GCRY_CIPHER_MODE_CBC {
      try [UInt8](repeating: 0, count: blockSize).withUnsafeBytes { try cipher.setIV($0) }
    }
    return try SecureBytes(count: ciphertext.count) { out in
      try ciphertext.withUnsafeBytes { input in
        try cipher.apply(gcry_cipher_decrypt, input: input, output: out)
      }
    }
  }
}
