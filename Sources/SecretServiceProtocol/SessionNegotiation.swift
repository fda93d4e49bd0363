// SPDX-License-Identifier: MIT
//
// The two transfer algorithms of the Secret Service, as pure functions both sides use.
// `plain` sends secrets as they are; `dh-ietf1024-sha256-aes128-cbc-pkcs7` agrees an AES-128
// key by Diffie-Hellman on RFC 2409's group 2, HKDF-SHA256 with no salt and no info, and sends
// each secret AES-128-CBC encrypted under a fresh IV. Every interop trap of this session
// is handled in `KeychainCrypto.DiffieHellman`: short keys in, 128-byte keys out, the
// shared secret left-padded before HKDF.

import KeychainCrypto
import KeychainDBus

/// A transfer algorithm of the Secret Service.
public enum SessionAlgorithm: String, Sendable, CaseIterable {
  case plain = "plain"
  case dhIETF1024 = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
}

/// Turns secrets into what one session sends, and back.
public struct SessionCipher: Sendable {
  public let algorithm: SessionAlgorithm
  /// The AES-128 key of a DH session, with its cipher handle kept; nil for `plain`.
  private let key: CipherKey?

  init(algorithm: SessionAlgorithm, key: CipherKey?) {
    self.algorithm = algorithm
    self.key = key
  }

  /// The cipher of a `plain` session.
  public static let plain = SessionCipher(algorithm: .plain, key: nil)

  /// The parameters and value that carry `secret` in this session.
  public func encrypt(_ secret: SecureBytes) throws(DBusError) -> (
    parameters: [UInt8], value: [UInt8]
  ) {
    guard let key else { return ([], secret.copyBytes()) }
    let iv = Random.nonce(count: AESCBC.blockSize)
    do {
      return (iv, try AESCBC.encrypt(secret, key: key, iv: iv))
    } catch {
      throw DBusError(.failed, "the secret could not be encrypted for this session")
    }
  }

  /// The secret a peer sent in this session. Malformed parameters or ciphertext are
  /// `InvalidArgs`, never a crash, and the message says nothing about the content.
  public func decrypt(parameters: [UInt8], value: [UInt8]) throws(DBusError) -> SecureBytes {
    guard let key else { return SecureBytes(copying: value) }
    guard parameters.count == AESCBC.blockSize else {
      throw DBusError(.invalidArgs, "the secret's parameters must be a 16-byte IV in this session")
    }
    guard !value.isEmpty, value.count % AESCBC.blockSize == 0 else {
      throw DBusError(.invalidArgs, "the encrypted secret must be a non-empty multiple of 16 bytes")
    }
    do {
      return try AESCBC.decrypt(value, key: key, iv: parameters)
    } catch {
      throw DBusError(.invalidArgs, "the secret could not be decrypted in this session")
    }
  }
}

/// Session set-up on both sides of `OpenSession`.
public enum SessionNegotiation {
  /// The service's side: `OpenSession(algorithm, input)` → the output to return and the
  /// session's cipher. An unknown algorithm is `NotSupported` (clients fall back to `plain`
  /// only on that name); an input of the wrong type or value is `InvalidArgs`.
  /// - Parameter keyPair: the service's DH key pair; a fresh one unless a test gives one.
  public static func open(
    algorithm: String, input: DBusValue, keyPair: DiffieHellman? = nil
  ) throws(DBusError) -> (output: DBusValue, cipher: SessionCipher) {
    switch SessionAlgorithm(rawValue: algorithm) {
    case .plain:
      // gnome-keyring requires the empty string, and clients send it.
      guard case .string = input else { throw SecretServiceError.invalidAlgorithmInput(algorithm) }
      return (.string(""), .plain)
    case .dhIETF1024:
      guard let clientKey = input.bytes else {
        throw SecretServiceError.invalidAlgorithmInput(algorithm)
      }
      do {
        let ours = try keyPair ?? DiffieHellman()
        let cipher = try cipher(ours, peerPublicKey: clientKey)
        return (.bytes(ours.publicKey), cipher)
      } catch {
        throw SecretServiceError.badPublicKey
      }
    case nil:
      throw SecretServiceError.algorithmNotSupported(algorithm)
    }
  }

  /// The client's side: what to send as `OpenSession`'s input, and how to finish with the
  /// service's output.
  public struct Client: Sendable {
    public let algorithm: SessionAlgorithm
    private let keyPair: DiffieHellman?

    /// Starts a session of `algorithm`.
    public init(_ algorithm: SessionAlgorithm) throws(DBusError) {
      self.algorithm = algorithm
      do {
        keyPair = algorithm == .plain ? nil : try DiffieHellman()
      } catch {
        throw DBusError(.failed, "cannot make a DH key pair")
      }
    }

    /// The `v` input of `OpenSession` (without the variant wrapper).
    public var input: DBusValue {
      keyPair.map { .bytes($0.publicKey) } ?? .string("")
    }

    /// The session's cipher, from the service's `OpenSession` output.
    public func finish(output: DBusValue) throws(DBusError) -> SessionCipher {
      guard let keyPair else { return .plain }
      guard let serviceKey = output.bytes else {
        throw DBusError(.invalidArgs, "the service answered DH with \(output.type), not ay")
      }
      do {
        return try SessionNegotiation.cipher(keyPair, peerPublicKey: serviceKey)
      } catch {
        throw DBusError(.invalidArgs, "the service's DH public key is not acceptable")
      }
    }
  }

  /// HKDF-SHA256 of the 128-byte shared secret, no salt, no info, 16 bytes: the AES key.
  static func cipher(_ ours: DiffieHellman, peerPublicKey: [UInt8]) throws -> SessionCipher {
    let shared = try ours.sharedSecret(peerPublicKey: peerPublicKey)
    return SessionCipher(
      algorithm: .dhIETF1024,
      key: try .cbc(HKDF.deriveKey(inputKey: shared, length: AESCBC.keySize)))
  }
}
