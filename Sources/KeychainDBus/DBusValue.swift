// SPDX-License-Identifier: MIT

#if canImport(Glibc)
  import Glibc
#endif

/// One D-Bus value of any type, nested to any legal depth.
///
/// Byte arrays (`ay`) have their own case, `bytes`, because secrets, keys and IVs travel as
/// byte arrays and a value per byte would cost nine times the memory. The decoder always
/// produces `bytes` for `ay`; the encoder also accepts `.array(.byte, …)`.
public enum DBusValue: Hashable, Sendable {
  case byte(UInt8)
  case boolean(Bool)
  case int16(Int16)
  case uint16(UInt16)
  case int32(Int32)
  case uint32(UInt32)
  case int64(Int64)
  case uint64(UInt64)
  case double(Double)
  /// A string; it may not contain U+0000 (the encoder refuses it with `InvalidArgs`).
  case string(String)
  case objectPath(ObjectPath)
  case signature(Signature)
  case unixFD(UnixFileDescriptor)
  /// `ay`, kept as one buffer.
  case bytes([UInt8])
  /// An array whose elements all have the type `DBusType`; the type is needed when it is empty.
  indirect case array(DBusType, [DBusValue])
  /// `a{KV}`: entries keep their order, as on the wire.
  indirect case dictionary(key: DBusType, value: DBusType, [DBusDictEntry])
  indirect case structure([DBusValue])
  indirect case variant(DBusValue)

  /// The value's complete type.
  public var type: DBusType {
    switch self {
    case .byte: .byte
    case .boolean: .boolean
    case .int16: .int16
    case .uint16: .uint16
    case .int32: .int32
    case .uint32: .uint32
    case .int64: .int64
    case .uint64: .uint64
    case .double: .double
    case .string: .string
    case .objectPath: .objectPath
    case .signature: .signature
    case .unixFD: .unixFD
    case .bytes: .array(.byte)
    case .array(let element, _): .array(element)
    case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
    case .structure(let fields): .structure(fields.map(\.type))
    case .variant: .variant
    }
  }
}

extension DBusValue {
  /// Whether the value has `type`: `type == expected` without building the value's type, which
  /// allocates for containers (every call's arguments are checked).
  public func hasType(_ expected: DBusType) -> Bool {
    switch (self, expected) {
    case (.array(let element, _), .array(let wanted)): element == wanted
    case (.dictionary(let key, let value, _), .dictionary(let wantedKey, let wantedValue)):
      key == wantedKey && value == wantedValue
    case (.structure(let fields), .structure(let wanted)):
      fields.count == wanted.count && zip(fields, wanted).allSatisfy { $0.hasType($1) }
    case (.bytes, .array(let wanted)): wanted == .byte
    case (.array, _), (.dictionary, _), (.structure, _), (.bytes, _): false
    default: type == expected
    }
  }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictEntry: Hashable, Sendable {
  public var key: DBusValue
  public var value: DBusValue

  /// An entry mapping `key` to `value`.
  public init(_ key: DBusValue, _ value: DBusValue) {
    self.key = key
    self.value = value
  }
}

extension DBusValue {
  /// The text of a `string`, or nil for any other case.
  public var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  /// The path of an `objectPath`, or nil for any other case.
  public var objectPath: ObjectPath? {
    if case .objectPath(let p) = self { return p }
    return nil
  }

  /// The content of a `variant`, or nil for any other case.
  public var variantContent: DBusValue? {
    if case .variant(let v) = self { return v }
    return nil
  }

  /// The bytes of an `ay`, from either spelling, or nil for any other value.
  public var bytes: [UInt8]? {
    switch self {
    case .bytes(let b): return b
    case .array(.byte, let items):
      var out: [UInt8] = []
      out.reserveCapacity(items.count)
      for case .byte(let b) in items { out.append(b) }
      return out.count == items.count ? out : nil
    default: return nil
    }
  }
}

/// A file descriptor received in or sent with a message (`h`). The object owns the descriptor
/// and closes it when the last reference goes away.
public final class UnixFileDescriptor: Hashable, Sendable, CustomStringConvertible {
  /// The descriptor number, valid while this object lives.
  public let rawValue: Int32

  /// Takes ownership of `fd`: it is closed when this object is freed.
  public init(taking fd: Int32) { rawValue = fd }

  /// Duplicates `fd` (close-on-exec); the caller keeps its own descriptor. Nil if `dup` fails.
  public init?(duplicating fd: Int32) {
    let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { return nil }
    rawValue = copy
  }

  deinit { close(rawValue) }

  public static func == (lhs: UnixFileDescriptor, rhs: UnixFileDescriptor) -> Bool {
    lhs === rhs
  }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  public var description: String { "fd \(rawValue)" }
}
