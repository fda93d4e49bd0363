// SPDX-License-Identifier: MIT
//
// A share's bus, as dbus-daemon is told to run it and as clients are told to reach it. It
// listens on one socket in the share's 0700 directory; it accepts only this user (dbus-daemon
// checks the connecting uid: EXTERNAL authentication, no anonymous clients) and starts nothing
// (no service directories, so no activation). Its clients can reach keychaind's share server
// and each other, nothing else: the session bus is another process they are not given.

/// The configuration and address of a share's bus.
enum ShareBus {
  /// dbus-daemon's configuration for a bus at `socket`.
  static func configuration(socket: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <listen>unix:path=\(escapedAddressValue(socket))</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow send_destination="*" eavesdrop="false"/>
        <allow receive_sender="*"/>
        <allow own="*"/>
      </policy>
      <limit name="max_completed_connections">64</limit>
      <limit name="max_connections_per_user">64</limit>
    </busconfig>
    """
  }

  /// The address clients connect to: `unix:path=SOCKET`.
  static func address(socket: String) -> String { "unix:path=" + escapedAddressValue(socket) }

  /// `value` as a D-Bus address value (bytes outside `[-0-9A-Za-z_/.\*]` as `%XX`), which is
  /// also safe inside the XML: `&`, `<`, `>` and quotes are escaped with the rest.
  static func escapedAddressValue(_ value: String) -> String {
    var escaped = ""
    for byte in value.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
        UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
        escaped.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = Array("0123456789abcdef")
        escaped += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
      }
    }
    return escaped
  }
}
