// SPDX-License-Identifier: MIT
//
// libdbus aborts the process on arguments it considers invalid (a NUL in a string, a malformed
// signature, a value that does not match its container's type), and a bus disconnects a peer
// that sends a message over its limits. Every body is therefore checked here, completely,
// before the first byte of it is handed to libdbus.

/// Limits the encoder enforces, from the D-Bus specification.
public enum MessageLimits {
  /// The largest array, in bytes on the wire (2^26).
  public static let maxArrayBytes = 64 << 20
  /// The largest body we send, leaving room for headers under the 128 MiB message limit.
  public static let maxBodyBytes = 120 << 20
  /// The deepest nesting of containers, variants included (as libdbus validates on receipt).
  public static let maxContainerDepth = 64
}

enum BodyValidator {
  /// Checks types, strings, nesting and sizes of a whole body.
  static func check(_ body: [DBusValue]) throws(DBusError) {
    // The signature check enforces its own limits: 255 bytes, 32 arrays, 32 structures, basic
    // dictionary keys, no empty structures, for every type declared inside it.
    guard Signature.isValid(body.map(\.type.signature).joined()) else {
      throw DBusError(.invalidArgs, "arguments exceed the limits of a D-Bus signature")
    }
    var total = 0
    for value in body { total += try wireSize(value, depth: 0) }
    guard total <= MessageLimits.maxBodyBytes else {
      throw DBusError(.limitsExceeded, "message body of about \(total) bytes is too large")
    }
  }

  /// An upper bound of the value's size on the wire (each value may need 7 bytes of padding).
  private static func wireSize(_ value: DBusValue, depth: Int) throws(DBusError) -> Int {
    switch value {
    case .byte: return 1
    case .int16, .uint16: return 2 + 1
    case .boolean, .int32, .uint32, .unixFD: return 4 + 3
    case .int64, .uint64, .double: return 8 + 7
    case .string(let s):
      guard !s.utf8.contains(0) else {
        throw DBusError(.invalidArgs, "a string argument contains a NUL character")
      }
      return 4 + 3 + s.utf8.count + 1
    case .objectPath(let p): return 4 + 3 + p.rawValue.utf8.count + 1
    case .signature(let g): return 2 + g.rawValue.utf8.count
    case .bytes(let b): return try arraySize(b.count)
    case .array(let type, let items):
      try checkDepth(depth + 1)
      var size = 0
      for item in items {
        guard item.type == type else {
          throw DBusError(.invalidArgs, "array of \(type) holds a value of type \(item.type)")
        }
        size += try wireSize(item, depth: depth + 1)
      }
      return try arraySize(size)
    case .dictionary(let keyType, let valueType, let entries):
      try checkDepth(depth + 2)
      var size = 0
      for entry in entries {
        guard entry.key.type == keyType, entry.value.type == valueType else {
          throw DBusError(
            .invalidArgs, "dictionary a{\(keyType)\(valueType)} holds an entry of another type")
        }
        size += 7 + (try wireSize(entry.key, depth: depth + 2))
        size += try wireSize(entry.value, depth: depth + 2)
      }
      return try arraySize(size)
    case .structure(let fields):
      try checkDepth(depth + 1)
      var size = 7
      for field in fields { size += try wireSize(field, depth: depth + 1) }
      return size
    case .variant(let content):
      try checkDepth(depth + 1)
      let signature = content.type.signature
      guard Signature.isValid(signature) else {
        throw DBusError(.invalidArgs, "variant content exceeds the limits of a D-Bus signature")
      }
      return 2 + signature.utf8.count + 7 + (try wireSize(content, depth: depth + 1))
    }
  }

  private static func arraySize(_ contentBytes: Int) throws(DBusError) -> Int {
    guard contentBytes <= MessageLimits.maxArrayBytes else {
      throw DBusError(.limitsExceeded, "array of about \(contentBytes) bytes exceeds 64 MiB")
    }
    return 4 + 7 + contentBytes
  }

  private static func checkDepth(_ depth: Int) throws(DBusError) {
    guard depth <= MessageLimits.maxContainerDepth else {
      throw DBusError(.invalidArgs, "arguments are nested more than 64 containers deep")
    }
  }
}
