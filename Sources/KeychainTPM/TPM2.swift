// SPDX-License-Identifier: MIT
//
// A TPM 2.0 that seals a slot's secret (see CKeychainTPM): the secret comes back only from the
// same TPM, with the same PIN, and, if asked, while the chosen PCRs hold the values they held
// at sealing. tpm2-tss is loaded when first used, so keychaind runs without it.

import CKeychainTPM
import KeychainCrypto

/// Sealing to and unsealing from a TPM 2.0 through tpm2-tss.
public enum TPM2 {
  /// The kernel's resource manager, which lets several programs share the TPM.
  public static let defaultTCTI = "device:/dev/tpmrm0"

  /// A failure, by what a person can do about it.
  public struct Failure: Error, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
      /// tpm2-tss is not installed.
      case noLibrary
      /// No TPM answers.
      case noDevice
      case wrongPIN
      /// The TPM refuses PIN attempts for a while after too many wrong ones.
      case lockout
      /// The PCRs changed since sealing (firmware, boot loader or Secure Boot changes).
      case pcrsChanged
      case failed
    }

    public var kind: Kind
    /// What the TPM library said, with no secret in it.
    public var message: String

    public var description: String { message }
  }

  /// The PCRs a slot may be bound to: the 24 of the SHA-256 bank.
  public static let pcrRange = 0..<24

  /// Seals `secret`, protected by `pin` (empty for none) and bound to `pcrs`; returns the
  /// sealed object, which is useless without this TPM.
  public static func seal(_ secret: SecureBytes, pin: SecureBytes, pcrs: [Int], tcti: String)
    throws(Failure) -> [UInt8]
  {
    var blob = [UInt8](repeating: 0, count: 4096)
    var length = 0
    var message = [CChar](repeating: 0, count: 512)
    let status = secret.withUnsafeBytes { secret in
      pin.withUnsafeBytes { pin in
        blob.withUnsafeMutableBufferPointer { out in
          keychain_tpm_seal(
            tcti, secret.baseAddress?.assumingMemoryBound(to: UInt8.self), secret.count,
            pin.baseAddress?.assumingMemoryBound(to: UInt8.self), pin.count, mask(pcrs),
            out.baseAddress, out.count, &length, &message, message.count)
        }
      }
    }
    try check(status, message)
    return Array(blob.prefix(length))
  }

  /// The secret `blob` seals, with the `pin` and `pcrs` it was sealed with.
  public static func unseal(_ blob: [UInt8], pin: SecureBytes, pcrs: [Int], tcti: String)
    throws(Failure) -> SecureBytes
  {
    var message = [CChar](repeating: 0, count: 512)
    var status: Int32 = 0
    var length = 0
    let secret = SecureBytes(count: 128) { out in
      status = pin.withUnsafeBytes { pin in
        keychain_tpm_unseal(
          tcti, blob, blob.count, pin.baseAddress?.assumingMemoryBound(to: UInt8.self), pin.count,
          mask(pcrs), out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count, &length,
          &message, message.count)
      }
    }
    try check(status, message)
    return secret.slice(0..<length)
  }

  private static func mask(_ pcrs: [Int]) -> UInt32 {
    pcrs.reduce(0) { $0 | (pcrRange.contains($1) ? 1 << UInt32($1) : 0) }
  }

  private static func check(_ status: Int32, _ message: [CChar]) throws(Failure) {
    guard status != Int32(KEYCHAIN_TPM_OK.rawValue) else { return }
    let text = String(
      decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let kind: Failure.Kind =
      switch UInt32(status) {
      case KEYCHAIN_TPM_NO_LIBRARY.rawValue: .noLibrary
      case KEYCHAIN_TPM_NO_DEVICE.rawValue: .noDevice
      case KEYCHAIN_TPM_BAD_PIN.rawValue: .wrongPIN
      case KEYCHAIN_TPM_LOCKOUT.rawValue: .lockout
      case KEYCHAIN_TPM_POLICY.rawValue: .pcrsChanged
      default: .failed
      }
    throw Failure(kind: kind, message: text)
  }
}

extension TPM2 {
  /// What opening a TPM slot takes besides the TPM, as its record keeps it: `pin`,
  /// `pcrs=7+14`, both comma-separated, or nothing (nil).
  public struct Policy: Equatable, Sendable {
    public var pin: Bool
    public var pcrs: [Int]

    public init(pin: Bool, pcrs: [Int]) {
      self.pin = pin
      self.pcrs = Array(Set(pcrs)).sorted()
    }

    /// Reads a record's policy; nil for one this version cannot follow.
    public init?(_ text: String?) {
      (pin, pcrs) = (false, [])
      for part in (text ?? "").split(separator: ",") {
        if part == "pin" {
          pin = true
        } else if part.hasPrefix("pcrs="),
          case let numbers = part.dropFirst(5).split(separator: "+").compactMap({ Int($0) }),
          !numbers.isEmpty, numbers.allSatisfy(TPM2.pcrRange.contains)
        {
          pcrs = numbers
        } else {
          return nil
        }
      }
    }

    /// As the record keeps it.
    public var text: String? {
      let parts =
        (pin ? ["pin"] : [])
        + (pcrs.isEmpty ? [] : ["pcrs=" + pcrs.map(String.init).joined(separator: "+")])
      return parts.isEmpty ? nil : parts.joined(separator: ",")
    }
  }
}
