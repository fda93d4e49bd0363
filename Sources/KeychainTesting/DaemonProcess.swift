// SPDX-License-Identifier: MIT

import Foundation
import KeychainDBus

/// The real `keychaind` binary on a private bus, with a throwaway home and data directory.
public final class DaemonProcess: Sendable {
  public let bus: PrivateBus
  public let home: TemporaryDirectory
  private let process: ChildProcess
  /// The daemon's stderr, for failure messages.
  public let logPath: String

  /// The built `keychaind`, next to the test binary in the build directory.
  public static var executable: String {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = here.deletingLastPathComponent()
    // The test binary may sit inside an .xctest bundle directory.
    while !FileManager.default.fileExists(atPath: directory.path + "/keychaind"),
      directory.path != "/"
    {
      directory.deleteLastPathComponent()
    }
    return directory.path + "/keychaind"
  }

  /// Starts keychaind and waits until it owns the name.
  /// - Parameters:
  ///   - password: given to `--unlock`, which creates the login collection; nil starts the
  ///     daemon with an empty store and no `--unlock`.
  ///   - pinentry: the program for `PINENTRY`; nil turns prompting off.
  ///   - environment: more variables for the daemon (GPG_TTY for a terminal pinentry).
  public init(
    password: String? = "test password", pinentry: String? = nil, arguments: [String] = [],
    environment extra: [String: String] = [:]
  ) async throws {
    bus = try PrivateBus()
    home = try TemporaryDirectory(prefix: "keychaind-home")
    logPath = home.path + "/keychaind.log"
    var input: String?
    if let password {
      input = home.path + "/password"
      try Data(password.utf8).write(to: URL(fileURLWithPath: home.path + "/password"))
    }
    var environment = bus.environment(home: home.path)
    environment["PINENTRY"] = pinentry ?? "none"
    environment.merge(extra) { $1 }
    process = try ChildProcess(
      Self.executable, (password == nil ? [] : ["--unlock"]) + ["--verbose"] + arguments,
      environment: environment, stdinFile: input, stderrFile: logPath)
    let watcher = try await bus.connect()
    for _ in 0..<1500 {  // up to 30 s on a loaded machine
      if try await watcher.nameOwner("org.freedesktop.secrets") != nil { return }
      if let status = process.poll() {
        throw TestingError("keychaind exited with \(status): \(log)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("keychaind did not take org.freedesktop.secrets: \(log)")
  }

  /// What the daemon logged so far.
  public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// The environment for a client of this daemon.
  public var environment: [String: String] { bus.environment(home: home.path) }

  /// Runs a client command against the daemon.
  public func run(_ executable: String, _ arguments: [String], stdin: [UInt8] = []) throws
    -> CommandResult
  {
    try runCommand(
      executable, arguments, environment: environment, stdin: stdin, timeout: .seconds(30))
  }

  /// Whether the daemon is still running.
  public var isRunning: Bool { process.poll() == nil }

  /// Sends SIGTERM and waits for the exit code.
  public func terminate() -> Int32? {
    process.signal(SIGTERM)
    return process.wait(timeout: .seconds(10))
  }
}
