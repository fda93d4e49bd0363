// SPDX-License-Identifier: MIT
//
// gnome-keyring's control protocol, the one `pam_gnome_keyring.so` speaks to
// `$XDG_RUNTIME_DIR/keyring/control` (gnome-keyring: daemon/control/gkd-control-server.c and
// pam/gkr-pam-client.c). Over a Unix stream socket: the client first sends one credentials byte
// (0), then one request; the server answers one reply. Every integer is a big-endian u32:
//
//     request: u32 length (itself included) | u32 operation | per argument: u32 length | bytes
//     reply:   u32 8 | u32 result
//
// A NULL argument has the length 0x7FFFFFFF and no bytes.

import KeychainCrypto

/// The operations a control client can ask for.
public enum ControlOperation: UInt32, Sendable {
  /// Start components (the reply then also carries an environment list).
  case initialize = 0
  /// Unlock (or create) the login keyring with the password argument.
  case unlock = 1
  /// Re-key the login keyring: the old and the new password.
  case change = 2
  /// Stop the daemon.
  case quit = 3
}

/// What the daemon answers.
public enum ControlResult: UInt32, Sendable {
  case ok = 0
  case denied = 1
  case failed = 2
  case noDaemon = 3
}

/// Encoding and decoding of control packets, with the bounds a server applies.
public enum ControlPacket {
  /// The largest packet accepted: two passwords of a few KiB and the framing.
  public static let maximumLength = 16 << 10
  /// The length that marks a NULL argument.
  static let nullLength: UInt32 = 0x7FFF_FFFF

  /// A request for `operation` with `arguments` (nil: a NULL argument).
  public static func request(_ operation: ControlOperation, _ arguments: [[UInt8]?] = [])
    -> [UInt8]
  {
    var body = word(operation.rawValue)
    for argument in arguments {
      if let argument {
        body += word(UInt32(argument.count)) + argument
      } else {
        body += word(nullLength)
      }
    }
    return word(UInt32(body.count + 4)) + body
  }

  /// A reply carrying `result`.
  public static func reply(_ result: ControlResult) -> [UInt8] {
    word(8) + word(result.rawValue)
  }

  /// A request's operation and arguments (after its length word), each argument a slice of
  /// `body` in locked memory and a NULL one empty; nil for anything malformed.
  public static func parse(_ body: SecureBytes) -> (ControlOperation, [SecureBytes])? {
    body.withUnsafeBytes { bytes -> (ControlOperation, [SecureBytes])? in
      guard bytes.count >= 4, let operation = ControlOperation(rawValue: word(bytes, at: 0))
      else { return nil }
      var offset = 4
      var arguments: [SecureBytes] = []
      while offset < bytes.count {
        guard bytes.count - offset >= 4, arguments.count < 8 else { return nil }
        let length = word(bytes, at: offset)
        offset += 4
        if length == nullLength {
          arguments.append(body.slice(offset..<offset))
          continue
        }
        guard Int(length) <= bytes.count - offset else { return nil }
        arguments.append(body.slice(offset..<(offset + Int(length))))
        offset += Int(length)
      }
      return (operation, arguments)
    }
  }

  static func word(_ value: UInt32) -> [UInt8] {
    [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  static func word(_ bytes: some Collection<UInt8>, at offset: Int) -> UInt32 {
    bytes.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
  }
}
