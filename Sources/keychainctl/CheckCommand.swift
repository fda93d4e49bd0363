// SPDX-License-Identifier: MIT
//
// keychainctl check: the health of keychaind's store, read from its files without changing
// them, whether keychaind runs, refused to start, or is not installed at all.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainStore

struct Check: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Check keychaind's store for damage, changing nothing.",
    discussion: """
      Reads the store's files: their headers and write-ahead log, SQLite's integrity_check, \
      the schema and index key, each collection's key record and each item's search-index \
      rows. With --password-stdin, every item of each collection that password opens is \
      decrypted as well. Damage is reported by file, collection and item path. Exit codes: 0 \
      nothing wrong, 1 damage found or a password that opens no collection.
      """)

  @Option(
    name: .customLong("data-dir"),
    help: "The store's directory (default: $XDG_DATA_HOME/keychaind).")
  var dataDirectory: String?

  @Flag(help: "Also decrypt every item of the collections this password opens (one line).")
  var passwordStdin = false

  @Flag(help: "Print JSON.") var json = false

  func run() throws {
    let environment = ProcessInfo.processInfo.environment
    let directory =
      dataDirectory
      ?? (environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share") + "/keychaind"
    let password =
      passwordStdin
      ? SecureBytes(copying: SecretInput.line(prompt: "Password: ") ?? []) : nil
    let report = StoreCheck.run(directory: directory, password: password)
    if json {
      try printJSON([
        "directory": report.directory, "healthy": report.isHealthy, "checked": report.checked,
        "problems": report.problems.map { ["place": $0.place, "problem": $0.description] },
      ])
    } else {
      print("store: \(report.directory)")
      for line in report.checked { print("checked: \(line)") }
      for problem in report.problems { print("DAMAGED: \(problem.place): \(problem.description)") }
      print(report.isHealthy ? "no damage found" : "\(report.problems.count) problem(s) found")
    }
    if !report.isHealthy { throw Exit.failure }
    // A mistyped password is not a store without damage: its items were never decrypted.
    if password != nil, report.decrypted.isEmpty {
      complain("keychainctl: the password opens no collection: no item was decrypted")
      throw Exit.failure
    }
  }
}
