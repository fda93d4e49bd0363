// SPDX-License-Identifier: MIT
//
// gcr's secret exchange ("sx-aes-1"), by which GNOME's system prompter hands over a typed
// password: each side sends a key file `[sx-aes-1]` with its Diffie-Hellman public key
// (`public=`, base64, unsigned big-endian without leading zeros) on RFC 3526's 1536-bit group;
// the AES-128 key is HKDF-SHA256 of the shared secret (its leading zero bytes stripped, no salt,
// no info); a password comes as `secret=` (AES-128-CBC, PKCS#7 padded) with its `iv=`. The
// prompter speaks first; the key is derived once per session, from the first public key each
// side receives (gcr/gcr-secret-exchange.c).

import Foundation
import KeychainCrypto
import KeychainPrompt

/// The receiving side of one session's secret exchange.
struct SecretExchange: Sendable {
  static let protocolName = "sx-aes-1"
  private let keyPair: DiffieHellman
  private var key: SecureBytes?

  init() throws {
    keyPair = try DiffieHellman(group: .modp1536)
  }

  /// What keychaind sends with each prompt: its public key.
  var offer: String {
    let minimal = keyPair.publicKey.drop { $0 == 0 }
    return "[\(Self.protocolName)]\npublic=\(Data(minimal).base64EncodedString())\n"
  }

  /// Takes the prompter's half: the key is derived from the first public key; the password,
  /// when the string carries one, is returned (in locked memory).
  mutating func receive(_ text: String) throws(PinentryError) -> SecureBytes? {
    guard let fields = Self.fields(text), let publicKey = fields["public"] else {
      throw .failed("the system prompter sent no secret exchange it can be understood by")
    }
    do {
      if key == nil {
        let shared = try keyPair.sharedSecret(peerPublicKey: publicKey)
        key = try HKDF.deriveKey(
          inputKey: DiffieHellman.minimalBytes(shared), length: AESCBC.keySize)
      }
      guard let secret = fields["secret"], let iv = fields["iv"], let key else { return nil }
      return try AESCBC.decrypt(secret, key: key, iv: iv)
    } catch {
      throw .failed("the system prompter's secret exchange does not decrypt")
    }
  }

  /// The base64 values of a `[sx-aes-1]` key file, decoded; nil for another group or a value
  /// that is not base64.
  static func fields(_ text: String) -> [String: [UInt8]]? {
    var group: Substring?
    var fields: [String: [UInt8]] = [:]
    for line in text.split(separator: "\n") {
      let line = line.trimmingCharacters(in: .whitespaces)
      if line.isEmpty || line.hasPrefix("#") { continue }
      if line.hasPrefix("[") {
        group = line.dropFirst().prefix { $0 != "]" }
        continue
      }
      guard group == Substring(protocolName), let equals = line.firstIndex(of: "=") else {
        continue
      }
      let name = line[..<equals].trimmingCharacters(in: .whitespaces)
      let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard let bytes = Data(base64Encoded: value) else { return nil }
      fields[name] = Array(bytes)
    }
    return group == nil ? nil : fields
  }
}
