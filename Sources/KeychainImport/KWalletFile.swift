// SPDX-License-Identifier: MIT
//
// KDE's wallet files (`<name>.kwl`, as kwalletd's backend writes them), read defensively: a 16-byte header (magic,
// version, cipher, hash), a plaintext index of MD5s of folder and key names (skipped), then the
// encrypted content, which decrypts to 8 random bytes, the payload's length, the payload, 1 to
// 8 bytes of padding and a 20-byte digest of the payload. The payload is a run of folders, each
// a name (a Qt string) and its entries: key, kind (1 password, 2 stream, 3 map) and value (a Qt
// byte array). Every length is checked against what is left before anything is taken.
//
// Keys: current files (minor version 1) use PBKDF2-SHA512 of the password over the wallet's
// 56-byte `.salt` file, 50,000 rounds, 56 bytes, with Blowfish-CBC (zero IV) and KWallet's
// variant SHA-1 (`KWalletDigest`) as the digest. KDE 4's (minor 0) derive the key from the
// password in 16-byte blocks hashed 2,000 times, in one of two layouts (KDE releases differ);
// both are tried, and the one whose digest matches wins. GPG wallets are not decrypted here.

import Foundation
import KWalletFormat
import KeychainCrypto

/// One entry of a wallet file, its value as the file holds it.
public struct KWalletFileEntry: Sendable {
  public var folder: String
  public var key: String
  public var type: KWallet.EntryType
  /// A password's Qt string, a stream's bytes, a map's Qt map.
  public var value: SecureBytes
}

/// A wallet file's folders and entries.
public struct KWalletContents: Sendable {
  /// Every folder, those with no entry included, in the file's order.
  public var folders: [String]
  public var entries: [KWalletFileEntry]
  /// Entries of a kind KWallet no longer has, left out.
  public var skipped: Int
}

/// A wallet file, read and checked but not yet decrypted.
public struct KWalletFile: Sendable {
  static let magic: [UInt8] = Array("KWALLET\n\r\0\r\n".utf8)
  static let headerSize = 16
  /// KWallet's constants for current files.
  static let iterations: UInt = 50_000
  static let keySize = 56
  static let saltSize = 56

  public let path: String
  let bytes: [UInt8]
  let minor: UInt8
  let cipher: UInt8
  /// Where the encrypted content starts.
  let contentStart: Int

  /// Checks the header and the name index of `bytes`, the file at `path`.
  public init(parsing bytes: [UInt8], file path: String) throws(KeyringFileError) {
    self.path = path
    self.bytes = bytes
    guard bytes.count >= Self.headerSize, Array(bytes[0..<12]) == Self.magic else {
      throw .malformed(file: path, position: "byte 0", reason: "not a KWallet file")
    }
    guard bytes[12] == 0, bytes[13] <= 1 else {
      throw .unsupported(file: path, reason: "KWallet file version \(bytes[12]).\(bytes[13])")
    }
    minor = bytes[13]
    cipher = bytes[14]
    switch cipher {
    case 0, 3: break
    case 2:
      throw .unsupported(
        file: path,
        reason:
          "a GPG-encrypted wallet: open it in KWallet, or decrypt it with gpg, to bring it over")
    default:
      throw .unsupported(file: path, reason: "cipher \(cipher), which KWallet never wrote")
    }
    contentStart = try Self.skipIndex(bytes, file: path)
    let length = bytes.count - contentStart
    guard length > 0, length % Blowfish.blockSize == 0 else {
      throw .malformed(
        file: path, position: "byte \(bytes.count)",
        reason: "the encrypted content (\(length) bytes) is not whole 8-byte blocks: cut short?")
    }
  }

  /// The offset after the plaintext index of folder and key name digests.
  private static func skipIndex(_ bytes: [UInt8], file: String) throws(KeyringFileError) -> Int {
    do {
      return try bytes.withUnsafeBytes { raw in
        var reader = ByteReader(raw, file: file)
        _ = try reader.take(headerSize, "the header")
        let folders = try reader.count(
          "folders in the index", minimumSize: 20, limit: KeyringLimits.maxItems)
        for _ in 0..<folders {
          _ = try reader.take(16, "a folder's digest")
          let entries = try reader.count(
            "entries in the index", minimumSize: 16, limit: KeyringLimits.maxItems)
          _ = try reader.take(entries * 16, "the entries' digests")
        }
        return reader.offset
      }
    } catch let error as KeyringFileError {
      throw error
    } catch {
      throw .malformed(file: file, position: "byte 16", reason: "\(error)")
    }
  }

  /// Decrypts and reads the wallet with `password`; `salt` is the `.salt` file's content, which
  /// current files need. Throws `wrongPassword` when no key made from it yields the digest.
  public func open(password: SecureBytes, salt: [UInt8]?) throws -> KWalletContents {
    let content = Array(bytes[contentStart...])
    for attempt in try attempts(password, salt: salt) {
      let plain = try attempt.decrypt(content)
      if let payload = try Self.payload(plain, digest: attempt.digest) {
        return try Self.contents(payload, file: path)
      }
    }
    throw KeyringFileError.wrongPassword(file: path)
  }

  /// One way to decrypt: a key, a cipher, a digest.
  private struct Attempt {
    let decrypt: ([UInt8]) throws -> SecureBytes
    let digest: ([UInt8]) -> [UInt8]
  }

  private func attempts(_ password: SecureBytes, salt: [UInt8]?) throws -> [Attempt] {
    if minor == 1 {
      guard let salt, salt.count == Self.saltSize else {
        throw KeyringFileError.unsupported(
          file: path,
          reason:
            "its salt file (\(URL(fileURLWithPath: path).deletingPathExtension().path).salt) is missing or not \(Self.saltSize) bytes"
        )
      }
      let key = try KeyDerivation.pbkdf2SHA512(
        password: password, salt: salt, iterations: Self.iterations, length: Self.keySize)
      return [
        Attempt(decrypt: { try Blowfish.decryptCBC($0, key: key) }, digest: KWalletDigest.sha1)
      ]
    }
    // KDE 4: the real SHA-1 with word-swapped Blowfish blocks, or KWallet's SHA-1 with plain
    // Blowfish in the file's mode.
    let cipher = cipher
    let swappedKey = try Self.legacyKey(password, hash: SHA1.hash)
    let plainKey = try Self.legacyKey(password, hash: KWalletDigest.sha1)
    return [
      Attempt(
        decrypt: {
          Self.swapWords(
            try Blowfish.decryptECB(
              Self.swapWords($0).withUnsafeBytes { Array($0) }, key: swappedKey))
        },
        digest: SHA1.hash),
      Attempt(
        decrypt: {
          cipher == 3
            ? try Blowfish.decryptCBC($0, key: plainKey)
            : try Blowfish.decryptECB($0, key: plainKey)
        }, digest: KWalletDigest.sha1),
    ]
  }

  /// KDE 4's key: the password's UTF-8 in 16-byte blocks (the fourth takes the rest), each
  /// hashed 2,000 times; by length, the first block's 20 bytes, two blocks', two and 16 bytes
  /// of the third, or 14 bytes of each of four.
  static func legacyKey(_ password: SecureBytes, hash: ([UInt8]) -> [UInt8]) throws -> SecureBytes {
    let text = password.withUnsafeBytes { Array($0) }
    func block(_ index: Int) -> [UInt8] {
      let start = min(index * 16, text.count)
      let end = index == 3 ? text.count : min(start + 16, text.count)
      var digest = hash(Array(text[start..<end]))
      for _ in 1..<2000 { digest = hash(digest) }
      return digest
    }
    let key: [UInt8]
    switch text.count {
    case ...16: key = block(0)
    case ...32: key = block(0) + block(1)
    case ...48: key = block(0) + block(1) + block(2).prefix(16)
    default: key = (0..<4).flatMap { block($0).prefix(14) }
    }
    return SecureBytes(copying: key)
  }

  /// Each 32-bit word of `bytes` with its bytes reversed (in secure memory: it may be a
  /// wallet's decrypted content).
  static func swapWords<Bytes: ByteInput>(_ bytes: Bytes) -> SecureBytes {
    bytes.withUnsafeBytes { raw in
      SecureBytes(count: raw.count) { out in
        for index in 0..<raw.count { out[index] = raw[index - index % 4 + 3 - index % 4] }
      }
    }
  }

  /// The payload `plain` carries, if its length is plausible and its digest matches.
  private static func payload(_ plain: SecureBytes, digest: ([UInt8]) -> [UInt8]) throws
    -> [UInt8]?
  {
    plain.withUnsafeBytes { raw in
      guard raw.count >= 8 + 4 + 20 + 1 else { return nil }
      let length = Int(raw[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
      let padding = raw.count - 12 - length - 20
      guard (1...8).contains(padding) else { return nil }
      let payload = Array(raw[12..<(12 + length)])
      guard digest(payload) == Array(raw[(raw.count - 20)...]) else { return nil }
      return payload
    }
  }

  /// The folders and entries of a decrypted payload.
  static func contents(_ payload: [UInt8], file: String) throws -> KWalletContents {
    try payload.withUnsafeBytes { raw in
      var reader = ByteReader(raw, file: file + " (decrypted content)")
      var contents = KWalletContents(folders: [], entries: [], skipped: 0)
      while reader.remaining > 0 {
        let folder = try reader.qString("a folder's name")
        contents.folders.append(folder)
        let count = try reader.count("entries", minimumSize: 12, limit: KeyringLimits.maxItems)
        for _ in 0..<count {
          let key = try reader.qString("an entry's key")
          let type = Int32(bitPattern: try reader.u32("an entry's kind"))
          let value = try reader.byteArray("an entry's value")
          guard let kind = KWallet.EntryType(rawValue: type), kind != .unknown else {
            contents.skipped += 1
            continue
          }
          contents.entries.append(
            KWalletFileEntry(
              folder: folder, key: key, type: kind,
              value: value.map { SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[$0])) }
                ?? SecureBytes(copying: [UInt8]())))
        }
        guard contents.entries.count <= KeyringLimits.maxItems else {
          throw reader.damaged("over \(KeyringLimits.maxItems) entries")
        }
      }
      return contents
    }
  }
}

extension ByteReader {
  /// A Qt string: a byte length (0xFFFFFFFF for a null one, read as empty) and UTF-16BE.
  mutating func qString(_ what: String) throws -> String {
    let start = offset
    guard let range = try byteArray(what) else { return "" }
    guard range.count % 2 == 0 else { throw damaged("\(what) has an odd length", at: start) }
    let units = stride(from: range.lowerBound, to: range.upperBound, by: 2).map {
      UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
    }
    return String(decoding: units, as: UTF16.self)
  }
}
