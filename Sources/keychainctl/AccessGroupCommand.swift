// SPDX-License-Identifier: MIT
//
// keychainctl access group: named access groups, as on Apple's keychain. A program that is a
// member of `group:NAME` uses that group's items without being asked, and may store items in
// it (`kSecAttrAccessGroup`), so programs of one suite can share what they store.

import ArgumentParser
import SecretServiceClient

extension AccessCommand {
  struct Group: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Share items between programs through named access groups.",
      discussion: """
        A Keychain program stores an item in a group by naming it, `group:NAME`, as \
        kSecAttrAccessGroup; every member of the group then uses it without a dialog. A \
        membership holds in the collections it was made in: the default collection unless \
        others are named.
        """,
      subcommands: [Add.self, Remove.self])

    struct Add: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "Make a program a member of a group; needs the collections' password.",
        discussion: """
          Example: `keychainctl access group add mail --app /usr/bin/evolution`. The \
          group's name is 1 to 64 letters, digits, '.', '_' or '-'.
          """)
      @Argument(help: "The group's name (with or without `group:`).") var name: String
      @Option(help: "The program, as for `access allow`.") var app: String
      @Argument(help: "Collections (path or label); the default collection when none.")
      var collections: [String] = []
      @Flag(help: .passwordStdin) var passwordStdin = false

      func run() async throws {
        let client = try await connectedClient()
        let paths = try await objectPaths(client, collections)
        let password = try accessPassword(passwordStdin)
        let count = try await client.addToGroup(
          app: app, group: name, collections: paths, password: password)
        print("\(count) membership(s) made")
      }
    }

    struct Remove: AsyncParsableCommand {
      static let configuration = CommandConfiguration(
        abstract: "End a program's membership of a group; needs no password.")
      @Argument(help: "The group's name.") var name: String
      @Option(help: "The program, as for `access allow`.") var app: String
      @Argument(help: "Collections (path or label); every unlocked one when none.")
      var collections: [String] = []

      func run() async throws {
        let client = try await connectedClient()
        let count = try await client.removeFromGroup(
          app: app, group: name, collections: try await objectPaths(client, collections))
        print("\(count) membership(s) ended")
      }
    }
  }
}
