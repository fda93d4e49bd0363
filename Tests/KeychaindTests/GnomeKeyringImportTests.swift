// SPDX-License-Identifier: MIT
//
// Switching from gnome-keyring: keyrings made by the real gnome-keyring in a throwaway home
// (a binary `login` with a password, a second keyring whose password gnome-keyring keeps in
// login, a password-less textual keyring holding a secret with a newline, binary secrets, a
// Flatpak app's key from gnome-keyring's portal backend), then keychaind started with the user's password in the same home.
// What gnome-keyring shows clients, keychaind shows: same paths, labels, attributes, secrets
// and dates; gnome-keyring's files are byte-identical afterwards.

import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainImport
import KeychainTesting
import Synchronization
import Testing

@Suite(
  .enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"),
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
    "python3-secretstorage is not installed"))
struct GnomeKeyringImportTests {
  private static func clientScript(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("clients/" + name).path
  }

  private static let secretTool = "/usr/bin/secret-tool"

  private static func run(
    _ executable: String, _ arguments: [String], _ environment: [String: String],
    stdin: [UInt8] = []
  ) throws -> String {
    let result = try runCommand(executable, arguments, environment: environment, stdin: stdin)
    #expect(result.status == 0, "\(executable) \(arguments): \(result.stderr)")
    return result.stdout
  }

  /// What a user of gnome-keyring has: fills `gnome`'s keyrings through its clients.
  static func makeKeyrings(_ gnome: GnomeKeyring) throws {
    let env = gnome.environment
    let store = { (label: String, attributes: [String], secret: [UInt8]) in
      _ = try run(secretTool, ["store", "--label=\(label)"] + attributes, env, stdin: secret)
    }
    try store("Mail", ["service", "mail", "user", "alice"], Array("hunter2".utf8))
    try store("Two lines", ["kind", "multiline"], Array("first\nsecond".utf8))
    try store("Bytes", ["kind", "binary"], [0x00, 0xFF, 0x0A, 0x80, 0x7F])
    // A Flatpak app's key, made by gnome-keyring's own portal backend as xdg-desktop-portal
    // asks it for one (it keeps it with no label and only app_id).
    let portal = try run(
      "/usr/bin/python3", [clientScript("portal-retrieve.py"), "org.example.App"], env)
    #expect(portal.hasPrefix("0 ") && portal.count == 2 + 128 + 1, "\(portal)")
    // A second keyring, and its password in login as gnome-keyring's "unlock automatically"
    // keeps it.
    let ctl = KeychainctlTests.keychainctl
    _ = try run(ctl, ["create", "Work", "--password-stdin"], env, stdin: Array("work pw".utf8))
    try store(
      "Unlock password for: Work",
      [
        "keyring", "LOCAL:/keyrings/Work.keyring", "xdg:schema", "org.gnome.keyring.ChainedKeyring",
      ],
      Array("work pw".utf8))
    _ = try run(
      ctl,
      [
        "store", "--label", "VPN", "--collection", "/org/freedesktop/secrets/collection/Work",
        "service", "vpn",
      ], env, stdin: Array("tunnel".utf8))
    // A keyring with no password: gnome-keyring writes it as text, and a secret with a
    // newline makes the file one it cannot read back.
    _ = try run(
      "/usr/bin/python3", [clientScript("create-collection.py"), "Open"], env, stdin: [])
    _ = try run(
      ctl,
      [
        "store", "--label", "Note", "--collection", "/org/freedesktop/secrets/collection/Open",
        "kind", "note",
      ], env, stdin: Array("line one\nline two".utf8))
  }

  /// Everything a client reads from the provider on `environment`'s bus: each collection by
  /// path, and the default alias's target under "default", as JSON values.
  static func dump(_ environment: [String: String]) throws -> [String: Any] {
    let output = try run("/usr/bin/python3", [clientScript("dump-items.py")], environment)
    let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
    let collections = try #require(object?["collections"] as? [String: Any])
    return collections.merging(["default": object?["default"] ?? ""]) { $1 }
  }

  /// A JSON value as canonical text, for comparing two of them.
  static func canonical(_ value: Any?) throws -> String {
    guard let value else { return "nil" }
    let data = try JSONSerialization.data(
      withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    return String(decoding: data, as: UTF8.self)
  }

  /// The items of collection `name` in a dump, by path.
  static func items(_ dump: [String: Any], _ name: String) -> [String: [String: Any]] {
    let collection = dump["/org/freedesktop/secrets/collection/" + name] as? [String: Any]
    return (collection?["items"] as? [String: [String: Any]]) ?? [:]
  }

  /// Items without their paths, in a stable order, as text.
  static func values(_ items: some Collection<[String: Any]>) throws -> [String] {
    try items.map(canonical).sorted()
  }

  static func values(_ items: [String: [String: Any]]) throws -> [String] {
    try values(Array(items.values))
  }

  /// The bytes of every file in gnome-keyring's directory.
  static func keyringFiles(_ gnome: GnomeKeyring) throws -> [String: Data] {
    let directory = gnome.home.path + "/.local/share/keyrings"
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
      files[name] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
    }
    return files
  }

  /// keychaind in gnome-keyring's home, unlocked with `password`.
  static func keychaind(in gnome: GnomeKeyring, password: String = "password") async throws
    -> DaemonProcess
  {
    let home = gnome.environment.filter { $0.key == "HOME" || $0.key.hasPrefix("XDG_") }
    return try await DaemonProcess(password: password, environment: home)
  }

  @Test func everythingComesOverAndGnomeKeyringsFilesStayAsTheyWere() async throws {
    let gnome = try await GnomeKeyring()
    try Self.makeKeyrings(gnome)
    let inSession = try Self.dump(gnome.environment)
    // What gnome-keyring shows once it has read its files again (it fills in `xdg:schema` from
    // each item's type then), Work unlocked with its password. It cannot read Open back.
    try await gnome.stop()
    try await gnome.start(unlock: true)
    _ = try Self.run(
      KeychainctlTests.keychainctl, ["unlock", "--collection", "Work", "--password-stdin"],
      gnome.environment, stdin: Array("work pw".utf8))
    let reloaded = try Self.dump(gnome.environment)
    try await gnome.stop()
    let files = try Self.keyringFiles(gnome)
    #expect(
      files.keys.sorted() == ["Open.keyring", "Work.keyring", "login.keyring", "user.keystore"])
    #expect(reloaded["/org/freedesktop/secrets/collection/Open"] == nil)

    let daemon = try await Self.keychaind(in: gnome)
    let imported = try Self.dump(daemon.environment)
    // login: every item under its own path.
    let path = "/org/freedesktop/secrets/collection/login"
    let (ours, theirs) = (try Self.canonical(imported[path]), try Self.canonical(reloaded[path]))
    #expect(ours == theirs, "keychaind: \(ours)\ngnome-keyring: \(theirs)\n\(daemon.log)")
    #expect(try Self.canonical(imported["default"]) == Self.canonical(reloaded["default"]))
    // Work: the same items, whose numbers login's took (item numbers are per store here).
    #expect(
      try Self.values(Self.items(imported, "Work")) == Self.values(Self.items(reloaded, "Work")))
    // The keyring gnome-keyring wrote and could not read: its item as gnome-keyring showed it,
    // with the schema its type gives, the secret's newline in place.
    let open = Self.items(inSession, "Open").values.map { item in
      var expected = item
      var attributes = item["attributes"] as? [String: String] ?? [:]
      attributes["xdg:schema"] = "org.freedesktop.Secret.Generic"
      expected["attributes"] = attributes
      return expected
    }
    #expect(try Self.values(Self.items(imported, "Open")) == Self.values(open))
    #expect(try Self.keyringFiles(gnome) == files)
    #expect(daemon.log.contains("secrets written over several lines recovered"), "\(daemon.log)")

    // A restart reads nothing again and duplicates nothing.
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    let again = try Self.canonical(Self.dump(daemon.environment))
    #expect(try again == Self.canonical(imported), "\(again)\n\(daemon.log)")
    #expect(daemon.log.components(separatedBy: "imported /").count == 4, "\(daemon.log)")
    #expect(try Self.keyringFiles(gnome) == files)
  }

  @Test func aPasswordThatOpensNothingImportsNothingAndSaysSo() async throws {
    let gnome = try await GnomeKeyring()
    try Self.makeKeyrings(gnome)
    try await gnome.stop()
    let files = try Self.keyringFiles(gnome)
    let daemon = try await Self.keychaind(in: gnome, password: "not the password")
    let seen = try Self.dump(daemon.environment)
    // Only the password-less keyring opens; login and Work wait for the right password.
    #expect(
      seen.keys.sorted() == [
        "/org/freedesktop/secrets/collection/Open", "/org/freedesktop/secrets/collection/login",
        "default",
      ])
    #expect(Self.items(seen, "login").isEmpty && Self.items(seen, "Open").count == 1)
    let login = gnome.home.path + "/.local/share/keyrings/login.keyring"
    #expect(daemon.log.contains("not imported yet: \(login)"), "\(daemon.log)")
    let status = try runCommand(
      KeychainctlTests.keychainctl, ["status"], environment: daemon.environment)
    #expect(
      status.stdout.contains(
        "gnome-keyring keyrings: 1 imported, 2 not yet (keychainctl import gnome-keyring)"),
      "\(status.stdout)")

    // keychainctl import: a dry run writes nothing and says what waits (exit 2); the right
    // password brings login over, and Work with the password login keeps (exit 0).
    let ctl = KeychainctlTests.keychainctl
    let dry = try runCommand(
      ctl, ["import", "gnome-keyring", "--dry-run", "--json"], environment: daemon.environment)
    #expect(dry.status == 2, "\(dry.stderr)")
    let report = try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any]
    let statuses = (report?["files"] as? [[String: Any]])?.map {
      "\($0["collection"] ?? ""):\($0["status"] ?? "")"
    }
    #expect(
      statuses?.sorted() == ["Open:unchanged", "Work:pending", "login:pending"], "\(dry.stdout)")
    #expect(try Self.items(Self.dump(daemon.environment), "login").isEmpty)
    // keychaind reports its progress as it goes (keychainctl draws it as a bar on a terminal).
    let listener = try await daemon.bus.connect()
    let progress = try await listener.signals(
      matching: MatchRule(
        sender: "org.freedesktop.secrets", interface: "org.keychain_linux.Import",
        member: "Progress"))
    let signals = Mutex<[[DBusValue]]>([])
    let collecting = Task {
      for await message in progress { signals.withLock { $0.append(message.body) } }
    }
    let real = try runCommand(
      ctl, ["import", "gnome-keyring", "--password-stdin"], environment: daemon.environment,
      stdin: Array("password\n".utf8))
    #expect(real.status == 0, "\(real.stdout)\(real.stderr)")
    let finished: [DBusValue] = [
      .string(gnome.home.path + "/.local/share/keyrings/login.keyring"), .uint32(0), .uint32(3),
      .uint32(5), .uint32(5),
    ]
    for _ in 0..<500 where !signals.withLock({ $0.contains(finished) }) {
      try await Task.sleep(for: .milliseconds(20))  // a bound, not a speed check
    }
    #expect(signals.withLock { $0.contains(finished) }, "\(signals.withLock { $0 })")
    collecting.cancel()
    await listener.close()
    #expect(
      real.stdout.contains("login.keyring → login: imported: 5 item(s), 5 added"), "\(real.stdout)")
    let after = try Self.dump(daemon.environment)
    #expect(Self.items(after, "login").count == 5 && Self.items(after, "Work").count == 1)
    #expect(try Self.keyringFiles(gnome) == files)

    // Another provider has no such interface: said, with the documented status.
    try await gnome.start(unlock: true)
    let elsewhere = try runCommand(
      ctl, ["import", "gnome-keyring"], environment: gnome.environment)
    #expect(
      elsewhere.status == 69 && elsewhere.stderr.contains("not keychaind"), "\(elsewhere.stderr)")
  }

  @Test func damagedFilesAreNamedAndNeverReadAsEmpty() async throws {
    let gnome = try await GnomeKeyring()
    try Self.makeKeyrings(gnome)
    try await gnome.stop()
    let directory = gnome.home.path + "/.local/share/keyrings"
    let login = try Data(contentsOf: URL(fileURLWithPath: directory + "/login.keyring"))
    try login.prefix(login.count / 2).write(to: URL(fileURLWithPath: directory + "/login.keyring"))
    let files = try Self.keyringFiles(gnome)
    let daemon = try await Self.keychaind(in: gnome)
    // (The first call waits until the import at start is over.)
    #expect(try Self.items(Self.dump(daemon.environment), "login").isEmpty)
    #expect(
      daemon.log.contains("cannot import \(directory)/login.keyring is damaged at byte"),
      "\(daemon.log)")
    // Work's password is kept in the damaged login: it waits; nothing is half-imported.
    #expect(daemon.log.contains("not imported yet: \(directory)/Work.keyring"), "\(daemon.log)")
    #expect(try Self.keyringFiles(gnome) == files)
  }

  /// gnome-keyring's own failure: a login.keyring it cannot read (a password-less keyring with
  /// a newline in a secret) makes it start an empty `login_1.keyring`. Both come into login.
  @Test func theLoginOneLeftoverAndTheFileGnomeKeyringGaveUpOnBothComeOver() async throws {
    let gnome = try await GnomeKeyring()
    try Self.makeKeyrings(gnome)
    try await gnome.stop()
    let directory = gnome.home.path + "/.local/share/keyrings"
    try FileManager.default.removeItem(atPath: directory + "/login.keyring")
    try FileManager.default.copyItem(
      atPath: directory + "/Open.keyring", toPath: directory + "/login.keyring")
    try FileManager.default.removeItem(atPath: directory + "/Open.keyring")
    // gnome-keyring cannot read login.keyring now: it makes login_1 with the password.
    try await gnome.start(unlock: true)
    _ = try Self.run(
      Self.secretTool, ["store", "--label=After", "kind", "after"], gnome.environment,
      stdin: Array("stored in login_1".utf8))
    try await gnome.stop()
    #expect(FileManager.default.fileExists(atPath: directory + "/login_1.keyring"))

    let daemon = try await Self.keychaind(in: gnome)
    let lookup = { (attributes: [String]) in
      try Self.run(Self.secretTool, ["lookup"] + attributes, daemon.environment)
    }
    #expect(try lookup(["kind", "note"]) == "line one\nline two", "\(daemon.log)")
    #expect(try lookup(["kind", "after"]) == "stored in login_1", "\(daemon.log)")
    #expect(daemon.log.contains("login_1.keyring into collection login"), "\(daemon.log)")
  }

  /// Every prefix of a real login.keyring, and every byte of it flipped, is either read or
  /// refused with a KeyringFileError: never a crash, never an item count the file did not say.
  @Test func everyTruncationAndFlippedByteOfARealKeyringIsCaught() async throws {
    let gnome = try await GnomeKeyring()
    _ = try Self.run(
      Self.secretTool, ["store", "--label=Mail", "service", "mail"], gnome.environment,
      stdin: Array("hunter2".utf8))
    try await gnome.stop()
    let file = gnome.home.path + "/.local/share/keyrings/login.keyring"
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    let password = SecureBytes(copying: Array("password".utf8))
    let whole = try BinaryKeyring(parsing: bytes, file: file).open(password: password)
    #expect(whole.items.count == 1 && whole.items[0].label == "Mail")
    for length in 0..<bytes.count {
      #expect(throws: KeyringFileError.self, "a prefix of \(length) bytes") {
        try BinaryKeyring(parsing: Array(bytes.prefix(length)), file: file).open(password: password)
      }
    }
    var refused = 0
    for index in bytes.indices {
      var flipped = bytes
      flipped[index] ^= 0x55
      do {
        // The public part has no check of its own (gnome-keyring's format): a changed label
        // or date reads as such. The items come from the authenticated part only.
        let contents = try BinaryKeyring(parsing: flipped, file: file).open(password: password)
        #expect(contents.items.count == 1, "byte \(index)")
      } catch is KeyringFileError {
        refused += 1
      }
    }
    #expect(refused > bytes.count / 2)
  }

  @Test func aKeyringChangedInGnomeKeyringSinceIsMergedAgain() async throws {
    let gnome = try await GnomeKeyring()
    try Self.makeKeyrings(gnome)
    try await gnome.stop()
    let daemon = try await Self.keychaind(in: gnome)
    // Something stored in keychaind, then a week back on gnome-keyring.
    _ = try Self.run(
      Self.secretTool, ["store", "--label=Mine", "kind", "mine"], daemon.environment,
      stdin: Array("kept".utf8))
    _ = daemon.kill(with: SIGTERM)
    // gnome-keyring's dates are in whole seconds: the change must come in a later one.
    try await Task.sleep(for: .seconds(1.1))
    try await gnome.start(unlock: true)
    _ = try Self.run(
      Self.secretTool, ["store", "--label=Mail", "service", "mail", "user", "alice"],
      gnome.environment, stdin: Array("changed in gnome-keyring".utf8))
    _ = try Self.run(
      Self.secretTool, ["store", "--label=New", "kind", "new"], gnome.environment,
      stdin: Array("new there".utf8))
    let shown = try Self.dump(gnome.environment)
    try await gnome.stop()

    try await daemon.start()
    let lookup = { (attributes: [String]) in
      try Self.run(Self.secretTool, ["lookup"] + attributes, daemon.environment)
    }
    #expect(try lookup(["service", "mail", "user", "alice"]) == "changed in gnome-keyring")
    #expect(try lookup(["kind", "new"]) == "new there")
    #expect(try lookup(["kind", "mine"]) == "kept")
    // Every item gnome-keyring had, once, plus the one stored in keychaind.
    let merged = try Self.dump(daemon.environment)
    #expect(Self.items(merged, "login").count == Self.items(shown, "login").count + 1)
  }
}
