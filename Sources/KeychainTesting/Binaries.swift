// SPDX-License-Identifier: MIT
//
// Which binaries the black-box tests start. Users run the release build or the installed
// package, so `make test` and CI point the tests at those (`KEYCHAIND_BINARY`,
// `KEYCHAINCTL_BINARY`); a plain `swift test` runs the debug binaries it has just built. The
// helpers that only tests use (the load generator, the samples, the preloaded libraries) always
// come from the test build.

import Foundation

/// The programs and libraries the tests run, found once.
public enum Binaries {
  /// The test build's products directory: where `swift build` put the test helpers.
  public static let buildDirectory: String = {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = here.deletingLastPathComponent()
    // The test binary may sit inside an .xctest bundle directory.
    while !FileManager.default.fileExists(atPath: directory.path + "/keychaind"),
      directory.path != "/"
    {
      directory.deleteLastPathComponent()
    }
    return directory.path
  }()

  /// The `keychaind` under test: `$KEYCHAIND_BINARY` (the release build, the installed
  /// package), else the one built with the tests.
  public static let keychaind: String = chosen("KEYCHAIND_BINARY", default: "keychaind")

  /// The `keychainctl` under test: `$KEYCHAINCTL_BINARY`; else the one beside an overridden
  /// `keychaind` (an install puts both in one directory); else the one beside the test build's
  /// keychaind. keychainctl is keychaind run by that name: where no link of that name exists
  /// (a plain `swift test`), one is made there, or in a directory of this run's own.
  public static let keychainctl: String = {
    if let path = override("KEYCHAINCTL_BINARY") { return path }
    let beside = URL(fileURLWithPath: keychaind).deletingLastPathComponent().path + "/keychainctl"
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    let directory =
      override("KEYCHAIND_BINARY") == nil
      ? buildDirectory : FileManager.default.temporaryDirectory.path + "/keychainctl-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try? FileManager.default.createSymbolicLink(
      atPath: directory + "/keychainctl", withDestinationPath: keychaind)
    return directory + "/keychainctl"
  }()

  /// The prefix of an installed package under test (`KEYCHAIN_INSTALLED_PREFIX`, `/usr` for the
  /// Debian package): the tests then read its installed files rather than the repository's.
  public static var installedPrefix: String? { override("KEYCHAIN_INSTALLED_PREFIX") }

  /// Whether the binaries under test were built with sanitizers (`make sanitize` says so in
  /// `KEYCHAIN_SANITIZERS`): their allocator keeps freed memory in quarantine, so the tests that
  /// measure memory do not apply.
  public static var isSanitized: Bool { override("KEYCHAIN_SANITIZERS") != nil }

  /// A helper program or library built with the tests (`keychain-load`, `keychain-samples`,
  /// `libKeychainFaultVFS.so`, …).
  public static func helper(_ name: String) -> String { buildDirectory + "/" + name }

  private static func override(_ variable: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
      return nil
    }
    return value
  }

  private static func chosen(_ variable: String, default name: String) -> String {
    guard let path = override(variable) else { return buildDirectory + "/" + name }
    // A wrong path would make every test fail with a confusing message; say it once, plainly.
    precondition(
      FileManager.default.isExecutableFile(atPath: path),
      "\(variable)=\(path) is not an executable file")
    return path
  }
}
