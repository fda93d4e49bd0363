// SPDX-License-Identifier: MIT
//
// Prompts end to end: the real keychaind asks a scripted pinentry, driven by secret-tool and by
// a SecretStorage client that can be killed mid-prompt.

import Foundation
import KeychainTesting
import Testing

private let login = "/org/freedesktop/secrets/collection/login"

@Suite(.serialized) struct PromptTests {
  /// Locks the login collection through gdbus (secret-tool lock crashes in its own cleanup).
  private func lock(_ daemon: DaemonProcess, _ path: String = login) throws {
    let result = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.Lock", "['\(path)']",
      ])
    #expect(result.status == 0, "\(result.stderr)")
  }

  private func store(_ daemon: DaemonProcess, _ secret: String) throws -> CommandResult {
    try daemon.run(
      "secret-tool", ["store", "--label=Prompted", "app", "prompts"], stdin: Array(secret.utf8))
  }

  @Test func secretToolCreatesTheFirstCollectionInOneDialog() async throws {
    // One dialog with a confirmation field, in gnome-keyring's words; the pinentry checks the
    // two entries agree and says so (S PIN_REPEATED).
    let pinentry = try ScriptedPinentry(answers: [.pin("new password")])
    let daemon = try await DaemonProcess(password: nil, pinentry: pinentry.program)
    let stored = try store(daemon, "first secret")
    #expect(stored.status == 0, "\(stored.stderr)\n\(daemon.log)")
    #expect(pinentry.log.filter { $0 == "GETPIN" }.count == 1)
    for line in [
      "SETTITLE New Keyring Password", "SETPROMPT Choose password for new keyring",
      "SETDESC An application wants to create a new keyring called “Default keyring”. Choose the password you want to use for it.",
      "SETOK Continue", "SETCANCEL Cancel", "SETREPEAT Confirm:",
      "SETREPEATERROR Passwords do not match.",
    ] {
      #expect(pinentry.log.contains(line), "no \(line) in \(pinentry.log)")
    }
    let found = try daemon.run("secret-tool", ["lookup", "app", "prompts"])
    #expect(found.stdout == "first secret")
    // Named after libsecret's label as gnome-keyring names it, which scripts rely on.
    let alias = try daemon.run(
      "gdbus",
      [
        "call", "--session", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets",
        "-m", "org.freedesktop.Secret.Service.ReadAlias", "default",
      ])
    #expect(
      alias.stdout == "(objectpath '/org/freedesktop/secrets/collection/Default_5fkeyring',)\n")
    // The new collection carries the password that was confirmed.
    try lock(daemon, "/org/freedesktop/secrets/aliases/default")
    let master = try PromptClient(daemon, ["unlock", "/org/freedesktop/secrets/aliases/default"])
    _ = try master.finish()  // no answers left: the dialog is cancelled
    #expect(master.output.contains("DISMISSED"))
    for secret in ["new password", "first secret"] {
      #expect(!daemon.log.contains(secret), "the log shows '\(secret)'")
    }
  }

  /// A pinentry without a confirmation field (pinentry-curses 1.2) is asked a second time,
  /// and a mismatch says so and starts over.
  @Test func aPinentryWithoutAConfirmationFieldIsAskedTwice() async throws {
    let pinentry = try ScriptedPinentry(
      answers: [.pin("mismatch-1"), .pin("mismatch-2"), .pin("agreed"), .pin("agreed")],
      confirmationField: false)
    let daemon = try await DaemonProcess(password: nil, pinentry: pinentry.program)
    #expect(try store(daemon, "second try").status == 0, "\(daemon.log)")
    #expect(pinentry.log.filter { $0 == "GETPIN" }.count == 4)
    #expect(pinentry.log.contains("SETERROR Passwords do not match."))
    #expect(pinentry.log.contains("SETDESC Type the same password again to confirm it."))
    #expect(try daemon.run("secret-tool", ["lookup", "app", "prompts"]).stdout == "second try")
  }

  /// An empty password is confirmed first, with gnome-keyring's question.
  @Test func anEmptyPasswordIsConfirmedAsGnomeKeyringAsks() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("")])
    let daemon = try await DaemonProcess(password: nil, pinentry: pinentry.program)
    #expect(try store(daemon, "unencrypted").status == 0, "\(daemon.log)")
    #expect(pinentry.log.contains("SETPROMPT Store passwords unencrypted?"))
    #expect(pinentry.log.contains("CONFIRM"))
  }

  @Test func lookupUnlocksThroughPinentryAfterAWrongPassword() async throws {
    let pinentry = try ScriptedPinentry(answers: [.pin("wrong"), .pin("test password")])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    #expect(try store(daemon, "locked away").status == 0)
    try lock(daemon)
    let found = try daemon.run("secret-tool", ["lookup", "app", "prompts"])
    #expect(found.stdout == "locked away", "\(found.stderr)\n\(daemon.log)")
    for line in [
      "SETTITLE Unlock Login Keyring", "SETPROMPT Authentication required",
      "SETDESC The login keyring did not get unlocked when you logged into your computer.",
      "SETOK Unlock", "SETERROR The unlock password was incorrect",
    ] {
      #expect(pinentry.log.contains(line), "no \(line) in \(pinentry.log)")
    }
    #expect(pinentry.log.filter { $0 == "GETPIN" }.count == 2)
    #expect(pinentry.log.last == "EXIT", "the dialog is closed with BYE")
  }

  /// Any pinentry but pinentry-gnome3 (pinentry-qt here) labels the password field with the
  /// prompt: it reads "Password:", and gnome-keyring's heading opens the description.
  @Test func aQtPinentryLabelsItsFieldPassword() async throws {
    let pinentry = try ScriptedPinentry(
      answers: [.pin("test password")], flavour: "pinentry-qt")
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    #expect(try store(daemon, "locked away").status == 0)
    try lock(daemon)
    let found = try daemon.run("secret-tool", ["lookup", "app", "prompts"])
    #expect(found.stdout == "locked away", "\(found.stderr)\n\(daemon.log)")
    for line in [
      "SETTITLE Unlock Login Keyring", "SETPROMPT Password:",
      "SETDESC Authentication required%0A%0AThe login keyring did not get unlocked when you logged into your computer.",
    ] {
      #expect(pinentry.log.contains(line), "no \(line) in \(pinentry.log)")
    }
  }

  @Test func cancelledDialogCompletesDismissedAndKeepsTheLock() async throws {
    let pinentry = try ScriptedPinentry(answers: [.cancel])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    #expect(try store(daemon, "stays locked").status == 0)
    try lock(daemon)
    let client = try PromptClient(daemon, ["unlock", login])
    #expect(try client.finish().contains("DISMISSED ao []"))
    let found = try daemon.run("secret-tool", ["lookup", "app", "prompts"])
    #expect(found.stdout.isEmpty)
    #expect(daemon.isRunning)
  }

  @Test func manyCallersShareOneDialog() async throws {
    let pinentry = try ScriptedPinentry(answers: [.gate("test password")])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    try lock(daemon)
    let first = try PromptClient(daemon, ["unlock", login])
    try await pinentry.waitFor("GATED")
    // These two queue behind the open dialog.
    let others = try [
      PromptClient(daemon, ["unlock", login]), PromptClient(daemon, ["unlock", login]),
    ]
    for other in others { try await other.waitFor("WAITING") }
    try pinentry.release()
    for client in [first] + others {
      #expect(try client.finish().contains("UNLOCKED ao ['\(login)']"))
    }
    #expect(pinentry.runs == 1, "\(pinentry.log)")
  }

  @Test func aClientThatLeavesMidPromptClosesItsDialog() async throws {
    let pinentry = try ScriptedPinentry(answers: [.hold, .pin("test password")])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    try lock(daemon)
    let leaving = try PromptClient(daemon, ["unlock", login])
    try await pinentry.waitFor("HOLDING")
    leaving.process.signal(SIGKILL)
    try await pinentry.waitFor("TERMINATED")
    // The queue moved on: the next caller gets its own dialog.
    let next = try PromptClient(daemon, ["unlock", login])
    #expect(try next.finish().contains("UNLOCKED"), "\(daemon.log)")
    #expect(pinentry.runs == 2)
  }

  @Test func dismissClosesARunningDialog() async throws {
    let pinentry = try ScriptedPinentry(answers: [.hold])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    try lock(daemon)
    let client = try PromptClient(
      daemon, ["dismiss", login, pinentry.directory.path + "/log"])
    #expect(try client.finish().contains("DISMISSED ao []"))
    try await pinentry.waitFor("TERMINATED")
    #expect(daemon.isRunning)
  }

  @Test func createCollectionAndChangeItsPasswordWithPrompts() async throws {
    let pinentry = try ScriptedPinentry(answers: [
      .pin("work 1"),  // create (with its confirmation field)
      .pin("work 1"), .pin("work 2"),  // change: the current one, then the new one
    ])
    let daemon = try await DaemonProcess(pinentry: pinentry.program)
    let created = try PromptClient(daemon, ["create", "Work", ""]).finish()
    #expect(created.contains("CREATED o /org/freedesktop/secrets/collection/"), "\(daemon.log)")
    let path = String(created.split(separator: " ").last ?? "").trimmingCharacters(
      in: .whitespacesAndNewlines)
    let changed = try PromptClient(daemon, ["change", path]).finish()
    #expect(changed.contains("CHANGED o \(path)"), "\(daemon.log)")
    // CreateCollection with an alias that exists answers at once, without a prompt.
    let existing = try PromptClient(daemon, ["create", "Again", "default"]).finish()
    #expect(existing.contains("EXISTING \(login)"))
    #expect(pinentry.runs == 2)
    for line in [
      "SETTITLE Change Keyring Password", "SETPROMPT Enter the old password for the “Work” keyring",
      "SETDESC An application wants to change the password for the “Work” keyring. Enter the old password for it.",
      "SETPROMPT Choose a new password for the “Work” keyring",
      "SETDESC An application wants to change the password for the “Work” keyring. Choose the new password you want to use for it.",
    ] {
      #expect(pinentry.log.contains(line), "no \(line) in \(pinentry.log)")
    }
    #expect(!daemon.log.contains("work 1") && !daemon.log.contains("work 2"))
  }

  @Test func noPrompterCompletesDismissedAndSaysHowToUnlock() async throws {
    let daemon = try await DaemonProcess(pinentry: "/nonexistent/pinentry")
    try lock(daemon)
    let client = try PromptClient(daemon, ["unlock", login])
    #expect(try client.finish().contains("DISMISSED ao []"))
    // One line, with a way to unlock that works while keychaind runs.
    #expect(
      daemon.log.split(separator: "\n").contains {
        $0.contains("no password dialog could be shown")
          && $0.contains("keychainctl unlock --password-stdin")
      }, "\(daemon.log)")
  }

  @Test(.createsKeyringsProtectAsksAbout) func gnomeKeyringMasterPasswordMethods() async throws {
    let daemon = try await DaemonProcess()
    let output = try PromptClient(daemon, ["master"]).finish()
    #expect(output.contains("WRONG org.gnome.keyring.Error.Denied"), "\(output)")
    #expect(
      output.contains("MASTER /org/freedesktop/secrets/collection/Scripted Scripted False"),
      "\(output)")
  }
}
