// SPDX-License-Identifier: MIT
//
// The programs identification treats specially, by file name. A generic front end reads on
// behalf of whoever ran it, so allowing `secret-tool` alone would allow every script; an
// interpreter's identity is the script it runs; shells, terminals and launchers are walked
// past to find who asked. Lists of names, kept apart from the logic so that adding a tool is a
// one-line change.

/// Programs classified by their executable's (or script's) file name.
public enum ProgramLists {
  /// Tools that read secrets for whoever ran them: identified together with the requester.
  public static let frontEnds: Set<String> = [
    "secret-tool", "keychainctl", "kwallet-query", "git-credential-libsecret", "keyring",
    "oo7-cli", "lssecret", "pass-secret-service",
  ]

  /// Interpreters, by file name (versioned Pythons such as `python3.11` match by prefix).
  public static let interpreters: Set<String> = [
    "python", "python3", "perl", "ruby", "node", "nodejs", "lua", "php", "bash", "sh", "dash",
    "zsh", "fish", "ksh",
  ]

  /// Shells and launchers walked past when looking for who ran a front end.
  public static let passThrough: Set<String> = [
    "bash", "sh", "dash", "zsh", "fish", "ksh", "sudo", "env", "nice", "timeout", "flock",
    "setsid", "xargs", "nohup", "stdbuf", "time", "dbus-run-session", "script",
  ]

  /// Terminals, multiplexers and remote logins: a front end reached from one of these was run
  /// by a person at a prompt.
  public static let interactive: Set<String> = [
    "gnome-terminal-server", "konsole", "xterm", "kitty", "alacritty", "foot", "wezterm-gui",
    "tmux", "tmux: server", "screen", "sshd", "sshd-session", "xfce4-terminal", "terminator",
    "tilix", "urxvt", "st", "login", "ptyxis-agent",
  ]

  /// Session managers and init: the top of the walk.
  public static let sessionManagers: Set<String> = [
    "systemd", "init", "gnome-session-binary", "plasma_session", "ksmserver", "startplasma-x11",
    "startplasma-wayland", "xfce4-session",
  ]

  /// Whether `name` (a file name) is an interpreter.
  public static func isInterpreter(_ name: String) -> Bool {
    if interpreters.contains(name) { return true }
    // python3.11, perl5.36 and the like.
    for base in ["python", "perl", "ruby", "lua", "php", "node"] where name.hasPrefix(base) {
      let rest = name.dropFirst(base.count)
      if !rest.isEmpty, rest.allSatisfy({ $0.isNumber || $0 == "." }) { return true }
    }
    return false
  }

  /// Whether `name` is the dynamic loader, run as `ld.so ./program` to hide the program.
  public static func isLoader(_ name: String) -> Bool {
    name.hasPrefix("ld-linux") || name.hasPrefix("ld.so") || name.hasPrefix("ld64.so")
  }
}
