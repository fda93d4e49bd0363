// SPDX-License-Identifier: MIT
//
// keychainctl access mode: which access-control mode is in force, and changing it. The mode
// is kept in the keyring as well as in keychaind.conf, so that a program of the user cannot
// lower it by editing that file: lowering it takes the keyring's password.

import ArgumentParser
import Foundation
import SecretServiceClient

extension AccessCommand {
  struct Mode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show or change the access-control mode (off, audit, protect).",
      discussion: """
        keychaind runs in the higher of keychaind.conf's mode and the one kept in the keyring. \
        Raising the mode needs nothing; lowering it needs the keyring's password (of every \
        collection), and is recorded in the audit log before the log stops for `off`.
        """)
    @Argument(help: "The mode to set: off, audit or protect. Without one, show the mode.")
    var mode: String?
    @Flag(help: .passwordStdin) var passwordStdin = false

    func run() async throws {
      let client = try await connectedClient()
      let (current, configured, kept) = try await client.accessMode()
      guard let mode else {
        print("access-control: \(current)")
        print("keychaind.conf asks for: \(configured)")
        print("kept in the keyring: \(kept.isEmpty ? "nothing yet" : kept)")
        if configured != current {
          print(
            "keychaind.conf asks for less than the keyring keeps; lower it with: keychainctl access mode \(configured) --password-stdin"
          )
        }
        return
      }
      let lowering = Self.level(mode) < Self.level(current)
      let password = lowering ? try accessPassword(passwordStdin) : nil
      let (saved, restart) = try await client.setAccessMode(mode, password: password)
      print("access-control: \(mode)" + (saved.isEmpty ? "" : " (written to \(saved))"))
      if restart { print("restart keychaind for it to take effect: it starts the audit log") }
    }

    static func level(_ mode: String) -> Int {
      ["off", "audit", "protect"].firstIndex(of: mode) ?? 3
    }
  }
}
