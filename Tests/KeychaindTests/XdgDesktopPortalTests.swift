// SPDX-License-Identifier: MIT
//
// The real xdg-desktop-portal (Debian's 1.16) on the test's private bus, with the project's
// data/keychaind.portal as its only backend file, asked for a key by a process it takes for a
// Flatpak app: a bubblewrap sandbox whose /.flatpak-info names the app, which is where the
// portal reads a caller's app id. An unsandboxed caller has no app id, and gets none.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: ["/usr/libexec/xdg-desktop-portal", "/usr/bin/bwrap"].allSatisfy {
      FileManager.default.isExecutableFile(atPath: $0)
    }, "xdg-desktop-portal or bubblewrap is not installed"))
struct XdgDesktopPortalTests {
  private static let root =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
  private static let script = root + "/Tests/clients/portal-frontend.py"

  @Test func aSandboxedAppGetsItsKeyThroughTheRealPortal() async throws {
    let daemon = try await DaemonProcess()
    let portals = daemon.home.path + "/portals"
    try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: Self.root + "/data/keychaind.portal", toPath: portals + "/keychaind.portal")
    var environment = daemon.environment
    environment["XDG_DESKTOP_PORTAL_DIR"] = portals
    environment["XDG_CURRENT_DESKTOP"] = "keychaind"
    let log = daemon.home.path + "/portal.log"
    let portal = try ChildProcess(
      "/usr/libexec/xdg-desktop-portal", ["--verbose"], environment: environment,
      stderrFile: log)
    let watcher = try await daemon.bus.connect()
    for _ in 0..<1500 where try await watcher.nameOwner("org.freedesktop.portal.Desktop") == nil {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    await watcher.close()
    let portalLog = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func sandboxed(_ app: String) throws -> String {
      let info = daemon.home.path + "/flatpak-info-" + app
      try "[Application]\nname=\(app)\n\n[Instance]\ninstance-id=1\n".write(
        toFile: info, atomically: true, encoding: .utf8)
      let clients = Self.root + "/Tests/clients"
      let result = try runCommand(
        "/usr/bin/bwrap",
        [
          "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64",
          "/lib64", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc",
          "/proc", "--dev", "/dev", "--bind", "/tmp", "/tmp", "--ro-bind", clients, clients,
          "--ro-bind", info, "/.flatpak-info", "--", "/usr/bin/python3", Self.script,
        ], environment: environment, timeout: hangBound)
      #expect(result.status == 0, "\(result.stderr)\n\(portalLog())")
      return result.stdout
    }
    let first = try sandboxed("org.example.Test")
    #expect(first.hasPrefix("response 0\nkey "), "\(first)\n\(portalLog())")
    #expect(first.count == "response 0\nkey ".count + 128 + 1, "\(first)")
    #expect(try sandboxed("org.example.Test") == first)
    #expect(try sandboxed("org.example.Other") != first)
    let stored = try daemon.run("secret-tool", ["search", "--all", "app_id", "org.example.Test"])
    #expect(stored.stdout.contains("label = Application key for org.example.Test"))
    // The audit log names the app the portal vouched for, not the portal. (Its records are
    // written in batches, a moment after the calls: waited for, 10 s at most.)
    let vouched = "\"key\":\"portal:org.example.Test\",\"kind\":\"portal\""
    var audit = ""
    for _ in 0..<500 {
      audit =
        (try? String(
          contentsOfFile: daemon.home.path + "/.local/state/keychaind/audit.jsonl",
          encoding: .utf8)) ?? ""
      if audit.contains(vouched) { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(audit.contains(vouched), "\(audit)")

    // Not a Flatpak app: the portal passes an empty app id, and keychaind makes no key.
    let host = try runCommand(
      "/usr/bin/python3", [Self.script], environment: environment, timeout: hangBound)
    #expect(host.stdout.hasPrefix("response 2\n"), "\(host.stdout)\(host.stderr)")
    portal.signal(SIGTERM)
  }
}
