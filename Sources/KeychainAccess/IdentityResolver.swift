// SPDX-License-Identifier: MIT
//
// Turns a caller's pid into an application identity (ACCESS-CONTROL.md §4.2), from kernel
// facts only. Done once per bus connection by the daemon and cached there, so the warm path of
// a call never comes here.
//
// Debian 12's dbus-daemon gives no pidfd, so a pid is pinned by its start time: the process
// must have started before its connection arrived on the bus (a pid reused after the connector
// exited fails that), and must still be the one whose start time the bus call saw.

import Foundation
import KeychainCrypto
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Resolves pids to `AppIdentity` values; keeps file hashes between calls.
public final class IdentityResolver: Sendable {
  /// Where /proc is (a test may point elsewhere).
  let proc: String
  /// How many parents are walked to find who ran a front end.
  static let maximumWalk = 8
  private let hashes = Mutex<[FileKey: String]>([:])
  /// The names programs have in the desktop's menus, for what a dialog shows.
  let names: DesktopNames

  public init(proc: String = "/proc", names: DesktopNames = DesktopNames()) {
    self.proc = proc
    self.names = names
  }

  /// The identity of process `pid`. `startTime` is what the bus call saw (nil if unread);
  /// `arrival` is when the caller's connection appeared on the bus, in clock ticks after boot,
  /// if keychaind saw it arrive.
  public func identity(pid: UInt32, startTime: UInt64?, arrival: UInt64?) -> AppIdentity {
    guard let facts = ProcessFacts.read(pid: pid, proc: proc), !facts.isZombie else {
      return .unknown(pid: pid, why: "the process has gone")
    }
    if let startTime, startTime != facts.startTime {
      return .unknown(pid: pid, why: "its process id now names another process")
    }
    // A process that started after its connection arrived cannot be the one that connected:
    // the connector exited and the pid was reused. One tick of slack: both clocks round.
    if let arrival, facts.startTime > arrival + 1 {
      return .unknown(pid: pid, why: "its process id was reused after it connected")
    }
    var identity = classify(facts, walking: true)
    identity.verified = arrival != nil && identity.kind != .unknown
    return identity
  }

  /// The identity of the process `facts` describes; with `walking`, a front end is paired with
  /// whoever ran it. Without (a requester, whose key alone counts) no file is hashed.
  func classify(_ facts: ProcessFacts, walking: Bool) -> AppIdentity {
    if let app = facts.flatpakID {
      let display = names.name(forApp: app).map { "\($0) (\(app))" } ?? app
      return AppIdentity(kind: .flatpak, key: "flatpak:\(app)", display: display, verified: false)
    }
    if let snap = facts.snapName {
      return AppIdentity(kind: .snap, key: "snap:\(snap)", display: snap, verified: false)
    }
    guard let executable = facts.executable else {
      return .unknown(pid: facts.pid, why: "it hides its executable")
    }
    guard !facts.executableDeleted else {
      return .unknown(pid: facts.pid, why: "its executable was replaced after it started")
    }
    let name = Self.fileName(executable)
    guard !ProgramLists.isLoader(name) else {
      return .unknown(pid: facts.pid, why: "it was started through the dynamic loader")
    }
    var program: AppIdentity
    var programName = name
    if ProgramLists.isInterpreter(name) {
      if let module = Self.pythonModule(facts.arguments), ProgramLists.frontEnds.contains(module) {
        programName = module
        program = AppIdentity(
          kind: .system, key: "exe:\(executable) -m \(module)", display: "\(module) (\(name))",
          verified: false)
      } else if let script = Self.script(facts.arguments, interpreter: name) {
        programName = Self.fileName(script)
        // A menu's name only for a script root installed: the user's keeps its file name.
        let menuName = Self.isSystemFile(script) ? names.name(forExecutable: script) : nil
        program = AppIdentity(
          kind: .script, key: "script:\(executable):\(script)",
          pin: walking ? pin(of: script) : nil,
          display: menuName ?? "\(programName) (\(name))", verified: false)
      } else {
        return .unknown(pid: facts.pid, why: "\(name) runs no script file")
      }
    } else if Self.isSystemFile(executable) {
      program = AppIdentity(
        kind: .system, key: "exe:\(executable)",
        display: names.name(forExecutable: executable) ?? name, verified: false)
    } else {
      program = AppIdentity(
        kind: .user, key: "exe:\(executable)", pin: walking ? pin(of: executable) : nil,
        display: "\(name) (at \(executable))", verified: false)
    }
    guard walking, ProgramLists.frontEnds.contains(programName) else { return program }
    let (requester, shown) = requester(of: facts)
    guard requester != "unknown" else {
      return .unknown(pid: facts.pid, why: "\(programName) was run by a program not identified")
    }
    return AppIdentity(
      kind: .via, key: "via:\(program.key)@\(requester)", pin: program.pin,
      display: "\(programName), \(shown)", verified: false)
  }

  /// Who ran a front end: the key of the first ancestor that is not a shell, launcher or front
  /// end (`exe:…`, `script:…`, `flatpak:…`), `interactive` when the walk meets a terminal,
  /// `unit:NAME` for a service, or `unknown`; and how a dialog says it.
  func requester(of facts: ProcessFacts) -> (key: String, shown: String) {
    var current = facts
    for _ in 0..<Self.maximumWalk {
      guard current.parent > 1,
        let parent = ProcessFacts.read(pid: current.parent, proc: proc, sandbox: false)
      else { break }
      current = parent
      let name = current.executable.map(Self.fileName) ?? current.command
      if ProgramLists.interactive.contains(name)
        || ProgramLists.interactive.contains(current.command)
      {
        return ("interactive", "run from a terminal")
      }
      if ProgramLists.sessionManagers.contains(name) { break }
      let identity = classify(current, walking: false)
      let passThrough =
        ProgramLists.passThrough.contains(name) && identity.kind != .script
        || ProgramLists.frontEnds.contains(name)
      if passThrough { continue }
      guard identity.kind != .unknown else { return ("unknown", "") }
      return (identity.key, "run by \(identity.display)")
    }
    if let unit = facts.unit, unit.hasSuffix(".service"), !unit.hasPrefix("app-") {
      return ("unit:\(unit)", "run by the service \(unit)")
    }
    return ("unknown", "")
  }

  // MARK: Files

  /// The last path element.
  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  /// The module of `python -m MODULE`.
  static func pythonModule(_ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: "-m"), index + 1 < arguments.count else {
      return nil
    }
    return arguments[index + 1].split(separator: ".").first.map(String.init)
  }

  /// The script an interpreter runs: its first argument that is not an option, if it names a
  /// regular file, as an absolute path.
  static func script(_ arguments: [String], interpreter: String) -> String? {
    // `sh -c 'command'` runs no script file.
    guard !arguments.contains("-c") else { return nil }
    guard let candidate = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) else {
      return nil
    }
    let path = URL(fileURLWithPath: candidate).standardizedFileURL.path
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return path
  }

  /// Whether `path`, and every directory above it, is owned by root and writable by nobody
  /// else: a file the user cannot replace.
  public static func isSystemFile(_ path: String) -> Bool {
    var current = path
    while true {
      var status = stat()
      guard lstat(current, &status) == 0, status.st_uid == 0, status.st_mode & 0o022 == 0 else {
        return false
      }
      if current == "/" { return true }
      current = (current as NSString).deletingLastPathComponent
      if current.isEmpty { current = "/" }
    }
  }

  /// `sha256:HEX` of a file's content, cached by its device, inode, size and times, so that an
  /// unchanged file is hashed once. Nil if it cannot be read.
  public func pin(of path: String) -> String? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    let key = FileKey(status)
    if let known = hashes.withLock({ $0[key] }) { return known }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    else { return nil }
    let hex = data.withUnsafeBytes { SHA256.hash($0) }.map { String(format: "%02x", $0) }.joined()
    let pin = "sha256:\(hex)"
    hashes.withLock { $0[key] = pin }
    return pin
  }
}

/// What tells a file's content apart without reading it: a change to any field means hash again.
struct FileKey: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Int
  var modifiedNS: Int
  var changed: Int
  var changedNS: Int

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
    size = Int64(status.st_size)
    modified = status.st_mtim.tv_sec
    modifiedNS = status.st_mtim.tv_nsec
    changed = status.st_ctim.tv_sec
    changedNS = status.st_ctim.tv_nsec
  }
}
