// SPDX-License-Identifier: MIT

import KeychainDBus

/// An object of the Secret Service object tree, parsed from or printed as its path.
///
/// Collections and aliases are named by one path element; items by their collection (or alias)
/// and one element; sessions and prompts by one element. `/` means "no object" in replies.
public enum SecretPath: Hashable, Sendable {
  case service
  case collection(String)
  /// A collection reached through an alias, such as `/org/freedesktop/secrets/aliases/default`.
  case alias(String)
  case item(collection: String, item: String)
  /// An item under an alias path; it resolves like the alias.
  case aliasItem(alias: String, item: String)
  case session(String)
  case prompt(String)

  /// `/org/freedesktop/secrets`
  public static let base: ObjectPath = "/org/freedesktop/secrets"
  /// The `/` path that replies use for "no object" (no prompt, no collection yet).
  public static let none: ObjectPath = .root

  /// Parses `path`; nil for anything outside the Secret Service tree or of the wrong shape.
  public init?(_ path: ObjectPath) {
    guard let parts = Self.elements(below: path) else { return nil }
    switch (parts.first, parts.count) {
    case (nil, _): self = .service
    case ("collection", 2): self = .collection(parts[1])
    case ("collection", 3): self = .item(collection: parts[1], item: parts[2])
    case ("aliases", 2): self = .alias(parts[1])
    case ("aliases", 3): self = .aliasItem(alias: parts[1], item: parts[2])
    case ("session", 2): self = .session(parts[1])
    case ("prompt", 2): self = .prompt(parts[1])
    default: return nil
    }
  }

  private static let baseBytes = Array(base.rawValue.utf8)

  /// The elements of `path` after `base`, nil for a path outside it. Scanned as bytes: every
  /// call's path is parsed on the way in, by the object tree and again by its handler, and
  /// splitting it through `ObjectPath.components` cost about 9,000 instructions a time, a
  /// twentieth of a GetSecret. Empty elements are skipped, as `components` skips them.
  private static func elements(below path: ObjectPath) -> [String]? {
    let slash = UInt8(ascii: "/")
    var text = path.rawValue
    return text.withUTF8 { bytes -> [String]? in
      let prefix = baseBytes.count
      guard bytes.count >= prefix, bytes.prefix(prefix).elementsEqual(baseBytes),
        bytes.count == prefix || bytes[prefix] == slash
      else { return nil }
      var parts: [String] = []
      var start = prefix
      for end in prefix...bytes.count where end == bytes.count || bytes[end] == slash {
        if end > start {
          parts.append(
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        }
        start = end + 1
      }
      return parts
    }
  }

  /// The paths of items `ids` of `collection`, built from one prefix: the `Items` of a
  /// collection of 100k items is a list this long, and is sent on every change of it.
  public static func items(of collection: String, _ ids: [Int64]) -> [ObjectPath] {
    let prefix = base.rawValue + "/collection/" + collection + "/"
    return ids.map { ObjectPath(unchecked: prefix + String($0)) }
  }

  /// The object path. Elements must be valid path elements (`[A-Za-z0-9_]+`); use
  /// `ObjectPath.escapeElement` for names that come from labels.
  public var objectPath: ObjectPath {
    // Interpolated rather than joined from an array: every audited read names its item's path,
    // and joining cost four times as much.
    let base = Self.base.rawValue
    let path =
      switch self {
      case .service: base
      case .collection(let name): "\(base)/collection/\(name)"
      case .alias(let name): "\(base)/aliases/\(name)"
      case .item(let collection, let item): "\(base)/collection/\(collection)/\(item)"
      case .aliasItem(let alias, let item): "\(base)/aliases/\(alias)/\(item)"
      case .session(let id): "\(base)/session/\(id)"
      case .prompt(let id): "\(base)/prompt/\(id)"
      }
    return ObjectPath(unchecked: path)
  }
}
