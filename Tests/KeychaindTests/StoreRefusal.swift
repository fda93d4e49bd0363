// SPDX-License-Identifier: MIT
//
// What the damaged-store tests share: the store's files in a daemon's throwaway home, their
// bytes, and the refusal they expect from keychaind started on them.

import Foundation
import KeychainTesting
import Testing

extension DaemonProcess {
  /// A file of the store in this daemon's data directory.
  func storeFile(_ name: String) -> String {
    home.path + "/.local/share/keychaind/" + name
  }

  /// The bytes of the store's files, the ledger included (the shared-memory index aside:
  /// SQLite's scratch space).
  func storeSnapshot() -> [String: Data] {
    var files: [String: Data] = [:]
    for name in ["keychain.db", "keychain.db-wal", "index.key", "keychain.ledger"] {
      files[name] = FileManager.default.contents(atPath: storeFile(name))
    }
    return files
  }

  /// Starts keychaind on this (stopped) daemon's store: it must exit 6, name `file`, say each
  /// of `phrases`, create nothing and change no byte of the store.
  func expectRefusal(naming file: String, saying phrases: [String] = []) throws {
    let before = storeSnapshot()
    var environment = self.environment
    environment["PINENTRY"] = "none"
    let result = try runCommand(
      Binaries.keychaind, ["--verbose"], environment: environment, timeout: .seconds(20))
    #expect(result.status == 6, "\(result.stderr)")
    #expect(result.stderr.contains(file), "\(result.stderr)")
    for phrase in ["changed nothing"] + phrases {
      #expect(result.stderr.contains(phrase), "\(result.stderr)")
    }
    #expect(!result.stderr.contains("created the login collection"))
    #expect(storeSnapshot() == before, "the refused store was modified")
  }
}
