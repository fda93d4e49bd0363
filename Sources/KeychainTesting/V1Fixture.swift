// SPDX-License-Identifier: MIT
//
// Real v1 keyring files (oo7's and libsecret's format), written at test time by Debian's
// libsecret through `secret-tool` with its file backend: no D-Bus, no daemon, the file and its
// password given in the environment. Nothing reaches a real keyring: HOME is a throwaway
// directory and there is no session bus.

import Foundation

public enum V1Fixture {
  public static let secretTool = "/usr/bin/secret-tool"

  /// Whether libsecret's tool is installed.
  public static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: secretTool) }

  /// The environment that points libsecret's file backend at `file`, keyed by `password`.
  public static func environment(file: String, password: String) -> [String: String] {
    [
      "SECRET_BACKEND": "file", "SECRET_FILE_TEST_PATH": file,
      "SECRET_FILE_TEST_PASSWORD": password,
      "HOME": URL(fileURLWithPath: file)
        .deletingLastPathComponent().path, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
    ]
  }

  /// Stores one item in `file` (made if need be) with `password`; same attributes replace.
  public static func store(
    _ file: String, password: String, label: String, attributes: [String: String],
    secret: [UInt8]
  ) throws {
    let arguments =
      ["store", "--label=\(label)"]
      + attributes.sorted { $0.key < $1.key }
      .flatMap { [$0.key, $0.value] }
    let result = try runCommand(
      secretTool, arguments, environment: environment(file: file, password: password),
      stdin: secret)
    guard result.status == 0 else { throw TestingError("secret-tool store: \(result.stderr)") }
  }

  /// The secret libsecret finds in `file` for `attributes`, or nil if it finds none.
  public static func lookup(_ file: String, password: String, attributes: [String: String])
    throws -> [UInt8]?
  {
    let arguments =
      ["lookup"] + attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
    let result = try runCommand(
      secretTool, arguments, environment: environment(file: file, password: password))
    return result.status == 0 ? result.stdoutBytes : nil
  }
}
