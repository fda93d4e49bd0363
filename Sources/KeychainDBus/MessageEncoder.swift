// SPDX-License-Identifier: MIT
//
// Swift `Message` → libdbus `DBusMessage`. Runs after `BodyValidator` has accepted the body, so
// the only failures left are out-of-memory and a file descriptor that cannot be duplicated.

import CKeychainDBus

/// Owns one libdbus message reference.
///
/// Not `Sendable`: a message is built and sent by one thread (the loop thread, or any thread
/// for one that no connection sees, as in `WireFormat`), and `deinit` drops the reference.
final class RawMessage {
  let pointer: OpaquePointer
  init(adopting pointer: OpaquePointer) { self.pointer = pointer }
  deinit { dbus_message_unref(pointer) }
}

enum MessageEncoder {
  /// Builds a libdbus message from `message`, or throws without calling libdbus on bad input.
  static func encode(_ message: Message) throws(DBusError) -> RawMessage {
    try message.checkHeader()
    try BodyValidator.check(message.body)
    let type: Int32 =
      switch message.kind {
      case .methodCall: DBUS_MESSAGE_TYPE_METHOD_CALL
      case .methodReturn: DBUS_MESSAGE_TYPE_METHOD_RETURN
      case .error: DBUS_MESSAGE_TYPE_ERROR
      case .signal: DBUS_MESSAGE_TYPE_SIGNAL
      }
    guard let pointer = dbus_message_new(type) else { throw outOfMemory }
    let raw = RawMessage(adopting: pointer)
    var ok = true
    // Every name below is a validated Swift type, so libdbus's own checks cannot fail.
    if let path = message.path { ok = ok && dbus_message_set_path(pointer, path.rawValue) != 0 }
    if let i = message.interface { ok = ok && dbus_message_set_interface(pointer, i.rawValue) != 0 }
    if let m = message.member { ok = ok && dbus_message_set_member(pointer, m.rawValue) != 0 }
    if let e = message.errorName {
      ok = ok && dbus_message_set_error_name(pointer, e.rawValue) != 0
    }
    if let d = message.destination {
      ok = ok && dbus_message_set_destination(pointer, d.rawValue) != 0
    }
    if message.replySerial != 0 {
      ok = ok && dbus_message_set_reply_serial(pointer, message.replySerial) != 0
    }
    guard ok else { throw outOfMemory }
    dbus_message_set_no_reply(pointer, message.noReplyExpected ? 1 : 0)
    dbus_message_set_auto_start(pointer, message.autoStart ? 1 : 0)

    var iter = DBusMessageIter()
    dbus_message_iter_init_append(pointer, &iter)
    for value in message.body { try append(value, to: &iter) }
    return raw
  }

  static let outOfMemory = DBusError(.noMemory, "out of memory while building a message")

  private static func appendBasic<T: BitwiseCopyable>(
    _ value: T, _ type: DBusType, to iter: inout DBusMessageIter
  ) throws(DBusError) {
    let ok = withUnsafePointer(to: value) {
      dbus_message_iter_append_basic(&iter, type.code, $0) != 0
    }
    guard ok else { throw outOfMemory }
  }

  private static func appendString(
    _ text: String, _ type: DBusType, to iter: inout DBusMessageIter
  ) throws(DBusError) {
    let ok = text.withCString { cString -> Bool in
      // Swift strings are valid UTF-8; libdbus's own check also covers its extra rules.
      guard dbus_validate_utf8(cString, nil) != 0 else { return false }
      var pointer: UnsafePointer<CChar>? = cString
      return dbus_message_iter_append_basic(&iter, type.code, &pointer) != 0
    }
    guard ok else { throw DBusError(.invalidArgs, "a string argument is not valid for D-Bus") }
  }

  private static func withContainer(
    _ iter: inout DBusMessageIter, _ code: UInt8, _ signature: String?,
    _ body: (inout DBusMessageIter) throws(DBusError) -> Void
  ) throws(DBusError) {
    var sub = DBusMessageIter()
    guard dbus_message_iter_open_container(&iter, Int32(code), signature, &sub) != 0 else {
      throw outOfMemory
    }
    do {
      try body(&sub)
    } catch {
      dbus_message_iter_abandon_container(&iter, &sub)
      throw error
    }
    guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw outOfMemory }
  }

  private static func append(_ value: DBusValue, to iter: inout DBusMessageIter)
    throws(DBusError)
  {
    switch value {
    case .byte(let v): try appendBasic(v, .byte, to: &iter)
    case .boolean(let v): try appendBasic(dbus_bool_t(v ? 1 : 0), .boolean, to: &iter)
    case .int16(let v): try appendBasic(v, .int16, to: &iter)
    case .uint16(let v): try appendBasic(v, .uint16, to: &iter)
    case .int32(let v): try appendBasic(v, .int32, to: &iter)
    case .uint32(let v): try appendBasic(v, .uint32, to: &iter)
    case .int64(let v): try appendBasic(v, .int64, to: &iter)
    case .uint64(let v): try appendBasic(v, .uint64, to: &iter)
    case .double(let v): try appendBasic(v, .double, to: &iter)
    case .string(let v): try appendString(v, .string, to: &iter)
    case .objectPath(let v): try appendString(v.rawValue, .objectPath, to: &iter)
    case .signature(let v): try appendString(v.rawValue, .signature, to: &iter)
    case .unixFD(let fd):
      // libdbus duplicates the descriptor; it fails on a closed one.
      guard dbus_message_iter_append_basic(&iter, DBusType.unixFD.code, [fd.rawValue]) != 0 else {
        throw DBusError(.invalidArgs, "file descriptor \(fd.rawValue) cannot be sent")
      }
    case .bytes(let bytes):
      try withContainer(&iter, UInt8(ascii: "a"), "y") { sub throws(DBusError) in
        // libdbus copies the bytes into the message before returning: nothing keeps `base`.
        let ok = bytes.withUnsafeBufferPointer { buffer -> Bool in
          var base = buffer.baseAddress
          return withUnsafeMutablePointer(to: &base) {
            dbus_message_iter_append_fixed_array(&sub, DBusType.byte.code, $0, Int32(buffer.count))
              != 0
          }
        }
        guard ok else { throw outOfMemory }
      }
    case .array(let type, let items):
      try withContainer(&iter, UInt8(ascii: "a"), type.signature) { sub throws(DBusError) in
        for item in items { try append(item, to: &sub) }
      }
    case .dictionary(let keyType, let valueType, let entries):
      let entrySignature = "{" + keyType.signature + valueType.signature + "}"
      try withContainer(&iter, UInt8(ascii: "a"), entrySignature) { sub throws(DBusError) in
        for entry in entries {
          try withContainer(&sub, UInt8(ascii: "e"), nil) { pair throws(DBusError) in
            try append(entry.key, to: &pair)
            try append(entry.value, to: &pair)
          }
        }
      }
    case .structure(let fields):
      try withContainer(&iter, UInt8(ascii: "r"), nil) { sub throws(DBusError) in
        for field in fields { try append(field, to: &sub) }
      }
    case .variant(let content):
      try withContainer(&iter, UInt8(ascii: "v"), content.type.signature) {
        sub throws(DBusError) in try append(content, to: &sub)
      }
    }
  }
}
