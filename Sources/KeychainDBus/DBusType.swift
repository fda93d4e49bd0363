// SPDX-License-Identifier: MIT
//
// The D-Bus type system ("Type System" in the specification): single complete types and the
// signatures that spell them, with the specification's limits on nesting and length.

/// One single complete D-Bus type.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
  case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
  case string, objectPath, signature, unixFD
  case variant
  case array(DBusType)
  /// `a{KV}`: a dictionary is an array of dict entries whose key is a basic type.
  case dictionary(key: DBusType, value: DBusType)
  case structure([DBusType])

  /// The type's code in a signature, such as `s` or `a{sv}`.
  public var signature: String {
    switch self {
    case .byte: "y"
    case .boolean: "b"
    case .int16: "n"
    case .uint16: "q"
    case .int32: "i"
    case .uint32: "u"
    case .int64: "x"
    case .uint64: "t"
    case .double: "d"
    case .string: "s"
    case .objectPath: "o"
    case .signature: "g"
    case .unixFD: "h"
    case .variant: "v"
    case .array(let element): "a" + element.signature
    case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
    case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
    }
  }

  public var description: String { signature }

  /// Basic types can be dictionary keys; containers and variants cannot.
  public var isBasic: Bool {
    switch self {
    case .variant, .array, .dictionary, .structure: false
    default: true
    }
  }

  /// Fixed-size basic types, which libdbus reads and writes as whole arrays at once.
  var isFixed: Bool {
    switch self {
    case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double, .unixFD:
      true
    default: false
    }
  }

  /// The libdbus type code (`DBUS_TYPE_*`), the ASCII value of the signature's first character.
  var code: Int32 { Int32(signature.utf8.first!) }

  static func basic(code: UInt8) -> DBusType? {
    switch code {
    case UInt8(ascii: "y"): .byte
    case UInt8(ascii: "b"): .boolean
    case UInt8(ascii: "n"): .int16
    case UInt8(ascii: "q"): .uint16
    case UInt8(ascii: "i"): .int32
    case UInt8(ascii: "u"): .uint32
    case UInt8(ascii: "x"): .int64
    case UInt8(ascii: "t"): .uint64
    case UInt8(ascii: "d"): .double
    case UInt8(ascii: "s"): .string
    case UInt8(ascii: "o"): .objectPath
    case UInt8(ascii: "g"): .signature
    case UInt8(ascii: "h"): .unixFD
    default: nil
    }
  }
}

/// A signature: zero or more single complete types, at most 255 bytes, nested at most 32 arrays
/// and 32 structures deep (64 in total).
public struct Signature: ValidatedName {
  public let rawValue: String
  public init(unchecked rawValue: String) { self.rawValue = rawValue }
  public static let kind = "signature"

  /// The empty signature of a message without arguments.
  public static let empty = Signature(unchecked: "")

  /// The signature of `types`, checked against the limits.
  public init(_ types: [DBusType]) throws(DBusError) {
    try self.init(types.map(\.signature).joined())
  }

  public static func isValid(_ text: String) -> Bool {
    (try? SignatureParser.parse(text)) != nil
  }

  /// The single complete types this signature spells.
  public var types: [DBusType] {
    // Valid by construction, so parsing cannot fail here.
    (try? SignatureParser.parse(rawValue)) ?? []
  }
}

/// Recursive-descent parser for signatures, enforcing every limit of the specification.
enum SignatureParser {
  static let maxLength = 255
  static let maxArrayDepth = 32
  static let maxStructDepth = 32

  struct Failure: Error {}

  static func parse(_ text: String) throws(Failure) -> [DBusType] {
    let bytes = Array(text.utf8)
    guard bytes.count <= maxLength else { throw Failure() }
    var index = 0
    var types: [DBusType] = []
    while index < bytes.count {
      types.append(try single(bytes, &index, arrays: 0, structs: 0))
    }
    return types
  }

  private static func single(
    _ bytes: [UInt8], _ index: inout Int, arrays: Int, structs: Int
  ) throws(Failure) -> DBusType {
    guard index < bytes.count else { throw Failure() }
    let code = bytes[index]
    index += 1
    if let basic = DBusType.basic(code: code) { return basic }
    switch code {
    case UInt8(ascii: "v"):
      return .variant
    case UInt8(ascii: "a"):
      guard arrays < maxArrayDepth else { throw Failure() }
      if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
        index += 1
        // A dict entry counts as a structure for the nesting limit.
        guard structs < maxStructDepth, index < bytes.count,
          let key = DBusType.basic(code: bytes[index])
        else { throw Failure() }
        index += 1
        let value = try single(bytes, &index, arrays: arrays + 1, structs: structs + 1)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else { throw Failure() }
        index += 1
        return .dictionary(key: key, value: value)
      }
      return .array(try single(bytes, &index, arrays: arrays + 1, structs: structs))
    case UInt8(ascii: "("):
      guard structs < maxStructDepth else { throw Failure() }
      var fields: [DBusType] = []
      while index < bytes.count, bytes[index] != UInt8(ascii: ")") {
        fields.append(try single(bytes, &index, arrays: arrays, structs: structs + 1))
      }
      guard index < bytes.count, !fields.isEmpty else { throw Failure() }
      index += 1
      return .structure(fields)
    default:
      throw Failure()
    }
  }
}
