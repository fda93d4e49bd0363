// SPDX-License-Identifier: MIT
//
// systemd's own user manager fetching a unit's credential from keychaind: `systemd --user`
// really started, with a unit that has `LoadCredential=token:%t/keychaind/credentials`, started
// with `systemctl --user start`. systemd refuses to run a user manager on a machine not booted
// with it (it looks for /run/systemd/system): the manager runs in a mount namespace of its own
// (unshare) where /run/systemd is a tmpfs holding that directory, with shared propagation
// inside it so that the credentials ramfs it mounts reaches the unit. Nothing of the machine's
// /run changes. Needs root (unshare -m), systemd and util-linux.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/lib/systemd/systemd")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap"),
    "needs root, systemd, unshare and bwrap to run a user manager"),
  .readsAnotherProgramsItems)
struct SystemdUserManagerTests {
  /// The manager, in its own mount namespace (see the top of this file).
  static let manager = [
    "-m", "/bin/sh", "-c",
    "mount --make-rprivate / && mount --make-rshared / && mount -t tmpfs tmpfs /run/systemd"
      + " && mkdir /run/systemd/system && exec /usr/lib/systemd/systemd --user"
      + " --unit=keychain-test.target",
  ]

  /// systemctl --user, which also looks for /run/systemd/system (a bwrap of its own gives it).
  private func systemctl(_ daemon: DaemonProcess, _ arguments: [String]) throws -> CommandResult {
    try daemon.run(
      "/usr/bin/bwrap",
      [
        "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--tmpfs",
        "/run/systemd", "--dir", "/run/systemd/system", "--", "systemctl", "--user",
        "--no-pager",
      ] + arguments)
  }

  /// A oneshot unit that copies its credential `token` to `~/output`, pulling in nothing else
  /// (no sockets.target: the machine's user sockets would take this home's runtime directory).
  static func unit(output: String) -> String {
    """
    [Unit]
    DefaultDependencies=no
    [Service]
    Type=oneshot
    LoadCredential=token:%t/keychaind/credentials
    ExecStart=/bin/sh -c 'cat "$CREDENTIALS_DIRECTORY/token" > %h/\(output)'

    """
  }

  @Test func aRealUnitGetsItsCredentialAndAnUngrantedOneAnEmptyOne() async throws {
    let daemon = try await DaemonProcess()
    let home = daemon.home.path
    let secret = "token-\(UInt64.random(in: 1_000_000...9_999_999))"
    let ctl = { (arguments: [String], stdin: String) in
      try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
    }
    #expect(try ctl(["store", "--label=Token", "service", "token"], secret).status == 0)
    let found = try ctl(["search", "--json", "service", "token"], "")
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
    let path = try #require(items.first?["path"] as? String, "\(found.stdout)")
    let allowed = try ctl(
      [
        "access", "allow", "--unit", "fetch.service", "--credential", "token", path,
        "--password-stdin",
      ], "test password\n")
    #expect(allowed.status == 0, "\(allowed.stderr)")

    let units = home + "/.config/systemd/user"
    try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
    try "[Unit]\nDescription=keychaind's test\n".write(
      toFile: units + "/keychain-test.target", atomically: true, encoding: .utf8)
    try Self.unit(output: "fetched").write(
      toFile: units + "/fetch.service", atomically: true, encoding: .utf8)
    try Self.unit(output: "refused").write(
      toFile: units + "/refused.service", atomically: true, encoding: .utf8)

    let manager = try ChildProcess(
      "/usr/bin/unshare", Self.manager, environment: daemon.environment,
      stderrFile: home + "/manager.log")
    defer {
      manager.signal(SIGTERM)
      _ = manager.wait(timeout: hangBound)
    }
    let control = daemon.environment["XDG_RUNTIME_DIR"]! + "/systemd/private"
    try manager.waitUntil({ FileManager.default.fileExists(atPath: control) }, log: daemon.log)

    let started = try systemctl(daemon, ["start", "fetch.service"])
    #expect(started.status == 0, "\(started.stderr)")
    #expect(try String(contentsOfFile: home + "/fetched", encoding: .utf8) == secret)
    #expect(daemon.log.contains("credentials: gave fetch.service its credential token"))

    // No grant: keychaind closes the connection, which systemd 252 takes as an empty
    // credential (not as a missing one): the unit runs, with nothing.
    let refused = try systemctl(daemon, ["start", "refused.service"])
    #expect(refused.status == 0, "\(refused.stderr)")
    #expect(try String(contentsOfFile: home + "/refused", encoding: .utf8) == "")
    #expect(daemon.log.contains("credentials: refused.service asked for token"))
    let audit = try ctl(["audit", "show"], "").stdout
    #expect(audit.contains("read grant \(path) by unit:fetch.service"), "\(audit)")
    #expect(!daemon.log.contains(secret))

    #expect(try systemctl(daemon, ["exit"]).status == 0)
    #expect(manager.wait(timeout: hangBound) != nil)
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
