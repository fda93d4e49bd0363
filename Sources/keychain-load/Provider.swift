// SPDX-License-Identifier: MIT
//
// The process behind org.freedesktop.secrets, seen from outside: its pid (from the bus), the CPU
// time it has used and its resident memory (from /proc; the provider must run on this machine),
// and a restart timed from spawn to the first correct secret.

import Foundation
import KeychainDBus
import KeychainSystem
import SecretServiceProtocol

/// The provider's process, found through the bus.
struct Provider {
  let connection: Connection
  let pid: Int32

  /// The process that owns org.freedesktop.secrets now.
  static func current(_ connection: Connection) async throws -> Provider {
    guard let pid = try await connection.credentials(of: SecretService.busName).pid else {
      throw WrongAnswer(description: "the bus does not know the provider's process id")
    }
    return Provider(connection: connection, pid: Int32(pid))
  }

  /// User plus system CPU time of the whole process so far, in microseconds (10 ms steps).
  func cpuMicroseconds() -> Double {
    // Fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name.
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let end = stat.lastIndex(of: ")")
    else { return 0 }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
      return 0
    }
    return (user + system) * 1e6 / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// Resident and peak resident memory in KiB (VmRSS, VmHWM).
  func memory() -> (resident: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return (0, 0)
    }
    func field(_ name: String) -> Int {
      let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
      return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
    }
    return (field("VmRSS"), field("VmHWM"))
  }

  /// Whether anyone owns org.freedesktop.secrets.
  static func isRunning(_ connection: Connection) async throws -> Bool {
    try await connection.nameOwner(SecretService.busName) != nil
  }

  /// Stops the provider with SIGTERM and waits (at most 30 s) until it has left the bus.
  func stop() async throws {
    kill(pid, SIGTERM)
    for _ in 0..<30_000 where try await Self.isRunning(connection) {
      try await Task.sleep(for: .milliseconds(1))
    }
    guard try await !Self.isRunning(connection) else {
      throw WrongAnswer(description: "the provider did not leave the bus within 30 s of SIGTERM")
    }
  }

  /// Runs `command` with /bin/sh, its output thrown away; it is left running when we exit.
  /// Started with a clean signal state: a child of a concurrency thread would otherwise
  /// inherit its blocked signals, and a provider that never sees SIGTERM cannot be restarted.
  static func spawn(_ command: String) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for fd in Int32(0)...2 {
      posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    let environment = ProcessInfo.processInfo.environment.map { "\($0)=\($1)" }
    let started = ProcessControl.spawn(
      "/bin/sh", ["/bin/sh", "-c", command], environment: environment, actions: &actions)
    guard case .success = started else {
      throw WrongAnswer(description: "cannot start /bin/sh: \(started)")
    }
  }
}
