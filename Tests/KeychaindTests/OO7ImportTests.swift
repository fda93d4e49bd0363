// SPDX-License-Identifier: MIT
//
// Switching from oo7: a home as an oo7 user has it, made at test time by Debian's libsecret
// (its file backend writes the v1 files oo7 writes): login and work keyrings keyed by the
// login password, the Flatpak portal's key for an app and that app's own keyring keyed by it,
// and a keyring with a password of its own. keychaind started with the login password brings
// it all over, the app's keyring opens with the key keychaind's portal now hands out, oo7's
// files stay byte-identical, and a restart adds nothing. Then back: keychainctl export writes
// v1 that libsecret reads and v0 that the real gnome-keyring opens.

import Foundation
import KeychainCrypto
import KeychainImport
import KeychainTesting
import Testing

@Suite(
  .enabled(if: V1Fixture.isAvailable, "libsecret-tools is not installed"),
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
    "python3-secretstorage is not installed"))
struct OO7ImportTests {
  static let app = "org.example.Fixture"
  /// The portal's key: 64 bytes, printable so that libsecret can take it from the environment.
  static let portalKey = String((0..<64).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })

  /// A throwaway home with oo7's files in it.
  struct Home {
    let directory: TemporaryDirectory
    var data: String { directory.path + "/.local/share" }
    var v1: String { data + "/keyrings/v1" }
    var appKeyring: String { directory.path + "/.var/app/\(app)/data/keyrings/default.keyring" }
    var variables: [String: String] { ["HOME": directory.path, "XDG_DATA_HOME": data] }

    init() throws {
      directory = try TemporaryDirectory(prefix: "oo7-user")
      let store = {
        (
          file: String, password: String, label: String, attributes: [String: String],
          secret: String
        ) in
        try V1Fixture.store(
          file, password: password, label: label, attributes: attributes,
          secret: Array(secret.utf8))
      }
      let login = v1 + "/login.keyring"
      try store(login, "password", "Mail", ["service": "mail", "user": "alice"], "hunter2")
      try store(
        login, "password", "Secret Portal token for \(app)",
        ["app_id": app, "xdg:content-type": "application/octet-stream"], portalKey)
      try store(v1 + "/work.keyring", "password", "VPN", ["service": "vpn"], "tunnel ✓")
      try store(v1 + "/vault.keyring", "vault pw", "Deep", ["kind": "deep"], "sekrit")
      try store(appKeyring, portalKey, "App token", ["app": "token"], "the app's own")
    }

    /// Every file under the home and its SHA-256.
    func files() throws -> [String: [UInt8]] {
      var out: [String: [UInt8]] = [:]
      for root in [data + "/keyrings", directory.path + "/.var"] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String {
          var isDirectory: ObjCBool = false
          guard
            FileManager.default.fileExists(atPath: root + "/" + name, isDirectory: &isDirectory),
            !isDirectory.boolValue
          else { continue }
          out[root + "/" + name] = SHA256.hash(
            Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + name))))
        }
      }
      return out
    }
  }

  static func dump(_ daemon: DaemonProcess) throws -> [String: Any] {
    try GnomeKeyringImportTests.dump(daemon.environment)
  }

  static func items(_ dump: [String: Any], _ name: String) -> [[String: Any]] {
    Array(GnomeKeyringImportTests.items(dump, name).values).sorted {
      ($0["label"] as? String ?? "") < ($1["label"] as? String ?? "")
    }
  }

  @Test(.readsAnotherProgramsItems) func anOO7UsersKeyringsComeOverWithTheLoginPassword()
    async throws
  {
    let home = try Home()
    let before = try home.files()
    // The times libsecret wrote, read back from the file itself.
    let login = try V1Keyring(
      parsing: Array(Data(contentsOf: URL(fileURLWithPath: home.v1 + "/login.keyring"))),
      file: "login"
    ).open(password: SecureBytes(copying: Array("password".utf8)))
    let mailTime = try #require(login.items.first { $0.label == "Mail" }).modified

    let daemon = try await DaemonProcess(password: "password", environment: home.variables)
    let dump = try Self.dump(daemon)
    let mail = Self.items(dump, "login")
    #expect(mail.count == 2, "\(dump)\n\(daemon.log)")
    #expect(mail.first?["label"] as? String == "Mail")
    #expect(mail.first?["attributes"] as? [String: String] == ["service": "mail", "user": "alice"])
    #expect(mail.first?["secret"] as? String == Array("hunter2".utf8).hex)
    #expect(mail.first?["content_type"] as? String == "text/plain")
    #expect(mail.first?["modified"] as? Int == Int(mailTime.timeIntervalSince1970))
    // The portal's key, byte for byte, and its content type from xdg:content-type.
    #expect(mail.last?["attributes"] as? [String: String] == ["app_id": Self.app])
    #expect(mail.last?["secret"] as? String == Array(Self.portalKey.utf8).hex)
    #expect(mail.last?["content_type"] as? String == "application/octet-stream")
    // work opens with the login password, into a collection labelled as oo7 showed it.
    let work = dump["/org/freedesktop/secrets/collection/work"] as? [String: Any]
    #expect(work?["label"] as? String == "Work")
    #expect(Self.items(dump, "work").first?["secret"] as? String == Array("tunnel ✓".utf8).hex)
    // vault waits for its own password, and says so.
    #expect(dump["/org/freedesktop/secrets/collection/vault"] == nil)
    #expect(daemon.log.contains("not imported yet: \(home.v1)/vault.keyring"), "\(daemon.log)")

    // The Flatpak app's own keyring opens with the key keychaind's portal hands it now.
    let portal = try PortalTests.retrieve(Self.app, ["--as-portal"], daemon.environment)
    #expect(portal == "0 " + Array(Self.portalKey.utf8).hex, "\(portal)")
    #expect(
      try V1Fixture.lookup(home.appKeyring, password: Self.portalKey, attributes: ["app": "token"])
        == Array("the app's own".utf8))

    // keychainctl doctor opens each app's keyring with the key keychaind holds for it; an app
    // whose key did not come over is named.
    let ctl = KeychainctlTests.keychainctl
    try V1Fixture.store(
      home.directory.path + "/.var/app/org.example.Orphan/data/keyrings/default.keyring",
      password: "a key nobody holds", label: "Lost", attributes: ["app": "lost"],
      secret: Array("gone".utf8))
    let doctor = try daemon.run(ctl, ["doctor", "--json"], environment: home.variables)
    let findings =
      try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any]
    let flatpak = (findings?["findings"] as? [[String: Any]])?.first {
      $0["check"] as? String == "Flatpak apps' own keyrings"
    }
    #expect(flatpak?["level"] as? String == "problem", "\(doctor.stdout)\(doctor.stderr)")
    #expect(
      flatpak?["detail"] as? String
        == "org.example.Orphan: the provider holds no key for it: the app would find its keyring unreadable",
      "\(doctor.stdout)")
    try FileManager.default.removeItem(atPath: home.directory.path + "/.var/app/org.example.Orphan")
    let healthy = try daemon.run(ctl, ["doctor", "--json"], environment: home.variables)
    #expect(
      healthy.stdout.contains("1 open with the portal's key: org.example.Fixture"),
      "\(healthy.stdout)")

    // keychainctl: status and a dry run say what waits (exit 2); the password brings it.
    let status = try daemon.run(ctl, ["status"])
    #expect(
      status.stdout.contains("oo7 keyrings: 2 imported, 1 not yet (keychainctl import oo7)"),
      "\(status.stdout)")
    let dry = try daemon.run(ctl, ["import", "oo7", "--dry-run", "--json"])
    #expect(dry.status == 2, "\(dry.stdout)\(dry.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any]
    let statuses = (report?["files"] as? [[String: Any]])?.map {
      "\($0["collection"] ?? ""):\($0["status"] ?? "")"
    }
    #expect(
      statuses == ["login:unchanged", "vault:pending", "work:unchanged"], "\(dry.stdout)")
    let real = try daemon.run(
      ctl, ["import", "oo7", "--password-stdin"], stdin: Array("vault pw\n".utf8))
    #expect(real.status == 0, "\(real.stdout)\(real.stderr)")
    #expect(
      real.stdout.contains("vault.keyring → vault: imported: 1 item(s), 1 added"), "\(real.stdout)")
    let imported = try Self.dump(daemon)
    #expect(Self.items(imported, "vault").first?["label"] as? String == "Deep")
    #expect(try home.files() == before)

    // A restart reads nothing again and adds nothing.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    // The collections oo7 brought that the login password opens are open again, as oo7 opens
    // them with it; vault, with its own password, waits for it, as in oo7.
    let again = try GnomeKeyringImportTests.canonical(Self.dump(daemon))
    var expected = imported
    expected["/org/freedesktop/secrets/collection/vault"] = "locked"
    let first = try GnomeKeyringImportTests.canonical(expected)
    #expect(again == first, "\(again)\n\(first)\n\(daemon.log)")
    #expect(try home.files() == before)

    // And back: a v1 file libsecret reads, a v0 file the real gnome-keyring opens.
    let out = try TemporaryDirectory(prefix: "oo7-export")
    let v1 = try daemon.run(
      ctl, ["export", "--format", "v1", "login", "--output", out.path + "/login.keyring"],
      stdin: Array("password\n".utf8))
    #expect(v1.status == 0, "\(v1.stderr)")
    #expect(
      try V1Fixture.lookup(
        out.path + "/login.keyring", password: "password", attributes: ["user": "alice"])
        == Array("hunter2".utf8))
    #expect(
      try V1Fixture.lookup(
        out.path + "/login.keyring", password: "password", attributes: ["app_id": Self.app])
        == Array(Self.portalKey.utf8))
    let v0 = try daemon.run(
      ctl, ["export", "--format", "v0", "work", "--output", out.path + "/work.keyring"],
      stdin: Array("password\n".utf8))
    #expect(v0.status == 0, "\(v0.stdout)\(v0.stderr)")
    if GnomeKeyring.executable != nil {
      try await Self.gnomeKeyringOpens(out.path + "/work.keyring")
    }
  }

  /// The real gnome-keyring, given `file` as its login keyring, unlocks it with the password
  /// and serves its item.
  static func gnomeKeyringOpens(_ file: String) async throws {
    let gnome = try await GnomeKeyring(login: false)
    try await gnome.stop()
    let keyrings = gnome.home.path + "/.local/share/keyrings"
    try FileManager.default.createDirectory(atPath: keyrings, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: file, toPath: keyrings + "/login.keyring")
    try await gnome.start(unlock: true)
    let found = try runCommand(
      "/usr/bin/secret-tool", ["lookup", "service", "vpn"], environment: gnome.environment)
    #expect(found.stdoutBytes == Array("tunnel ✓".utf8), "\(found.stdout)\(found.stderr)")
    let search = try runCommand(
      "/usr/bin/secret-tool", ["search", "service", "vpn"], environment: gnome.environment)
    #expect(search.stdout.contains("label = VPN"), "\(search.stdout)\(search.stderr)")
    try await gnome.stop()
  }
}

extension [UInt8] {
  fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
