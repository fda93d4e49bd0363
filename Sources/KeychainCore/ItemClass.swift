// SPDX-License-Identifier: MIT

/// A Keychain item class (`kSecClass` values, with Apple's raw strings).
public enum ItemClass: String, CaseIterable, Sendable, Hashable {
  case genericPassword = "genp"
  case internetPassword = "inet"
  case key = "keys"
  case certificate = "cert"
  case identity = "idnt"

  /// The attributes whose equality makes two items duplicates (`errSecDuplicateItem`).
  public var primaryKey: [AttributeKey] {
    switch self {
    case .genericPassword: [.account, .service, .accessGroup, .synchronizable]
    case .internetPassword:
      [
        .account, .securityDomain, .server, .protocol, .authenticationType, .port, .path,
        .accessGroup, .synchronizable,
      ]
    case .key:
      [
        .keyClass, .applicationLabel, .applicationTag, .keyType, .keySizeInBits, .effectiveKeySize,
        .accessGroup, .synchronizable,
      ]
    case .certificate: [.certificateType, .issuer, .serialNumber, .accessGroup, .synchronizable]
    case .identity: [.certificateType, .issuer, .serialNumber, .accessGroup, .synchronizable]
    }
  }

  /// The attributes items of this class can have.
  public var attributes: Set<AttributeKey> {
    let common: Set<AttributeKey> = [
      .accessible, .accessGroup, .synchronizable, .creationDate, .modificationDate, .label,
    ]
    let password: Set<AttributeKey> = [
      .description, .comment, .creator, .type, .isInvisible, .isNegative, .account,
    ]
    switch self {
    case .genericPassword: return common.union(password).union([.service, .generic])
    case .internetPassword:
      return common.union(password).union([
        .securityDomain, .server, .protocol, .authenticationType, .port, .path,
      ])
    case .key:
      return common.union([
        .keyClass, .applicationLabel, .applicationTag, .keyType, .keySizeInBits,
        .effectiveKeySize, .isPermanent, .canEncrypt, .canDecrypt, .canDerive, .canSign,
        .canVerify, .canWrap, .canUnwrap, .isSensitive, .isExtractable,
      ])
    case .certificate, .identity:
      return common.union([.certificateType, .issuer, .serialNumber, .subject])
    }
  }
}
