// SPDX-License-Identifier: MIT

import Foundation
import KeychainDBus
import Synchronization

/// The real `keychaind` binary (`Binaries.keychaind`) on a private bus, with a throwaway home
/// and data directory.
public final class DaemonProcess: Sendable {
  public let bus: PrivateBus
  public let home: TemporaryDirectory
  private let process: Mutex<ChildProcess?>
  private let launch: @Sendable () throws -> ChildProcess
  /// The daemon's stderr, for failure messages (appended to across restarts).
  public let logPath: String

  /// Starts keychaind and waits until it owns the name.
  /// - Parameters:
  ///   - password: given to `--unlock`, which creates the login collection; nil starts the
  ///     daemon with an empty store and no `--unlock`.
  ///   - pinentry: the program for `PINENTRY`; nil turns prompting off.
  ///   - environment: more variables for the daemon (GPG_TTY for a terminal pinentry).
  ///   - configuration: keychaind.conf's text, written before the daemon starts (by default,
  ///     `access-control = $KEYCHAIN_TEST_ACCESS_CONTROL` when that is set).
  public init(
    password: String? = "test password", pinentry: String? = nil, arguments: [String] = [],
    environment extra: [String: String] = [:], configuration: String? = nil
  ) async throws {
    bus = try PrivateBus()
    home = try TemporaryDirectory(prefix: "keychaind-home")
    // KEYCHAIN_TEST_ACCESS_CONTROL runs every test's daemon in that access mode (a suite
    // checked in protect: what each test reads, it wrote).
    let mode = ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"]
    if let configuration = configuration ?? mode.map({ "access-control = \($0)\n" }) {
      let directory = home.path + "/.config/keychaind"
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true)
      try configuration.write(
        toFile: directory + "/keychaind.conf", atomically: true, encoding: .utf8)
    }
    logPath = home.path + "/keychaind.log"
    var input: String?
    if let password {
      input = home.path + "/password"
      try Data(password.utf8).write(to: URL(fileURLWithPath: home.path + "/password"))
    }
    var environment = bus.environment(home: home.path)
    environment["PINENTRY"] = pinentry ?? "none"
    environment.merge(extra) { $1 }
    // As a login session has it: the runtime directory, private (the control socket goes there).
    if let runtime = environment["XDG_RUNTIME_DIR"] {
      try FileManager.default.createDirectory(
        atPath: runtime, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    let arguments = (password == nil ? [] : ["--unlock"]) + ["--verbose"] + arguments
    let logPath = logPath
    launch = { [environment, input] in
      try ChildProcess(
        Binaries.keychaind, arguments, environment: environment, stdinFile: input,
        stderrFile: logPath, appendOutput: true)
    }
    process = Mutex(nil)
    try await start()
  }

  // The daemon goes first, before its bus and its home: freed in the order they are declared,
  // the bus went first, keychaind saw it close and wrote its reserve file and audit log into a
  // home already removed, which then stayed in /tmp (a dozen a run).
  deinit { _ = kill() }

  /// Starts the daemon again on the same bus and home (after `kill`), and waits until it owns
  /// the name.
  public func start() async throws {
    let child = try launch()
    process.withLock { $0 = child }
    let watcher = try await bus.connect()
    for _ in 0..<1500 {  // up to 30 s on a loaded machine
      if try await watcher.nameOwner("org.freedesktop.secrets") != nil {
        await watcher.close()
        return
      }
      if let status = child.poll() {
        throw TestingError("keychaind exited with \(status): \(log)")
      }
      try await Task.sleep(for: .milliseconds(20))
    }
    throw TestingError("keychaind did not take org.freedesktop.secrets: \(log)")
  }

  /// Sends `signal` (SIGKILL: a crash) and waits until the process is gone.
  @discardableResult
  public func kill(with signal: Int32 = SIGKILL) -> Int32? {
    guard let child = process.withLock({ $0 }) else { return nil }
    child.signal(signal)
    return child.wait(timeout: .seconds(30))
  }

  /// What the daemon logged so far.
  public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// The daemon's log lines that report an error a method answered that its declaration does
  /// not list (see `CapturedLog.isUndeclaredError`).
  public var undeclaredErrors: [String] {
    log.split(separator: "\n").map(String.init).filter(CapturedLog.isUndeclaredError)
  }

  /// The environment for a client of this daemon.
  public var environment: [String: String] { bus.environment(home: home.path) }

  /// Runs a client command against the daemon, with `extra` variables besides the bus's.
  public func run(
    _ executable: String, _ arguments: [String], stdin: [UInt8] = [],
    environment extra: [String: String] = [:]
  ) throws -> CommandResult {
    try runCommand(
      executable, arguments, environment: environment.merging(extra) { $1 }, stdin: stdin,
      timeout: .seconds(30))
  }

  /// Whether the daemon is still running.
  public var isRunning: Bool { process.withLock { $0?.poll() == nil } }

  /// Sends SIGTERM and waits for the exit code.
  public func terminate() -> Int32? {
    guard let child = process.withLock({ $0 }) else { return nil }
    child.signal(SIGTERM)
    return child.wait(timeout: .seconds(10))
  }
}
