// SPDX-License-Identifier: MIT
//
// D-Bus activation from the committed activation file (or the installed one, when the tests run
// against an installed package): a call to org.freedesktop.secrets on a bus that knows the file
// starts keychaind, which answers once its objects are ready.

import Foundation
import KeychainTesting
import Testing

@Suite struct ActivationTests {
  @Test func theBusStartsKeychaindOnTheFirstCall() async throws {
    let home = try TemporaryDirectory(prefix: "activation")
    let services = home.path + "/services"
    try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
    let root = URL(fileURLWithPath: PrivateBus.defaultConfiguration).deletingLastPathComponent()
      .deletingLastPathComponent()
    // The installed file as it is, when the tests run against an installed package; else the
    // committed one, with Exec pointing at the binary under test.
    let activationFile: String
    if let prefix = Binaries.installedPrefix {
      activationFile = try String(
        contentsOfFile: prefix + "/share/dbus-1/services/org.freedesktop.secrets.service",
        encoding: .utf8)
      #expect(activationFile.contains("\nExec=\(Binaries.keychaind)\n"), "\(activationFile)")
    } else {
      let binDirectory = URL(fileURLWithPath: Binaries.keychaind).deletingLastPathComponent()
        .path
      activationFile = try String(
        contentsOf: root.appendingPathComponent("dbus/org.freedesktop.secrets.service.in"),
        encoding: .utf8
      ).replacingOccurrences(of: "@BINDIR@", with: binDirectory)
    }
    try activationFile.write(
      toFile: services + "/org.freedesktop.secrets.service", atomically: true, encoding: .utf8)
    // The committed bus configuration plus this service directory.
    let configuration = try String(contentsOfFile: PrivateBus.defaultConfiguration, encoding: .utf8)
      .replacingOccurrences(
        of: "<auth>EXTERNAL</auth>",
        with: "<auth>EXTERNAL</auth>\n  <servicedir>\(services)</servicedir>")
    let configPath = home.path + "/bus.conf"
    try configuration.write(toFile: configPath, atomically: true, encoding: .utf8)

    let bus = try PrivateBus(configuration: configPath, home: home.path)
    let result = try runCommand(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.ReadAlias", "default",
      ],
      environment: bus.environment(home: home.path))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == "(objectpath '/',)\n")
    let connection = try await bus.connect()
    #expect(try await connection.nameOwner("org.freedesktop.secrets") != nil)
    // keychaind made its store under the environment's XDG_DATA_HOME, privately.
    var info = stat()
    #expect(
      stat(home.path + "/.local/share/keychaind", &info) == 0 && info.st_mode & 0o777 == 0o700)
  }
}
