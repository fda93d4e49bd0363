// SPDX-License-Identifier: MIT
//
// A Secret Service item and a Keychain item are one row. The Secret Service attribute dictionary
// (`a{ss}`) is what is stored, byte for byte; the Keychain attributes are a view over it.
//
// - `xdg:schema` picks the class: gnome-keyring's NetworkPassword schema is an internet
//   password, our key/certificate/identity schemas are those classes, anything else (or no
//   schema) is a generic password.
// - Known names map both ways (`user` ↔ account, `server`, `protocol`, `port`, `object` ↔ path,
//   `domain` ↔ security domain, `authtype`; `service`, `account`).
// - Keychain attributes without a Secret Service name are kept as `keychain:<code>` entries
//   (numbers in decimal, data in hex, booleans as 0/1), so nothing is lost either way.

import Foundation

/// Converts between Secret Service attribute dictionaries and Keychain attributes.
public enum SecretServiceMapping {
  /// The `xdg:schema` attribute name libsecret uses.
  public static let schemaAttribute = "xdg:schema"
  /// Prefix of Keychain attributes that have no Secret Service name.
  public static let keychainPrefix = "keychain:"

  /// The schema written for items of each class created through the Keychain API.
  public static func schema(for itemClass: ItemClass) -> String {
    switch itemClass {
    case .genericPassword: "org.freedesktop.Secret.Generic"
    case .internetPassword: "org.gnome.keyring.NetworkPassword"
    case .key: "org.keychain-linux.Key"
    case .certificate: "org.keychain-linux.Certificate"
    case .identity: "org.keychain-linux.Identity"
    }
  }

  /// The class of an item with these Secret Service attributes.
  public static func itemClass(of raw: [String: String]) -> ItemClass {
    guard let schema = raw[schemaAttribute] else { return .genericPassword }
    return ItemClass.allCases.first { $0 != .genericPassword && self.schema(for: $0) == schema }
      ?? .genericPassword
  }

  /// Secret Service names of the Keychain attributes of each class that have one.
  static func names(for itemClass: ItemClass) -> [AttributeKey: String] {
    switch itemClass {
    case .internetPassword:
      [
        .account: "user", .server: "server", .protocol: "protocol", .port: "port",
        .path: "object", .securityDomain: "domain", .authenticationType: "authtype",
      ]
    case .genericPassword: [.service: "service", .account: "account"]
    default: [:]
    }
  }

  /// Apple's four-character protocol codes for the names gnome-keyring stores.
  static let protocols: [String: String] = [
    "http": "http", "https": "htps", "ftp": "ftp ", "ftps": "ftps", "ssh": "ssh ",
    "smb": "smb ", "imap": "imap", "imaps": "imps", "pop3": "pop3", "pop3s": "pop3s",
    "smtp": "smtp", "ldap": "ldap", "ldaps": "ldps", "telnet": "teln", "irc": "irc ",
    "afp": "afp ", "socks": "sox ", "nntp": "nntp",
  ]

  /// The Keychain view of a stored item.
  public static func keychainAttributes(
    raw: [String: String], label: String, created: Date, modified: Date
  ) -> (ItemClass, [AttributeKey: AttributeValue]) {
    let itemClass = itemClass(of: raw)
    var attributes: [AttributeKey: AttributeValue] = [
      .label: .string(label), .creationDate: .date(created), .modificationDate: .date(modified),
    ]
    for (key, name) in names(for: itemClass) {
      guard var text = raw[name] else { continue }
      if key == .protocol { text = protocols[text] ?? text }
      if let value = decode(text, as: key.kind(for: itemClass)) { attributes[key] = value }
    }
    // python-keyring and others say `username` where libsecret's examples say `account`.
    if itemClass == .genericPassword, attributes[.account] == nil, let user = raw["username"] {
      attributes[.account] = .string(user)
    }
    for (name, text) in raw where name.hasPrefix(keychainPrefix) {
      guard let key = AttributeKey(rawValue: String(name.dropFirst(keychainPrefix.count))),
        let value = decode(text, as: key.kind(for: itemClass))
      else { continue }
      attributes[key] = value
    }
    return (itemClass, attributes)
  }

  /// The Secret Service attributes and label for a new item made through the Keychain API.
  public static func secretServiceAttributes(
    itemClass: ItemClass, attributes: [AttributeKey: AttributeValue]
  ) -> (raw: [String: String], label: String) {
    var raw = [schemaAttribute: schema(for: itemClass)]
    apply(attributes, itemClass: itemClass, to: &raw)
    let label: String
    if case .string(let text)? = attributes[.label] {
      label = text
    } else {
      label = defaultLabel(itemClass: itemClass, attributes: attributes)
    }
    return (raw, label)
  }

  /// `raw` with Keychain attribute `changes` applied; entries the changes do not name stay.
  public static func applying(
    _ changes: [AttributeKey: AttributeValue], itemClass: ItemClass, to raw: [String: String]
  ) -> [String: String] {
    var updated = raw
    apply(changes, itemClass: itemClass, to: &updated)
    return updated
  }

  /// The Secret Service attribute pairs an exact Keychain query implies: what an index lookup
  /// can use. Attributes with no stored form (label, dates) are left for the caller to filter.
  public static func searchPairs(for query: ItemQuery) -> [String: String] {
    var pairs = [schemaAttribute: schema(for: query.itemClass)]
    guard !query.caseInsensitive else { return pairs }
    var attributes = query.attributes
    for key in [AttributeKey.label, .creationDate, .modificationDate] { attributes[key] = nil }
    apply(attributes, itemClass: query.itemClass, to: &pairs)
    return pairs
  }

  private static func apply(
    _ attributes: [AttributeKey: AttributeValue], itemClass: ItemClass,
    to raw: inout [String: String]
  ) {
    let known = names(for: itemClass)
    for (key, value) in attributes {
      // Label and dates belong to the item, not to its attributes.
      guard key != .label, key != .creationDate, key != .modificationDate else { continue }
      var text = encode(value)
      if key == .protocol, let name = protocols.first(where: { $0.value == text })?.key {
        text = name
      }
      raw[known[key] ?? keychainPrefix + key.rawValue] = text
    }
  }

  private static func defaultLabel(itemClass: ItemClass, attributes: [AttributeKey: AttributeValue])
    -> String
  {
    func text(_ key: AttributeKey) -> String? {
      if case .string(let s)? = attributes[key] { return s }
      return nil
    }
    switch itemClass {
    case .internetPassword: return text(.server) ?? "Internet password"
    case .genericPassword: return text(.service) ?? "Password"
    case .key: return "Key"
    case .certificate: return "Certificate"
    case .identity: return "Identity"
    }
  }

  static func encode(_ value: AttributeValue) -> String {
    switch value {
    case .string(let s): s
    case .number(let n): String(n)
    case .bool(let b): b ? "1" : "0"
    case .data(let d): d.map { String(format: "%02x", $0) }.joined()
    case .date(let d): String(Int64(d.timeIntervalSince1970))
    }
  }

  static func decode(_ text: String, as kind: AttributeValue.Kind) -> AttributeValue? {
    switch kind {
    case .string: return .string(text)
    case .number: return Int64(text).map { .number($0) }
    case .bool: return text == "1" ? .bool(true) : text == "0" ? .bool(false) : nil
    case .date: return Int64(text).map { .date(Date(timeIntervalSince1970: TimeInterval($0))) }
    case .data:
      let chars = Array(text.utf8)
      guard chars.count % 2 == 0 else { return nil }
      var bytes: [UInt8] = []
      for i in stride(from: 0, to: chars.count, by: 2) {
        guard let byte = UInt8(String(decoding: chars[i...i + 1], as: UTF8.self), radix: 16) else {
          return nil
        }
        bytes.append(byte)
      }
      return .data(bytes)
    }
  }
}
