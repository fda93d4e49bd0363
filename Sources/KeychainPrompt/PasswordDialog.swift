// SPDX-License-Identifier: MIT
//
// The questions keychaind asks a person, over one pinentry dialog, in gnome-keyring's words.
//
// gnome-keyring sets a gcr prompt's title, message (the heading), description, warning,
// continue label and "password-new" (a confirmation field); pinentry-gnome3 hands pinentry's
// SETTITLE, SETPROMPT, SETDESC, SETERROR, SETOK and SETREPEAT to the same gcr prompt, so under
// GNOME the dialog is the one gnome-keyring shows. The strings are gnome-keyring 42.1's
// (gkm-wrap-prompt.c, gkd-secret-create.c, gkd-secret-change.c).

import Foundation
import KeychainCrypto

/// What one dialog says.
public struct PromptTexts: Sendable {
  public var title: String
  /// The heading (gcr's "message", pinentry's prompt).
  public var message: String
  public var description: String
  /// The button that accepts.
  public var ok: String

  /// Unlocking a keyring an application asked for; `app`, when known, is named (a Flatpak app
  /// asking through the portal).
  public static func unlock(label: String, isLogin: Bool, app: String? = nil) -> PromptTexts {
    if let app {
      return PromptTexts(
        title: "Unlock Keyring", message: "Authentication required",
        description:
          "The application “\(app)” wants access to the keyring “\(label)”, but it is locked",
        ok: "Unlock")
    }
    return isLogin
      ? PromptTexts(
        title: "Unlock Login Keyring", message: "Authentication required",
        description: "The login keyring did not get unlocked when you logged into your computer.",
        ok: "Unlock")
      : PromptTexts(
        title: "Unlock Keyring", message: "Authentication required",
        description: "An application wants access to the keyring “\(label)”, but it is locked",
        ok: "Unlock")
  }

  /// Choosing the password of a new keyring.
  public static func create(label: String) -> PromptTexts {
    PromptTexts(
      title: "New Keyring Password", message: "Choose password for new keyring",
      description:
        "An application wants to create a new keyring called “\(label)”. Choose the password you want to use for it.",
      ok: "Continue")
  }

  /// The current password, before a change.
  public static func changeOld(label: String) -> PromptTexts {
    PromptTexts(
      title: "Change Keyring Password",
      message: "Enter the old password for the “\(label)” keyring",
      description:
        "An application wants to change the password for the “\(label)” keyring. Enter the old password for it.",
      ok: "Continue")
  }

  /// The new password of a change.
  public static func changeNew(label: String) -> PromptTexts {
    PromptTexts(
      title: "Change Keyring Password",
      message: "Choose a new password for the “\(label)” keyring",
      description:
        "An application wants to change the password for the “\(label)” keyring. Choose the new password you want to use for it.",
      ok: "Continue")
  }

  /// gnome-keyring's question before it stores a keyring under an empty password.
  public static func unencrypted(title: String) -> PromptTexts {
    PromptTexts(
      title: title, message: "Store passwords unencrypted?",
      description:
        "By choosing to use a blank password, your stored passwords will not be safely encrypted. They will be accessible by anyone with access to your files.",
      ok: "Continue")
  }

  public static let wrongUnlockPassword = "The unlock password was incorrect"
  public static let wrongOriginalPassword = "The original password was incorrect"
  public static let mismatch = "Passwords do not match."
}

/// One pinentry dialog, set up with the caller's display and terminal.
public struct PasswordDialog: Sendable {
  let pinentry: Pinentry
  /// Which pinentry it is, by its program's name (symbolic links followed).
  let flavour: String
  /// Whether the pinentry shows its prompt as the dialog's heading (pinentry-gnome3, which
  /// hands it to a gcr prompt's message); every other flavour labels the password field with
  /// it, which then reads "Password:".
  var promptIsHeading: Bool { flavour == "pinentry-gnome3" }
  /// Whether it shows a third button (SETNOTOK): pinentry-gnome3 ignores it.
  var showsThirdButton: Bool { flavour != "pinentry-gnome3" }

  /// How many times a wrong password may be typed before the prompt gives up. gnome-keyring
  /// asks until the password is right or the person cancels; a pinentry that answers by itself
  /// (a script, a misconfigured one) would then loop for ever.
  public static let attempts = 3

  /// Starts `program` with the daemon's environment (DISPLAY, WAYLAND_DISPLAY, the session
  /// bus: what graphical pinentries need) and tells it about the terminal, if any.
  public init(program: String, environment: [String: String]) throws(PinentryError) {
    pinentry = try Pinentry(program: program, environment: environment)
    flavour = Self.flavour(of: program, path: environment["PATH"])
    // Options an older pinentry does not know are refused with ERR; none of them matters.
    if let tty = environment["GPG_TTY"] { try? pinentry.command("OPTION", "ttyname=\(tty)") }
    if let term = environment["TERM"] { try? pinentry.command("OPTION", "ttytype=\(term)") }
    if let locale = environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] {
      try? pinentry.command("OPTION", "lc-ctype=\(locale)")
    }
    // pinentry gives up after 60 s by default; gnome-keyring's dialogs wait for the person.
    try? pinentry.command("SETTIMEOUT", "0")
  }

  /// The pinentry `program` is, by the file it leads to (`pinentry` is Debian's alternative,
  /// a link to one flavour), as its file name says.
  static func flavour(of program: String, path: String?) -> String {
    let candidates =
      program.contains("/")
      ? [program]
      : (path ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(program)" }
    for candidate in candidates where FileManager.default.fileExists(atPath: candidate) {
      return URL(fileURLWithPath: candidate).resolvingSymlinksInPath().lastPathComponent
    }
    return (program as NSString).lastPathComponent
  }

  private func show(_ texts: PromptTexts, warning: String? = nil) throws(PinentryError) {
    try pinentry.command("SETTITLE", texts.title)
    if promptIsHeading {
      try pinentry.command("SETPROMPT", texts.message)
      try pinentry.command("SETDESC", texts.description)
    } else {
      try pinentry.command("SETPROMPT", "Password:")
      try pinentry.command("SETDESC", "\(texts.message)\n\n\(texts.description)")
    }
    try pinentry.command("SETOK", texts.ok)
    try pinentry.command("SETCANCEL", "Cancel")
    if let warning { try pinentry.command("SETERROR", warning) }
  }

  /// Asks for the password of an existing keyring until `accept` takes it; false when every
  /// attempt was wrong. `accept` does the unlocking: the password is not kept.
  public func askExisting(
    _ texts: PromptTexts, wrongPassword: String, accept: (SecureBytes) throws -> Bool
  ) throws -> Bool {
    for attempt in 1...Self.attempts {
      try show(texts, warning: attempt > 1 ? wrongPassword : nil)
      if try accept(try pinentry.getPIN().pin) { return true }
    }
    return false
  }

  /// Asks for a new password in one dialog with a confirmation field (pinentry checks that
  /// both agree and says so); a flavour without the field (pinentry-curses) is asked a second
  /// time instead. An empty password must be confirmed as gnome-keyring has it confirmed.
  public func askNew(_ texts: PromptTexts) throws(PinentryError) -> SecureBytes {
    var warning: String?
    while true {
      try show(texts, warning: warning)
      // SETREPEAT and SETREPEATERROR last for one GETPIN.
      try pinentry.command("SETREPEAT", "Confirm:")
      try? pinentry.command("SETREPEATERROR", PromptTexts.mismatch)
      let (password, repeated) = try pinentry.getPIN()
      if !repeated {
        var again = texts
        again.description = "Type the same password again to confirm it."
        try show(again)
        guard try pinentry.getPIN().pin == password else {
          warning = PromptTexts.mismatch
          continue
        }
      }
      if password.count > 0 { return password }
      if try confirmBlank(texts) { return password }
      warning = nil
    }
  }

  /// gnome-keyring's question before it stores a keyring under an empty password.
  private func confirmBlank(_ texts: PromptTexts) throws(PinentryError) -> Bool {
    let blank = PromptTexts.unencrypted(title: texts.title)
    try pinentry.command("SETTITLE", blank.title)
    try pinentry.command("SETPROMPT", blank.message)
    try pinentry.command("SETDESC", blank.description)
    try pinentry.command("SETOK", blank.ok)
    try pinentry.command("SETCANCEL", "Cancel")
    do {
      return try pinentry.confirm()
    } catch .cancelled {
      return false
    }
  }

  /// Closes the dialog.
  public func close() { pinentry.finish() }
}
