// SPDX-License-Identifier: MIT
//
// FIDO2 key slots through the binaries, against a software FIDO2 key (Tests/clients/
// soft-fido2.py) that keychaind reaches through libfido2 with only the transport replaced: the
// key opens the keyring when touched, not when untouched, unplugged or another key; a slot made
// with the key's PIN needs it, and a wrong one is refused; the password still opens.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(if: SoftwareFIDO2Key.isInstalled, "python3-fido2 or libfido2 is not installed"),
  .readsAnotherProgramsItems)
struct FIDO2SlotTests {
  private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("clients/soft-fido2.py").path

  private func run(_ daemon: DaemonProcess, _ arguments: [String], _ stdin: String = "") throws
    -> CommandResult
  {
    try daemon.run(Binaries.keychainctl, arguments, stdin: Array(stdin.utf8))
  }

  @Test func aFIDO2KeyOpensTheKeyringWhenTouchedAndOnlyThen() async throws {
    let key = try SoftwareFIDO2Key(script: Self.script)
    let mode = ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"]
    let daemon = try await DaemonProcess(
      configuration: "fido2-device = \(key.device)\n"
        + (mode.map { "access-control = \($0)\n" } ?? ""))
    #expect(try run(daemon, ["create", "Vault", "--password-stdin"], "vault pw\n").status == 0)
    #expect(try run(daemon, ["set-default", "Vault"]).status == 0)
    #expect(
      try run(daemon, ["store", "--label=Mail", "service", "mail"], "kept secret").status == 0)

    let added = try run(daemon, ["slot", "add", "fido2", "--label", "blue key"], "vault pw\n")
    #expect(added.status == 0, "\(added.stderr)\n\(daemon.log)\n\(key.log)")
    #expect(added.stdout.hasPrefix("slot 1 added"))
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let unlocked = try run(daemon, ["unlock", "--fido2"])
    #expect(unlocked.status == 0, "\(unlocked.stderr)\n\(key.log)")
    #expect(try run(daemon, ["lookup", "service", "mail"]).stdout == "kept secret")

    // Not touched, unplugged, another key: each refused in words, the keyring still locked.
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    try key.plugIn(touched: false)
    let untouched = try run(daemon, ["unlock", "--fido2"])
    #expect(untouched.status == 1 && untouched.stderr.contains("FIDO2"), "\(untouched.stderr)")
    key.unplug()
    let unplugged = try run(daemon, ["unlock", "--fido2"])
    #expect(unplugged.status == 1, "\(unplugged.stderr)")
    #expect(unplugged.stderr.contains("no FIDO2 key answers"), "\(unplugged.stderr)")
    let state = key.directory.path + "/state.json"
    try FileManager.default.moveItem(atPath: state, toPath: state + ".first-key")
    try key.plugIn()
    let other = try run(daemon, ["unlock", "--fido2"])
    #expect(other.status == 1 && other.stderr.contains("another key"), "\(other.stderr)")
    key.unplug()
    try? FileManager.default.removeItem(atPath: state)  // the other key wrote none
    try FileManager.default.moveItem(atPath: state + ".first-key", toPath: state)
    #expect(try run(daemon, ["lookup", "service", "mail"]).status == 1)

    // The key gets a PIN: a slot made with it needs it; the slot made without still opens.
    try key.plugIn(pin: "4321")
    let refused = try run(daemon, ["slot", "add", "fido2"], "vault pw\n")
    #expect(refused.status == 1 && refused.stderr.contains("PIN"), "\(refused.stderr)")
    let withPIN = try run(daemon, ["slot", "add", "fido2", "--with-pin"], "vault pw\n4321\n")
    #expect(withPIN.status == 0, "\(withPIN.stderr)\n\(key.log)")
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let wrong = try run(daemon, ["unlock", "--fido2", "--with-pin"], "1111\n")
    #expect(wrong.status == 1 && wrong.stderr.contains("PIN"), "\(wrong.stderr)")
    #expect(try run(daemon, ["unlock", "--fido2", "--with-pin"], "4321\n").status == 0)
    #expect(try run(daemon, ["slot", "test", "2"], "4321\n").status == 0)
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    #expect(try run(daemon, ["unlock", "--fido2"]).status == 0)
    let listed = try run(daemon, ["slot", "list"]).stdout
    #expect(listed.contains("1  fido2 “blue key”, made "), "\(listed)")
    #expect(listed.contains("2  fido2 (pin), made "), "\(listed)")
    #expect(!daemon.log.contains("4321") && !daemon.log.contains("1111"))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }

  /// A policy of `tpm2 AND fido2`: one slot that the TPM and the key open only together.
  @Test(.enabled(if: SoftwareTPM.isInstalled, "swtpm and tpm2-tools are not installed"))
  func aSlotOfTheTPMAndAFIDO2KeyNeedsBoth() async throws {
    let (tpm, key) = (try SoftwareTPM(), try SoftwareFIDO2Key(script: Self.script))
    let mode = ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"]
    let daemon = try await DaemonProcess(
      configuration: "tpm2-tcti = \(tpm.tcti)\nfido2-device = \(key.device)\n"
        + (mode.map { "access-control = \($0)\n" } ?? ""))
    #expect(try run(daemon, ["create", "Vault", "--password-stdin"], "vault pw\n").status == 0)
    #expect(try run(daemon, ["set-default", "Vault"]).status == 0)
    #expect(
      try run(daemon, ["store", "--label=Mail", "service", "mail"], "kept secret").status == 0)

    let added = try run(
      daemon, ["slot", "add", "tpm2+fido2", "--with-pin", "--pcrs", "7"], "vault pw\n24681357\n")
    #expect(added.status == 0, "\(added.stderr)\n\(key.log)")
    let listed = try run(daemon, ["slot", "list"]).stdout
    #expect(
      listed.contains("1  tpm2+fido2 (tpm2=pin,pcrs=7;fido2=), both needed, made "), "\(listed)")
    #expect(try run(daemon, ["slot", "test", "1"], "24681357\n\n").status == 0)

    // Neither device opens it alone.
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    let tpmAlone = try run(daemon, ["unlock", "--tpm2", "--with-pin"], "24681357\n")
    #expect(tpmAlone.status == 1 && tpmAlone.stderr.contains("no TPM slot"), "\(tpmAlone.stderr)")
    let keyAlone = try run(daemon, ["unlock", "--fido2"])
    #expect(keyAlone.status == 1 && keyAlone.stderr.contains("no FIDO2 slot"), "\(keyAlone.stderr)")
    let both = try run(daemon, ["unlock", "--tpm2", "--fido2", "--with-pin"], "24681357\n")
    #expect(both.status == 0, "\(both.stderr)")
    #expect(try run(daemon, ["lookup", "service", "mail"]).stdout == "kept secret")

    // Without the key, or with the PCR changed, it stays locked; the password opens.
    #expect(try run(daemon, ["lock", "--collection", "Vault"]).status == 0)
    key.unplug()
    let noKey = try run(daemon, ["unlock", "--tpm2", "--fido2", "--with-pin"], "24681357\n")
    #expect(noKey.status == 1 && noKey.stderr.contains("no FIDO2 key answers"), "\(noKey.stderr)")
    try key.plugIn()
    try tpm.extend(pcr: 7)
    let changed = try run(daemon, ["unlock", "--tpm2", "--fido2", "--with-pin"], "24681357\n")
    #expect(changed.status == 1 && changed.stderr.contains("PCRs"), "\(changed.stderr)")
    #expect(try run(daemon, ["unlock", "--password-stdin"], "vault pw\n").status == 0)
    #expect(!daemon.log.contains("24681357"))
    #expect(daemon.terminate() == 0, "\(daemon.log)")
  }
}
