// SPDX-License-Identifier: MIT
//
// What identification reads about processes and files, behind one protocol: the kernel's
// answers (`KernelFacts`, through /proc and stat(2)) in keychaind, a table of made-up answers
// in tests, so that every trick a program could play (a private mount namespace, a renamed
// parent, a script path relative to another directory) can be shown to the resolver without
// playing it.

/// A file's identity and ownership, as stat(2) gives them.
public struct FileStatus: Sendable, Hashable {
  public var device: UInt64
  public var inode: UInt64
  /// The owner's uid.
  public var owner: UInt32
  /// `st_mode`: type and permission bits.
  public var mode: UInt32
  /// When its content or inode last changed (`st_ctim`), in seconds since 1970: no program can
  /// set it back.
  public var changed: Double

  public init(device: UInt64, inode: UInt64, owner: UInt32, mode: UInt32, changed: Double = 0) {
    self.device = device
    self.inode = inode
    self.owner = owner
    self.mode = mode
    self.changed = changed
  }

  /// The same file: device and inode.
  public func isSameFile(as other: FileStatus) -> Bool {
    device == other.device && inode == other.inode
  }

  /// Whether it is a regular file.
  public var isRegularFile: Bool { mode & 0o170000 == 0o100000 }
  /// Whether it is a directory.
  public var isDirectory: Bool { mode & 0o170000 == 0o040000 }
  /// Whether root owns it and nobody else may write to it (group and others have no `w`).
  public var isRootsAlone: Bool { owner == 0 && mode & 0o022 == 0 }
}

/// A mount or user namespace, by the inode of its `/proc/PID/ns/…` link.
public struct Namespaces: Sendable, Hashable {
  public var mount: UInt64
  public var user: UInt64

  public init(mount: UInt64, user: UInt64) {
    self.mount = mount
    self.user = user
  }
}

/// Where identification gets its facts (see the top of this file).
public protocol SystemFacts: Sendable {
  /// Process `pid`, or nil if it has gone. With `full`, also its sandbox (cgroup,
  /// `.flatpak-info`, security label), environment and tracer: the process whose identity is
  /// decided. Without, what a parent walked past needs.
  func process(_ pid: UInt32, full: Bool) -> ProcessFacts?

  /// stat(2) of `path` in keychaind's own view of the file system (links followed).
  func status(of path: String) -> FileStatus?

  /// lstat(2) of `path` (a link itself, not what it points to).
  func linkStatus(of path: String) -> FileStatus?

  /// `sha256:HEX` of the file's content, nil if it cannot be read.
  func pin(of path: String) -> String?

  /// The namespaces of keychaind's session: its own and those of the processes that started
  /// it (a systemd user unit's sandbox gives keychaind namespaces of its own, inside the
  /// session's). A process in none of them sees another file system than keychaind does.
  var sessionNamespaces: Set<Namespaces> { get }

  /// When a process that started `ticks` clock ticks after boot (`ProcessFacts.startTime`)
  /// started, in seconds since 1970.
  func startDate(ticks: UInt64) -> Double

  /// The first characters of this boot's id: terminal sessions are named by pid and start
  /// time, which only this boot keeps apart.
  var bootTag: String { get }
}

extension SystemFacts {
  /// Whether `path`, and every directory above it, is owned by root and writable by nobody
  /// else: a file the user cannot replace.
  public func isSystemFile(_ path: String) -> Bool {
    guard path.hasPrefix("/") else { return false }
    var current = Substring(path)
    while true {
      guard let status = linkStatus(of: String(current)), status.isRootsAlone else {
        return false
      }
      if current == "/" { return true }
      guard let slash = current.lastIndex(of: "/") else { return false }
      current = slash == current.startIndex ? "/" : current[..<slash]
    }
  }
}
