// SPDX-License-Identifier: MIT
//
// keychainctl share through the binaries, with its clients in a bubblewrap sandbox that has
// the share's socket and nothing else of the session: secret-tool, SecretStorage and
// python-keyring find and read the shared items, and nothing else is there (absent, not
// locked); a read-only share refuses writes; revoking or expiry cuts live connections and
// removes the socket; reads are audited under the share's id; bad input is a clear error.

import Foundation
import KeychainTesting
import Testing

@Suite struct ShareTests {
  static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/share-client.py").path

  private func ctl(_ daemon: DaemonProcess, _ arguments: [String], _ stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  /// bubblewrap's arguments for a sandbox with the system's programs, a private /tmp, no
  /// network, no session bus: only the share's socket, as the bus its programs are told of.
  static func sandbox(socket: String, binding extra: [String] = []) -> [String] {
    [
      "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64",
      "/lib64", "--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc",
      "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/run", "--bind", socket, "/run/keyring-bus",
      "--ro-bind", client, "/client.py",
    ] + extra + [
      "--unshare-all", "--die-with-parent", "--clearenv", "--setenv", "PATH", "/usr/bin",
      "--setenv", "HOME", "/tmp", "--setenv", "DBUS_SESSION_BUS_ADDRESS",
      "unix:path=/run/keyring-bus", "--",
    ]
  }

  private func inside(
    _ daemon: DaemonProcess, _ socket: String, _ command: [String], _ stdin: String = ""
  )
    throws -> CommandResult
  {
    try daemon.run(
      "/usr/bin/bwrap", Self.sandbox(socket: socket) + command, stdin: Array(stdin.utf8))
  }

  private func json(_ result: CommandResult) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
  }

  /// Makes a share; returns its id and socket.
  private func share(_ daemon: DaemonProcess, _ arguments: [String]) throws -> (String, String) {
    let made = try ctl(daemon, ["share"] + arguments)
    try #require(made.status == 0, "\(made.stderr)\n\(daemon.log)")
    let address = made.stdout.trimmingCharacters(in: .newlines)
    try #require(address.hasPrefix("unix:path="), "\(made.stdout)")
    let socket = String(address.dropFirst("unix:path=".count))
    let id = URL(fileURLWithPath: socket).deletingLastPathComponent().lastPathComponent
    #expect(made.stderr.contains("share \(id):"), "\(made.stderr)")
    return (id, socket)
  }

  @Test func aSandboxSeesTheSharedItemsAndNothingElse() async throws {
    let daemon = try await DaemonProcess()
    #expect(
      try ctl(daemon, ["store", "--label=Shared", "service", "shared"], "tok-shared").status == 0)
    #expect(
      try ctl(daemon, ["store", "--label=Private", "service", "private"], "tok-private").status == 0
    )
    let (id, socket) = try share(
      daemon, ["--items", "service=shared", "--read-only", "--label", "ci"])
    // The socket is in a directory only this user enters.
    let folder = try FileManager.default.attributesOfItem(
      atPath: URL(fileURLWithPath: socket).deletingLastPathComponent().path)
    #expect((folder[.posixPermissions] as? Int) == 0o700)

    // secret-tool: the shared item is read; the other is not there at all.
    let lookup = try inside(daemon, socket, ["secret-tool", "lookup", "service", "shared"])
    #expect(lookup.status == 0 && lookup.stdout == "tok-shared", "\(lookup.stderr)")
    let hidden = try inside(daemon, socket, ["secret-tool", "lookup", "service", "private"])
    #expect(hidden.status == 1 && hidden.stdout.isEmpty)
    let search = try inside(
      daemon, socket, ["secret-tool", "search", "--all", "--unlock", "service", "private"])
    #expect(search.stdout.isEmpty && !search.stderr.contains("tok-private"))

    // SecretStorage: one collection, one item, and the other item's path answers nothing.
    let listed = try inside(daemon, socket, ["/usr/bin/python3", "/client.py", "list"])
    let seen = try #require(try json(listed) as? [String: Any], "\(listed.stderr)")
    let collections = try #require(seen["collections"] as? [[String: Any]])
    #expect(
      collections.map { $0["path"] as? String } == ["/org/freedesktop/secrets/collection/login"])
    #expect((collections.first?["items"] as? [[String]]) == [["Shared", "tok-shared"]])
    #expect(seen["default"] as? String == "/org/freedesktop/secrets/aliases/default")
    let probe = try inside(
      daemon, socket,
      ["/usr/bin/python3", "/client.py", "probe", "/org/freedesktop/secrets/collection/login/2"])
    let probed = try #require(try json(probe) as? [String: Any], "\(probe.stderr)")
    #expect(probed["present"] as? Bool == false)
    #expect((probed["error"] as? String ?? "").contains("does not exist"), "\(probed)")
    let shared = try inside(
      daemon, socket,
      ["/usr/bin/python3", "/client.py", "probe", "/org/freedesktop/secrets/collection/login/1"])
    #expect((try json(shared) as? [String: Any])?["present"] as? Bool == true, "\(shared.stderr)")

    // Read-only: a store is refused, saying why; so is anything beyond the Secret Service's reads.
    let store = try inside(
      daemon, socket, ["secret-tool", "store", "--label=New", "service", "new"], "x")
    #expect(store.status != 0 && store.stderr.contains("read-only"), "\(store.stderr)")
    let lock = try inside(
      daemon, socket,
      [
        "dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets",
        "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
        "array:objpath:/org/freedesktop/secrets/collection/login",
      ])
    #expect(
      lock.status != 0 && lock.stderr.contains("not available through a share"), "\(lock.stderr)")
    // python-keyring finds nothing it was not given.
    let keyring = try inside(
      daemon, socket, ["/usr/bin/python3", "/client.py", "keyring-get", "private", "x"])
    #expect((try json(keyring) as? [String: Any])?["password"] is NSNull, "\(keyring.stderr)")

    // The bus has keychaind and nothing else; the session bus cannot be reached from there.
    let names = try inside(daemon, socket, ["/usr/bin/python3", "/client.py", "names"])
    #expect((try json(names) as? [String]) == ["org.freedesktop.DBus", "org.freedesktop.secrets"])
    let session = try inside(
      daemon, socket,
      [
        "dbus-send", "--bus=\(daemon.environment["DBUS_SESSION_BUS_ADDRESS"]!)", "--print-reply",
        "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.ListNames",
      ])
    #expect(session.status != 0)

    // Every read is audited under the share; nothing names the other item. (`audit show` has
    // keychaind write what it holds first.)
    let audit = try ctl(daemon, ["audit", "show"]).stdout
    #expect(
      audit.contains("read grant /org/freedesktop/secrets/collection/login/1 by share:\(id)"),
      "\(audit)")
    #expect(
      !audit.split(separator: "\n").contains {
        $0.contains("share:\(id)") && $0.contains("login/2")
      })
    #expect(!daemon.log.contains("tok-shared") && !daemon.log.contains("tok-private"))

    // Revoked while a client holds its connection: cut off, socket gone, and said once.
    let signals = try TemporaryDirectory(prefix: "share-signals")
    let holder = try ChildProcess(
      "/usr/bin/bwrap",
      Self.sandbox(socket: socket, binding: ["--bind", signals.path, "/signals"])
        + ["/usr/bin/python3", "/client.py", "hold", "/signals"],
      environment: daemon.environment, stdoutFile: signals.path + "/out")
    try holder.waitUntil(
      { FileManager.default.fileExists(atPath: signals.path + "/connected") }, log: daemon.log)
    #expect(try ctl(daemon, ["share", "revoke", id]).status == 0)
    #expect(!FileManager.default.fileExists(atPath: socket))
    #expect(FileManager.default.createFile(atPath: signals.path + "/go", contents: nil))
    #expect(holder.wait(timeout: hangBound) == 0)
    let held =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: URL(fileURLWithPath: signals.path + "/out"))) as? [String: Any]
    #expect(held?["cut"] != nil && held?["after"] == nil, "\(String(describing: held))")
    let again = try ctl(daemon, ["share", "revoke", id])
    #expect(again.status == 1 && again.stderr.contains("no share \(id)"), "\(again.stderr)")
    #expect(try ctl(daemon, ["share", "list"]).stdout == "no shares\n")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  @Test(.readsAnotherProgramsItems) func aShareThatMayWriteKeepsWhatItsClientsStore() async throws {
    let daemon = try await DaemonProcess()
    #expect(
      try ctl(daemon, ["store", "--label=Shared", "service", "shared"], "tok-shared").status == 0)
    #expect(
      try ctl(daemon, ["store", "--label=Hidden", "service", "hidden"], "tok-hidden").status == 0)
    let (id, socket) = try share(daemon, ["--items", "service=shared", "--ttl", "never"])
    // Storing over an item outside the share makes a new one: the hidden one is not there.
    let over = try inside(
      daemon, socket, ["secret-tool", "store", "--label=Mine", "service", "hidden"], "from-share")
    #expect(over.status == 0, "\(over.stderr)")
    let both = try daemon.run("/usr/bin/secret-tool", ["search", "--all", "service", "hidden"])
    #expect(
      both.stdout.contains("secret = tok-hidden") && both.stdout.contains("secret = from-share"),
      "\(both.stdout)")
    let set = try inside(
      daemon, socket, ["/usr/bin/python3", "/client.py", "keyring-set", "svc", "ann", "pw-1"])
    #expect(set.status == 0, "\(set.stderr)")
    let get = try inside(
      daemon, socket, ["/usr/bin/python3", "/client.py", "keyring-get", "svc", "ann"])
    #expect((try json(get) as? [String: Any])?["password"] as? String == "pw-1", "\(get.stderr)")
    // The new item is the user's, in the default keyring, and now part of the share.
    let host = try daemon.run(
      "/usr/bin/secret-tool", ["lookup", "service", "svc", "username", "ann"])
    #expect(host.stdout == "pw-1", "\(host.stderr)")
    let listing = try ctl(daemon, ["share", "list", "--json"])
    let shares = try #require(try json(listing) as? [[String: Any]])
    #expect(shares.count == 1 && shares.first?["id"] as? String == id)
    #expect((shares.first?["items"] as? [String])?.count == 3)
    #expect(shares.first?["expires"] == nil && shares.first?["readOnly"] as? Bool == false)
    let audit = try ctl(daemon, ["audit", "show"]).stdout
    #expect(audit.contains("create allowed") && audit.contains("by share:\(id)"), "\(audit)")

    // A share that expires: its socket goes by itself (waited for, not timed).
    let (_, short) = try share(daemon, ["--items", "service=shared", "--ttl", "1s"])
    let deadline = ContinuousClock.now + hangBound
    while FileManager.default.fileExists(atPath: short)
      || !daemon.log.contains("ended: it expired"),
      ContinuousClock.now < deadline
    {
      usleep(10_000)
    }
    #expect(!FileManager.default.fileExists(atPath: short))
    #expect(daemon.log.contains("ended: it expired"))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
    // keychaind's end ended the rest.
    #expect(!FileManager.default.fileExists(atPath: socket))
  }

  /// In `protect`, sharing another program's item asks as reading it would: with no display
  /// to ask on, the refusal names the command that allows it, and nothing is shared.
  @Test func sharingWhatTheMakerMayNotReadAsks() async throws {
    let daemon = try await DaemonProcess(configuration: "access-control = protect\n")
    let stored = try daemon.run(
      "/usr/bin/secret-tool", ["store", "--label=Theirs", "service", "theirs"],
      stdin: Array("tok-theirs".utf8))
    #expect(stored.status == 0, "\(stored.stderr)")
    let refused = try ctl(daemon, ["share", "--items", "service=theirs"])
    #expect(refused.status == 1, "\(refused.stderr)")
    #expect(refused.stderr.contains("allow it with: keychainctl access allow"), "\(refused.stderr)")
    #expect(try ctl(daemon, ["share", "list"]).stdout == "no shares\n")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  @Test func badInputIsAClearError() async throws {
    let daemon = try await DaemonProcess()
    #expect(try ctl(daemon, ["store", "--label=Shared", "service", "shared"], "tok").status == 0)
    let none = try ctl(daemon, ["share", "--items", "service=nothing"])
    #expect(none.status == 1)
    #expect(none.stderr == "keychainctl: no item matches service=nothing: nothing is shared\n")
    for bad in [
      ["share"], ["share", "--items", "nonsense"],
      ["share", "--items", "service=shared", "--ttl", "5x"],
    ] {
      let refused = try ctl(daemon, bad)
      #expect(refused.status == 64, "\(bad): \(refused.stderr)")
    }
    let unknown = try ctl(daemon, ["share", "revoke", "0123456789ab"])
    #expect(unknown.status == 1 && unknown.stderr.contains("no share 0123456789ab"))
    #expect(try ctl(daemon, ["share", "list"]).stdout == "no shares\n")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
