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

    // A kind of slot that does not exist is refused by name, before anything is asked.
    let unknown = try run(daemon, ["slot", "add", "fingerprint"])
    #expect(
      unknown.status == 64
        && unknown.stderr.contains("a slot is recovery, tpm2, fido2 or tpm2+fido2"))
    #expect(try run(daemon, ["doctor"]).stdout.contains("key slots: Vault opens with: password"))

    // The key went to keychainctl's standard output only: not into keychaind's log.
    #expect(!daemon.log.contains(key.prefix(17)))
    #expect(!daemon.log.contains(typed.prefix(17)))
    #expect(daemon.log.contains("key slots: added recovery key slot 1 to Vault"))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: "/usr/bin/zbarimg")
        && FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libqrencode.so.4"),
      "zbar-tools or libqrencode4 is not installed"))
  func theRecoveryKeysQRCodeReadsBackAsTheKey() async throws {
    let daemon = try await DaemonProcess(password: "pw")
    let added = try run(daemon, ["slot", "add", "recovery", "--qr"], "pw\n")
    #expect(added.status == 0, "\(added.stderr)")
    let key = added.stdout.trimmingCharacters(in: .newlines)
    #expect(!added.stderr.contains(key.prefix(8)), "the key itself went to standard error")
    // The drawing, as a phone's camera would see it, read back by zbar.
    let directory = try TemporaryDirectory(prefix: "qr")
    let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("clients").path
    let image = try runCommand(
      "/usr/bin/python3", [clients + "/qr-from-terminal.py", directory.path + "/key.png"],
      stdin: Array(added.stderr.utf8))
    #expect(image.status == 0, "\(image.stderr)")
    let read = try runCommand("/usr/bin/zbarimg", ["--raw", "-q", directory.path + "/key.png"])
    #expect(read.stdout.trimmingCharacters(in: .newlines) == key, "\(read.stderr)")
    // Not asked for, with standard error not a terminal: the letters only.
    let plain = try run(daemon, ["slot", "add", "recovery"], "pw\n")
    #expect(plain.status == 0 && !plain.stderr.contains("▀"), "\(plain.stderr)")
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  /// keychaind.conf for a daemon that reaches `tpm`, in the suite's access mode if one is set.
  private func configuration(_ tpm: SoftwareTPM) -> String {
    let mode = ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"]
    return "tpm2-tcti = \(tpm.tcti)\n" + (mode.map { "access-control = \($0)\n" } ?? "")
  }

  @Test(
    .enabled(if: SoftwareTPM.isInstalled, "swtpm and tpm2-tools are not installed"),
    .readsAnotherProgramsItems)
  func aTPMSlotUnlocksOnThisMachineOnlyWithItsPINAndPCRs() async throws {
    let tpm = try SoftwareTPM()
    let daemon = try await DaemonProcess(configuration: configuration(tpm))
    #expect(try run(daemon, ["create", "Vault", "--password-stdin"], "vault pw\n").status == 0)
    #expect(try run(daemon, ["set-default", "Vault"]).status == 0)
    #expect(
      try run(daemon, ["store", "--label=Mail", "service", "mail"], "kept secret").status == 0)

    // No dialog can be shown here (no pinentry): a locked keyring stays locked to a program.
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    #expect(try daemon.run("secret-tool", ["lookup", "service", "mail"]).stdout == "")

    // A slot with no PIN: unlocking takes nothing typed.
    let plain = try run(daemon, ["slot", "add", "tpm2", "--label", "laptop"], "vault pw\n")
    #expect(plain.status == 0, "\(plain.stderr)\n\(daemon.log)")
    // …and a program that needs the keyring gets it without the dialog, as after a login with
    // a fingerprint.
    let lookup = try daemon.run("secret-tool", ["lookup", "service", "mail"])
    #expect(lookup.stdout == "kept secret", "\(lookup.stderr)\n\(daemon.log)")
    #expect(daemon.log.contains("unlocked Vault with TPM slot 1 instead of a dialog"))
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let unlocked = try run(daemon, ["unlock", "--tpm2"])
    #expect(unlocked.status == 0, "\(unlocked.stderr)")
    #expect(try run(daemon, ["lookup", "service", "mail"]).stdout == "kept secret")

    // A slot with a PIN, bound to PCR 7.
    let bound = try run(
      daemon, ["slot", "add", "tpm2", "--with-pin", "--pcrs", "7"], "vault pw\n24681357\n")
    #expect(bound.status == 0, "\(bound.stderr)")
    #expect(try listed(daemon, 2)?.hasPrefix("2  tpm2 (pin,pcrs=7), made ") == true)
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let wrongPIN = try run(daemon, ["unlock", "--tpm2", "--with-pin"], "1111\n")
    #expect(wrongPIN.status == 1 && wrongPIN.stderr.contains("the PIN is not correct"))
    #expect(try run(daemon, ["unlock", "--tpm2", "--with-pin"], "24681357\n").status == 0)
    #expect(try listed(daemon, 2)?.contains("last used never") == false)

    // A boot component changes: the bound slot fails closed; the other and the password open.
    try tpm.extend(pcr: 7)
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let changed = try run(daemon, ["unlock", "--tpm2", "--with-pin"], "24681357\n")
    #expect(changed.status == 1 && changed.stderr.contains("PCRs"), "\(changed.stderr)")
    #expect(try run(daemon, ["slot", "test", "1"], "\n").status == 0)
    #expect(try run(daemon, ["unlock", "--tpm2"]).status == 0)
    // A TPM slot proves nothing: any program of the user could have keychaind unseal it.
    #expect(try run(daemon, ["slot", "add", "recovery", "--with-recovery-key"], "\n").status == 1)
    #expect(daemon.terminate() == 0, "\(daemon.log)")

    // A stolen disk: the data directory on another machine (another TPM) opens with the
    // password alone.
    let stolen = try TemporaryDirectory(prefix: "stolen")
    let copy = stolen.path + "/keychaind"
    try FileManager.default.copyItem(
      atPath: daemon.home.path + "/.local/share/keychaind", toPath: copy)
    let otherTPM = try SoftwareTPM()
    let thief = try await DaemonProcess(
      arguments: ["--data-dir", copy], configuration: configuration(otherTPM))
    let elsewhere = try run(thief, ["unlock", "--tpm2", "--collection", "Vault"])
    #expect(elsewhere.status == 1 && elsewhere.stderr.contains("TPM"), "\(elsewhere.stderr)")
    #expect(
      try run(thief, ["unlock", "--collection", "Vault", "--password-stdin"], "vault pw\n").status
        == 0)
    #expect(!daemon.log.contains("24681357") && !thief.log.contains("24681357"))
    #expect(thief.terminate() == 0, "\(thief.log)")
  }
}
