// SPDX-License-Identifier: MIT
//
// A store keychaind may read but not write (its database made read-only) is refused at start,
// named, with what to do, and left as it was. As root every file is writable, so keychaind runs
// as `nobody` here (setpriv, from a root test run), on a store keychainctl's embedded store
// made as nobody.

import Foundation
import KeychainTesting
import Testing

@Suite(
  .enabled(if: getuid() == 0, "dropping to another user needs root"),
  .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "no setpriv"))
struct ReadOnlyStoreTests {
  @Test func aReadOnlyDatabaseIsRefusedAndLeftAsItWas() throws {
    let root = try TemporaryDirectory(prefix: "read-only")
    chmod(root.path, 0o755)
    let home = root.path + "/home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    // The binary where nobody may run it (copied by cp: see AccessUnprivilegedTests).
    let daemon = root.path + "/keychaind"
    try #require(try runCommand("/bin/cp", [Binaries.keychaind, daemon]).status == 0)
    chmod(daemon, 0o755)
    try FileManager.default.createSymbolicLink(
      atPath: root.path + "/keychainctl", withDestinationPath: "keychaind")
    try AccessUnprivilegedTests.chown(home)
    // No session bus: keychainctl uses its embedded store, keychaind starts a private bus.
    var environment = [
      "PATH": "/usr/bin:/bin", "HOME": home, "XDG_DATA_HOME": home + "/data",
      "XDG_RUNTIME_DIR": home, "PINENTRY": "none",
    ]
    // Under `make sanitize`, its options (no leak check, which cannot run as nobody) pass on.
    for name in ["ASAN_OPTIONS", "UBSAN_OPTIONS"] {
      environment[name] = ProcessInfo.processInfo.environment[name]
    }
    let made = try runCommand(
      "/usr/bin/setpriv",
      AccessUnprivilegedTests.asNobody([
        root.path + "/keychainctl", "add-generic-password", "-a", "a", "-s", "s", "-w", "pw",
      ]), environment: environment)
    try #require(made.status == 0, "\(made.stderr)")
    let store = home + "/data/keychain-embedded"
    let database = store + "/keychain.db"
    chmod(database, 0o400)
    let before = FileManager.default.contents(atPath: database)
    let started = try runCommand(
      "/usr/bin/setpriv", AccessUnprivilegedTests.asNobody([daemon, "--data-dir", store]),
      environment: environment)
    #expect(started.status == 6, "\(started.stderr)")
    #expect(
      started.stderr.contains("\(database): keychaind may not write it (Permission denied"),
      "\(started.stderr)")
    #expect(started.stderr.contains("chmod u+rw \(database)"), "\(started.stderr)")
    #expect(FileManager.default.contents(atPath: database) == before)
    var info = stat()
    #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o400, "its mode was changed")
  }
}
