// SPDX-License-Identifier: MIT
//
// KDE's wallets brought over: wallets made by Debian's real kwalletd5 in the test (every kind
// of entry: passwords with Unicode, newlines and nothing in them, streams with NUL and 0xFF,
// maps) come into keychaind when the login password opens them, field for field, as KDE
// programs then read them through keychaind's KWallet API; the files are never changed; a
// restart imports nothing twice; a wallet with another password waits until `keychainctl
// import kwallet` is given it; damaged files are named with what is wrong.

import Foundation
import KWalletProtocol
import KeychainCrypto
import KeychainDBus
import KeychainTesting
import Testing

@Suite(.enabled(if: KWalletd.executable != nil, "needs libkf5wallet-bin"))
struct KWalletImportTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/kwallet-fixture.py").path
  typealias Methods = KWallet.Methods
  static let kf5 = KWallet.services[0]

  /// What the fixture script says each wallet holds: wallet → folder → key → [kind, value].
  typealias Held = [String: [String: [String: [Any]]]]

  /// Wallets made by kwalletd5 in a home of their own; kwalletd5 is stopped afterwards.
  static func makeWallets(_ wallets: [String]) async throws -> (home: TemporaryDirectory, Held) {
    let kwalletd = try await KWalletd()
    let made = try runCommand(
      "/usr/bin/python3", [script] + wallets, environment: kwalletd.environment,
      timeout: hangBound)
    #expect(made.status == 0, "\(made.stderr)")
    let held = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? Held ?? [:]
    return (kwalletd.home, held)
  }

  /// The SHA-256 of every file of KWallet's directory.
  static func digests(_ directory: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
      out[file] = SHA256.hash(
        Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))))
    }
    return out
  }

  /// Reads every entry of `expected` through keychaind's KWallet API and compares.
  static func check(
    _ wallet: String, _ expected: [String: [String: [Any]]], _ connection: Connection
  ) async throws {
    let (name, path) = kf5
    let handle = try await connection.call(name, path, Methods.open, wallet, 0, "check")
    #expect(handle > 0, "\(wallet) does not open")
    let folders = try await connection.call(name, path, Methods.folderList, handle, "check")
    // kwalletd's two folders are in every wallet (an import brings no empty folder).
    #expect(
      Set(folders) == Set(expected.keys).union(["Passwords", "Form Data"]), "\(wallet): \(folders)")
    for (folder, entries) in expected {
      let keys = try await connection.call(name, path, Methods.entryList, handle, folder, "check")
      #expect(Set(keys) == Set(entries.keys), "\(folder): \(keys)")
      for (key, held) in entries {
        let kind = held[0] as? String
        let type = try await connection.call(
          name, path, Methods.entryType, handle, folder, key, "check")
        switch kind {
        case "password":
          #expect(type == 1)
          let text = try await connection.call(
            name, path, Methods.readPassword, handle, folder, key, "check")
          #expect(text == held[1] as? String, "\(folder)/\(key)")
        case "stream":
          #expect(type == 2)
          let bytes = try await connection.call(
            name, path, Methods.readEntry, handle, folder, key, "check")
          #expect(bytes.map { String(format: "%02x", $0) }.joined() == held[1] as? String)
        default:
          #expect(type == 3)
          let bytes = try await connection.call(
            name, path, Methods.readMap, handle, folder, key, "check")
          #expect(
            try QDataStream.decodeMap(bytes) == held[1] as? [String: String], "\(folder)/\(key)")
        }
      }
    }
  }

  /// Each file's status in `keychainctl import --json`'s output, in file order.
  static func statuses(_ json: String, _ field: String = "status") throws -> [String] {
    let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
    let files = object?["files"] as? [[String: Any]] ?? []
    return files.compactMap { $0[field] as? String }
  }

  @Test func theLoginPasswordBringsTheWalletOverFieldForField() async throws {
    var (home, held) = try await Self.makeWallets(["kdewallet=test-pw", "Work=work-pw"])
    let directory = home.path + "/.local/share/kwalletd"
    // The records kwalletd5's Secret Service keeps beside a wallet for what
    // libsecret programs stored in it: those entries come back as the items they were.
    let sideFile = """
      {"$fdo_created": "1700000000", "$fdo_modified": "1700000500",
       "Secret Service/Web login": {"attributes": {"app": "web", "user": "bob"},
         "$fdo_mime_type": "text/plain", "$fdo_created": "1700000100", "$fdo_modified": "1700000200"},
       "Secret Service/Web login__0_": {"attributes": {"app": "web", "user": "carol"},
         "$fdo_mime_type": "text/plain", "$fdo_created": "1700000300", "$fdo_modified": "1700000400"}}
      """
    try sideFile.write(
      toFile: directory + "/kdewallet_attributes.json", atomically: true, encoding: .utf8)
    held["kdewallet"]?["Secret Service"] = nil
    let before = try Self.digests(directory)
    #expect(before.keys.contains("kdewallet.kwl") && before.keys.contains("Work.kwl"))

    // keychaind on the same home: --unlock with the password that also opens kdewallet.
    let shared = [
      "XDG_DATA_HOME": home.path + "/.local/share", "XDG_CONFIG_HOME": home.path + "/.config",
    ]
    let daemon = try await DaemonProcess(password: "test-pw", environment: shared)
    let connection = try await daemon.bus.connect()
    try await Self.check("kdewallet", try #require(held["kdewallet"]), connection)
    // The same items through the Secret Service.
    let lookup = try daemon.run(
      "/usr/bin/secret-tool",
      ["lookup", "server", "Passwords", "user", "lines", "type", "plaintext"])
    #expect(lookup.stdout == "line 1\nline 2\n")
    for (user, secret) in [("bob", "web secret 1"), ("carol", "web secret 2")] {
      let item = try daemon.run("/usr/bin/secret-tool", ["search", "app", "web", "user", user])
      #expect(item.stdout.contains("label = Web login\n"), "\(item.stdout)")
      #expect(item.stdout.contains("secret = \(secret)\n"), "\(item.stdout)")
      #expect(item.stdout.contains("created = 2023-11-14"), "\(item.stdout)")
    }
    // Work has another password: it waits, and says so.
    #expect(daemon.log.contains("not imported yet: \(directory)/Work.kwl"), "\(daemon.log)")

    // Given its password, it comes into a collection of its own: the one a dry run names.
    let planned = try daemon.run(
      Binaries.keychainctl, ["import", "kwallet", "--dry-run", "--password-stdin", "--json"],
      stdin: Array("work-pw\n".utf8))
    let given = try daemon.run(
      Binaries.keychainctl, ["import", "kwallet", "--password-stdin", "--json"],
      stdin: Array("work-pw\n".utf8))
    #expect(given.status == 0, "\(given.stdout)\(given.stderr)")
    let named = try Self.statuses(given.stdout, "collection")
    #expect(try Self.statuses(planned.stdout, "collection") == named, "\(planned.stdout)")
    #expect(try Self.statuses(given.stdout) == ["imported", "unchanged"], "\(given.stdout)")
    try await Self.check("Work", try #require(held["Work"]), connection)

    // KWallet's files are as they were, and a restart imports nothing twice.
    #expect(try Self.digests(directory) == before)
    #expect(daemon.kill() != nil)
    try await daemon.start()
    let again = try daemon.run(Binaries.keychainctl, ["import", "kwallet", "--dry-run", "--json"])
    #expect(try Self.statuses(again.stdout) == ["unchanged", "unchanged"], "\(again.stdout)")
    let restarted = try await daemon.bus.connect()
    try await Self.check("kdewallet", try #require(held["kdewallet"]), restarted)
    let items = try daemon.run(
      "/usr/bin/secret-tool", ["search", "--all", "xdg:schema", "org.qt.keychain"])
    #expect(items.stdout.components(separatedBy: "label = ").count - 1 == 13, "\(items.stdout)")
  }

  @Test func wrongPasswordsAndDamagedFilesAreNamed() async throws {
    let (home, _) = try await Self.makeWallets(["kdewallet=test-pw"])
    let source = home.path + "/.local/share/kwalletd"
    let wallet = try Array(Data(contentsOf: URL(fileURLWithPath: source + "/kdewallet.kwl")))
    let salt = try Data(contentsOf: URL(fileURLWithPath: source + "/kdewallet.salt"))
    // Copies: one cut short, one with a byte of its name index flipped.
    let work = try TemporaryDirectory(prefix: "kwl-damaged")
    for (name, bytes) in [
      ("cut", Array(wallet.dropLast(3))),
      ("flipped", wallet.enumerated().map { $0 == 17 ? $1 ^ 0x40 : $1 }),
      ("whole", wallet),
    ] {
      try Data(bytes).write(to: URL(fileURLWithPath: work.path + "/\(name).kwl"))
      try salt.write(to: URL(fileURLWithPath: work.path + "/\(name).salt"))
    }
    let daemon = try await DaemonProcess(password: "other-pw")
    let result = try daemon.run(
      Binaries.keychainctl, ["import", "kwallet", "--dir", work.path, "--password-stdin"],
      stdin: Array("wrong-pw\n".utf8))
    #expect(result.status == 1, "\(result.stdout)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(
      lines.contains { $0.contains("cut.kwl") && $0.contains("not whole 8-byte blocks") },
      "\(lines)")
    #expect(lines.contains { $0.contains("flipped.kwl") && $0.contains(": failed") }, "\(lines)")
    #expect(lines.contains { $0.contains("whole.kwl") && $0.contains("pending") }, "\(lines)")
    // The right password opens the whole one; the damaged ones stay failed.
    let right = try daemon.run(
      Binaries.keychainctl, ["import", "kwallet", "--dir", work.path, "--password-stdin"],
      stdin: Array("test-pw\n".utf8))
    #expect(
      right.stdout.contains("whole.kwl → ") && right.stdout.contains(": imported"),
      "\(right.stdout)")
  }
}
