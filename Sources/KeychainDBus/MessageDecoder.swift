// SPDX-License-Identifier: MIT
//
// libdbus `DBusMessage` → Swift `Message`. libdbus validates every incoming message completely
// before handing it over, so names and strings read here are valid and are wrapped unchecked.

import CKeychainDBus

enum MessageDecoder {
  /// A byte array longer than the limit given to `decode`: refused before it is copied.
  struct TooLarge: Error {
    let count: Int
  }

  /// Decodes a message whole.
  static func decode(_ pointer: OpaquePointer) -> Message {
    do {
      return try decode(pointer, byteArrayLimit: .max)
    } catch {
      preconditionFailure("no byte array is longer than Int.max")
    }
  }

  /// Decodes a message; a byte array (`ay`) longer than `byteArrayLimit` throws before anything
  /// of it is copied out of libdbus's buffer.
  static func decode(_ pointer: OpaquePointer, byteArrayLimit: Int) throws(TooLarge)
    -> Message
  {
    var message = decode(header: pointer)
    message.body = try decodeBody(pointer, byteArrayLimit)
    return message
  }

  /// The header fields of a message, with an empty body.
  static func decode(header pointer: OpaquePointer) -> Message {
    let kind: Message.Kind =
      switch dbus_message_get_type(pointer) {
      case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
      case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
      case DBUS_MESSAGE_TYPE_ERROR: .error
      default: .signal
      }
    var message = Message(kind: kind, body: [])
    message.path = dbus_message_get_path(pointer).map { ObjectPath(unchecked: String(cString: $0)) }
    message.interface = dbus_message_get_interface(pointer).map {
      InterfaceName(unchecked: String(cString: $0))
    }
    message.member = dbus_message_get_member(pointer).map {
      MemberName(unchecked: String(cString: $0))
    }
    message.errorName = dbus_message_get_error_name(pointer).map {
      ErrorName(unchecked: String(cString: $0))
    }
    message.destination = dbus_message_get_destination(pointer).map {
      BusName(unchecked: String(cString: $0))
    }
    message.sender = dbus_message_get_sender(pointer).map {
      BusName(unchecked: String(cString: $0))
    }
    message.serial = dbus_message_get_serial(pointer)
    message.replySerial = dbus_message_get_reply_serial(pointer)
    message.noReplyExpected = dbus_message_get_no_reply(pointer) != 0
    message.autoStart = dbus_message_get_auto_start(pointer) != 0
    return message
  }

  static func decodeBody(_ pointer: OpaquePointer, _ limit: Int) throws(TooLarge)
    -> [DBusValue]
  {
    var iter = DBusMessageIter()
    guard dbus_message_iter_init(pointer, &iter) != 0 else { return [] }
    var values: [DBusValue] = []
    while dbus_message_iter_get_arg_type(&iter) != 0 {
      values.append(try decodeValue(&iter, limit))
      dbus_message_iter_next(&iter)
    }
    return values
  }

  private static func basic(_ iter: inout DBusMessageIter) -> DBusBasicValue {
    var value = DBusBasicValue()
    dbus_message_iter_get_basic(&iter, &value)
    return value
  }

  /// The full signature of the value under the iterator, parsed.
  private static func currentType(_ iter: inout DBusMessageIter) -> DBusType {
    guard let raw = dbus_message_iter_get_signature(&iter) else { return .variant }
    defer { dbus_free(raw) }
    return (try? SignatureParser.parse(String(cString: raw)))?.first ?? .variant
  }

  private static func decodeValue(_ iter: inout DBusMessageIter, _ limit: Int) throws(TooLarge)
    -> DBusValue
  {
    let code = UInt8(truncatingIfNeeded: dbus_message_iter_get_arg_type(&iter))
    switch code {
    case UInt8(ascii: "y"): return .byte(basic(&iter).byt)
    case UInt8(ascii: "b"): return .boolean(basic(&iter).bool_val != 0)
    case UInt8(ascii: "n"): return .int16(basic(&iter).i16)
    case UInt8(ascii: "q"): return .uint16(basic(&iter).u16)
    case UInt8(ascii: "i"): return .int32(basic(&iter).i32)
    case UInt8(ascii: "u"): return .uint32(basic(&iter).u32)
    case UInt8(ascii: "x"): return .int64(Int64(basic(&iter).i64))
    case UInt8(ascii: "t"): return .uint64(UInt64(basic(&iter).u64))
    case UInt8(ascii: "d"): return .double(basic(&iter).dbl)
    case UInt8(ascii: "s"): return .string(String(cString: basic(&iter).str))
    case UInt8(ascii: "o"):
      return .objectPath(ObjectPath(unchecked: String(cString: basic(&iter).str)))
    case UInt8(ascii: "g"):
      return .signature(Signature(unchecked: String(cString: basic(&iter).str)))
    // libdbus hands us a duplicate that we now own.
    case UInt8(ascii: "h"): return .unixFD(UnixFileDescriptor(taking: basic(&iter).fd))
    case UInt8(ascii: "v"):
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      return .variant(try decodeValue(&sub, limit))
    case UInt8(ascii: "r"):
      var sub = DBusMessageIter()
      dbus_message_iter_recurse(&iter, &sub)
      var fields: [DBusValue] = []
      while dbus_message_iter_get_arg_type(&sub) != 0 {
        fields.append(try decodeValue(&sub, limit))
        dbus_message_iter_next(&sub)
      }
      return .structure(fields)
    case UInt8(ascii: "a"):
      return try decodeArray(&iter, limit)
    default:
      // Unreachable for a message libdbus accepted; keep the value rather than trap.
      return .structure([])
    }
  }

  private static func decodeArray(_ iter: inout DBusMessageIter, _ limit: Int) throws(TooLarge)
    -> DBusValue
  {
    var sub = DBusMessageIter()
    if dbus_message_iter_get_element_type(&iter) == Int32(UInt8(ascii: "y")) {
      dbus_message_iter_recurse(&iter, &sub)
      // `base` points into the message's own buffer, valid while the message lives (the whole
      // decode: its caller holds it); the bytes are copied out before returning.
      var base: UnsafeMutableRawPointer?
      var count: Int32 = 0
      withUnsafeMutablePointer(to: &base) { dbus_message_iter_get_fixed_array(&sub, $0, &count) }
      guard let base, count > 0 else { return .bytes([]) }
      guard count <= limit else { throw TooLarge(count: Int(count)) }
      return .bytes(Array(UnsafeRawBufferPointer(start: base, count: Int(count))))
    }
    let type = currentType(&iter)
    dbus_message_iter_recurse(&iter, &sub)
    switch type {
    case .dictionary(let keyType, let valueType):
      var entries: [DBusDictEntry] = []
      while dbus_message_iter_get_arg_type(&sub) != 0 {
        var pair = DBusMessageIter()
        dbus_message_iter_recurse(&sub, &pair)
        let key = try decodeValue(&pair, limit)
        dbus_message_iter_next(&pair)
        entries.append(DBusDictEntry(key, try decodeValue(&pair, limit)))
        dbus_message_iter_next(&sub)
      }
      return .dictionary(key: keyType, value: valueType, entries)
    case .array(let elementType):
      var items: [DBusValue] = []
      while dbus_message_iter_get_arg_type(&sub) != 0 {
        items.append(try decodeValue(&sub, limit))
        dbus_message_iter_next(&sub)
      }
      return .array(elementType, items)
    default:
      return .array(type, [])
    }
  }
}
