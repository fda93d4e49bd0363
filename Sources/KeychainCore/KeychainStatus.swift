// SPDX-License-Identifier: MIT

/// A Keychain result code, with Apple's numeric values (`OSStatus`) and messages.
public struct KeychainStatus: Error, Hashable, Sendable, CustomStringConvertible {
  /// The `OSStatus` value, such as -25300 for `errSecItemNotFound`.
  public let code: Int32
  /// A detail for developers (what was wrong with a query); never holds a secret.
  public let detail: String?

  /// A status with `code` and an optional detail.
  public init(_ code: Int32, detail: String? = nil) {
    self.code = code
    self.detail = detail
  }

  public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// `errSecSuccess`
  public static let success = KeychainStatus(0)
  /// `errSecUnimplemented`
  public static let unimplemented = KeychainStatus(-4)
  /// `errSecDskFull`: the file system holding the store is full.
  public static let diskFull = KeychainStatus(-34)
  /// `errSecParam`
  public static let param = KeychainStatus(-50)
  /// `errSecAllocate`
  public static let allocate = KeychainStatus(-108)
  /// `errSecUserCanceled`
  public static let userCanceled = KeychainStatus(-128)
  /// `errSecNotAvailable`
  public static let notAvailable = KeychainStatus(-25291)
  /// `errSecReadOnly`
  public static let readOnly = KeychainStatus(-25292)
  /// `errSecAuthFailed`
  public static let authFailed = KeychainStatus(-25293)
  /// `errSecNoSuchKeychain`
  public static let noSuchKeychain = KeychainStatus(-25294)
  /// `errSecDuplicateItem`
  public static let duplicateItem = KeychainStatus(-25299)
  /// `errSecItemNotFound`
  public static let itemNotFound = KeychainStatus(-25300)
  /// `errSecInteractionNotAllowed`
  public static let interactionNotAllowed = KeychainStatus(-25308)
  /// `errSecDecode`
  public static let decode = KeychainStatus(-26275)
  /// `errSecMissingEntitlement`: an access group the caller is not in.
  public static let missingEntitlement = KeychainStatus(-34018)
  /// `errSecInternalComponent`: a part below the API (the bus, the provider) failed.
  public static let internalComponent = KeychainStatus(-2070)
  /// `errSecVerifyFailed`: a signature did not verify.
  public static let verifyFailed = KeychainStatus(-67808)

  /// `errSecParam` explaining what was wrong.
  public static func param(_ detail: String) -> KeychainStatus {
    KeychainStatus(-50, detail: detail)
  }

  /// Apple's message for the code (what `SecCopyErrorMessageString` returns).
  public var message: String {
    switch code {
    case 0: "No error."
    case -4: "Function or operation not implemented."
    case -34: "The disk is full."
    case -50: "One or more parameters passed to a function were not valid."
    case -108: "Failed to allocate memory."
    case -128: "User canceled the operation."
    case -25291: "No keychain is available. You may need to restart your computer."
    case -25292: "This keychain cannot be modified."
    case -25293: "The user name or passphrase you entered is not correct."
    case -25294: "The specified keychain could not be found."
    case -25299: "The specified item already exists in the keychain."
    case -25300: "The specified item could not be found in the keychain."
    case -25308: "User interaction is not allowed."
    case -26275: "Unable to decode the provided data."
    case -34018: "A required entitlement isn't present."
    case -2070: "An internal component failed."
    case -67808: "A cryptographic verification failure has occurred."
    default: "OSStatus \(code)"
    }
  }

  public var description: String {
    detail.map { "\(message) (\($0))" } ?? message
  }
}
