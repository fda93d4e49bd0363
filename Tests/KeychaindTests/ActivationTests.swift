// SPDX-License-Identifier: MIT
//
// D-Bus activation from the committed activation files (or the installed ones, when the tests
// run against an installed package): a call to org.freedesktop.secrets, or a KDE program's
// call to org.kde.kwalletd5, on a bus that knows the files starts keychaind, which answers
// once its objects are ready.

import Foundation
import KeychainTesting
import Testing

@Suite struct ActivationTests {
  /// A call that makes the bus start the owner of its name, and the reply keychaind gives.
  struct Activation: Sendable, CustomStringConvertible {
    let name: String
    let path: String
    let method: String
    let arguments: [String]
    let reply: String
    var description: String { name }
  }

  static let activations = [
    Activation(
      name: "org.freedesktop.secrets", path: "/org/freedesktop/secrets",
      method: "org.freedesktop.Secret.Service.ReadAlias", arguments: ["default"],
      reply: "(objectpath '/',)\n"),
    Activation(
      name: "org.kde.kwalletd5", path: "/modules/kwalletd5", method: "org.kde.KWallet.isEnabled",
      arguments: [], reply: "(true,)\n"),
  ]

  @Test(arguments: activations)
  func theBusStartsKeychaindOnTheFirstCall(_ activation: Activation) async throws {
    let home = try TemporaryDirectory(prefix: "activation")
    let services = home.path + "/services"
    try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
    let root = URL(fileURLWithPath: PrivateBus.defaultConfiguration).deletingLastPathComponent()
      .deletingLastPathComponent()
    // The installed file as it is, when the tests run against an installed package; else the
    // committed one, with Exec pointing at the binary under test.
    let file = activation.name + ".service"
    let activationFile: String
    if let prefix = Binaries.installedPrefix {
      activationFile = try String(
        contentsOfFile: prefix + "/share/dbus-1/services/" + file, encoding: .utf8)
      #expect(activationFile.contains("\nExec=\(Binaries.keychaind)\n"), "\(activationFile)")
    } else {
      let binDirectory = URL(fileURLWithPath: Binaries.keychaind).deletingLastPathComponent()
        .path
      activationFile = try String(
        contentsOf: root.appendingPathComponent("dbus/" + file + ".in"), encoding: .utf8
      ).replacingOccurrences(of: "@BINDIR@", with: binDirectory)
    }
    try activationFile.write(toFile: services + "/" + file, atomically: true, encoding: .utf8)
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
      ["call", "--session", "-d", activation.name, "-o", activation.path, "-m", activation.method]
        + activation.arguments,
      environment: bus.environment(home: home.path))
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout == activation.reply)
    let connection = try await bus.connect()
    // One keychaind owns both names (KWallet's are asked for just after the Secret Service's:
    // a bound, not a speed check).
    let secrets = try await connection.nameOwner("org.freedesktop.secrets")
    #expect(secrets != nil)
    var kwallet = try await connection.nameOwner("org.kde.kwalletd5")
    for _ in 0..<500 where kwallet == nil {
      try await Task.sleep(for: .milliseconds(20))
      kwallet = try await connection.nameOwner("org.kde.kwalletd5")
    }
    #expect(kwallet == secrets)
    // keychaind made its store under the environment's XDG_DATA_HOME, privately.
    var info = stat()
    #expect(
      stat(home.path + "/.local/share/keychaind", &info) == 0 && info.st_mode & 0o777 == 0o700)
  }
}
