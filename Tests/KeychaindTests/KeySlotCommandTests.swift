// SPDX-License-Identifier: MIT
//
// Key slots through the binaries, as a person uses them: keychainctl makes a recovery key that
// keychaind shows once and logs nowhere; the key unlocks the keyring after a restart, sets a
// new password when the old one is lost, and stops working once its slot is removed; every
// wrong or mistyped key is one plain line, exit status 1, and changes nothing.

import Foundation
import KeychainTesting
import Testing

@Suite struct KeySlotCommandTests {
  private let ctl = Binaries.keychainctl

  private func run(_ daemon: DaemonProcess, _ arguments: [String], _ stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(ctl, arguments, stdin: Array(stdin.utf8))
  }

  /// The recovery key slot listing's line for slot `id`, or nil.
  private func listed(_ daemon: DaemonProcess, _ id: Int) throws -> String? {
    try run(daemon, ["slot", "list"]).stdout.split(separator: "\n").map(String.init)
      .first { $0.hasPrefix("\(id)  ") }
  }

  @Test(.readsAnotherProgramsItems) func aRecoveryKeyUnlocksAndSetsANewPasswordWhenItIsLost()
    async throws
  {
    // A keyring of its own, made the default: keychaind's restart below unlocks login with the
    // password it was started with, which this test leaves alone.
    let daemon = try await DaemonProcess()
    #expect(try run(daemon, ["create", "Vault", "--password-stdin"], "old password\n").status == 0)
    #expect(try run(daemon, ["set-default", "Vault"]).status == 0)
    #expect(
      try run(daemon, ["store", "--label=Mail", "service", "mail"], "kept secret").status == 0)

    let added = try run(daemon, ["slot", "add", "recovery", "--label", "paper"], "old password\n")
    #expect(added.status == 0, "\(added.stderr)")
    let key = added.stdout.trimmingCharacters(in: .newlines)
    #expect(key.count == 71 && key.split(separator: "-").count == 8, "\(added.stdout)")
    #expect(added.stderr.contains("shown this once"))
    #expect(try listed(daemon, 0)?.hasPrefix("0  password, made ") == true)
    let slot = try #require(try listed(daemon, 1))
    #expect(slot.hasPrefix("1  recovery “paper”, made ") && slot.hasSuffix("last used never"))

    // Wrong, mistyped and empty keys: one line each, nothing unlocked, nothing noted.
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let other = String(repeating: "cbdefghi", count: 8)
    let wrong = try run(daemon, ["unlock", "--recovery"], other + "\n")
    #expect(wrong.status == 1)
    #expect(wrong.stderr == "keychainctl: the recovery key is not one of this collection's\n")
    let mistyped = try run(daemon, ["unlock", "--recovery"], String(key.dropLast()) + "\n")
    #expect(mistyped.status == 1)
    #expect(mistyped.stderr.hasPrefix("keychainctl: a recovery key is 64 letters"))
    #expect(!mistyped.stderr.contains(key.prefix(8)), "the typed key was repeated")
    #expect(try run(daemon, ["unlock", "--recovery"]).status != 0)
    #expect(try run(daemon, ["lookup", "service", "mail"]).status == 1)
    #expect(try listed(daemon, 1)?.hasSuffix("last used never") == true)

    // As typed from paper: upper case, spaces for dashes.
    let typed = key.uppercased().replacingOccurrences(of: "-", with: " ")
    let unlocked = try run(daemon, ["unlock", "--recovery"], typed + "\n")
    #expect(unlocked.status == 0, "\(unlocked.stderr)")
    #expect(try run(daemon, ["lookup", "service", "mail"]).stdout == "kept secret")
    #expect(try listed(daemon, 1)?.contains("last used never") == false)

    // The password is lost: the key sets a new one, and the key keeps working.
    let reset = try run(daemon, ["passwd", "--recovery", "Vault"], key + "\nnew password\n")
    #expect(reset.status == 0, "\(reset.stderr)")
    _ = daemon.kill(with: SIGTERM)
    try await daemon.start()
    let old = try run(daemon, ["unlock", "--password-stdin"], "old password\n")
    #expect(old.status == 1 && old.stderr == "keychainctl: the password is not correct\n")
    #expect(try run(daemon, ["unlock", "--password-stdin"], "new password\n").status == 0)
    #expect(try run(daemon, ["slot", "test", "1"], key + "\n").status == 0)
    #expect(try run(daemon, ["slot", "test", "1"], other + "\n").status == 1)
    #expect(try run(daemon, ["slot", "test", "0"], "new password\n").status == 0)

    // Removing: proved, never the password's, and the key is then worthless.
    #expect(try run(daemon, ["slot", "remove", "1"], "old password\n").status == 1)
    let password = try run(daemon, ["slot", "remove", "0"], "new password\n")
    #expect(password.status == 1 && password.stderr.contains("cannot be removed"))
    let removed = try run(daemon, ["slot", "remove", "1", "--with-recovery-key"], key + "\n")
    #expect(removed.status == 0, "\(removed.stderr)")
    #expect(try listed(daemon, 1) == nil)
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    #expect(try run(daemon, ["unlock", "--recovery"], key + "\n").status == 1)

    // A slot kind not built is refused by name, before anything is asked.
    let tpm = try run(daemon, ["slot", "add", "tpm2"])
    #expect(tpm.status == 64 && tpm.stderr.contains("not built yet"))
    #expect(try run(daemon, ["doctor"]).stdout.contains("key slots: Vault opens with: password"))

    // The key went to keychainctl's standard output only: not into keychaind's log.
    #expect(!daemon.log.contains(key.prefix(17)))
    #expect(!daemon.log.contains(typed.prefix(17)))
    #expect(daemon.log.contains("key slots: added recovery key slot 1 to Vault"))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
