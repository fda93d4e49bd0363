// SPDX-License-Identifier: MIT
//
// The questions keychaind asks a person, over one pinentry dialog.

import KeychainCrypto

/// One pinentry dialog, set up with our title and the caller's display and terminal.
struct PasswordDialog {
  let pinentry: Pinentry

  /// How many times a wrong password may be typed before the prompt gives up.
  static let attempts = 3

  /// Starts `program` with the daemon's environment (DISPLAY, WAYLAND_DISPLAY, the session
  /// bus: what graphical pinentries need) and tells it about the terminal, if any.
  init(program: String, environment: [String: String]) throws(PinentryError) {
    pinentry = try Pinentry(program: program, environment: environment)
    // Options an older pinentry does not know are refused with ERR; none of them matters.
    if let tty = environment["GPG_TTY"] { try? pinentry.command("OPTION", "ttyname=\(tty)") }
    if let term = environment["TERM"] { try? pinentry.command("OPTION", "ttytype=\(term)") }
    if let locale = environment["LC_ALL"] ?? environment["LC_CTYPE"] ?? environment["LANG"] {
      try? pinentry.command("OPTION", "lc-ctype=\(locale)")
    }
    try pinentry.command("SETTITLE", "Keychain")
  }

  /// Asks for the password of an existing keyring until `accept` takes it; false when every
  /// attempt was wrong. `accept` does the unlocking: the password is not kept.
  func askExisting(_ description: String, accept: (SecureBytes) throws -> Bool) throws -> Bool {
    try pinentry.command("SETDESC", description)
    try pinentry.command("SETPROMPT", "Password:")
    try pinentry.command("SETOK", "Unlock")
    for attempt in 1...Self.attempts {
      if attempt > 1 { try pinentry.command("SETERROR", "The password was not correct.") }
      if try accept(try pinentry.getPIN()) { return true }
    }
    return false
  }

  /// Asks for a new password twice, until both agree.
  func askNew(_ description: String) throws(PinentryError) -> SecureBytes {
    try pinentry.command("SETOK", "Continue")
    while true {
      try pinentry.command("SETDESC", description)
      try pinentry.command("SETPROMPT", "Password:")
      let first = try pinentry.getPIN()
      try pinentry.command("SETDESC", "Type the same password again to confirm it.")
      try pinentry.command("SETPROMPT", "Confirm:")
      let second = try pinentry.getPIN()
      if first == second { return first }
      try pinentry.command("SETERROR", "The passwords do not match.")
    }
  }

  /// Closes the dialog.
  func close() { pinentry.finish() }
}
