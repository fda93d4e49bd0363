// SPDX-License-Identifier: MIT

import CKeychainDBus

/// The D-Bus wire format of a single message, through libdbus's own marshaller.
///
/// Used by tests and benchmarks to check encoding without a bus. These functions work on a
/// message no connection has seen, so they are safe on any thread.
public enum WireFormat {
  /// Serialises `message` as libdbus would send it (serial 1 if none was set).
  public static func marshal(_ message: Message) throws(DBusError) -> [UInt8] {
    let raw = try MessageEncoder.encode(message)
    dbus_message_set_serial(raw.pointer, message.serial == 0 ? 1 : message.serial)
    var buffer: UnsafeMutablePointer<CChar>?
    var length: Int32 = 0
    guard dbus_message_marshal(raw.pointer, &buffer, &length) != 0, let buffer else {
      throw MessageEncoder.outOfMemory
    }
    defer { dbus_free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
  }

  /// Parses one message in wire format; libdbus validates it completely first.
  public static func demarshal(_ bytes: [UInt8]) throws(DBusError) -> Message {
    let error = CError()
    let raw = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        dbus_message_demarshal($0.baseAddress, Int32($0.count), &error.value)
      }
    }
    guard let raw else { throw error.swiftError(default: "not a valid D-Bus message") }
    defer { dbus_message_unref(raw) }
    return MessageDecoder.decode(raw)
  }
}

/// libdbus's `DBusError` out-parameter, freed when this goes away.
final class CError {
  var value = CKeychainDBus.DBusError()
  init() { dbus_error_init(&value) }
  deinit { dbus_error_free(&value) }

  var isSet: Bool { dbus_error_is_set(&value) != 0 }

  /// The error as our Swift type; `fallback` when libdbus set none.
  func swiftError(default fallback: String) -> DBusError {
    guard isSet, let name = value.name else { return DBusError(.failed, fallback) }
    let message = value.message.map { String(cString: $0) } ?? fallback
    return DBusError(ErrorName(validating: String(cString: name)) ?? .failed, message)
  }
}
