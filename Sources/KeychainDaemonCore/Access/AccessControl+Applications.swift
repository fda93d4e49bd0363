// SPDX-License-Identifier: MIT
//
// What `keychainctl access` names an application by, turned into the identity key that grants
// and owners carry.

import Foundation
import KeychainAccess
import KeychainDBus
import SecretServiceProtocol

extension AccessControl {
  /// The identity key (and pin) an argument of `keychainctl access` names: a key as listed
  /// (`exe:…`, `flatpak:…`, `via:…`), an executable's path, or a Flatpak app id. A path the
  /// user can change is pinned to its content now. A tool's session in one terminal is never
  /// remembered: the next session is another.
  package func applicationKey(_ argument: String) throws(DBusError) -> (key: String, pin: String?) {
    let facts = resolver.facts
    let prefixes = ["exe:", "script:", "via:", "flatpak:", "snap:", "portal:", "unit:"]
    if prefixes.contains(where: argument.hasPrefix) {
      guard !AppIdentity(kind: .via, key: argument, display: "", verified: false).isSessionBound
      else {
        throw DBusError(
          .invalidArgs,
          "'\(argument)' is a tool run in one terminal or login: it is allowed there, from the dialog, until that session ends, never for good"
        )
      }
      // A script, a program the user can change, a front end: pinned to its content now, as
      // the dialog's "Always allow" pins it. One that cannot be read is refused, not granted
      // unpinned, which would let whatever is put at its path later read.
      guard let file = AppIdentity.pinnedFile(ofKey: argument, isSystemFile: facts.isSystemFile)
      else { return (argument, nil) }
      guard let pin = facts.pin(of: file) else {
        throw DBusError(
          .invalidArgs,
          "cannot read \(file): a grant to a program you can change is tied to its content, so the file must be there"
        )
      }
      return (argument, pin)
    }
    if argument.hasPrefix("/") {
      let path = URL(fileURLWithPath: argument).resolvingSymlinksInPath().path
      guard FileManager.default.isExecutableFile(atPath: path) else {
        throw DBusError(.invalidArgs, "\(argument) is not an executable file")
      }
      return ("exe:\(path)", facts.isSystemFile(path) ? nil : facts.pin(of: path))
    }
    guard argument.contains("."), !argument.contains("/"), !argument.contains(" ") else {
      throw DBusError(
        .invalidArgs,
        "'\(argument)' names no application: give a path, a Flatpak app id, or a key that \(KeychainctlCommand.accessList) shows"
      )
    }
    return ("flatpak:\(argument)", nil)
  }
}

extension AccessControl {
  /// keychainctl's own executable as keychaind sees a client's (they are one program).
  static let ownExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

  /// keychainctl exec says it runs the executable at `path` with what it reads next: from now
  /// on the audit log names the caller's reads as that command's, run by keychainctl
  /// (`via:exe:KEYCHAINCTL@exe:COMMAND`, identified by keychainctl's word), with who ran
  /// keychainctl in its display. What the caller may read is decided as before, by its own
  /// identity: the command is its word, not a fact keychaind checked. Only keychainctl may say
  /// it; with access control off, nothing is audited and nothing changes.
  package func runsCommand(_ path: String, caller: CallerApp) throws(DBusError) {
    let frontEnd = "via:exe:\(Self.ownExecutable)@"
    guard caller.share == nil, caller.identity.kind == .via, caller.identity.key.hasPrefix(frontEnd)
    else {
      throw AccessRefusal.notKeychainctl(caller.identity).error
    }
    guard path.hasPrefix("/") else {
      throw DBusError(.invalidArgs, "'\(path)': the command's absolute path is needed")
    }
    let (key, pin) = try applicationKey(path)
    let name = URL(fileURLWithPath: String(key.dropFirst(4))).lastPathComponent
    let command = AppIdentity(
      kind: .via, key: frontEnd + key, pin: pin,
      display: "\(name), run by keychainctl exec (\(caller.identity.display))",
      verified: caller.identity.verified)
    let audited = CallerApp(
      identity: caller.identity, pid: caller.pid, startTime: caller.startTime,
      sender: caller.sender,
      audited: AuditRecord.App(command, pid: caller.pid, strength: "keychainctl's word"))
    state.withLock { $0.callers[caller.sender] = audited }
  }

  /// The `keychainctl access allow` line that allows the application `key` (`PROGRAM` when it
  /// has none) the objects at `paths`: what a refusal's error or notification tells the user to
  /// run.
  static func allowCommand(_ key: String, _ paths: [String], passwordStdin: Bool = true) -> String {
    KeychainctlCommand.accessAllow(app: key, paths, passwordStdin: passwordStdin)
  }
}
