// SPDX-License-Identifier: MIT
//
// The kernel's facts about processes and files (see `SystemFacts`): /proc/PID read with plain
// system calls, stat(2) in keychaind's own view of the file system, and the content hashes of
// programs the user can change, each file hashed once per version of it.

import Foundation
import KeychainCrypto
import KeychainSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// `SystemFacts` from /proc and the file system.
public final class KernelFacts: SystemFacts {
  /// Where /proc is.
  let proc: String
  private let hashes = Mutex<[FileKey: String]>([:])
  public let sessionNamespaces: Set<Namespaces>
  public let bootTag: String
  /// The kernel's facts for whoever needs them without a resolver of their own.
  public static let shared = KernelFacts()

  public init(proc: String = "/proc") {
    self.proc = proc
    // keychaind and the processes that started it, up to the first whose namespaces /proc
    // refuses (init's, or another user's).
    var namespaces = Set<Namespaces>()
    var pid = UInt32(getpid())
    for _ in 0..<64 {
      guard let found = Self.namespaces(of: pid, proc: proc) else { break }
      namespaces.insert(found)
      guard let stat = Self.text("\(proc)/\(pid)/stat"),
        let (_, fields) = ProcessFacts.parseStat(stat), fields.count > 1,
        let parent = UInt32(fields[1]), parent > 0
      else { break }
      pid = parent
    }
    sessionNamespaces = namespaces
    bootTag = String(
      (Self.text("\(proc)/sys/kernel/random/boot_id") ?? "").filter(\.isHexDigit).prefix(8))
  }

  public func process(_ pid: UInt32, full: Bool) -> ProcessFacts? {
    let base = "\(proc)/\(pid)"
    guard let stat = Self.text("\(base)/stat") else { return nil }
    var facts = ProcessFacts(pid: pid)
    guard let (command, fields) = ProcessFacts.parseStat(stat), fields.count > 19 else {
      return nil
    }
    facts.command = command
    facts.isZombie = fields[0] == "Z"
    facts.parent = UInt32(fields[1]) ?? 0
    facts.startTime = UInt64(fields[19]) ?? 0
    if let target = Self.link("\(base)/exe") {
      if target.hasSuffix(" (deleted)") {
        facts.executableDeleted = true
        facts.executable = String(target.dropLast(" (deleted)".count))
      } else {
        facts.executable = target
        facts.executableFile = status(of: "\(base)/exe")
      }
    }
    if let cmdline = Self.bytes("\(base)/cmdline") {
      facts.arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
      if facts.arguments.last == "" { facts.arguments.removeLast() }
    }
    facts.workingDirectory = Self.link("\(base)/cwd")
    facts.namespaces = Self.namespaces(of: pid, proc: proc)
    if let status = Self.text("\(base)/status") { facts.readStatus(status) }
    guard full else { return facts }
    if let cgroup = Self.text("\(base)/cgroup") { facts.readCgroup(cgroup) }
    facts.flatpakID = Self.flatpakInfo(root: "\(base)/root").flatMap(ProcessFacts.applicationName)
    facts.securityLabel = Self.text("\(base)/attr/current")?
      .trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\0")))
    if let environ = Self.bytes("\(base)/environ") {
      for entry in environ.split(separator: 0) {
        guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
        let name = String(decoding: entry[..<equals], as: UTF8.self)
        guard ProgramLists.injectingVariables.contains(name) else { continue }
        facts.injecting[name] = String(decoding: entry[(equals + 1)...], as: UTF8.self)
      }
    }
    return facts
  }

  public func startDate(ticks: UInt64) -> Double {
    KernelClock.date(ofTicksSinceBoot: ticks)
  }

  public func status(of path: String) -> FileStatus? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return FileStatus(status)
  }

  public func linkStatus(of path: String) -> FileStatus? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return FileStatus(status)
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
    let hex = Hex.string(data.withUnsafeBytes { SHA256.hash($0) })
    let pin = "sha256:\(hex)"
    hashes.withLock { $0[key] = pin }
    return pin
  }

  static func namespaces(of pid: UInt32, proc: String) -> Namespaces? {
    var mount = stat()
    var user = stat()
    guard stat("\(proc)/\(pid)/ns/mnt", &mount) == 0, stat("\(proc)/\(pid)/ns/user", &user) == 0
    else { return nil }
    return Namespaces(mount: UInt64(mount.st_ino), user: UInt64(user.st_ino))
  }

  /// The `.flatpak-info` of a process's root, opened as xdg-desktop-portal opens it: relative
  /// to a directory descriptor of the root, and only if it is a regular file.
  static func flatpakInfo(root: String) -> String? {
    guard
      let directory = try? FileDescriptor.open(
        path: root, .readOnly, options: [.directory, .closeOnExec])
    else { return nil }
    defer { directory.closeQuietly() }
    guard
      let file = try? directory.open(
        relative: ".flatpak-info", .readOnly, options: [.closeOnExec, .noFollow, .nonBlocking])
    else { return nil }
    defer { file.closeQuietly() }
    guard let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG,
      status.st_size <= 1 << 20, let bytes = try? file.readToEnd(limit: 1 << 20, chunk: 4096)
    else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  static func text(_ path: String) -> String? {
    bytes(path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// A whole file, read with plain system calls (Foundation's reader stats and wraps each
  /// file; a caller's identity reads a dozen small /proc files, once per connection).
  static func bytes(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
    try? SystemFiles.read(atPath: path, limit: limit, chunk: 4096, truncating: true)
  }

  /// A symbolic link's target; nil if it cannot be read.
  static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether process `pid` runs in a graphical session (`DISPLAY` or `WAYLAND_DISPLAY` in its
  /// environment), where a dialog on the desktop is seen by the person who started it; false
  /// for SSH, cron and services. A process whose environment cannot be read (it has gone) is
  /// taken to have one: nothing says otherwise, and such a caller is unknown, so its dialog
  /// says "an unidentified program" and offers Allow once only.
  public static func hasDisplay(pid: UInt32, proc: String = "/proc") -> Bool {
    guard let environ = bytes("\(proc)/\(pid)/environ") else {
      return true
    }
    for entry in environ.split(separator: 0) {
      let text = String(decoding: entry, as: UTF8.self)
      if text.hasPrefix("DISPLAY=") || text.hasPrefix("WAYLAND_DISPLAY=") {
        return text.split(separator: "=", maxSplits: 1).count == 2
      }
    }
    return false
  }
}

extension ProcessFacts {
  /// The real uid (`Uid:`) and the tracer (`TracerPid:`) from `/proc/PID/status`.
  mutating func readStatus(_ status: String) {
    // The first field after a name; split by hand: CharacterSet's trimming costs more than
    // the rest of identifying a caller, the first time.
    func field(_ line: Substring, after name: String) -> UInt32? {
      line.dropFirst(name.count).split(whereSeparator: \.isWhitespace).first.flatMap {
        UInt32($0)
      }
    }
    for line in status.split(separator: "\n") {
      if line.hasPrefix("Uid:") {
        uid = field(line, after: "Uid:")
      } else if line.hasPrefix("TracerPid:") {
        tracer = field(line, after: "TracerPid:") ?? 0
      }
    }
  }
}

extension FileStatus {
  init(_ status: stat) {
    self.init(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), owner: status.st_uid,
      mode: status.st_mode,
      changed: Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9)
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
