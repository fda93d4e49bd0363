// SPDX-License-Identifier: MIT
// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (Apple's constant names are the API: code written for the Security framework uses them.)
//
// The `SecKeyAlgorithm` names with Apple's raw strings, in both spellings Swift code uses
// (`.rsaSignatureMessagePKCS1v15SHA256` and `kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256`).
// SHA-224 variants, raw RSA, ECIES and the RFC 4754 signature form are not offered: an
// algorithm outside this list is answered errSecUnimplemented, never approximated.

/// A public-key algorithm: what `SecKeyCreateSignature`, `SecKeyCreateEncryptedData` and
/// `SecKeyCopyKeyExchangeResult` do.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
  public let rawValue: CFString
  public init(rawValue: CFString) { self.rawValue = rawValue }
  init(_ rawValue: CFString) { self.rawValue = rawValue }

  /// RSA PKCS #1 v1.5 over a SHA1 digest the caller made.
  public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PKCS1v15:SHA1")
  /// RSA PKCS #1 v1.5 over the SHA1 of the message.
  public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PKCS1v15:SHA1")
  /// RSA-PSS (20-byte salt) over a SHA1 digest the caller made.
  public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
  /// RSA-PSS (20-byte salt) over the SHA1 of the message.
  public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PSS:SHA1:SHA1:20")
  /// ECDSA, DER-encoded (X9.62), over a SHA1 digest the caller made.
  public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm(
    "algid:sign:ECDSA:digest-X962:SHA1")
  /// ECDSA, DER-encoded (X9.62), over the SHA1 of the message.
  public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm(
    "algid:sign:ECDSA:message-X962:SHA1")
  /// RSA-OAEP with SHA1.
  public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
  /// ECDH, the shared secret through the ANSI X9.63 KDF with SHA1.
  public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm(
    "algid:keyexchange:ECDH:KDFX963:SHA1")
  /// Cofactor ECDH (the same as standard on P-256) through the X9.63 KDF with SHA1.
  public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm(
    "algid:keyexchange:ECDHC:KDFX963:SHA1")
  /// RSA PKCS #1 v1.5 over a SHA256 digest the caller made.
  public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PKCS1v15:SHA256")
  /// RSA PKCS #1 v1.5 over the SHA256 of the message.
  public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PKCS1v15:SHA256")
  /// RSA-PSS (32-byte salt) over a SHA256 digest the caller made.
  public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
  /// RSA-PSS (32-byte salt) over the SHA256 of the message.
  public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PSS:SHA256:SHA256:32")
  /// ECDSA, DER-encoded (X9.62), over a SHA256 digest the caller made.
  public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(
    "algid:sign:ECDSA:digest-X962:SHA256")
  /// ECDSA, DER-encoded (X9.62), over the SHA256 of the message.
  public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(
    "algid:sign:ECDSA:message-X962:SHA256")
  /// RSA-OAEP with SHA256.
  public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
  /// ECDH, the shared secret through the ANSI X9.63 KDF with SHA256.
  public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm(
    "algid:keyexchange:ECDH:KDFX963:SHA256")
  /// Cofactor ECDH (the same as standard on P-256) through the X9.63 KDF with SHA256.
  public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm(
    "algid:keyexchange:ECDHC:KDFX963:SHA256")
  /// RSA PKCS #1 v1.5 over a SHA384 digest the caller made.
  public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PKCS1v15:SHA384")
  /// RSA PKCS #1 v1.5 over the SHA384 of the message.
  public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PKCS1v15:SHA384")
  /// RSA-PSS (48-byte salt) over a SHA384 digest the caller made.
  public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
  /// RSA-PSS (48-byte salt) over the SHA384 of the message.
  public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PSS:SHA384:SHA384:48")
  /// ECDSA, DER-encoded (X9.62), over a SHA384 digest the caller made.
  public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm(
    "algid:sign:ECDSA:digest-X962:SHA384")
  /// ECDSA, DER-encoded (X9.62), over the SHA384 of the message.
  public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm(
    "algid:sign:ECDSA:message-X962:SHA384")
  /// RSA-OAEP with SHA384.
  public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
  /// ECDH, the shared secret through the ANSI X9.63 KDF with SHA384.
  public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm(
    "algid:keyexchange:ECDH:KDFX963:SHA384")
  /// Cofactor ECDH (the same as standard on P-256) through the X9.63 KDF with SHA384.
  public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm(
    "algid:keyexchange:ECDHC:KDFX963:SHA384")
  /// RSA PKCS #1 v1.5 over a SHA512 digest the caller made.
  public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PKCS1v15:SHA512")
  /// RSA PKCS #1 v1.5 over the SHA512 of the message.
  public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PKCS1v15:SHA512")
  /// RSA-PSS (64-byte salt) over a SHA512 digest the caller made.
  public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm(
    "algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
  /// RSA-PSS (64-byte salt) over the SHA512 of the message.
  public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm(
    "algid:sign:RSA:message-PSS:SHA512:SHA512:64")
  /// ECDSA, DER-encoded (X9.62), over a SHA512 digest the caller made.
  public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm(
    "algid:sign:ECDSA:digest-X962:SHA512")
  /// ECDSA, DER-encoded (X9.62), over the SHA512 of the message.
  public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm(
    "algid:sign:ECDSA:message-X962:SHA512")
  /// RSA-OAEP with SHA512.
  public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
  /// ECDH, the shared secret through the ANSI X9.63 KDF with SHA512.
  public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm(
    "algid:keyexchange:ECDH:KDFX963:SHA512")
  /// Cofactor ECDH (the same as standard on P-256) through the X9.63 KDF with SHA512.
  public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm(
    "algid:keyexchange:ECDHC:KDFX963:SHA512")
  /// RSA PKCS #1 v1.5 encryption.
  public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
  /// ECDH: the shared X coordinate, as it is.
  public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
  /// Cofactor ECDH: on P-256 (cofactor 1) the same as standard.
  public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
}

/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm
  .rsaSignatureDigestPKCS1v15SHA1
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm
  .rsaSignatureMessagePKCS1v15SHA1
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPSSSHA1`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA1
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePSSSHA1`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA1
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1 = SecKeyAlgorithm
  .ecdsaSignatureDigestX962SHA1
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1 = SecKeyAlgorithm
  .ecdsaSignatureMessageX962SHA1
/// The C spelling of `SecKeyAlgorithm.rsaEncryptionOAEPSHA1`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1 = SecKeyAlgorithm.rsaEncryptionOAEPSHA1
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1 = SecKeyAlgorithm
  .ecdhKeyExchangeStandardX963SHA1
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm
  .ecdhKeyExchangeCofactorX963SHA1
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm
  .rsaSignatureDigestPKCS1v15SHA256
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm
  .rsaSignatureMessagePKCS1v15SHA256
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPSSSHA256`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA256
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePSSSHA256`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256 = SecKeyAlgorithm
  .rsaSignatureMessagePSSSHA256
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256 = SecKeyAlgorithm
  .ecdsaSignatureDigestX962SHA256
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = SecKeyAlgorithm
  .ecdsaSignatureMessageX962SHA256
/// The C spelling of `SecKeyAlgorithm.rsaEncryptionOAEPSHA256`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256 = SecKeyAlgorithm.rsaEncryptionOAEPSHA256
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256 = SecKeyAlgorithm
  .ecdhKeyExchangeStandardX963SHA256
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm
  .ecdhKeyExchangeCofactorX963SHA256
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm
  .rsaSignatureDigestPKCS1v15SHA384
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm
  .rsaSignatureMessagePKCS1v15SHA384
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPSSSHA384`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA384
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePSSSHA384`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384 = SecKeyAlgorithm
  .rsaSignatureMessagePSSSHA384
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384 = SecKeyAlgorithm
  .ecdsaSignatureDigestX962SHA384
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384 = SecKeyAlgorithm
  .ecdsaSignatureMessageX962SHA384
/// The C spelling of `SecKeyAlgorithm.rsaEncryptionOAEPSHA384`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384 = SecKeyAlgorithm.rsaEncryptionOAEPSHA384
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384 = SecKeyAlgorithm
  .ecdhKeyExchangeStandardX963SHA384
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm
  .ecdhKeyExchangeCofactorX963SHA384
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm
  .rsaSignatureDigestPKCS1v15SHA512
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm
  .rsaSignatureMessagePKCS1v15SHA512
/// The C spelling of `SecKeyAlgorithm.rsaSignatureDigestPSSSHA512`.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA512
/// The C spelling of `SecKeyAlgorithm.rsaSignatureMessagePSSSHA512`.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512 = SecKeyAlgorithm
  .rsaSignatureMessagePSSSHA512
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512 = SecKeyAlgorithm
  .ecdsaSignatureDigestX962SHA512
/// The C spelling of `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512`.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512 = SecKeyAlgorithm
  .ecdsaSignatureMessageX962SHA512
/// The C spelling of `SecKeyAlgorithm.rsaEncryptionOAEPSHA512`.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512 = SecKeyAlgorithm.rsaEncryptionOAEPSHA512
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512 = SecKeyAlgorithm
  .ecdhKeyExchangeStandardX963SHA512
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm
  .ecdhKeyExchangeCofactorX963SHA512
/// The C spelling of `SecKeyAlgorithm.rsaEncryptionPKCS1`.
public let kSecKeyAlgorithmRSAEncryptionPKCS1 = SecKeyAlgorithm.rsaEncryptionPKCS1
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeStandard`.
public let kSecKeyAlgorithmECDHKeyExchangeStandard = SecKeyAlgorithm.ecdhKeyExchangeStandard
/// The C spelling of `SecKeyAlgorithm.ecdhKeyExchangeCofactor`.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor = SecKeyAlgorithm.ecdhKeyExchangeCofactor
