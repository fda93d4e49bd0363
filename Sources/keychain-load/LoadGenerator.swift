// SPDX-License-Identifier: MIT
//
// keychain-load: drives any Secret Service provider on the session bus (keychaind,
// gnome-keyring, KWallet, …) and times each kind of call, checking every answer.

import ArgumentParser
import Foundation

@main
struct KeychainLoad: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keychain-load",
    abstract: "Time Secret Service calls against the provider on the session bus, verifying each.",
    subcommands: [Measure.self, Seed.self, SetPassword.self],
    defaultSubcommand: Measure.self)
}
