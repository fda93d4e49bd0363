// SPDX-License-Identifier: MIT
//
// The programs identification treats specially, by the file name of an executable the kernel
// vouches for (see `IdentityResolver`), never by a name a process gives itself. A generic
// front end reads on behalf of whoever ran it, so allowing `secret-tool` alone would allow
// every script; an interpreter's identity is the script it runs; shells and launchers are
// walked past to find who asked; a terminal means a person. Lists of names, kept apart from
// the logic so that adding a tool is a one-line change.

/// Programs classified by their executable's (or script's) file name.
public enum ProgramLists {
  /// Tools that read secrets for whoever ran them: identified together with the requester.
  /// Generic D-Bus tools are among them: a grant to `gdbus` would be a grant to every script.
  /// keychainctl is keychaind run by another name: the program a client runs is keychaind's
  /// executable (the daemon itself is never a client of its own bus).
  public static let frontEnds: Set<String> = [
    "secret-tool", "keychainctl", "keychaind", "kwallet-query", "git-credential-libsecret",
    "keyring",
    "oo7-cli", "lssecret", "pass-secret-service", "gdbus", "dbus-send", "busctl", "qdbus",
    "qdbus6", "qdbus-qt5", "qdbus-qt6", "dbus-monitor",
  ]

  /// Interpreters, by file name (versioned Pythons such as `python3.11` match by prefix).
  public static let interpreters: Set<String> = [
    "python", "python3", "perl", "ruby", "node", "nodejs", "lua", "php", "bash", "sh", "dash",
    "zsh", "fish", "ksh", "mksh",
  ]

  /// Shells and launchers walked past when looking for who ran a front end.
  public static let passThrough: Set<String> = [
    "bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "sudo", "env", "nice", "timeout", "flock",
    "setsid", "xargs", "nohup", "stdbuf", "time", "dbus-run-session", "script",
  ]

  /// Terminal emulators and multiplexers: a front end run in one was run by a person at a
  /// prompt. Only a root-owned executable counts, identified by its inode: a copy of any
  /// program named `xterm` is not one.
  public static let terminals: Set<String> = [
    "gnome-terminal-server", "konsole", "xterm", "kitty", "alacritty", "foot", "wezterm-gui",
    "tmux", "screen", "xfce4-terminal", "terminator", "tilix", "urxvt", "rxvt", "st",
    "ptyxis-agent", "kgx", "qterminal", "lxterminal", "mate-terminal", "sakura", "terminology",
  ]

  /// Session managers and init: the top of the walk.
  public static let sessionManagers: Set<String> = [
    "systemd", "init", "gnome-session-binary", "plasma_session", "ksmserver", "startplasma-x11",
    "startplasma-wayland", "xfce4-session",
  ]

  /// Variables of a starting environment that make a program, or the interpreter running it,
  /// load or run code from elsewhere: the dynamic loader's for every program, each
  /// interpreter's for its own scripts.
  public static let injectingVariables: Set<String> = [
    "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "GCONV_PATH", "PYTHONPATH", "PYTHONHOME",
    "PYTHONINSPECT", "PYTHONUSERBASE", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT",
    "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "BASH_ENV", "ZDOTDIR", "LUA_INIT", "LUA_PATH",
    "LUA_CPATH", "PHPRC", "PHP_INI_SCAN_DIR",
  ]

  /// Of `injectingVariables`, those whose value is code or a switch rather than a list of
  /// paths: set at all, they let other code run.
  static let codeVariables: Set<String> = [
    "PYTHONINSPECT", "PERL5OPT", "PERL5DB", "RUBYOPT", "NODE_OPTIONS", "LUA_INIT",
  ]

  /// Which programs each interpreter's own variables apply to (the loader's apply to all).
  static func variableApplies(_ variable: String, to program: String) -> Bool {
    func family(_ base: String) -> Bool {
      program.hasPrefix(base)
        && program.dropFirst(base.count).allSatisfy { $0.isNumber || $0 == "." }
    }
    switch variable {
    case "LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "GCONV_PATH": return true
    case _ where variable.hasPrefix("PYTHON"): return family("python")
    case _ where variable.hasPrefix("PERL"): return family("perl")
    case _ where variable.hasPrefix("RUBY"): return family("ruby")
    case _ where variable.hasPrefix("NODE"): return program == "node" || program == "nodejs"
    case _ where variable.hasPrefix("LUA"): return family("lua")
    case _ where variable.hasPrefix("PHP"): return family("php")
    case "BASH_ENV": return program == "bash"
    case "ZDOTDIR": return program == "zsh"
    default: return false
    }
  }

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
