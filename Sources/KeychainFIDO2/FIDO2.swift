// SPDX-License-Identifier: MIT
//
// A FIDO2 key's hmac-secret (see CKeychainFIDO2): a credential made on the key for keychaind,
// and a secret the key derives from it and a salt, only when touched, and only with its PIN when
// the slot was made with one. libfido2 is loaded when first used.

import CKeychainFIDO2
import KeychainCrypto

/// FIDO2 keys through libfido2.
public enum FIDO2 {
  /// The relying party keychaind's credentials are made for.
  public static let relyingParty = "keychaind.keychain-linux"

  /// A failure, by what a person can do about it.
  public struct Failure: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
      case noLibrary, noDevice, pin, pinBlocked, noPresence, otherKey, failed
    }

    public var kind: Kind
    /// What libfido2 said, with no secret in it.
    public var message: String
    public var description: String { message }
  }

  /// Makes a credential on the key at `device` ("" for the first key found) and derives its
  /// secret for `salt` (32 bytes); the key must be touched, twice.
  public static func enroll(device: String, pin: SecureBytes, salt: [UInt8]) throws(Failure)
    -> (credential: [UInt8], secret: SecureBytes)
  {
    precondition(salt.count == 32)
    var credential = [UInt8](repeating: 0, count: 1024)
    var length = 0
    var message = [CChar](repeating: 0, count: 512)
    var status: Int32 = 0
    let secret = SecureBytes(count: 32) { out in
      status = withPIN(pin) { pin in
        credential.withUnsafeMutableBufferPointer { credential in
          keychain_fido2_enroll(
            device, relyingParty, pin, salt, credential.baseAddress, credential.count, &length,
            out.baseAddress?.assumingMemoryBound(to: UInt8.self), &message, message.count)
        }
      }
    }
    try check(status, message)
    return (Array(credential.prefix(length)), secret)
  }

  /// The secret `credential` derives for `salt` on the key at `device`; it must be touched.
  public static func secret(device: String, pin: SecureBytes, credential: [UInt8], salt: [UInt8])
    throws(Failure) -> SecureBytes
  {
    precondition(salt.count == 32)
    var message = [CChar](repeating: 0, count: 512)
    var status: Int32 = 0
    let secret = SecureBytes(count: 32) { out in
      status = withPIN(pin) { pin in
        keychain_fido2_secret(
          device, relyingParty, pin, credential, credential.count, salt,
          out.baseAddress?.assumingMemoryBound(to: UInt8.self), &message, message.count)
      }
    }
    try check(status, message)
    return secret
  }

  /// The PIN as libfido2 takes it: a C string in secure memory, or NULL for none.
  private static func withPIN(_ pin: SecureBytes, _ body: (UnsafePointer<CChar>?) -> Int32)
    -> Int32
  {
    guard pin.count > 0 else { return body(nil) }
    let terminated = SecureBytes(count: pin.count + 1) { out in
      pin.withUnsafeBytes { out.copyMemory(from: $0) }
      out[pin.count] = 0
    }
    return terminated.withUnsafeBytes { body($0.baseAddress?.assumingMemoryBound(to: CChar.self)) }
  }

  private static func check(_ status: Int32, _ message: [CChar]) throws(Failure) {
    guard status != Int32(KEYCHAIN_FIDO2_OK.rawValue) else { return }
    let text = String(
      decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let kind: Failure.Kind =
      switch UInt32(status) {
      case KEYCHAIN_FIDO2_NO_LIBRARY.rawValue: .noLibrary
      case KEYCHAIN_FIDO2_NO_DEVICE.rawValue: .noDevice
      case KEYCHAIN_FIDO2_PIN.rawValue: .pin
      case KEYCHAIN_FIDO2_PIN_BLOCKED.rawValue: .pinBlocked
      case KEYCHAIN_FIDO2_NO_PRESENCE.rawValue: .noPresence
      case KEYCHAIN_FIDO2_OTHER_KEY.rawValue: .otherKey
      default: .failed
      }
    throw Failure(kind: kind, message: text)
  }
}
