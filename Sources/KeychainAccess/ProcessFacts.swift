// SPDX-License-Identifier: MIT
//
// What the kernel says about one process (read from /proc/PID by `KernelFacts`): its
// executable, its parent and start time, its command line, its namespaces, its cgroup, and the
// `.flatpak-info` in its root if it has one. Nothing here comes from the process's own
// messages; the command line, the working directory and the environment are the facts it
// chose, used only for scripts (shown as weak), for refusing what could run other code, and
// for display.

import Foundation

/// Facts about one process, read once.
public struct ProcessFacts: Sendable, Equatable {
  public var pid: UInt32
  /// The executable's path as the process sees it; nil when /proc refuses it (a non-dumpable
  /// process, or another user's) or the process has gone.
  public var executable: String?
  /// The file the process actually runs: stat of `/proc/PID/exe`, which follows the kernel's
  /// own reference whatever the path means in the process's namespace.
  public var executableFile: FileStatus?
  /// Whether the executable was deleted or replaced after the process started.
  public var executableDeleted = false
  /// The parent's pid.
  public var parent: UInt32 = 0
  /// The real uid it runs as.
  public var uid: UInt32?
  /// Whether the process has exited and waits to be reaped (state `Z`): it calls nothing more.
  public var isZombie = false
  /// The kernel's short name for the process (settable by the process: display only).
  public var command = ""
  /// Clock ticks after boot at which the process started (`stat` field 22).
  public var startTime: UInt64 = 0
  /// The command line's arguments.
  public var arguments: [String] = []
  /// Its working directory, as it sees it: a relative script path is relative to it.
  public var workingDirectory: String?
  /// Its mount and user namespaces; nil when /proc refuses them.
  public var namespaces: Namespaces?
  /// The systemd unit the process runs in, from its cgroup (`app-….scope`, `foo.service`).
  public var unit: String?
  /// The Flatpak app id from `/proc/PID/root/.flatpak-info`.
  public var flatpakID: String?
  /// The snap's name, from a `snap.NAME.…` cgroup.
  public var snapName: String?
  /// Its security module label (AppArmor's `snap.NAME.APP (enforce)`), if the kernel has one.
  public var securityLabel: String?
  /// The variables of its starting environment that can make a program run other code
  /// (`ProgramLists.injectingVariables`), with their values.
  public var injecting: [String: String] = [:]
  /// The pid of a process tracing it (`TracerPid`), 0 when none.
  public var tracer: UInt32 = 0

  public init(pid: UInt32) { self.pid = pid }

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
}
