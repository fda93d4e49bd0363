// SPDX-License-Identifier: MIT
//
// Sealing to a software TPM (swtpm) and unsealing: the secret comes back through a reboot,
// only with its PIN until the TPM locks PIN attempts out, and only while its PCRs are unchanged.

import KeychainCrypto
import KeychainTPM
import KeychainTesting
import Testing

@Suite(.enabled(if: SoftwareTPM.isInstalled, "swtpm and tpm2-tools are not installed"))
struct TPM2Tests {
  private let secret = SecureBytes.random(count: 32)

  @Test func aSealedSecretComesBackAfterAReboot() throws {
    let tpm = try SoftwareTPM()
    let blob = try TPM2.seal(secret, pin: SecureBytes(copying: []), pcrs: [], tcti: tpm.tcti)
    #expect(!blob.isEmpty)
    try tpm.reboot()
    let back = try TPM2.unseal(blob, pin: SecureBytes(copying: []), pcrs: [], tcti: tpm.tcti)
    #expect(back == secret)
  }

  @Test func anotherTPMCannotUnsealIt() throws {
    let (tpm, other) = (try SoftwareTPM(), try SoftwareTPM())
    let blob = try TPM2.seal(secret, pin: SecureBytes(copying: []), pcrs: [], tcti: tpm.tcti)
    #expect(throws: TPM2.Failure.self) {
      try TPM2.unseal(blob, pin: SecureBytes(copying: []), pcrs: [], tcti: other.tcti)
    }
  }

  @Test func aWrongPINFailsUntilTheTPMLocksAttemptsOut() throws {
    let tpm = try SoftwareTPM()
    let pin = SecureBytes(copying: Array("2468".utf8))
    let blob = try TPM2.seal(secret, pin: pin, pcrs: [], tcti: tpm.tcti)
    #expect(try TPM2.unseal(blob, pin: pin, pcrs: [], tcti: tpm.tcti) == secret)
    var kinds: [TPM2.Failure.Kind] = []
    // swtpm allows three failures before its dictionary-attack lockout.
    for _ in 0..<4 {
      do {
        _ = try TPM2.unseal(
          blob, pin: SecureBytes(copying: Array("1111".utf8)), pcrs: [], tcti: tpm.tcti)
      } catch { kinds.append(error.kind) }
    }
    #expect(kinds.first == .wrongPIN)
    #expect(kinds.last == .lockout, "\(kinds)")
    // Locked out, even the right PIN is refused.
    do {
      _ = try TPM2.unseal(blob, pin: pin, pcrs: [], tcti: tpm.tcti)
      Issue.record("unsealed while locked out")
    } catch { #expect(error.kind == .lockout, "\(error)") }
  }

  @Test func aSecretBoundToPCRsFailsClosedOnceTheyChange() throws {
    let tpm = try SoftwareTPM()
    for pin in [SecureBytes(copying: []), SecureBytes(copying: Array("13579".utf8))] {
      let blob = try TPM2.seal(secret, pin: pin, pcrs: [7, 14], tcti: tpm.tcti)
      #expect(try TPM2.unseal(blob, pin: pin, pcrs: [7, 14], tcti: tpm.tcti) == secret)
      try tpm.reboot()
      #expect(try TPM2.unseal(blob, pin: pin, pcrs: [7, 14], tcti: tpm.tcti) == secret)
      try tpm.extend(pcr: 7)
      do {
        _ = try TPM2.unseal(blob, pin: pin, pcrs: [7, 14], tcti: tpm.tcti)
        Issue.record("unsealed with PCR 7 changed")
      } catch { #expect(error.kind == .pcrsChanged, "\(error)") }
      try tpm.reboot()
    }
  }

  @Test func noTPMIsSaidPlainly() throws {
    let directory = try TemporaryDirectory(prefix: "no-tpm")
    do {
      _ = try TPM2.seal(
        secret, pin: SecureBytes(copying: []), pcrs: [], tcti: "swtpm:path=\(directory.path)/none")
      Issue.record("sealed with no TPM")
    } catch { #expect(error.kind == .noDevice, "\(error)") }
  }
}
