// SPDX-License-Identifier: MIT
//
// A KWallet entry as a Secret Service item, mapped exactly as KDE's own bridge (kwalletd6 from
// KF 6.14) and QtKeychain's libsecret backend map it, so all of them, secret-tool and Seahorse
// see the same items: the wallet is a collection, the folder is the attribute `server`, the
// key is `user`, the kind is `type` (`plaintext`, `base64` or `map`; `binary` read only), the
// schema is `org.qt.keychain`, the label `folder/key`. The secret is the password's UTF-8, a
// stream's bytes in base64, or a map as a compact JSON object, all `text/plain`.

import Foundation

/// An entry's value, in KWallet's three kinds.
public enum KWalletEntry: Equatable, Sendable {
  case password(String)
  case stream([UInt8])
  case map([String: String])

  /// The schema the bridge and QtKeychain store entries under.
  public static let schema = "org.qt.keychain"
  /// The attribute holding the folder.
  public static let folderAttribute = "server"
  /// The attribute holding the key.
  public static let keyAttribute = "user"
  /// The attribute holding the kind.
  public static let typeAttribute = "type"
  /// The `type` values this mapping writes and reads.
  public static let typeValues: Set<String> = ["plaintext", "base64", "map", "binary"]

  /// The item attributes of `folder`/`key` of this kind.
  public func attributes(folder: String, key: String) -> [String: String] {
    [
      Self.folderAttribute: folder, Self.keyAttribute: key, Self.typeAttribute: typeValue,
      "xdg:schema": Self.schema,
    ]
  }

  /// The item label the bridge gives `folder`/`key`.
  public static func label(folder: String, key: String) -> String { folder + "/" + key }

  /// The value of the `type` attribute.
  public var typeValue: String {
    switch self {
    case .password: "plaintext"
    case .stream: "base64"
    case .map: "map"
    }
  }

  /// The kind, as the wire numbers it.
  public var entryType: KWallet.EntryType {
    switch self {
    case .password: .password
    case .stream: .stream
    case .map: .map
    }
  }

  /// The kind an item's `type` attribute says: `map` a map, `base64` and `binary` a stream,
  /// anything else (or none: items other programs stored) a password.
  public static func entryType(typeAttribute: String?) -> KWallet.EntryType {
    switch typeAttribute {
    case "map": .map
    case "base64", "binary": .stream
    default: .password
    }
  }

  // MARK: The item's secret

  /// The entry an item's secret holds, given its `type`; nil when the secret is not of the
  /// form its type says (base64 that does not decode, JSON that is not an object of strings).
  public init?(secret: [UInt8], typeAttribute: String?) {
    switch Self.entryType(typeAttribute: typeAttribute) {
    case .stream where typeAttribute == "binary":
      self = .stream(secret)
    case .stream:
      guard let bytes = Data(base64Encoded: Data(secret)) else { return nil }
      self = .stream(Array(bytes))
    case .map:
      guard let map = Self.map(json: secret) else { return nil }
      self = .map(map)
    case .password, .unknown:
      self = .password(String(decoding: secret, as: UTF8.self))
    }
  }

  /// The secret the item stores.
  public var secret: [UInt8] {
    switch self {
    case .password(let text): Array(text.utf8)
    case .stream(let bytes): Array(Data(bytes).base64EncodedString().utf8)
    case .map(let map): Self.json(map)
    }
  }

  /// The content type the item stores with its secret.
  public static let contentType = "text/plain"

  // MARK: The wire

  /// What `readEntry` answers: a stream's bytes, a map's or a password's `QDataStream` form
  /// (the form kwalletd5 stores a password in and KF5 clients decode).
  public var wireValue: [UInt8] {
    switch self {
    case .password(let text): QDataStream.encode(text)
    case .stream(let bytes): bytes
    case .map(let map): QDataStream.encode(map)
    }
  }

  /// The entry `writeEntry` gives as `value` and `type`; nil for a kind that cannot be stored
  /// (unknown) or a map that is not a `QDataStream` map. A password is taken as a `QDataStream`
  /// string when it is exactly one, so that it reads back as written, and as UTF-8 otherwise.
  public init?(wireValue value: [UInt8], type: KWallet.EntryType) {
    switch type {
    case .password:
      self = .password(
        (try? QDataStream.decodeString(value)) ?? String(decoding: value, as: UTF8.self))
    case .stream: self = .stream(value)
    case .map:
      guard let map = try? QDataStream.decodeMap(value) else { return nil }
      self = .map(map)
    case .unknown: return nil
    }
  }

  // MARK: JSON

  /// A map as the bridge writes it: a compact JSON object, keys sorted (as QJsonDocument).
  static func json(_ map: [String: String]) -> [UInt8] {
    let data = try? JSONSerialization.data(
      withJSONObject: map, options: [.sortedKeys, .withoutEscapingSlashes])
    return Array(data ?? Data("{}".utf8))
  }

  /// The map a JSON object holds; numbers and booleans read as their text, as Qt's
  /// `QVariant::toString` gives them.
  static func map(json: [UInt8]) -> [String: String]? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(json)) as? [String: Any]
    else { return nil }
    var map: [String: String] = [:]
    for (key, value) in object {
      switch value {
      case let text as String: map[key] = text
      case let number as NSNumber: map[key] = number.stringValue
      default: map[key] = ""
      }
    }
    return map
  }
}
