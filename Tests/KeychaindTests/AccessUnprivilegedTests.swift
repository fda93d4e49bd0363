// SPDX-License-Identifier: MIT
//
// What the other suites cannot run: as root, keychaind may
// read any process's executable, so a client that makes itself non-dumpable would still be
// identified. Here keychaind and its clients run as `nobody` (setpriv, from a root test run),
// as on a desktop: a script stores an item and reads it back as its owner; the same script,
// after prctl(PR_SET_DUMPABLE, 0), cannot be identified (/proc refuses its executable), so it
// is `unknown`, which owns nothing and matches no grant, and the item is locked for it.

import Foundation
import KeychainDBus
import KeychainTesting
import Testing

@Suite(
  .enabled(if: getuid() == 0, "dropping to another user needs root"),
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "no setpriv"),
  .enabled(
    if: FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/secretstorage"),
    "python3-secretstorage is not installed"))
struct AccessUnprivilegedTests {
  static let nobody: UInt32 = 65534

  static let client = """
    import ctypes, sys, secretstorage
    if sys.argv[1] == "hidden":
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    connection = secretstorage.dbus_init()
    collection = secretstorage.get_default_collection(connection)
    if sys.argv[1] == "store":
        collection.create_item("Mail", {"service": "mail"}, b"s3cret")
        print("stored")
        sys.exit(0)
    item = next(collection.search_items({"service": "mail"}))
    if item.is_locked():
        # SecretStorage refuses a locked item's secret itself: ask keychaind anyway.
        from secretstorage.util import open_session
        try:
            item._item.call("GetSecret", "o", open_session(connection).object_path)
            print("READ")
        except Exception as error:
            print("LOCKED", error)
    else:
        print(item.get_secret().decode())
    """

  /// Runs `arguments` as nobody.
  static func asNobody(_ arguments: [String]) -> [String] {
    ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--"] + arguments
  }

  @Test func aNonDumpableClientIsUnknownAndOwnsNothing() async throws {
    let root = try TemporaryDirectory(prefix: "t10")
    chmod(root.path, 0o755)
    let home = root.path + "/home"
    let variables = [
      "HOME": home, "XDG_DATA_HOME": home + "/.local/share", "XDG_CONFIG_HOME": home + "/.config",
      "XDG_STATE_HOME": home + "/.local/state", "XDG_RUNTIME_DIR": home + "/run",
      "XDG_CACHE_HOME": home + "/.cache", "PINENTRY": "none",
    ]
    for directory in [home + "/.config/keychaind", home + "/run", home + "/.local/share"] {
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    }
    try "access-control = protect\n".write(
      toFile: home + "/.config/keychaind/keychaind.conf", atomically: true, encoding: .utf8)
    try Self.client.write(toFile: home + "/client.py", atomically: true, encoding: .utf8)
    try Data("test password".utf8).write(to: URL(fileURLWithPath: root.path + "/password"))
    // The binary where nobody may run it, wherever the checkout is. Copied by cp, so that the
    // file is never open for writing in this process: a child another test forks meanwhile
    // would inherit that descriptor, and exec would then fail with "Text file busy".
    let daemon = root.path + "/keychaind"
    let copied = try runCommand("/bin/cp", [Binaries.keychaind, daemon])
    try #require(copied.status == 0, "\(copied.stderr)")
    chmod(daemon, 0o755)
    try Self.chown(home)

    // A bus that lets another user in: the committed one, with <allow user="*"/>.
    let configuration = root.path + "/bus.conf"
    try String(contentsOfFile: PrivateBus.defaultConfiguration, encoding: .utf8)
      .replacingOccurrences(
        of: "<policy context=\"default\">",
        with: "<policy context=\"default\">\n    <allow user=\"*\"/>"
      ).write(toFile: configuration, atomically: true, encoding: .utf8)
    let bus = try PrivateBus(configuration: configuration)
    let environment = bus.environment(extra: variables)
    let keychaind = try ChildProcess(
      "/usr/bin/setpriv", Self.asNobody([daemon, "--unlock", "--verbose"]),
      environment: environment, stdinFile: root.path + "/password",
      stderrFile: root.path + "/keychaind.log")
    defer {
      keychaind.signal(SIGTERM)
      _ = keychaind.wait()
    }
    let log = { (try? String(contentsOfFile: root.path + "/keychaind.log", encoding: .utf8)) ?? "" }
    let watcher = try await bus.connect()
    for _ in 0..<1500 where keychaind.poll() == nil {  // a bound, not a speed check
      if try await watcher.nameOwner("org.freedesktop.secrets") != nil { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    let credentials = try? await watcher.credentials(of: "org.freedesktop.secrets")
    await watcher.close()
    try #require(credentials?.uid == Self.nobody, "keychaind did not start as nobody: \(log())")

    func client(_ mode: String) throws -> String {
      let result = try runCommand(
        "/usr/bin/setpriv", Self.asNobody(["/usr/bin/python3", home + "/client.py", mode]),
        environment: environment)
      #expect(result.status == 0, "\(mode): \(result.stderr)\n\(log())")
      return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    #expect(try client("store") == "stored")
    // Its owner reads it: the same script, identified by its file.
    #expect(try client("read") == "s3cret")
    // Not dumpable: /proc refuses its executable to keychaind, so it is nobody it knows.
    let hidden = try client("hidden")
    #expect(hidden.hasPrefix("LOCKED") && hidden.contains("IsLocked"), "\(hidden)")
    #expect(try client("read") == "s3cret")

    // keychaind writes its records in batches, a moment after the calls: until all four are
    // there (a bound of 10 s, not a speed check).
    var audit = ""
    var records: [[String: Any]] = []
    for _ in 0..<500 {
      audit =
        (try? String(
          contentsOfFile: home + "/.local/state/keychaind/audit.jsonl", encoding: .utf8)) ?? ""
      records = try jsonLines(at: home + "/.local/state/keychaind/audit.jsonl")
      if records.count >= 4 { break }
      try await Task.sleep(for: .milliseconds(20))
    }
    let kinds = records.compactMap { ($0["app"] as? [String: Any])?["kind"] as? String }
    #expect(kinds == ["script", "script", "unknown", "script"], "\(audit)\n\(log())")
    let refused = records.first { ($0["app"] as? [String: Any])?["kind"] as? String == "unknown" }
    // Nobody could be asked (no dialog program): refused, and the log says why.
    #expect(
      refused?["op"] as? String == "read" && refused?["decision"] as? String == "no-dialog",
      "\(records)")
  }

  /// Gives `path` and everything under it to nobody.
  static func chown(_ path: String) throws {
    let result = try runCommand("/bin/chown", ["-R", "\(nobody):\(nobody)", path])
    guard result.status == 0 else { throw TestingError("chown: \(result.stderr)") }
  }
}
