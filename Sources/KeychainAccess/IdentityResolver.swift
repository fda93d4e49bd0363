// SPDX-License-Identifier: MIT
//
// Turns a caller's pid into an application identity (SECURITY.md, "Same-user processes"), from kernel
// facts only, each checked against the others. Done once per bus connection by the daemon and
// cached there, so the warm path of a call never comes here.
//
// - The pid is pinned by its start time (Debian 12's dbus-daemon gives no pidfd): the process
//   must have started before its connection arrived on the bus, and must still be the one
//   whose start time the bus call saw.
// - A path means what keychaind sees at it only for a process in keychaind's session
//   namespaces: in a mount namespace of its own (`bwrap`, `unshare -rm`), a program can put
//   any file at any path. Such a process is its sandbox's app (Flatpak, Snap) or unknown.
// - The executable must be the file at its path: stat of `/proc/PID/exe` (the kernel's own
//   reference) and of the path give the same inode.
// - A script is what its interpreter's command line names, parsed as the interpreter parses
//   it (`InterpreterCommand`), relative to the process's own working directory, and not
//   changed since the process started. Variables that make a program load other code
//   (`LD_PRELOAD`, `PYTHONPATH`…) and a tracer make it unknown.
// - A front end (`secret-tool`) is paired with whoever ran it, found by walking up its
//   parents. A terminal counts only as a root-owned executable identified by inode, and a
//   login only as a process of the user started by root (sshd, login); either makes the
//   requester that one terminal tab or login, never "any terminal".

import Foundation

/// Resolves pids to `AppIdentity` values.
public final class IdentityResolver: Sendable {
  public let facts: any SystemFacts
  /// How many parents are walked to find who ran a front end.
  static let maximumWalk = 8
  /// The names programs have in the desktop's menus, for what a dialog shows.
  let names: DesktopNames

  public init(facts: any SystemFacts = KernelFacts(), names: DesktopNames = DesktopNames()) {
    self.facts = facts
    self.names = names
  }

  /// The identity of process `pid`. `startTime` is what the bus call saw (nil if unread);
  /// `arrival` is when the caller's connection appeared on the bus, in clock ticks after boot,
  /// and `arrivalSeen` whether keychaind saw it arrive (else `arrival` is keychaind's own
  /// start: the connection is older, so the check is weaker, and the identity unverified).
  public func identity(pid: UInt32, startTime: UInt64?, arrival: UInt64?, arrivalSeen: Bool = true)
    -> AppIdentity
  {
    guard let process = facts.process(pid, full: true), !process.isZombie else {
      return .unknown(pid: pid, why: "the process has gone")
    }
    if let startTime, startTime != process.startTime {
      return .unknown(pid: pid, why: "its process id now names another process")
    }
    // A process that started after its connection arrived cannot be the one that connected:
    // the connector exited and the pid was reused. One tick of slack: both clocks round.
    if let arrival, process.startTime > arrival + 1 {
      return .unknown(pid: pid, why: "its process id was reused after it connected")
    }
    var identity = classify(process, caller: true)
    identity.verified = arrival != nil && arrivalSeen && identity.kind != .unknown
    return identity
  }

  /// The identity of the process `process` describes. As the `caller`, a front end is paired
  /// with whoever ran it and a user-writable program is pinned to its content; a parent walked
  /// past (a requester, whose key alone counts) is not hashed.
  func classify(_ process: ProcessFacts, caller: Bool) -> AppIdentity {
    if let app = process.flatpakID {
      let display = names.name(forApp: app).map { "\($0) (\(app))" } ?? app
      return AppIdentity(kind: .flatpak, key: "flatpak:\(app)", display: display, verified: false)
    }
    // A snap is a snap only when AppArmor confines it as one: its cgroup's name is the user's.
    if let snap = process.snapName, process.securityLabel?.hasPrefix("snap.\(snap).") == true {
      return AppIdentity(kind: .snap, key: "snap:\(snap)", display: snap, verified: false)
    }
    let executable: String
    switch verifiedExecutable(process) {
    case .success(let path): executable = path
    case .failure(let refusal): return .unknown(pid: process.pid, why: refusal.why)
    }
    let name = Self.fileName(executable)
    if let why = injection(in: process, program: name) {
      return .unknown(pid: process.pid, why: why)
    }
    var program: AppIdentity
    var programName = name
    if ProgramLists.isInterpreter(name) {
      switch InterpreterCommand.parse(process.arguments, interpreter: name) {
      case .module(let module):
        let base = String(module.split(separator: ".").first ?? "")
        guard ProgramLists.frontEnds.contains(base) else {
          return .unknown(pid: process.pid, why: "\(name) runs the module \(module), not a file")
        }
        programName = base
        program = AppIdentity(
          kind: .system, key: "exe:\(executable) -m \(base)", display: "\(base) (\(name))",
          verified: false)
      case .script(let argument):
        switch script(argument, of: process) {
        case .failure(let refusal): return .unknown(pid: process.pid, why: refusal.why)
        case .success(let script):
          programName = Self.fileName(script)
          // A menu's name only for a script root installed: the user's keeps its file name.
          let menuName = facts.isSystemFile(script) ? names.name(forExecutable: script) : nil
          program = AppIdentity(
            kind: .script, key: "script:\(executable):\(script)",
            pin: caller ? facts.pin(of: script) : nil,
            display: menuName ?? "\(programName) (\(name))", verified: false)
        }
      case .none(let why):
        return .unknown(pid: process.pid, why: "\(name): \(why)")
      }
    } else if facts.isSystemFile(executable) {
      program = AppIdentity(
        kind: .system, key: "exe:\(executable)",
        display: names.name(forExecutable: executable) ?? name, verified: false)
    } else {
      program = AppIdentity(
        kind: .user, key: "exe:\(executable)", pin: caller ? facts.pin(of: executable) : nil,
        display: "\(name) (at \(executable))", verified: false)
    }
    guard caller, ProgramLists.frontEnds.contains(programName) else { return program }
    // keychaind's executable as a client is keychainctl (the same program by another name).
    let tool = programName == "keychaind" ? "keychainctl" : programName
    switch requester(of: process) {
    case .program(let requester):
      return AppIdentity(
        kind: .via, key: "via:\(program.key)@\(requester.key)", pin: program.pin,
        display: "\(tool), run by \(requester.display)", verified: false)
    case .session(let key, let shown):
      return AppIdentity(
        kind: .via, key: "via:\(program.key)@\(key)", pin: program.pin,
        display: "\(tool), \(shown)", verified: false)
    case .unknown(let why):
      return .unknown(pid: process.pid, why: "\(tool) was run by \(why)")
    }
  }

  /// Why a fact could not be trusted, as a dialog and the audit log say it.
  struct Refusal: Error {
    var why: String
  }

  /// The process's executable path, once it is known to name the file the process runs, in
  /// keychaind's view of the file system.
  func verifiedExecutable(_ process: ProcessFacts) -> Result<String, Refusal> {
    guard let executable = process.executable else {
      return .failure(Refusal(why: "it hides its executable"))
    }
    guard !process.executableDeleted else {
      return .failure(Refusal(why: "its executable was replaced after it started"))
    }
    guard let namespaces = process.namespaces, facts.sessionNamespaces.contains(namespaces)
    else {
      return .failure(
        Refusal(why: "it runs in a namespace of its own, where a path can name any file"))
    }
    guard let running = process.executableFile, let atPath = facts.status(of: executable),
      running.isSameFile(as: atPath)
    else {
      return .failure(Refusal(why: "the file it runs is not the one at \(executable)"))
    }
    guard !ProgramLists.isLoader(Self.fileName(executable)) else {
      return .failure(Refusal(why: "it was started through the dynamic loader"))
    }
    return .success(executable)
  }

  /// Why something could run other code inside the process (a variable of its environment,
  /// a tracer), if anything could.
  func injection(in process: ProcessFacts, program: String) -> String? {
    if process.tracer != 0 { return "it is being traced by process \(process.tracer)" }
    for (variable, value) in process.injecting.sorted(by: { $0.key < $1.key })
    where ProgramLists.variableApplies(variable, to: program) && !value.isEmpty {
      if ProgramLists.codeVariables.contains(variable) {
        return "its environment sets \(variable), which runs other code in it"
      }
      // Lists of paths: harmless while every one is root's alone.
      let paths = value.split(whereSeparator: { $0 == ":" || $0 == " " }).map(String.init)
      if let path = paths.first(where: { !facts.isSystemFile($0) }) {
        return "its environment sets \(variable) to \(path), which can load other code in it"
      }
    }
    return nil
  }

  /// The script an interpreter runs, as an absolute path: relative to the process's working
  /// directory, a regular file, unchanged since the process started.
  func script(_ argument: String, of process: ProcessFacts) -> Result<String, Refusal> {
    var path = argument
    if !path.hasPrefix("/") {
      guard let directory = process.workingDirectory, directory.hasPrefix("/") else {
        return .failure(Refusal(why: "its working directory cannot be read"))
      }
      path = directory + "/" + path
    }
    path = URL(fileURLWithPath: path).standardizedFileURL.path
    guard let status = facts.status(of: path), status.isRegularFile else {
      return .failure(Refusal(why: "its script \(argument) is not a file"))
    }
    // Edited (or put back) since the process started: what it runs is not what is there now.
    // One second of slack: the start time is counted in clock ticks.
    guard status.changed <= facts.startDate(ticks: process.startTime) + 1 else {
      return .failure(Refusal(why: "its script \(path) changed after it started"))
    }
    return .success(path)
  }

  /// Who ran a front end.
  enum Requester {
    /// A program, by its own identity (its key, and how a dialog names it).
    case program(AppIdentity)
    /// One terminal tab, multiplexer pane or login: `session:BOOT:PID:START` of its first
    /// process, and how a dialog says it.
    case session(String, String)
    /// Nobody keychaind can name, and why (completing "secret-tool was run by …").
    case unknown(String)
  }

  /// Walks up from a front end past shells, launchers and other front ends (see the top of
  /// this file).
  func requester(of process: ProcessFacts) -> Requester {
    var child = process
    for _ in 0..<Self.maximumWalk {
      guard child.parent > 1, let parent = facts.process(child.parent, full: false) else { break }
      guard let uid = process.uid, let parentUID = parent.uid else {
        return .unknown("a program not identified")
      }
      // A process of the user that root started (sshd's, login's, su's): a login.
      if parentUID == 0, uid != 0 {
        return .session(sessionKey(child), "run in a login (SSH or console)")
      }
      guard parentUID == uid else { return .unknown("another user's program") }
      let name: String
      switch verifiedExecutable(parent) {
      case .success(let executable): name = Self.fileName(executable)
      case .failure(let refusal):
        // sshd's process of the user hides its executable; root started it all the same.
        if parent.parent > 1, facts.process(parent.parent, full: false)?.uid == 0 {
          return .session(sessionKey(parent), "run in a login (SSH or console)")
        }
        return .unknown("a program not identified: \(refusal.why)")
      }
      if ProgramLists.terminals.contains(name), let executable = parent.executable,
        facts.isSystemFile(executable)
      {
        return .session(sessionKey(child), "run in a terminal")
      }
      if ProgramLists.sessionManagers.contains(name) { break }
      let identity = classify(parent, caller: false)
      let passThrough =
        ProgramLists.passThrough.contains(name) && identity.kind != .script
        || ProgramLists.frontEnds.contains(name)
      if passThrough {
        child = parent
        continue
      }
      guard identity.kind != .unknown else { return .unknown(identity.display) }
      return .program(identity)
    }
    return .unknown("a program not identified")
  }

  /// The key of the session that `first` (the first process of a terminal tab or login)
  /// begins: its pid and start time on this boot.
  func sessionKey(_ first: ProcessFacts) -> String {
    "session:\(facts.bootTag):\(first.pid):\(first.startTime)"
  }

  // MARK: Files

  /// The last path element.
  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  /// Whether `path`, and every directory above it, is owned by root and writable by nobody
  /// else, in keychaind's own view: a file the user cannot replace.
  public static func isSystemFile(_ path: String) -> Bool {
    KernelFacts.shared.isSystemFile(path)
  }

  /// `sha256:HEX` of a file's content (see `KernelFacts.pin(of:)`).
  public func pin(of path: String) -> String? { facts.pin(of: path) }
}
