// SPDX-License-Identifier: MIT
//
// The real keychaind driven by the real secret-tool (libsecret: DH session, aliases, prompts).

import Foundation
import KeychainTesting
import Testing

@Suite(.serialized) struct SecretToolTests {
  @Test func storeLookupSearchReplaceClear() async throws {
    let daemon = try await DaemonProcess()
    let store = try daemon.run(
      "secret-tool", ["store", "--label=Mail", "service", "mail", "user", "alice"],
      stdin: Array("p4ss ✓".utf8))
    #expect(store.status == 0, "\(store.stderr)\n\(daemon.log)")
    let lookup = try daemon.run("secret-tool", ["lookup", "service", "mail", "user", "alice"])
    #expect(lookup.stdout == "p4ss ✓")
    // Storing the same attributes again replaces: one item, the new secret.
    _ = try daemon.run(
      "secret-tool", ["store", "--label=Mail", "service", "mail", "user", "alice"],
      stdin: Array("new".utf8))
    #expect(
      try daemon.run("secret-tool", ["lookup", "service", "mail", "user", "alice"]).stdout == "new")
    let search = try daemon.run("secret-tool", ["search", "--all", "service", "mail"])
    #expect(
      search.stdout.components(separatedBy: "secret = new").count == 2,
      "\(search.stdout)\(search.stderr)")
    // secret-tool prints attributes on stderr.
    #expect((search.stdout + search.stderr).contains("attribute.user = alice"))
    #expect(
      try daemon.run("secret-tool", ["lookup", "service", "mail", "user", "ALICE"]).status != 0)
    #expect(try daemon.run("secret-tool", ["clear", "service", "mail"]).status == 0)
    #expect(
      try daemon.run("secret-tool", ["lookup", "service", "mail", "user", "alice"]).status != 0)
    #expect(daemon.isRunning)
  }

  @Test(.createsKeyringsProtectAsksAbout) func severalCollections() async throws {
    let daemon = try await DaemonProcess()
    // A second collection, made without a prompt through gnome-keyring's extension.
    let made = try PromptClient(daemon, ["master"]).finish()
    let work = try #require(made.split(separator: " ").first { $0.hasPrefix("/org/") })
    for (collection, secret) in [
      ("", "in login"), (String(work), "in work"), ("session", "in memory"),
    ] {
      let options = collection.isEmpty ? [] : ["--collection=\(collection)"]
      let stored = try daemon.run(
        "secret-tool",
        ["store", "--label=Several"] + options + ["app", "several", "where", secret],
        stdin: Array(secret.utf8))
      #expect(stored.status == 0, "\(stored.stderr)")
    }
    let search = try daemon.run("secret-tool", ["search", "--all", "app", "several"])
    for secret in ["in login", "in work", "in memory"] {
      #expect(search.stdout.contains("secret = \(secret)"), "\(search.stdout)")
    }
    // Each in its own collection: secret-tool prints only the items' last path element.
    let paths = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.SearchItems", "{'app': 'several'}",
      ]
    ).stdout
    for path in ["collection/login/", "\(work)/", "collection/session/"] {
      #expect(paths.contains(path), "\(paths)")
    }
    let lookup = try daemon.run("secret-tool", ["lookup", "app", "several", "where", "in work"])
    #expect(lookup.stdout == "in work")
  }

  @Test func emptyBinaryAndLargeSecrets() async throws {
    let daemon = try await DaemonProcess()
    let binary: [UInt8] = [0, 1, 2, 0xFF, 0xFE, 0x80, 0, 10, 13]
    // secret-tool itself reads at most 8 KiB ("password is too long"); 1 MiB goes through
    // SecretStorage in its own test.
    let large = (0..<8000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
    for (name, secret) in [("empty", [UInt8]()), ("binary", binary), ("large", large)] {
      let stored = try daemon.run(
        "secret-tool", ["store", "--label=\(name)", "kind", name], stdin: secret)
      #expect(stored.status == 0, "\(name): \(stored.stderr)")
      let found = try daemon.run("secret-tool", ["lookup", "kind", name])
      let same = found.stdoutBytes == secret  // compared apart: a failing #expect would print both
      #expect(
        same, "\(name): \(found.stdoutBytes.count) of \(secret.count) bytes back: \(found.stderr)")
    }
  }

  @Test func aLockedCollectionIsReportedAndPromptsCompleteDismissed() async throws {
    let daemon = try await DaemonProcess()
    _ = try daemon.run(
      "secret-tool", ["store", "--label=L", "app", "x"], stdin: Array("hidden".utf8))
    // secret-tool lock --collection=login locks, then crashes in its own cleanup (libsecret
    // 0.20.5); gdbus makes the same Lock call.
    let lock = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['/org/freedesktop/secrets/aliases/default']",
      ])
    #expect(
      lock.stdout == "([objectpath '/org/freedesktop/secrets/aliases/default'], objectpath '/')\n",
      "\(lock.stderr)")
    // libsecret sees the locked match, asks to unlock, runs the prompt; with no prompter it is
    // dismissed and the lookup finds nothing, without hanging.
    let lookup = try daemon.run("secret-tool", ["lookup", "app", "x"])
    #expect(lookup.status != 0 && lookup.stdout.isEmpty)
    #expect(daemon.log.contains("no password dialog could be shown"))
    #expect(daemon.isRunning)
  }

  /// A collection seen unlocked in this run and then locked still shows its items' label,
  /// attributes and dates, as gnome-keyring does, while the secret needs an unlock: the same
  /// steps against both, compared line by line with the clock's digits blanked.
  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func aLockedCollectionStillShowsWhatWasSeenOfIt() async throws {
    func search(_ environment: [String: String]) throws -> String {
      func run(_ executable: String, _ arguments: [String], _ stdin: String = "") throws
        -> CommandResult
      {
        try runCommand(executable, arguments, environment: environment, stdin: Array(stdin.utf8))
      }
      #expect(
        try run("secret-tool", ["store", "--label=Mail", "app", "mail"], "hidden").status == 0)
      #expect(try run(KeychainctlTests.keychainctl, ["lock", "--collection", "Login"]).status == 0)
      let found = try run("secret-tool", ["search", "--all", "app", "mail"])
      return found.stderr + found.stdout
    }
    // Also without the schema line: gnome-keyring shows `xdg:schema` for this item only once
    // it has read its file back (it fills the schema in from the item type then), which
    // happens before or after the lock depending on timing (one run in five here).
    func withoutDates(_ text: String) -> String {
      text.replacing(/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}/, with: "<date>")
        .replacing(/schema = org.freedesktop.Secret.Generic\n/, with: "")
    }
    let daemon = try await DaemonProcess()
    let ours = try search(daemon.environment)
    let gnome = try await GnomeKeyring()
    let theirs = try search(gnome.environment)
    #expect(withoutDates(ours) == withoutDates(theirs))
    #expect(ours.contains("label = Mail\n") && ours.contains("attribute.app = mail"), "\(ours)")
    #expect(ours.contains("Cannot get secret of a locked object") && !ours.contains("hidden"))
    // A real date, not the epoch a locked item answered before.
    #expect(ours.contains("created = 2") && !ours.contains("1970-01-01"), "\(ours)")
  }

  @Test func sigtermEndsTheDaemonCleanly() async throws {
    let daemon = try await DaemonProcess()
    #expect(daemon.terminate() == 0)
    #expect(daemon.log.contains("stopping: SIGTERM"))
  }

  @Test func aWrongUnlockPasswordIsRefused() async throws {
    let first = try await DaemonProcess(password: "right")
    #expect(first.terminate() == 0)
    let data = first.home.path + "/.local/share/keychaind"
    let result = try runCommand(
      Binaries.keychaind, ["--unlock", "--data-dir", data], environment: first.environment,
      stdin: Array("wrong".utf8))
    #expect(result.status == 5)
    #expect(result.stderr.contains("does not unlock"))
    #expect(!result.stderr.contains("wrong"))
  }

  /// With --unlock the name is owned before Argon2id has finished, and a call that arrives in
  /// between waits for the unlock instead of finding the collection locked.
  @Test func theNameIsTakenBeforeTheUnlockAndEarlyCallsWaitForIt() async throws {
    let daemon = try await DaemonProcess()
    let stored = try daemon.run(
      "secret-tool", ["store", "--label=early", "app", "early"], stdin: Array("on time".utf8))
    #expect(stored.status == 0)
    #expect(daemon.terminate() == 0)
    try await daemon.start()  // returns as soon as the name is owned
    let found = try daemon.run("secret-tool", ["lookup", "app", "early"])
    #expect(found.stdout == "on time", "\(found.stderr)\n\(daemon.log)")
    let lines = daemon.log.split(separator: "\n")
    let serving = lines.lastIndex { $0.contains("serving org.freedesktop.secrets") }
    let unlocked = lines.lastIndex { $0.contains("unlocked the login collection") }
    #expect(serving != nil && unlocked != nil && serving! < unlocked!, "\(daemon.log)")
  }
}
