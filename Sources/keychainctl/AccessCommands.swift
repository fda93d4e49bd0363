// SPDX-License-Identifier: MIT
//
// keychainctl access: which application keychaind takes a process for, the grants the user
// gave, and changing them. Widening access needs the keyring's password (keychainctl is itself
// a program of the user: the password is what proves the user asked); revoking does not.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

struct AccessCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "access",
    abstract: "Show and change which applications may read which items (keychaind only).",
    discussion: """
      keychaind identifies each program that calls it from what the kernel says (a Flatpak \
      app id, the executable's path, a script's path, or a tool such as secret-tool with the \
      program that ran it), and records every access in its audit log. With access-control = \
      protect in keychaind.conf, an item is readable without asking only by the program that \
      stored it; any other program is shown it as locked, and its Unlock brings up a dialog: \
      Allow once, Always allow, or Deny. This stops casual and untargeted reads and says who \
      read what. It does not stop a program of your user that deliberately attacks keychaind \
      or an allowed program (by injecting into it, or starting it with a borrowed \
      connection), nor anything running as root.
      """,
    subcommands: [
      Whoami.self, ListGrants.self, Allow.self, Revoke.self, Group.self, Learn.self,
      Mode.self,
    ])

  struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Show the identity keychaind resolves for this very process.")
    func run() async throws {
      let (key, kind, display) = try await connectedClient().accessIdentity()
      print("\(display)\nkind: \(kind)\nkey: \(key.isEmpty ? "(none: never remembered)" : key)")
    }
  }

  struct ListGrants: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list", abstract: "List grants and item owners of unlocked collections.")
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Name items and collections by object path instead of by label.") var paths = false

    func run() async throws {
      let listing = try await connectedClient().accessListing()
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(listing), as: UTF8.self))
        return
      }
      let names = await ObjectNames(asPaths: paths)
      print("mode: \(listing.mode)")
      print("grants:")
      if listing.grants.isEmpty { print("  none") }
      for grant in listing.grants {
        let collection = names.collection(grant.collection)
        var scope = "every item of \(collection)"
        if let item = grant.item {
          scope = await names.name(of: item)
        } else if let group = grant.group {
          scope = "every item of \(collection) in \(group)"
        }
        let date = Date(timeIntervalSince1970: TimeInterval(grant.created))
        print("  \(grant.app) may read \(scope) (by \(grant.source), \(date.formatted(.iso8601)))")
      }
      print("owners:")
      for owner in listing.owners {
        print("  \(owner.app): \(owner.items) item(s) of \(names.collection(owner.collection))")
      }
      for (collection, count) in listing.unowned.sorted(by: { $0.key < $1.key }) {
        print(
          "  nobody: \(count) item(s) of \(names.collection(collection)) (stored before access control, or imported)"
        )
      }
      if !listing.locked.isEmpty {
        print("locked, not shown: \(listing.locked.joined(separator: ", "))")
      }
    }
  }

  struct Allow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Let an application read items, or every item of collections, for good.",
      discussion: """
        Needs the password of each collection involved. Example: `keychainctl access allow \
        --app /usr/bin/evolution /org/freedesktop/secrets/collection/login/12`. With --unit \
        and --credential, a systemd user unit gets one item as a credential instead: \
        `keychainctl access allow --unit backup.service --credential restic-password ITEM` \
        serves `LoadCredential=restic-password:%t/keychaind/credentials` while the item's \
        collection is unlocked (revoke with --app unit:backup.service).
        """)
    @Option(
      help:
        "The application: an executable's path, a Flatpak app id, or a key as `access list` shows.")
    var app: String?
    @Option(help: "A systemd unit (NAME.service) to give one item as a credential.")
    var unit: String?
    @Option(help: "With --unit: the credential id the unit's LoadCredential= names.")
    var credential: String?
    @Argument(help: "Item object paths, or collections (path or label) for all their items.")
    var objects: [String]
    @Flag(help: .passwordStdin) var passwordStdin = false

    func validate() throws {
      guard (app == nil) != (unit == nil) else {
        throw ValidationError("name either --app or --unit")
      }
      guard (unit == nil) == (credential == nil) else {
        throw ValidationError("--unit and --credential go together")
      }
      guard unit == nil || objects.count == 1 else {
        throw ValidationError("a credential is one item: name one")
      }
    }

    func run() async throws {
      let client = try await connectedClient()
      let paths = try await objectPaths(client, objects)
      let password = try accessPassword(passwordStdin)
      if let unit, let credential {
        try await sayingWhy {
          try await client.allowCredential(
            unit: unit, credential: credential, item: paths[0], password: password)
        }
        return print("\(unit) gets \(paths[0].rawValue) as its credential \(credential)")
      }
      let count = try await client.allowAccess(app: app ?? "", objects: paths, password: password)
      print("\(count) grant(s) made")
    }
  }

  struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Take back an application's grants on items or collections; needs no password.")
    @Option(help: "The application, as for allow.") var app: String
    @Argument(help: "Item object paths, or collections (path or label).") var objects: [String]

    func run() async throws {
      let client = try await connectedClient()
      let count = try await client.revokeAccess(
        app: app, objects: try await objectPaths(client, objects))
      print("\(count) grant(s) revoked")
    }
  }
}

/// The object paths `names` give: item and collection paths as they are, labels looked up.
func objectPaths(_ client: SecretServiceClient, _ names: [String]) async throws -> [ObjectPath] {
  var paths: [ObjectPath] = []
  for name in names {
    if name.hasPrefix("/"), let path = ObjectPath(validating: name) {
      paths.append(path)
    } else {
      paths.append(try await collectionPath(client, name))
    }
  }
  return paths
}

/// The keyring password for a change that widens access: from standard input with
/// `--password-stdin`, else typed at a terminal without echo.
func accessPassword(_ fromStdin: Bool) throws -> SecureBytes {
  guard fromStdin || SecretInput.isTerminal else {
    throw ValidationError("granting access needs your keyring password: pass --password-stdin")
  }
  guard let line = SecretInput.line(prompt: "Keyring password: ") else {
    throw ValidationError("granting access needs your keyring password; none was given")
  }
  return SecureBytes(copying: line)
}
