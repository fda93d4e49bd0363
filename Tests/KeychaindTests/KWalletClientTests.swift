// SPDX-License-Identifier: MIT
//
// Real KDE clients against the real keychaind, as a KDE user on Debian 12 runs them:
// kwallet-query (KF5's KWallet::Wallet), python3-keyring's KWallet backend, a QtKeychain 0.13
// program on a KDE desktop, and Chromium with --password-store=kwallet5. Each stores through
// KWallet, and what it stores is the same item secret-tool and QtKeychain's libsecret backend
// read; a write survives kill -9; the bus starts keychaind for a KWallet call.

import Foundation
import KWalletProtocol
import KeychainDBus
import KeychainTesting
import Synchronization
import Testing

/// kwallet-query, from libkf5wallet-bin, or nil.
private let kwalletQuery: String? = ["/usr/bin/kwallet-query"].first {
  FileManager.default.isExecutableFile(atPath: $0)
}

@Suite(.enabled(if: kwalletQuery != nil, "needs libkf5wallet-bin"))
struct KWalletClientTests {
  static let kf5: (name: BusName, path: ObjectPath) = KWallet.services[0]

  /// The environment of a KDE client of `daemon`: no display, Qt headless, a KDE desktop.
  static func kdeEnvironment(_ daemon: DaemonProcess) -> [String: String] {
    daemon.environment.merging([
      "QT_QPA_PLATFORM": "offscreen", "XDG_CURRENT_DESKTOP": "KDE", "KDE_SESSION_VERSION": "5",
    ]) { $1 }
  }

  static func run(
    _ program: String, _ arguments: [String], _ environment: [String: String],
    stdin: [UInt8] = []
  ) throws -> CommandResult {
    try runCommand(
      program, arguments, environment: environment, stdin: stdin, timeout: hangBound)
  }

  /// Stores entries through the KWallet API, as a KDE program does.
  static func seed(_ daemon: DaemonProcess) async throws {
    let connection = try await daemon.bus.connect()
    typealias Methods = KWallet.Methods
    let handle = try await connection.call(kf5.name, kf5.path, Methods.open, "kdewallet", 0, "seed")
    #expect(handle > 0)
    #expect(
      try await connection.call(
        kf5.name, kf5.path, Methods.writePassword, handle, "Passwords", "github", "line1\nline2",
        "seed") == 0)
    #expect(
      try await connection.call(
        kf5.name, kf5.path, Methods.writeMap, handle, "Network Management", "{uuid};wifi",
        QDataStream.encode(["psk": "s3cret"]), "seed") == 0)
    await connection.close()
  }

  @Test(.readsAnotherProgramsItems) func kwalletQueryListsReadsAndWrites() async throws {
    let daemon = try await DaemonProcess()
    try await Self.seed(daemon)
    let environment = Self.kdeEnvironment(daemon)
    let query = try #require(kwalletQuery)
    let list = try Self.run(query, ["-l", "-f", "Passwords", "kdewallet"], environment)
    #expect(list.status == 0 && list.stdout == "github\n", "\(list.stdout)\(list.stderr)")
    let password = try Self.run(
      query, ["-f", "Passwords", "-r", "github", "kdewallet"], environment)
    #expect(password.stdout == "line1\nline2\n", "\(password.stderr)")
    let map = try Self.run(
      query, ["-f", "Network Management", "-r", "{uuid};wifi", "kdewallet"], environment)
    #expect(map.stdout.contains("\"psk\": \"s3cret\""), "\(map.stdout)\(map.stderr)")
    // kwallet-query 5.103 writes over an existing password.
    let write = try Self.run(
      query, ["-f", "Passwords", "-w", "github", "kdewallet"], environment,
      stdin: Array("new pw\n".utf8))
    #expect(write.status == 0, "\(write.stderr)")
    let lookup = try daemon.run(
      "/usr/bin/secret-tool",
      ["lookup", "server", "Passwords", "user", "github", "type", "plaintext"])
    #expect(lookup.stdout == "new pw")
    // A wallet keychaind does not have.
    let missing = try Self.run(query, ["-l", "nowallet"], environment)
    #expect(
      missing.status == 1 && (missing.stdout + missing.stderr).contains("not found"),
      "\(missing.stdout)")
  }

  @Test(.readsAnotherProgramsItems) func secretToolAndKWalletQuerySeeOneItem() async throws {
    let daemon = try await DaemonProcess()
    let stored = try daemon.run(
      "/usr/bin/secret-tool",
      ["store", "--label", "x", "server", "Mail", "user", "alice", "type", "plaintext"],
      stdin: Array("from libsecret".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    let query = try #require(kwalletQuery)
    let read = try Self.run(
      query, ["-f", "Mail", "-r", "alice", "kdewallet"], Self.kdeEnvironment(daemon))
    #expect(read.stdout == "from libsecret\n", "\(read.stderr)")
  }

  @Test(.readsAnotherProgramsItems) func pythonKeyringStoresThroughKWallet() async throws {
    let daemon = try await DaemonProcess()
    var environment = Self.kdeEnvironment(daemon)
    environment["PYTHON_KEYRING_BACKEND"] = "keyring.backends.kwallet.DBusKeyring"
    let script = """
      import sys, keyring
      print(type(keyring.get_keyring()).__name__)
      keyring.set_password("svc", "alice", "hunter2 ü")
      print(keyring.get_password("svc", "alice"))
      sys.stdout.flush()
      """
    let set = try Self.run("/usr/bin/python3", ["-c", script], environment)
    #expect(set.stdout == "DBusKeyring\nhunter2 ü\n", "\(set.stderr)")
    // The same item through the Secret Service, under QtKeychain's schema.
    let lookup = try daemon.run(
      "/usr/bin/secret-tool", ["lookup", "server", "svc", "user", "alice", "type", "plaintext"])
    #expect(lookup.stdout == "hunter2 ü")
    let delete = try Self.run(
      "/usr/bin/python3",
      [
        "-c",
        "import keyring; keyring.delete_password('svc', 'alice'); print(keyring.get_password('svc', 'alice'))",
      ],
      environment)
    #expect(delete.stdout == "None\n", "\(delete.stderr)")
    // On a KDE desktop, keyring picks its KWallet backend (priority 5.1) over the Secret
    // Service's (5).
    environment["PYTHON_KEYRING_BACKEND"] = nil
    let chosen = try Self.run(
      "/usr/bin/python3", ["-c", "import keyring; print(type(keyring.get_keyring()).__name__)"],
      environment)
    #expect(chosen.stdout.contains("DBusKeyring") || chosen.stdout.contains("ChainerBackend"))
  }

  @Test(.enabled(if: QtKeychainProgram.available, "needs qtkeychain-qt5-dev, qtbase5-dev, g++"))
  func qtKeychainOnKDEWritesWhatItsLibsecretBackendReads() async throws {
    let program = try QtKeychainProgram.build()
    let daemon = try await DaemonProcess()
    let kde = Self.kdeEnvironment(daemon)
    var gnome = kde
    gnome["XDG_CURRENT_DESKTOP"] = "GNOME"
    gnome["KDE_SESSION_VERSION"] = nil
    #expect(try Self.run(program, ["write", "kc-test", "k1", "s3cret ü"], kde).status == 0)
    #expect(try Self.run(program, ["read", "kc-test", "k1"], gnome).stdout == "s3cret ü\n")
    #expect(try Self.run(program, ["bwrite", "kc-test", "k2", "00ff0102"], kde).status == 0)
    #expect(try Self.run(program, ["bread", "kc-test", "k2"], gnome).stdout == "00ff0102\n")
    #expect(try Self.run(program, ["write", "kc-test", "k3", "from gnome"], gnome).status == 0)
    #expect(try Self.run(program, ["read", "kc-test", "k3"], kde).stdout == "from gnome\n")
    // The KDE side went through KWallet: its items carry KWallet's label, folder/key.
    let listed = try daemon.run("/usr/bin/secret-tool", ["search", "--all", "server", "kc-test"])
    #expect(listed.stdout.contains("label = kc-test/k1"), "\(listed.stdout)")
  }

  @Test(
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "no Chromium"),
    .readsAnotherProgramsItems)
  func chromiumOnKDEKeepsItsKeyInKWallet() async throws {
    let daemon = try await DaemonProcess()
    let profile = daemon.home.path + "/chromium"
    let set = try ChromiumTests.chromium(
      "set", profile: profile, store: "kwallet5", daemon.environment)
    #expect(set == "session=abc\nsession v11\n", "\(set)")
    let shown = try ChromiumTests.chromium(
      "show", profile: profile, store: "kwallet5", daemon.environment)
    #expect(shown.hasPrefix("session=abc\n"), "\(shown)")
    let key = try daemon.run(
      "/usr/bin/secret-tool",
      ["lookup", "server", "Chromium Keys", "user", "Chromium Safe Storage", "type", "plaintext"])
    #expect(key.stdout.count == 24, "\(key.stdout)")
  }

  @Test func aWriteSurvivesKillNine() async throws {
    let daemon = try await DaemonProcess(password: ServiceFixture.password)
    try await Self.seed(daemon)
    #expect(daemon.kill() != nil)
    try await daemon.start()
    let connection = try await daemon.bus.connect()
    typealias Methods = KWallet.Methods
    let handle = try await connection.call(
      Self.kf5.name, Self.kf5.path, Methods.open, "kdewallet", 0, "t")
    #expect(
      try await connection.call(
        Self.kf5.name, Self.kf5.path, Methods.readPassword, handle, "Passwords", "github", "t")
        == "line1\nline2")
  }
}

/// Tests/clients/qtkeychain-job.cpp, built once per test run.
enum QtKeychainProgram {
  static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/qtkeychain-job.cpp").path

  static var available: Bool {
    FileManager.default.fileExists(atPath: "/usr/include/qt5keychain/keychain.h")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/g++")
  }

  static func build() throws -> String {
    let directory = try TemporaryDirectory(prefix: "qtkeychain")
    let program = directory.path + "/qtkeychain-job"
    let flags = try runCommand("/usr/bin/pkg-config", ["--cflags", "--libs", "Qt5Core", "Qt5DBus"])
    let built = try runCommand(
      "/usr/bin/g++",
      ["-std=c++17", "-fPIC", "-o", program, source]
        + flags.stdout.split(separator: " ").map {
          String($0).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        .filter { !$0.isEmpty } + ["-lqt5keychain"],
      timeout: hangBound)
    guard built.status == 0 else { throw TestingError("g++: \(built.stderr)") }
    // The directory goes with the value: keep it for the test's life.
    keep.withLock { $0.append(directory) }
    return program
  }

  private static let keep = Mutex<[TemporaryDirectory]>([])
}
