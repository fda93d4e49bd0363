// SPDX-License-Identifier: MIT
//
// AES-256-GCM for the store, AES-128-CBC with PKCS#7 for Secret Service DH sessions.
// Plaintext is always produced into secure memory; only ciphertext lives in ordinary arrays.

import CKeychainGcrypt

/// AES-256 in Galois/Counter Mode: authenticated encryption with associated data.
public enum AESGCM {
  /// Key size in bytes.
  public static let keySize = 32
  /// Nonce size in bytes; a random nonce per message is safe for 2^32 messages per key.
  public static let nonceSize = 12
  /// Authentication tag size in bytes.
  public static let tagSize = 16

  /// Encrypts `plaintext`; returns nonce ‖ ciphertext ‖ tag. `associatedData` is authenticated
  /// but not encrypted: opening with different associated data fails.
  public static func seal<Bytes: ByteInput>(
    _ plaintext: Bytes, key: SecureBytes, associatedData: [UInt8] = [], nonce: [UInt8]? = nil
  ) throws -> [UInt8] {
    try seal(plaintext, key: CipherKey.gcm(key), associatedData: associatedData, nonce: nonce)
  }

  /// `seal` under a key kept for many operations (see `CipherKey`).
  public static func seal<Bytes: ByteInput>(
    _ plaintext: Bytes, key: CipherKey, associatedData: [UInt8] = [], nonce: [UInt8]? = nil
  ) throws -> [UInt8] {
    // libgcrypt's nonce generator: unpredictable, never repeating, and a hash per call where
    // the strong generator mixed its whole pool (128,000 instructions, most of a CreateItem's
    // sealing). GCM needs its nonces unique, not secret.
    let nonce = nonce ?? Random.nonce(count: nonceSize)
    guard nonce.count == nonceSize else {
      throw CryptoError.invalidInput("GCM nonce must be 12 bytes")
    }
    return try key.withCipher { cipher in
      try nonce.withUnsafeBytes { try cipher.setIV($0) }
      try Gcrypt.check(
        gcry_cipher_authenticate(cipher.handle, associatedData, associatedData.count))
      return try plaintext.withUnsafeBytes { input in
        var sealed = nonce + [UInt8](repeating: 0, count: input.count + tagSize)
        try sealed.withUnsafeMutableBytes { out in
          let body = UnsafeMutableRawBufferPointer(
            rebasing: out[nonceSize..<(nonceSize + input.count)])
          try cipher.apply(gcry_cipher_encrypt, input: input, output: body)
          if input.count == 0 {
            // GCM over empty input still needs the final call for a correct tag.
            try Gcrypt.check(gcry_cipher_encrypt(cipher.handle, nil, 0, nil, 0))
          }
          try Gcrypt.check(
            gcry_cipher_gettag(cipher.handle, out.baseAddress! + nonceSize + input.count, tagSize))
        }
        return sealed
      }
    }
  }

  /// Decrypts and verifies what `seal` produced. Any change to the bytes, the key or the
  /// associated data throws `authenticationFailed`, and no plaintext is returned.
  public static func open<Bytes: ByteInput>(
    _ sealed: Bytes, key: SecureBytes, associatedData: [UInt8] = []
  ) throws -> SecureBytes {
    try open(sealed, key: CipherKey.gcm(key), associatedData: associatedData)
  }

  /// `open` under a key kept for many operations (see `CipherKey`).
  public static func open<Bytes: ByteInput>(
    _ sealed: Bytes, key: CipherKey, associatedData: [UInt8] = []
  ) throws -> SecureBytes {
    try sealed.withUnsafeBytes { all in
      guard all.count >= nonceSize + tagSize else { throw CryptoError.authenticationFailed }
      return try key.withCipher { cipher in
        try cipher.setIV(UnsafeRawBufferPointer(rebasing: all[0..<nonceSize]))
        try Gcrypt.check(
          gcry_cipher_authenticate(cipher.handle, associatedData, associatedData.count))
        let length = all.count - nonceSize - tagSize
        return try SecureBytes(count: length) { out in
          let body = UnsafeRawBufferPointer(rebasing: all[nonceSize..<(nonceSize + length)])
          try cipher.apply(gcry_cipher_decrypt, input: body, output: out)
          if length == 0 { try Gcrypt.check(gcry_cipher_decrypt(cipher.handle, nil, 0, nil, 0)) }
          try Gcrypt.check(
            gcry_cipher_checktag(cipher.handle, all.baseAddress! + nonceSize + length, tagSize))
        }
      }
    }
  }
}

/// AES-128 in CBC mode with PKCS#7 padding, as the Secret Service's DH session uses it.
public enum AESCBC {
  /// Key size in bytes.
  public static let keySize = 16
  /// Block and IV size in bytes.
  public static let blockSize = 16

  /// Pads and encrypts `plaintext`. Padding is always 1–16 bytes, so aligned input gains a
  /// whole block, which strict clients such as libsecret require.
  ///
  /// The whole blocks are encrypted straight from `plaintext` into the result, and only the
  /// last block, with its padding, goes through a block of secure scratch: a big secret is
  /// not copied once more before it is encrypted (BigSecretCopyTests counts).
  public static func encrypt<Bytes: ByteInput>(_ plaintext: Bytes, key: SecureBytes, iv: [UInt8])
    throws -> [UInt8]
  {
    try encrypt(plaintext, key: CipherKey.cbc(key), iv: iv)
  }

  /// `encrypt` under a key kept for many operations (see `CipherKey`).
  public static func encrypt<Bytes: ByteInput>(_ plaintext: Bytes, key: CipherKey, iv: [UInt8])
    throws -> [UInt8]
  {
    try withCipher(key, iv: iv) { cipher in try encrypt(plaintext, cipher) }
  }

  private static func encrypt<Bytes: ByteInput>(_ plaintext: Bytes, _ cipher: Cipher) throws
    -> [UInt8]
  {
    try plaintext.withUnsafeBytes { input in
      let whole = input.count - input.count % blockSize
      let last = SecureBytes(count: blockSize) { block in
        let tail = UnsafeRawBufferPointer(rebasing: input[whole...])
        if !tail.isEmpty { block.copyMemory(from: tail) }
        for index in tail.count..<blockSize { block[index] = UInt8(blockSize - tail.count) }
      }
      // Every byte is written by the cipher: no need to zero the array first.
      return try [UInt8](unsafeUninitializedCapacity: whole + blockSize) { buffer, count in
        count = 0
        let out = UnsafeMutableRawBufferPointer(buffer)
        try cipher.apply(
          gcry_cipher_encrypt, input: UnsafeRawBufferPointer(rebasing: input[..<whole]),
          output: UnsafeMutableRawBufferPointer(rebasing: out[..<whole]))
        try last.withUnsafeBytes {
          try cipher.apply(
            gcry_cipher_encrypt, input: $0,
            output: UnsafeMutableRawBufferPointer(rebasing: out[whole...]))
        }
        count = whole + blockSize
      }
    }
  }

  /// Decrypts and strips PKCS#7 padding, checking every padding byte.
  public static func decrypt(_ ciphertext: [UInt8], key: SecureBytes, iv: [UInt8])
    throws -> SecureBytes
  {
    try decrypt(ciphertext, key: CipherKey.cbc(key), iv: iv)
  }

  /// `decrypt` under a key kept for many operations (see `CipherKey`).
  public static func decrypt(_ ciphertext: [UInt8], key: CipherKey, iv: [UInt8])
    throws -> SecureBytes
  {
    guard !ciphertext.isEmpty, ciphertext.count % blockSize == 0 else {
      throw CryptoError.invalidInput("CBC ciphertext must be a non-empty multiple of 16 bytes")
    }
    let padded = try decryptBlocks(ciphertext, key: key, iv: iv)
    return try padded.withUnsafeBytes { bytes in
      let pad = Int(bytes[bytes.count - 1])
      var bad = pad == 0 || pad > blockSize
      if !bad {
        for index in (bytes.count - pad)..<bytes.count where bytes[index] != UInt8(pad) {
          bad = true
        }
      }
      guard !bad else { throw CryptoError.badPadding }
      return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - pad)]))
    }
  }

  /// Encrypts whole blocks and adds nothing: for gnome-keyring's keyring files, which their
  /// writer pads with zeros itself.
  public static func encryptBlocks<Bytes: ByteInput>(
    _ plaintext: Bytes, key: SecureBytes, iv: [UInt8]
  ) throws -> [UInt8] {
    try plaintext.withUnsafeBytes { input in
      guard input.count % blockSize == 0 else {
        throw CryptoError.invalidInput("CBC plaintext must be a multiple of 16 bytes")
      }
      return try withCipher(CipherKey.cbc(key), iv: iv) { cipher in
        try [UInt8](unsafeUninitializedCapacity: input.count) { buffer, count in
          count = 0
          try cipher.apply(
            gcry_cipher_encrypt, input: input, output: UnsafeMutableRawBufferPointer(buffer))
          count = input.count
        }
      }
    }
  }

  /// Decrypts whole blocks and removes nothing: for gnome-keyring's keyring files, which pad
  /// with zeros and check their content with a digest instead.
  public static func decryptBlocks<Bytes: ByteInput>(
    _ ciphertext: Bytes, key: SecureBytes, iv: [UInt8]
  ) throws -> SecureBytes {
    try decryptBlocks(ciphertext, key: CipherKey.cbc(key), iv: iv)
  }

  private static func decryptBlocks<Bytes: ByteInput>(
    _ ciphertext: Bytes, key: CipherKey, iv: [UInt8]
  ) throws -> SecureBytes {
    try ciphertext.withUnsafeBytes { input in
      guard input.count % blockSize == 0 else {
        throw CryptoError.invalidInput("CBC ciphertext must be a multiple of 16 bytes")
      }
      return try withCipher(key, iv: iv) { cipher in
        try SecureBytes(count: input.count) { out in
          try cipher.apply(gcry_cipher_decrypt, input: input, output: out)
        }
      }
    }
  }

  /// Runs `body` with `key`'s cipher, its IV set to `iv`.
  private static func withCipher<T>(_ key: CipherKey, iv: [UInt8], _ body: (Cipher) throws -> T)
    throws -> T
  {
    guard iv.count == blockSize else { throw CryptoError.invalidInput("CBC IV must be 16 bytes") }
    return try key.withCipher { cipher in
      try iv.withUnsafeBytes { try cipher.setIV($0) }
      return try body(cipher)
    }
  }
}

/// Random bytes from libgcrypt's generator.
public enum Random {
  /// `count` strong random bytes in an ordinary array: for nonces, IVs and salts, not keys.
  public static func bytes(count: Int) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var out = [UInt8](repeating: 0, count: count)
    if count > 0 { gcry_randomize(&out, count, GCRY_STRONG_RANDOM) }
    return out
  }

  /// `count` unpredictable bytes from libgcrypt's nonce generator: for IVs sent in the clear
  /// beside what they encrypt, such as a session's IV for each secret it carries. libgcrypt's
  /// manual names this generator for IVs, and libsecret makes the same IV with it. It is seeded
  /// from the strong generator and then costs a hash per call, where `bytes` mixes the strong
  /// generator's whole pool every time (128,000 instructions under callgrind for one 16-byte IV,
  /// a tenth of a DH GetSecret's CPU time natively).
  public static func nonce(count: Int) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var out = [UInt8](repeating: 0, count: count)
    if count > 0 { gcry_create_nonce(&out, count) }
    return out
  }
}
