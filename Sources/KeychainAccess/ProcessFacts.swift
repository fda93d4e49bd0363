// SPDX-License-Identifier: MIT
//
// What the kernel says about one process, read from /proc/PID: its executable, its parent and
// start time, its command line, its cgroup, and the `.flatpak-info` in its root if it has one.
// Nothing here comes from the process's own messages; the command line is the one fact it can
// rewrite, and it is used only for scripts (shown as weak) and for display.

import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Facts about one process, read once.
public struct ProcessFacts: Sendable, Equatable {
  public var pid: UInt32
  /// The executable's canonical path; nil when /proc refuses it (a non-dumpable process) or the
  /// process has gone.
  public var executable: String?
  /// Whether the executable was deleted or replaced after the process started.
  public var executableDeleted = false
  /// The parent's pid.
  public var parent: UInt32 = 0
  /// Whether the process has exited and waits to be reaped (state `Z`): it calls nothing more.
  public var isZombie = false
  /// The kernel's short name for the process (settable by the process: display only).
  public var command = ""
  /// Clock ticks after boot at which the process started (`stat` field 22).
  public var startTime: UInt64 = 0
  /// The command line's arguments.
  public var arguments: [String] = []
  /// The systemd unit the process runs in, from its cgroup (`app-….scope`, `foo.service`).
  public var unit: String?
  /// The Flatpak app id from `/proc/PID/root/.flatpak-info`.
  public var flatpakID: String?
  /// The snap's name, from a `snap.NAME.…` cgroup.
  public var snapName: String?

  public init(pid: UInt32) { self.pid = pid }

  /// Reads process `pid`; nil if it has gone. With `sandbox` false, its cgroup and
  /// `.flatpak-info` are not read (a parent walked past: a sandbox shows in the caller itself).
  public static func read(pid: UInt32, proc: String = "/proc", sandbox: Bool = true)
    -> ProcessFacts?
  {
    let base = "\(proc)/\(pid)"
    guard let stat = text("\(base)/stat") else { return nil }
    var facts = ProcessFacts(pid: pid)
    guard let (command, fields) = parseStat(stat), fields.count > 19 else { return nil }
    facts.command = command
    facts.isZombie = fields[0] == "Z"
    facts.parent = UInt32(fields[1]) ?? 0
    facts.startTime = UInt64(fields[19]) ?? 0
    if let target = link("\(base)/exe") {
      if target.hasSuffix(" (deleted)") {
        facts.executableDeleted = true
        facts.executable = String(target.dropLast(" (deleted)".count))
      } else {
        facts.executable = target
      }
    }
    if let cmdline = bytes("\(base)/cmdline") {
      facts.arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
      if facts.arguments.last == "" { facts.arguments.removeLast() }
    }
    guard sandbox else { return facts }
    if let cgroup = text("\(base)/cgroup") { facts.readCgroup(cgroup) }
    facts.flatpakID = flatpakInfo(root: "\(base)/root").flatMap(applicationName)
    return facts
  }

  /// The command name and the fields after it (`fields[0]` is field 3, the state). The name is
  /// in parentheses and may hold spaces and parentheses itself, so fields count from the last
  /// `)`.
  public static func parseStat(_ stat: String) -> (String, [Substring])? {
    // On the UTF-8 view: splitting by Character cost a third of reading a process.
    let bytes = stat.utf8
    guard let open = bytes.firstIndex(of: UInt8(ascii: "(")),
      let close = bytes.lastIndex(of: UInt8(ascii: ")")), open < close
    else { return nil }
    let command = String(stat[stat.index(after: open)..<close])
    let rest = stat[stat.index(after: close)...]
    let fields = rest.utf8.split(separator: UInt8(ascii: " ")).map { Substring($0) }
    return (command, fields)
  }

  /// The unit from a cgroup v2 line `0::/user.slice/…/app.slice/NAME`, and a snap's name.
  mutating func readCgroup(_ cgroup: String) {
    guard let line = cgroup.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else {
      return
    }
    let parts = line.dropFirst(3).split(separator: "/")
    unit = parts.last(where: { $0.hasSuffix(".service") || $0.hasSuffix(".scope") })
      .map(String.init)
    if let snap = parts.last(where: { $0.hasPrefix("snap.") }) {
      let pieces = snap.split(separator: ".")
      if pieces.count >= 3 { snapName = String(pieces[1]) }
    }
  }

  /// `[Application] name=` of a `.flatpak-info` file.
  public static func applicationName(_ info: String) -> String? {
    var inApplication = false
    for line in info.split(separator: "\n") {
      let line = line.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("[") {
        inApplication = line == "[Application]"
      } else if inApplication, line.hasPrefix("name=") {
        let name = String(line.dropFirst(5))
        return name.isEmpty ? nil : name
      }
    }
    return nil
  }

  /// The `.flatpak-info` of a process's root, opened as xdg-desktop-portal opens it: relative
  /// to a directory descriptor of the root, and only if it is a regular file.
  static func flatpakInfo(root: String) -> String? {
    let directory = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directory >= 0 else { return nil }
    defer { close(directory) }
    let file = openat(directory, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
    guard file >= 0 else { return nil }
    defer { close(file) }
    var status = stat()
    guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
      status.st_size <= 1 << 20
    else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
    let count = bytes.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
    guard count >= 0 else { return nil }
    return String(decoding: bytes.prefix(count), as: UTF8.self)
  }

  static func text(_ path: String) -> String? {
    bytes(path).map { String(decoding: $0, as: UTF8.self) }
  }

  /// A whole file, read with plain system calls (Foundation's reader stats and wraps each
  /// file; a caller's identity reads a dozen small /proc files, once per connection).
  static func bytes(_ path: String, limit: Int = 1 << 20) -> [UInt8]? {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { return nil }
    defer { close(file) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while result.count < limit {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else { return nil }
      if count == 0 { break }
      result += chunk[0..<count]
    }
    return result
  }

  /// A symbolic link's target; nil if it cannot be read.
  static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

extension ProcessFacts {
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
