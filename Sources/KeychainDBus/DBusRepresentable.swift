// SPDX-License-Identifier: MIT
//
// Typed conversion between Swift values and D-Bus values, so that handlers read `[String: String]`
// for `a{ss}` and `[ObjectPath]` for `ao` instead of walking `DBusValue` trees.

/// A Swift type with a fixed D-Bus type.
public protocol DBusRepresentable: Sendable {
  /// The D-Bus type this Swift type converts to and from.
  static var dbusType: DBusType { get }
  /// The value as D-Bus carries it.
  var dbusValue: DBusValue { get }
  /// Converts back; throws `InvalidArgs` naming both types when `dbusValue` has another type.
  init(dbusValue: DBusValue) throws(DBusError)
}

extension DBusError {
  /// The error for a value of the wrong type.
  public static func typeMismatch(expected: DBusType, got: DBusValue) -> DBusError {
    DBusError(.invalidArgs, "expected a value of type \(expected), got \(got.type)")
  }
}

/// Declares a conformance for a type held directly by one `DBusValue` case.
private protocol DirectRepresentable: DBusRepresentable {
  static func extract(_ value: DBusValue) -> Self?
}

extension DirectRepresentable {
  public init(dbusValue: DBusValue) throws(DBusError) {
    guard let value = Self.extract(dbusValue) else {
      throw .typeMismatch(expected: Self.dbusType, got: dbusValue)
    }
    self = value
  }
}

extension UInt8: DirectRepresentable {
  public static var dbusType: DBusType { .byte }
  public var dbusValue: DBusValue { .byte(self) }
  fileprivate static func extract(_ v: DBusValue) -> UInt8? {
    if case .byte(let x) = v { return x }
    return nil
  }
}

extension Bool: DirectRepresentable {
  public static var dbusType: DBusType { .boolean }
  public var dbusValue: DBusValue { .boolean(self) }
  fileprivate static func extract(_ v: DBusValue) -> Bool? {
    if case .boolean(let x) = v { return x }
    return nil
  }
}

extension Int16: DirectRepresentable {
  public static var dbusType: DBusType { .int16 }
  public var dbusValue: DBusValue { .int16(self) }
  fileprivate static func extract(_ v: DBusValue) -> Int16? {
    if case .int16(let x) = v { return x }
    return nil
  }
}

extension UInt16: DirectRepresentable {
  public static var dbusType: DBusType { .uint16 }
  public var dbusValue: DBusValue { .uint16(self) }
  fileprivate static func extract(_ v: DBusValue) -> UInt16? {
    if case .uint16(let x) = v { return x }
    return nil
  }
}

extension Int32: DirectRepresentable {
  public static var dbusType: DBusType { .int32 }
  public var dbusValue: DBusValue { .int32(self) }
  fileprivate static func extract(_ v: DBusValue) -> Int32? {
    if case .int32(let x) = v { return x }
    return nil
  }
}

extension UInt32: DirectRepresentable {
  public static var dbusType: DBusType { .uint32 }
  public var dbusValue: DBusValue { .uint32(self) }
  fileprivate static func extract(_ v: DBusValue) -> UInt32? {
    if case .uint32(let x) = v { return x }
    return nil
  }
}

extension Int64: DirectRepresentable {
  public static var dbusType: DBusType { .int64 }
  public var dbusValue: DBusValue { .int64(self) }
  fileprivate static func extract(_ v: DBusValue) -> Int64? {
    if case .int64(let x) = v { return x }
    return nil
  }
}

extension UInt64: DirectRepresentable {
  public static var dbusType: DBusType { .uint64 }
  public var dbusValue: DBusValue { .uint64(self) }
  fileprivate static func extract(_ v: DBusValue) -> UInt64? {
    if case .uint64(let x) = v { return x }
    return nil
  }
}

extension Double: DirectRepresentable {
  public static var dbusType: DBusType { .double }
  public var dbusValue: DBusValue { .double(self) }
  fileprivate static func extract(_ v: DBusValue) -> Double? {
    if case .double(let x) = v { return x }
    return nil
  }
}

extension String: DirectRepresentable {
  public static var dbusType: DBusType { .string }
  public var dbusValue: DBusValue { .string(self) }
  fileprivate static func extract(_ v: DBusValue) -> String? { v.string }
}

extension ObjectPath: DirectRepresentable {
  public static var dbusType: DBusType { .objectPath }
  public var dbusValue: DBusValue { .objectPath(self) }
  fileprivate static func extract(_ v: DBusValue) -> ObjectPath? { v.objectPath }
}

extension Signature: DirectRepresentable {
  public static var dbusType: DBusType { .signature }
  public var dbusValue: DBusValue { .signature(self) }
  fileprivate static func extract(_ v: DBusValue) -> Signature? {
    if case .signature(let x) = v { return x }
    return nil
  }
}

/// `DBusValue` itself stands for a variant (`v`): `[String: DBusValue]` is `a{sv}`.
extension DBusValue: DBusRepresentable {
  public static var dbusType: DBusType { .variant }
  public var dbusValue: DBusValue { .variant(self) }
  public init(dbusValue: DBusValue) throws(DBusError) {
    guard let content = dbusValue.variantContent else {
      throw .typeMismatch(expected: .variant, got: dbusValue)
    }
    self = content
  }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
  public static var dbusType: DBusType { .array(Element.dbusType) }

  public var dbusValue: DBusValue {
    // By element type: `[] as? [UInt8]` succeeds for an empty array of any type.
    if Element.self == UInt8.self, let bytes = self as? [UInt8] { return .bytes(bytes) }
    return .array(Element.dbusType, map { $0.dbusValue })
  }

  public init(dbusValue: DBusValue) throws(DBusError) {
    if Element.self == UInt8.self, let bytes = dbusValue.bytes {
      self = bytes as! [Element]
      return
    }
    guard case .array(let type, let items) = dbusValue, type == Element.dbusType else {
      throw .typeMismatch(expected: Self.dbusType, got: dbusValue)
    }
    var out: [Element] = []
    out.reserveCapacity(items.count)
    for item in items { out.append(try Element(dbusValue: item)) }
    self = out
  }
}

/// Dictionaries convert to `a{KV}`. Keys must have a basic D-Bus type. When a received dictionary
/// repeats a key, the last entry wins, as with GVariant-based providers.
extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
  public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }

  public var dbusValue: DBusValue {
    precondition(Key.dbusType.isBasic, "dictionary keys must have a basic D-Bus type")
    return .dictionary(
      key: Key.dbusType, value: Value.dbusType,
      map { DBusDictEntry($0.key.dbusValue, $0.value.dbusValue) })
  }

  public init(dbusValue: DBusValue) throws(DBusError) {
    guard case .dictionary(let k, let v, let entries) = dbusValue,
      k == Key.dbusType, v == Value.dbusType
    else { throw .typeMismatch(expected: Self.dbusType, got: dbusValue) }
    var out: [Key: Value] = [:]
    out.reserveCapacity(entries.count)
    for entry in entries {
      out[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
    }
    self = out
  }
}

/// A file descriptor passed in a message (`h`), for typed method declarations: a class (the
/// descriptor is closed with it) cannot take part in `DBusRepresentable` itself.
public struct PassedDescriptor: DBusRepresentable, Sendable {
  public let descriptor: UnixFileDescriptor
  public static var dbusType: DBusType { .unixFD }
  public var dbusValue: DBusValue { .unixFD(descriptor) }
  public init(dbusValue: DBusValue) throws(DBusError) {
    guard case .unixFD(let descriptor) = dbusValue else {
      throw .typeMismatch(expected: .unixFD, got: dbusValue)
    }
    self.descriptor = descriptor
  }
}
