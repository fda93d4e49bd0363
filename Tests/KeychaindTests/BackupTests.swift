// SPDX-License-Identifier: MIT
//
// The encrypted backup end to end: `keychainctl export` from one keychaind, `keychainctl
// import backup` into a fresh one, and every field of every item as a client reads it is the
// same; a wrong passphrase or one changed byte writes nothing.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
    "python3-secretstorage is not installed"))
struct BackupTests {
  private static let ctl = KeychainctlTests.keychainctl
  private static let passphrase = Array("a long backup passphrase\n".utf8)

  /// Items of every kind a backup must keep, in login and in a second collection.
  static func fill(_ daemon: DaemonProcess) throws {
    let env = daemon.environment
    let store = { (label: String, attributes: [String], secret: [UInt8]) in
      let done = try runCommand(
        "/usr/bin/secret-tool", ["store", "--label=\(label)"] + attributes, environment: env,
        stdin: secret)
      #expect(done.status == 0, "\(done.stderr)")
    }
    try store("Mail", ["service", "mail", "user", "alice"], Array("hunter2".utf8))
    try store("Lines", ["kind", "multiline"], Array("one\ntwo".utf8))
    try store("Bytes", ["kind", "binary"], [0x00, 0xFF, 0x0A, 0x80])
    let typed = try runCommand(
      "/usr/bin/python3",
      [
        "-c",
        """
        import secretstorage
        c = secretstorage.get_default_collection(secretstorage.dbus_init())
        c.create_item("Key", {"kind": "key"}, b"\\x01\\x02", content_type="application/octet-stream")
        """,
      ], environment: env)
    #expect(typed.status == 0, "\(typed.stderr)")
    let created = try runCommand(
      ctl, ["create", "Work", "--password-stdin"], environment: env,
      stdin: Array("work pw".utf8))
    #expect(created.status == 0, "\(created.stderr)")
    let work = try runCommand(
      ctl,
      [
        "store", "--label", "VPN", "--collection", "/org/freedesktop/secrets/collection/Work",
        "service", "vpn",
      ], environment: env, stdin: Array("tunnel".utf8))
    #expect(work.status == 0, "\(work.stderr)")
  }

  static func everything(_ daemon: DaemonProcess) throws -> String {
    try GnomeKeyringImportTests.canonical(GnomeKeyringImportTests.dump(daemon.environment))
  }

  @Test(.readsAnotherProgramsItems) func aBackupRestoresEveryFieldOfEveryItem() async throws {
    let source = try await DaemonProcess(password: "password")
    try Self.fill(source)
    let file = source.home.path + "/backup.kcb"
    let exported = try runCommand(
      Self.ctl, ["export", "--output", file], environment: source.environment,
      stdin: Self.passphrase)
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(exported.stdout.contains("wrote 5 item(s) of 2 collection(s)"), "\(exported.stdout)")
    let misnamed = try runCommand(
      Self.ctl, ["export", "--output", file + ".2", "login", "nonesuch"],
      environment: source.environment, stdin: Self.passphrase)
    #expect(misnamed.stderr == "keychainctl: no collection 'nonesuch'\n", "\(misnamed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: file + ".2"))
    let attributes = try FileManager.default.attributesOfItem(atPath: file)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
    #expect(
      bytes.range(of: Data("hunter2".utf8)) == nil && bytes.range(of: Data("Mail".utf8)) == nil)
    // Never overwritten.
    let again = try runCommand(
      Self.ctl, ["export", "--output", file], environment: source.environment,
      stdin: Self.passphrase)
    #expect(again.status == 1 && again.stderr.contains("cannot create"))

    let target = try await DaemonProcess(password: "password")
    let restore = { (input: [UInt8], path: String) in
      try runCommand(
        Self.ctl, ["import", "backup", path], environment: target.environment, stdin: input)
    }
    let restored = try restore(Self.passphrase, file)
    #expect(restored.status == 0, "\(restored.stdout)\(restored.stderr)")
    let expected = try Self.everything(source)
    #expect(try Self.everything(target) == expected)

    // Again: nothing added twice.
    let twice = try restore(Self.passphrase, file)
    #expect(twice.status == 0 && twice.stdout.contains("0 added"), "\(twice.stdout)")
    #expect(try Self.everything(target) == expected)

    // A wrong passphrase, or one byte changed: refused, nothing written.
    let wrong = try restore(Array("not it\n".utf8), file)
    #expect(
      wrong.status == 1 && wrong.stdout.contains("passphrase does not open it"), "\(wrong.stdout)")
    var tampered = bytes
    tampered[tampered.count / 2] ^= 0x01
    let tamperedFile = target.home.path + "/tampered.kcb"
    try tampered.write(to: URL(fileURLWithPath: tamperedFile))
    let refused = try restore(Self.passphrase, tamperedFile)
    #expect(refused.status == 1, "\(refused.stdout)")
    #expect(try Self.everything(target) == expected)
  }
}
