// SPDX-License-Identifier: MIT
//
// Made-up kernel facts for the identity resolver: processes, files and namespaces as a table,
// so that a test shows the resolver a private mount namespace, a renamed parent or a script
// changed after its process started without playing the trick itself; or, in memory, the
// programs that call a daemon with no bus.

import KeychainAccess

/// A `SystemFacts` whose answers a test sets.
public final class FakeSystem: SystemFacts, @unchecked Sendable {
  // Unchecked: a test fills the tables before the resolver reads them, on one thread.
  public var processes: [UInt32: ProcessFacts] = [:]
  public var files: [String: FileStatus] = [:]
  public var pins: [String: String] = [:]
  public let session = Namespaces(mount: 4_026_531_841, user: 4_026_531_837)
  public var sessionNamespaces: Set<Namespaces> { [session] }
  public let bootTag = "b00710c4"
  /// Processes start at 1,000 ticks; 100 ticks a second, boot at 1,700,000,000 s.
  public func startDate(ticks: UInt64) -> Double { 1_700_000_000 + Double(ticks) / 100 }
  private var nextInode: UInt64 = 100
  private var nextPid: UInt32 = 2000

  public init() {
    for directory in ["/", "/usr", "/usr/bin", "/usr/lib", "/usr/sbin", "/home", "/tmp"] {
      files[directory] = FileStatus(
        device: 1, inode: inode(), owner: 0, mode: directory == "/tmp" ? 0o41777 : 0o40755)
    }
    files["/home/u"] = FileStatus(device: 1, inode: inode(), owner: 1000, mode: 0o40700)
  }

  private func inode() -> UInt64 {
    nextInode += 1
    return nextInode
  }

  /// Adds a file (and its directories, the user's under /home/u, root's elsewhere).
  @discardableResult
  public func file(_ path: String, owner: UInt32? = nil, changed: Double = 1_699_000_000)
    -> FileStatus
  {
    var directory = path
    while let slash = directory.lastIndex(of: "/"), slash != directory.startIndex {
      directory = String(directory[..<slash])
      if files[directory] == nil {
        let mine = directory.hasPrefix("/home/u")
        files[directory] = FileStatus(
          device: 1, inode: inode(), owner: mine ? 1000 : 0, mode: 0o40755)
      }
    }
    let status = FileStatus(
      device: 1, inode: inode(), owner: owner ?? (path.hasPrefix("/home/u") ? 1000 : 0),
      mode: 0o100755, changed: changed)
    files[path] = status
    pins[path] = "sha256:\(path.hashValue)-\(status.inode)"
    return status
  }

  /// Adds a process of uid 1000 in the session's namespaces, running `executable` (which must
  /// be a file added first) with `arguments`; returns its pid.
  @discardableResult
  public func process(
    _ executable: String?, _ arguments: [String] = [], parent: UInt32 = 1, uid: UInt32 = 1000,
    cwd: String = "/home/u", start: UInt64 = 1000, namespaces: Namespaces? = nil,
    running: FileStatus? = nil, command: String? = nil, pid: UInt32? = nil
  ) -> UInt32 {
    let pid =
      pid
      ?? {
        nextPid += 1
        return nextPid
      }()
    var facts = ProcessFacts(pid: pid)
    facts.executable = executable
    facts.executableFile = running ?? executable.flatMap { files[$0] }
    facts.arguments = [executable ?? command ?? "?"] + arguments
    facts.parent = parent
    facts.uid = uid
    facts.workingDirectory = cwd
    facts.startTime = start
    facts.namespaces = namespaces ?? session
    facts.command = command ?? executable.map { String($0.split(separator: "/").last!) } ?? "?"
    processes[pid] = facts
    return pid
  }

  public func process(_ pid: UInt32, full: Bool) -> ProcessFacts? { processes[pid] }
  public func status(of path: String) -> FileStatus? { files[path] }
  public func linkStatus(of path: String) -> FileStatus? { files[path] }
  public func pin(of path: String) -> String? { pins[path] }
}
