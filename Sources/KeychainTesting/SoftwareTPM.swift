// SPDX-License-Identifier: MIT
//
// A software TPM 2.0 for tests: Debian's swtpm on a Unix socket in a temporary directory,
// reached through tpm2-tss's swtpm TCTI. Its state stays in that directory, so `reboot` is a
// power cycle of the same chip: PCRs back to zero, sealed keys and lockout counters kept.

import Foundation

/// swtpm, started for one test and stopped by PID.
public final class SoftwareTPM: @unchecked Sendable {
  public let directory: TemporaryDirectory
  private var process: ChildProcess?
  private let lock = NSLock()

  /// The TCTI configuration that reaches it (keychaind.conf's `tpm2-tcti`).
  public var tcti: String { "swtpm:path=\(socket)" }
  private var socket: String { directory.path + "/swtpm.sock" }

  /// Whether swtpm and tpm2-tools are installed.
  public static var isInstalled: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/swtpm")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/tpm2_pcrextend")
  }

  public init() throws {
    directory = try TemporaryDirectory(prefix: "swtpm")
    try start()
  }

  deinit { stop() }

  /// Powers the TPM off and on again with its state.
  public func reboot() throws {
    stop()
    try start()
  }

  /// Extends PCR `index` of the SHA-256 bank, as a boot component measured would.
  public func extend(pcr index: Int) throws {
    let result = try runCommand(
      "/usr/bin/tpm2_pcrextend", ["\(index):sha256=" + String(repeating: "ab", count: 32)],
      environment: ["TPM2TOOLS_TCTI": tcti, "PATH": "/usr/bin:/bin"])
    guard result.status == 0 else { throw TestingError("tpm2_pcrextend: \(result.stderr)") }
  }

  private func start() throws {
    try? FileManager.default.removeItem(atPath: socket)
    try? FileManager.default.removeItem(atPath: socket + ".ctrl")
    let child = try ChildProcess(
      "/usr/bin/swtpm",
      [
        "socket", "--tpm2", "--tpmstate", "dir=\(directory.path)",
        "--server", "type=unixio,path=\(socket)",
        "--ctrl", "type=unixio,path=\(socket).ctrl",
        "--flags", "not-need-init,startup-clear",
      ], stderrFile: directory.path + "/swtpm.log", appendOutput: true)
    lock.withLock { process = child }
    // Ready once both sockets are bound.
    try child.waitUntil(
      {
        FileManager.default.fileExists(atPath: socket + ".ctrl")
          && FileManager.default.fileExists(atPath: socket)
      }, log: "swtpm: \(log)")
  }

  private func stop() {
    let child = lock.withLock {
      defer { process = nil }
      return process
    }
    child?.signal(SIGTERM)
    _ = child?.wait(timeout: hangBound)
  }

  /// What swtpm wrote, for failure messages.
  public var log: String {
    (try? String(contentsOfFile: directory.path + "/swtpm.log", encoding: .utf8)) ?? ""
  }
}
