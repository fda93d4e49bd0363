// SPDX-License-Identifier: MIT
//
// Validated D-Bus names. libdbus aborts the process when handed an invalid path or name, so every
// name that reaches it is one of these types, and constructing one checks the rules of the D-Bus
// specification ("Valid Names", "Valid Object Paths") in pure Swift.

/// A D-Bus name that is known to be valid because it was checked when it was made.
public protocol ValidatedName: Hashable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral, Comparable
{
  /// The name as text.
  var rawValue: String { get }
  /// Wraps text that the caller has already validated (or that libdbus validated on receipt).
  init(unchecked rawValue: String)
  /// Whether `text` follows the specification's rules for this kind of name.
  static func isValid(_ text: String) -> Bool
  /// What kind of name this is, for error messages ("object path", "bus name", …).
  static var kind: String { get }
}

extension ValidatedName {
  /// Checks `text` and wraps it; throws `InvalidArgs` naming the kind of name when it is invalid.
  public init(_ text: String) throws(DBusError) {
    guard Self.isValid(text) else {
      throw DBusError(.invalidArgs, "invalid \(Self.kind): \(DBusError.quoted(text))")
    }
    self.init(unchecked: text)
  }

  /// Checks `text` and wraps it, or returns nil when it is invalid.
  public init?(validating text: String) {
    guard Self.isValid(text) else { return nil }
    self.init(unchecked: text)
  }

  /// A literal in source code must be valid; an invalid one is a programming error.
  public init(stringLiteral value: String) {
    precondition(Self.isValid(value), "invalid \(Self.kind) literal: \(value)")
    self.init(unchecked: value)
  }

  public var description: String { rawValue }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Character classes of the specification, on UTF-8 bytes (every valid name is ASCII).
enum NameCharacters {
  static func isAlpha(_ c: UInt8) -> Bool {
    (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
  }
  static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
  static func isWordStart(_ c: UInt8) -> Bool { isAlpha(c) || c == 0x5F }  // [A-Za-z_]
  static func isWord(_ c: UInt8) -> Bool { isWordStart(c) || isDigit(c) }  // [A-Za-z0-9_]

  /// Elements separated by dots: at least two, each non-empty, each checked by `element`.
  static func isDotted(
    _ text: String, maxLength: Int = 255, element: (Substring.UTF8View) -> Bool
  ) -> Bool {
    let utf8 = Substring(text).utf8
    guard !utf8.isEmpty, utf8.count <= maxLength else { return false }
    let parts = utf8.split(separator: 0x2E, omittingEmptySubsequences: false)
    return parts.count >= 2 && parts.allSatisfy { !$0.isEmpty && element($0) }
  }

  /// `[A-Za-z_][A-Za-z0-9_]*`, the rule for members and for interface elements.
  static func isIdentifier(_ part: Substring.UTF8View) -> Bool {
    guard let first = part.first, isWordStart(first) else { return false }
    return part.allSatisfy(isWord)
  }
}

/// An object path such as `/org/freedesktop/secrets/collection/login`.
public struct ObjectPath: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "object path"

  /// The root path `/`, which the Secret Service also uses to mean "no object".
  public static let root = ObjectPath(unchecked: "/")

  public static func isValid(_ text: String) -> Bool {
    let utf8 = Array(text.utf8)
    guard utf8.first == 0x2F else { return false }
    if utf8.count == 1 { return true }
    guard utf8.last != 0x2F else { return false }
    let parts = utf8.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false)
    return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(NameCharacters.isWord) }
  }

  /// The path's elements: `[]` for `/`, `["org", "freedesktop"]` for `/org/freedesktop`.
  public var components: [Substring] {
    // Split as bytes (paths are ASCII): splitting by Character walks grapheme clusters. The
    // Secret Service's per-call parse (`SecretPath`) scans the bytes itself, cheaper still.
    rawValue.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
  }

  /// The path one element up; the root is its own parent.
  public var parent: ObjectPath {
    guard let slash = rawValue.utf8.lastIndex(of: UInt8(ascii: "/")), slash != rawValue.startIndex
    else { return .root }
    return ObjectPath(unchecked: String(rawValue[..<slash]))
  }

  /// The path one element deeper. `element` must be a valid path element.
  public func appending(_ element: String) throws(DBusError) -> ObjectPath {
    try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
  }

  /// Whether `self` is `ancestor` or lies below it.
  public func isDescendant(of ancestor: ObjectPath) -> Bool {
    if ancestor.rawValue == "/" || ancestor == self { return true }
    return rawValue.hasPrefix(ancestor.rawValue + "/")
  }

  /// Encodes arbitrary text as one path element (`[A-Za-z0-9]` kept, anything else `_xx` hex),
  /// the way libsecret and gnome-keyring turn labels into collection paths.
  public static func escapeElement(_ text: String) -> String {
    guard !text.isEmpty else { return "_" }
    var out = ""
    for byte in text.utf8 {
      if NameCharacters.isAlpha(byte) || NameCharacters.isDigit(byte) {
        out.unicodeScalars.append(UnicodeScalar(byte))
      } else {
        out += "_" + String(byte, radix: 16, uppercase: false).leftPadded(to: 2)
      }
    }
    return out
  }
}

/// A bus name: unique (`:1.42`) or well-known (`org.freedesktop.secrets`).
public struct BusName: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "bus name"

  /// The message bus itself.
  public static let bus = BusName(unchecked: "org.freedesktop.DBus")

  /// Whether this is a unique connection name, assigned by the bus.
  public var isUnique: Bool { rawValue.hasPrefix(":") }

  public static func isValid(_ text: String) -> Bool {
    if text.hasPrefix(":") {
      // Unique names: elements may start with a digit.
      return NameCharacters.isDotted(String(text.dropFirst()), maxLength: 254) { part in
        part.allSatisfy { NameCharacters.isWord($0) || $0 == 0x2D }
      }
    }
    return NameCharacters.isDotted(text) { part in
      guard let first = part.first, !NameCharacters.isDigit(first) else { return false }
      return part.allSatisfy { NameCharacters.isWord($0) || $0 == 0x2D }
    }
  }
}

/// An interface name such as `org.freedesktop.Secret.Service`.
public struct InterfaceName: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "interface name"

  public static func isValid(_ text: String) -> Bool {
    NameCharacters.isDotted(text, element: NameCharacters.isIdentifier)
  }

  /// `org.freedesktop.DBus.Properties`
  public static let properties = InterfaceName(unchecked: "org.freedesktop.DBus.Properties")
  /// `org.freedesktop.DBus.Introspectable`
  public static let introspectable = InterfaceName(unchecked: "org.freedesktop.DBus.Introspectable")
  /// `org.freedesktop.DBus.Peer`, answered by libdbus itself on every path.
  public static let peer = InterfaceName(unchecked: "org.freedesktop.DBus.Peer")
  /// `org.freedesktop.DBus`, the bus daemon's own interface.
  public static let bus = InterfaceName(unchecked: "org.freedesktop.DBus")
}

/// A method or signal name such as `SearchItems`.
public struct MemberName: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "member name"

  public static func isValid(_ text: String) -> Bool {
    let utf8 = Substring(text).utf8
    return utf8.count <= 255 && NameCharacters.isIdentifier(utf8)
  }
}

/// An error name such as `org.freedesktop.Secret.Error.IsLocked`; same rules as interfaces.
public struct ErrorName: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "error name"

  public static func isValid(_ text: String) -> Bool { InterfaceName.isValid(text) }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
