// SPDX-License-Identifier: MIT

import Foundation

/// A copy of a program installed where only root can change it (a directory of its own under
/// `/run/keychain-tests`), under a name the test chooses, removed when freed. As root, a test
/// can so stand in for a program the system ships (xdg-desktop-portal), with keychaind's
/// identification of it unchanged: a root-owned executable of that name.
public final class InstalledProgram: Sendable {
  /// The installed program's path.
  public let path: String
  private let directory: String

  /// Installs a copy of `source` as `name`; only root can.
  public init(copying source: String, as name: String) throws {
    guard getuid() == 0 else { throw TestingError("installing \(name) needs root") }
    let base = "/run/keychain-tests"
    mkdir(base, 0o755)
    var template = Array("\(base)/XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw TestingError("mkdtemp in \(base) failed: errno \(errno)")
    }
    directory = String(cString: made)
    chmod(directory, 0o755)
    path = directory + "/" + name
    // cp, so that this process never holds the program open for writing (see
    // `writeExecutable`).
    let copied = try runCommand(
      "/bin/cp", [URL(fileURLWithPath: source).resolvingSymlinksInPath().path, path])
    guard copied.status == 0 else { throw TestingError("cannot copy \(source): \(copied.stderr)") }
    chmod(path, 0o755)
  }

  deinit { try? FileManager.default.removeItem(atPath: directory) }
}
