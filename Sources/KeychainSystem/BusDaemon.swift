// SPDX-License-Identifier: MIT
//
// A `dbus-daemon` of keychaind's own: the session bus when the user has none, and each scoped
// share's private bus. It is bound to keychaind (SIGTERM when keychaind ends, however it ends:
// PR_SET_PDEATHSIG), and reaped when it exits.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A started `dbus-daemon` (see the top of this file).
public struct BusDaemon: Sendable {
  /// Its address, as it printed it.
  public let address: String
  public let pid: pid_t

  /// Why one could not be started.
  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  /// Starts `dbus-daemon --nofork --print-address=1` with `arguments` (`--session`, or
  /// `--config-file=PATH`), found on `searchPath`; returns once it printed its address (10 s
  /// at most). An address it prints listens already.
  public static func start(_ arguments: [String], searchPath: String) throws(Failure) -> BusDaemon {
    let path = searchPath.split(separator: ":").map { String($0) + "/dbus-daemon" }.first {
      access($0, X_OK) == 0
    }
    guard let path else { throw Failure(description: "no dbus-daemon (install dbus-daemon)") }
    var pipeFDs: [Int32] = [-1, -1]
    guard pipe(&pipeFDs) == 0 else { throw Failure(description: "pipe: \(Errno(rawValue: errno))") }
    // Not inherited by anything else started meanwhile (the child's dup2 to 1 clears it).
    for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    defer { close(pipeFDs[0]) }
    let started = ProcessControl.spawnBound(
      path, [path] + arguments + ["--nofork", "--print-address=1"],
      output: FileDescriptor(rawValue: pipeFDs[1]))
    close(pipeFDs[1])
    guard case .success(let pid) = started else {
      throw Failure(description: "cannot start \(path): \(started)")
    }
    // The address is its first line; a daemon that prints none in 10 s has failed.
    var line: [UInt8] = []
    var entry = pollfd(fd: pipeFDs[0], events: Int16(POLLIN), revents: 0)
    while line.last != 0x0A, poll(&entry, 1, 10_000) > 0 {
      var byte: UInt8 = 0
      guard read(pipeFDs[0], &byte, 1) == 1 else { break }
      line.append(byte)
    }
    guard line.last == 0x0A, line.count > 1 else {
      kill(pid, SIGTERM)
      throw Failure(description: "\(path) did not start a bus")
    }
    return BusDaemon(address: String(decoding: line.dropLast(), as: UTF8.self), pid: pid)
  }

  /// Asks it to stop (SIGTERM): its clients' connections close.
  public func stop() { kill(pid, SIGTERM) }
}
