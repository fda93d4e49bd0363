// SPDX-License-Identifier: MIT
//
// Sockets systemd passed at start (sd_listen_fds(3)): `LISTEN_PID` names this process,
// `LISTEN_FDS` counts the descriptors from 3, and `LISTEN_FDNAMES` names them, colon-separated,
// each its socket unit's FileDescriptorName= (by default the unit's own name). keychaind is
// started by its control socket and its credentials socket alike, and systemd passes every
// socket of the service whichever started it, so each is taken by name.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

public enum SocketActivation {
  /// The passed socket that has one of `names`, marked close-on-exec; nil when none has. A lone
  /// socket passed without names stands for `unnamedSingle` (a unit written before names were
  /// given, or a tool that gives none).
  public static func socket(
    named names: Set<String>, environment: [String: String], unnamedSingle: Bool = false
  ) -> FileDescriptor? {
    guard environment["LISTEN_PID"] == String(getpid()),
      let count = environment["LISTEN_FDS"].flatMap(Int.init), count > 0, count < 64
    else { return nil }
    let passed = environment["LISTEN_FDNAMES"].map {
      $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    }
    var index = passed.flatMap { $0.count == count ? $0.firstIndex(where: names.contains) : nil }
    // sd_listen_fds_with_names(3) reads a missing name as "unknown".
    if index == nil, unnamedSingle, count == 1, ["unknown", ""].contains(passed?.first ?? "") {
      index = 0
    }
    guard let index else { return nil }
    let fd = Int32(3 + index)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    return FileDescriptor(rawValue: fd)
  }
}
