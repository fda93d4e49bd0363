// SPDX-License-Identifier: MIT
//
// What a pinentry's ERR line becomes: a closed dialog is a cancel, anything else a failure said
// in words for the log (it reached the log as gpg-error's raw line).

import Testing

@testable import KeychainPrompt

@Suite struct PinentryErrorTests {
  @Test func aClosedDialogIsACancel() {
    for line in ["ERR 83886179 Operation cancelled <Pinentry>", "ERR 83886278", "ERR 62 timeout"] {
      #expect(Pinentry.error(line).description == "cancelled", "\(line)")
    }
  }

  @Test func theOtherButtonOfAYesNoDialogIsNotConfirmed() {
    #expect(Pinentry.error("ERR 83886194 Not confirmed <Pinentry>").description == "not confirmed")
  }

  @Test func otherFailuresAreSaidInWords() {
    let noTerminal = Pinentry.error("ERR 83918950 Inappropriate ioctl for device <Pinentry>")
    #expect(
      noTerminal.description
        == "pinentry failed: it found no display and no terminal to show the dialog on")
    let other = Pinentry.error("ERR 83886081 General error <Pinentry>")
    #expect(other.description == "pinentry failed: General error (code 83886081)")
    #expect(Pinentry.error("ERR 5").description == "pinentry failed: an error (code 5)")
  }
}
