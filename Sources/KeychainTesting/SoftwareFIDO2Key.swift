// SPDX-License-Identifier: MIT
//
// A software FIDO2 key for tests: Tests/clients/soft-fido2.py (CTAPHID and CTAP 2.0 with
// hmac-secret and a PIN) on a Unix socket, which keychaind reaches through libfido2 with only
// the transport replaced (keychaind.conf's `fido2-device = unix:PATH`). Its credentials stay in
// its directory, so it can be unplugged (`unplug`) and plugged in again (`plugIn`).

import Foundation

/// soft-fido2.py, started for one test and stopped by PID.
public final class SoftwareFIDO2Key: @unchecked Sendable {
  public let directory: TemporaryDirectory
  private let script: String
  private var process: ChildProcess?
  private let lock = NSLock()

  /// keychaind.conf's `fido2-device` for it.
  public var device: String { "unix:\(socket)" }
  private var socket: String { directory.path + "/fido2.sock" }

  /// Whether python3-fido2 and libfido2 are installed.
  public static var isInstalled: Bool {
    FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/fido2")
      && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libfido2.so.1")
  }

  /// Starts the key with `pin` set on it (nil: none); it answers every request as touched.
  public init(script: String, pin: String? = nil) throws {
    directory = try TemporaryDirectory(prefix: "fido2")
    self.script = script
    try plugIn(pin: pin)
  }

  deinit { unplug() }

  /// Plugs the key in: with `pin`, and, unless `touched`, refusing every request that needs
  /// its user's presence.
  public func plugIn(pin: String? = nil, touched: Bool = true) throws {
    unplug()
    let arguments =
      [script, socket, directory.path + "/state.json"] + (pin.map { ["--pin", $0] } ?? [])
      + (touched ? [] : ["--deny-presence"])
    let child = try ChildProcess(
      "/usr/bin/python3", arguments, stderrFile: directory.path + "/fido2.log",
      appendOutput: true)
    lock.withLock { process = child }
    // Ready once its socket is at its path (it binds elsewhere and renames).
    try child.waitUntil(
      { FileManager.default.fileExists(atPath: socket) }, log: "soft-fido2.py: \(log)")
  }

  /// Pulls the key out: nothing answers at its socket.
  public func unplug() {
    let child = lock.withLock {
      defer { process = nil }
      return process
    }
    child?.signal(SIGTERM)
    _ = child?.wait(timeout: hangBound)
    try? FileManager.default.removeItem(atPath: socket)
  }

  /// What the key wrote, for failure messages.
  public var log: String {
    (try? String(contentsOfFile: directory.path + "/fido2.log", encoding: .utf8)) ?? ""
  }
}
