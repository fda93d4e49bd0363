// SPDX-License-Identifier: MIT

import KeychainDBus

/// A secret as the Secret Service transfers it: the `(oayays)` struct of session, algorithm
/// parameters (the AES IV for DH sessions), value (encrypted for DH sessions) and content type.
///
/// The value is an ordinary array because it arrives and leaves as one on the bus; decrypt it
/// into `SecureBytes` with the session's `SessionCipher` as soon as possible.
public struct Secret: DBusRepresentable, Hashable, Sendable, CustomStringConvertible {
  public var session: ObjectPath
  public var parameters: [UInt8]
  public var value: [UInt8]
  public var contentType: String

  public init(session: ObjectPath, parameters: [UInt8], value: [UInt8], contentType: String) {
    self.session = session
    self.parameters = parameters
    self.value = value
    self.contentType = contentType
  }

  public static var dbusType: DBusType {
    .structure([.objectPath, .array(.byte), .array(.byte), .string])
  }

  public var dbusValue: DBusValue {
    .structure([.objectPath(session), .bytes(parameters), .bytes(value), .string(contentType)])
  }

  public init(dbusValue: DBusValue) throws(DBusError) {
    guard case .structure(let fields) = dbusValue, fields.count == 4,
      let session = fields[0].objectPath, let parameters = fields[1].bytes,
      let value = fields[2].bytes, let contentType = fields[3].string
    else { throw .typeMismatch(expected: Self.dbusType, got: dbusValue) }
    self.init(session: session, parameters: parameters, value: value, contentType: contentType)
  }

  /// Never shows the value, even encrypted.
  public var description: String {
    "Secret(session: \(session), \(value.count) bytes, \(contentType))"
  }
}
