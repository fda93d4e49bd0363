// SPDX-License-Identifier: MIT
//
// Who is calling, as far as the kernel can say: the uid and pid the bus daemon took from the
// caller's socket (SO_PEERCRED, not anything the caller sent), and the start time of the
// process with that pid. Debian 12's dbus-daemon hands out no pidfd, so the start time is what
// tells a pid's process from a later one that reused the number: read it again before trusting
// what was learnt from the pid, and a different value means a different process.

import Foundation

/// The identity of a peer connection as the bus reports it.
public struct PeerCredentials: Sendable, Hashable {
  public var uid: UInt32?
  public var pid: UInt32?
  /// When the process `pid` started, in clock ticks after boot (`/proc/PID/stat`, field 22),
  /// read just after the bus named the pid.
  public var processStartTime: UInt64?

  public init(uid: UInt32? = nil, pid: UInt32? = nil, processStartTime: UInt64? = nil) {
    self.uid = uid
    self.pid = pid
    self.processStartTime = processStartTime
  }

  /// The start time of process `pid`, or nil if it has gone (or /proc is not mounted).
  public static func startTime(ofProcess pid: UInt32) -> UInt64? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
      return nil
    }
    return startTime(fromStat: stat)
  }

  /// Field 22 of a `/proc/PID/stat` line. The command name (field 2) is in parentheses and may
  /// hold spaces and parentheses itself, so the fields are counted from the last `)`.
  static func startTime(fromStat stat: String) -> UInt64? {
    guard let close = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 (the state).
    return fields.count > 19 ? UInt64(fields[19]) : nil
  }
}
