// SPDX-License-Identifier: MIT
//
// keychainctl against keychaind on a private bus (and gnome-keyring where installed): every
// verb, the exit codes of the manual, secret-tool finding what keychainctl stores and the
// reverse, and the help text.

import Foundation
import KeychainTesting
import Testing

@Suite struct KeychainctlTests {
  static var keychainctl: String { Binaries.keychainctl }

  private func ctl(_ daemon: DaemonProcess, _ arguments: [String], stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(Self.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  @Test(.readsAnotherProgramsItems) func secretToolVerbsInteroperateWithSecretTool() async throws {
    let daemon = try await DaemonProcess()
    #expect(
      try ctl(daemon, ["store", "--label=L", "app", "web", "user", "alice"], stdin: "s3cret").status
        == 0)
    #expect(try daemon.run("secret-tool", ["lookup", "app", "web"]).stdout == "s3cret")
    _ = try daemon.run(
      "secret-tool", ["store", "--label=From secret-tool", "app", "web", "user", "bob"],
      stdin: Array("hunter2".utf8))
    #expect(try ctl(daemon, ["lookup", "user", "bob"]).stdout == "hunter2")
    // Storing the same attributes again replaces, as secret-tool does.
    _ = try ctl(daemon, ["store", "--label=L2", "app", "web", "user", "alice"], stdin: "n3w")
    #expect(try ctl(daemon, ["lookup", "user", "alice"]).stdout == "n3w")

    let search = try ctl(daemon, ["search", "--all", "app", "web"])
    #expect(search.stdout.contains("label = L2\nsecret = n3w\n"), "\(search.stdout)")
    #expect(search.stdout.contains("attribute.user = bob"))
    let json = try ctl(daemon, ["search", "--all", "--json", "app", "web"])
    let items = try #require(
      try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(Set(items.compactMap { $0["secret"] as? String }) == ["n3w", "hunter2"])

    #expect(try ctl(daemon, ["clear", "user", "bob"]).status == 0)
    #expect(try daemon.run("secret-tool", ["lookup", "user", "bob"]).status == 1)
    #expect(try ctl(daemon, ["lookup", "user", "bob"]).status == 1)
    #expect(try ctl(daemon, ["clear"]).status == 64, "clear with no attributes is refused")
    #expect(try ctl(daemon, ["store", "--label=x", "odd"]).status == 64)
    _ = daemon.terminate()
  }

  @Test(.readsAnotherProgramsItems) func securityVerbsKeepTheKeychainRulesAndExitCodes()
    async throws
  {
    let daemon = try await DaemonProcess()
    #expect(
      try ctl(daemon, ["add-generic-password", "-a", "bob", "-s", "svc", "-w", "pw1"]).status == 0)
    let duplicate = try ctl(daemon, ["add-generic-password", "-a", "bob", "-s", "svc", "-w", "x"])
    #expect(duplicate.status == 45)
    #expect(duplicate.stderr.contains("already exists"))
    #expect(
      try ctl(daemon, ["add-generic-password", "-a", "bob", "-s", "svc", "-U"], stdin: "pw2\n")
        .status == 0)
    #expect(
      try ctl(daemon, ["find-generic-password", "-a", "bob", "-s", "svc", "-w"]).stdout == "pw2\n")
    let shown = try ctl(daemon, ["find-generic-password", "-s", "svc"])
    #expect(shown.stdout.contains("\"acct\"=\"bob\""))
    #expect(!shown.stdout.contains("pw2"), "only -w prints the password")
    // libsecret sees a generic password by its service and account.
    #expect(
      try daemon.run("secret-tool", ["lookup", "service", "svc", "account", "bob"]).stdout == "pw2")

    let add = ["add-internet-password", "-a", "carol", "-s", "example.org", "-r", "https"]
    #expect(try ctl(daemon, add + ["-P", "8443", "-p", "/login", "-w", "ipw"]).status == 0)
    #expect(
      try daemon.run("secret-tool", ["lookup", "server", "example.org", "user", "carol"]).stdout
        == "ipw")
    // JSON, like the text form, has the password only with -w.
    for flags in [["--json"], ["--json", "-w"]] {
      let json = try ctl(daemon, ["find-internet-password", "-s", "example.org"] + flags)
      let item = try #require(
        try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
      #expect(item["ptcl"] as? String == "htps")
      #expect(item["port"] as? Int == 8443)
      #expect(item["password"] as? String == (flags.contains("-w") ? "ipw" : nil))
    }

    #expect(try ctl(daemon, ["delete-internet-password", "-s", "example.org"]).status == 0)
    #expect(try ctl(daemon, ["find-internet-password", "-s", "example.org"]).status == 44)
    #expect(try ctl(daemon, ["delete-generic-password", "-s", "svc"]).status == 0)
    #expect(try ctl(daemon, ["delete-generic-password", "-s", "svc"]).status == 44)
    _ = daemon.terminate()
  }

  @Test func collectionsLockAndStatus() async throws {
    let daemon = try await DaemonProcess()
    _ = try ctl(daemon, ["store", "--label=L", "k", "v"], stdin: "x")
    let list = try ctl(daemon, ["list"])
    #expect(
      list.stdout.contains("* /org/freedesktop/secrets/collection/login\tunlocked\t1 items\tLogin"))
    let status = try ctl(daemon, ["status", "--json"])
    let parsed = try #require(
      try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
    #expect((parsed["provider"] as? [String: Any])?["program"] as? String == "keychaind")
    #expect(parsed["items"] as? Int == 1)

    #expect(try ctl(daemon, ["lock", "--collection", "Login"]).status == 0)
    #expect(try ctl(daemon, ["list", "--json"]).stdout.contains("\"locked\" : true"))
    // No prompter here: the unlock prompt is dismissed, and keychainctl says so.
    let unlock = try ctl(daemon, ["unlock", "--collection", "Login"])
    #expect(unlock.status == 1)
    #expect(
      unlock.stderr.contains("`keychainctl unlock --collection Login --password-stdin` asks"),
      "\(unlock.stderr)")
    #expect(try ctl(daemon, ["lock", "--collection", "nonesuch"]).status == 1)
    _ = daemon.terminate()
  }

  @Test(.enabled(if: GnomeKeyring.executable != nil, "gnome-keyring is not installed"))
  func theVerbsWorkOnGnomeKeyring() async throws {
    let gnome = try await GnomeKeyring()
    func ctl(_ arguments: [String], stdin: String = "") throws -> CommandResult {
      try runCommand(
        Self.keychainctl, arguments, environment: gnome.environment, stdin: Array(stdin.utf8))
    }
    #expect(try ctl(["store", "--label=L", "app", "gnome"], stdin: "s3cret").status == 0)
    #expect(try ctl(["lookup", "app", "gnome"]).stdout == "s3cret")
    #expect(try ctl(["search", "app", "gnome"]).stdout.contains("secret = s3cret"))
    #expect(try ctl(["search", "--json", "app", "gnome"]).stdout.contains("\"s3cret\""))
    #expect(try ctl(["add-generic-password", "-a", "a", "-s", "s", "-w", "pw"]).status == 0)
    #expect(try ctl(["add-generic-password", "-a", "a", "-s", "s", "-w", "pw"]).status == 45)
    #expect(try ctl(["find-generic-password", "-a", "a", "-s", "s", "-w"]).stdout == "pw\n")
    #expect(try ctl(["find-generic-password", "-s", "s"]).stdout.contains("\"acct\"=\"a\""))
    #expect(try ctl(["delete-generic-password", "-s", "s"]).status == 0)
    let internet = ["-a", "carol", "-s", "example.org", "-r", "https", "-P", "8443"]
    #expect(try ctl(["add-internet-password"] + internet + ["-w", "ipw"]).status == 0)
    #expect(try ctl(["find-internet-password", "-s", "example.org", "-w"]).stdout == "ipw\n")
    #expect(try ctl(["delete-internet-password", "-s", "example.org"]).status == 0)
    #expect(try ctl(["find-internet-password", "-s", "example.org"]).status == 44)
    #expect(try ctl(["clear", "app", "gnome"]).status == 0)
    #expect(try ctl(["lookup", "app", "gnome"]).status == 1)
    try collectionsWithPasswordsFromStandardInput(ctl)
    #expect(try ctl(["status"]).stdout.contains("provider: gnome-keyring-d"))
    #expect(try ctl(["status", "--json"]).stdout.contains("\"locked\" : false"))
  }

  @Test(.createsKeyringsProtectAsksAbout) func passwordsFromStandardInputNeedNoPrompt() async throws
  {
    // Prompting is off: create, unlock and passwd succeed without it.
    let daemon = try await DaemonProcess()
    try collectionsWithPasswordsFromStandardInput { arguments, stdin in
      try ctl(daemon, arguments, stdin: stdin)
    }
    _ = daemon.terminate()
  }

  /// create, set-default, lock, unlock, passwd and delete with `--password-stdin`, the same
  /// on every provider that has gnome-keyring's master-password methods.
  private func collectionsWithPasswordsFromStandardInput(
    _ ctl: ([String], String) throws -> CommandResult
  ) throws {
    let vault = "/org/freedesktop/secrets/collection/Vault"
    let created = try ctl(["create", "Vault", "--password-stdin"], "vault pw\n")
    #expect(created.stdout == vault + "\n", "\(created.stderr)")
    #expect(try ctl(["set-default", "Vault"], "").status == 0)
    #expect(try ctl(["list"], "").stdout.contains("* \(vault)\tunlocked\t0 items\tVault"))
    #expect(try ctl(["store", "--label=V", "in", "vault"], "x").status == 0)
    // --collection takes a label or an alias's path too; a wrong one is named, and no item
    // made (it crashed on anything but a path).
    let alias = "/org/freedesktop/secrets/aliases/default"
    #expect(try ctl(["store", "--label=V2", "--collection", "Vault", "in", "v2"], "y").status == 0)
    #expect(try ctl(["store", "--label=V3", "--collection", alias, "in", "v3"], "z").status == 0)
    for wanted in ["v2", "v3"] {
      #expect(try ctl(["search", "in", wanted], "").stdout.contains("[\(vault)/"))
    }
    let bad = try ctl(["store", "--label=X", "--collection", "bad path", "in", "x"], "x")
    #expect(bad.status == 1)
    #expect(bad.stderr == "keychainctl: no collection 'bad path'\n")
    #expect(try ctl(["lock", "--collection", "Vault"], "").status == 0)
    #expect(try ctl(["lookup", "in", "vault"], "").status == 1)

    let wrong = try ctl(["unlock", "--collection", "Vault", "--password-stdin"], "nope\n")
    #expect(wrong.status == 1)
    #expect(wrong.stderr == "keychainctl: the password is not correct\n")
    // With no --collection, the default collection.
    #expect(try ctl(["unlock", "--password-stdin"], "vault pw\n").status == 0)
    #expect(try ctl(["lookup", "in", "vault"], "").stdout == "x")

    // The collection as an argument, as passwd and delete take it.
    #expect(try ctl(["lock", "Vault"], "").status == 0)
    #expect(try ctl(["lookup", "in", "vault"], "").status == 1)
    #expect(try ctl(["unlock", "Vault", "--password-stdin"], "vault pw\n").status == 0)
    #expect(try ctl(["lock", "Vault", "--collection", "Vault"], "").status == 64)
    #expect(try ctl(["passwd", "Vault", "--password-stdin"], "nope\nnew pw\n").status == 1)
    #expect(try ctl(["passwd", "Vault", "--password-stdin"], "vault pw\n").status == 1)
    #expect(try ctl(["passwd", "Vault", "--password-stdin"], "vault pw\nnew pw\n").status == 0)
    _ = try ctl(["lock", "--collection", "Vault"], "")
    #expect(try ctl(["unlock", "--password-stdin"], "vault pw\n").status == 1)
    #expect(try ctl(["unlock", "--password-stdin"], "new pw\n").status == 0)
    #expect(try ctl(["lookup", "in", "vault"], "").stdout == "x")

    #expect(try ctl(["delete", "Vault"], "").status == 0)
    #expect(!(try ctl(["list"], "").stdout.contains("Vault")))
  }

  @Test(.createsKeyringsProtectAsksAbout) func collectionsAreCreatedMadeDefaultRekeyedAndDeleted()
    async throws
  {
    // The new password for create (one dialog with its confirmation field); for passwd the
    // current one, then the new one.
    let pinentry = try ScriptedPinentry(answers: [.pin("work pw"), .pin("work pw"), .pin("new pw")])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    let created = try ctl(daemon, ["create", "Work"])
    #expect(created.stdout == "/org/freedesktop/secrets/collection/Work\n", "\(created.stderr)")
    #expect(try ctl(daemon, ["set-default", "Work"]).status == 0)
    #expect(
      try ctl(daemon, ["list"]).stdout.contains("* /org/freedesktop/secrets/collection/Work\t"))
    // New items go to the default collection.
    _ = try ctl(daemon, ["store", "--label=W", "k", "work"], stdin: "x")
    #expect(
      try ctl(daemon, ["search", "k", "work"]).stdout.contains(
        "[/org/freedesktop/secrets/collection/Work/"))
    let passwd = try ctl(daemon, ["passwd", "Work"])
    #expect(passwd.status == 0, "\(passwd.stderr) \(pinentry.log)")
    #expect(pinentry.log.filter { $0 == "GETPIN" }.count == 3)
    #expect(try ctl(daemon, ["delete", "Work"]).status == 0)
    #expect(!(try ctl(daemon, ["list"]).stdout.contains("Work")))
    #expect(try ctl(daemon, ["delete", "Work"]).status == 1)
    _ = daemon.terminate()
  }

  @Test func helpNamesEveryVerbAndTheExitCodes() throws {
    let help = try runCommand(Self.keychainctl, ["--help"])
    #expect(help.status == 0)
    for verb in [
      "store", "lookup", "search", "clear", "lock", "unlock", "add-generic-password",
      "find-generic-password", "delete-generic-password", "add-internet-password",
      "find-internet-password", "delete-internet-password", "list", "create", "delete",
      "set-default", "passwd", "status",
    ] {
      let listed = help.stdout.split(separator: "\n").contains {
        $0.hasPrefix("  \(verb) ") || $0 == "  \(verb)"
      }
      #expect(listed, "--help lists \(verb)")
    }
    #expect(help.stdout.contains("44 no such item"))
    // Both programs name the same release.
    let versions = try [Self.keychainctl, Binaries.keychaind].map {
      try runCommand($0, ["--version"])
    }
    #expect(versions.map(\.status) == [0, 0], "\(versions.map(\.stderr))")
    #expect(versions[0].stdout == versions[1].stdout && versions[0].stdout.hasPrefix("0."))
    let store = try runCommand(Self.keychainctl, ["help", "store"])
    #expect(store.stdout.contains("USAGE: keychainctl store --label <label>"))
    // The committed completions are what the command definitions generate (`make docs`).
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().path
    for tool in [Self.keychainctl, Binaries.keychaind] {
      let name = URL(fileURLWithPath: tool).lastPathComponent
      for (shell, file) in [
        ("bash", "\(name).bash"), ("zsh", "_\(name)"), ("fish", "\(name).fish"),
      ] {
        let generated = try runCommand(tool, ["--generate-completion-script", shell])
        let committed = try String(
          contentsOfFile: repository + "/data/completions/" + file, encoding: .utf8)
        #expect(generated.stdout == committed, "data/completions/\(file) is stale: make docs")
      }
    }
    let manual = try String(contentsOfFile: repository + "/data/keychainctl.1", encoding: .utf8)
    #expect(manual.contains(".It Em add-internet-password"), "data/keychainctl.1 is stale")
  }
}
