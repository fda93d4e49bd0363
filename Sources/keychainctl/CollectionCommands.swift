// SPDX-License-Identifier: MIT
//
// What the provider holds: its collections, and a status line for people and scripts.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

struct List: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the collections: path, lock state, items, label.")
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let client = try await connectedClient()
    let collections = try await client.collections()
    let defaultPath = try await client.readAlias("default")
    if json {
      try printJSON(
        collections.map {
          [
            "path": $0.path.rawValue, "label": $0.label, "locked": $0.isLocked,
            "items": $0.itemCount, "default": $0.path == defaultPath,
          ]
        })
      return
    }
    for collection in collections {
      let mark = collection.path == defaultPath ? "*" : " "
      let state = collection.isLocked ? "locked  " : "unlocked"
      print(
        "\(mark) \(collection.path.rawValue)\t\(state)\t\(collection.itemCount) items\t\(collection.label)"
      )
    }
  }
}

struct Status: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show the provider, and each collection's lock state and item count.")
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let client = try await connectedClient()
    let (name, pid) = try await client.provider()
    let program = pid.flatMap {
      try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8)
        .trimmingCharacters(in: .whitespacesAndNewlines)
    }
    let collections = try await client.collections()
    let items = collections.map(\.itemCount).reduce(0, +)
    // keychaind's view of gnome-keyring's and oo7's keyrings (dry runs: nothing is read twice
    // or written); another provider has no such call, and nothing is shown.
    let sources = [
      ImportState(
        name: "gnome-keyring", json: "gnome_keyring",
        files: try? await client.importGnomeKeyring(directory: "", passwords: [], dryRun: true)),
      ImportState(
        name: "oo7", json: "oo7",
        files: try? await client.importOO7(directory: "", passwords: [], dryRun: true)),
    ].filter { !$0.files.isEmpty }
    if json {
      var object: [String: Any] = [
        "provider": [
          "name": name?.rawValue ?? "", "pid": pid.map { Int($0) } ?? 0, "program": program ?? "",
        ],
        "collections": collections.map {
          [
            "path": $0.path.rawValue, "label": $0.label, "locked": $0.isLocked,
            "items": $0.itemCount,
          ]
        },
        "items": items,
      ]
      for source in sources {
        object[source.json] = [
          "imported": source.count("unchanged"), "waiting": source.count("pending"),
          "damaged": source.count("failed"), "new": source.count("imported"),
          "skipped": source.count("skipped"),
        ]
      }
      try printJSON(object)
      return
    }
    print(
      "provider: \(program ?? "unknown") (pid \(pid.map(String.init) ?? "?"), \(name?.rawValue ?? "?"))"
    )
    let defaultPath = try? await client.readAlias("default")
    print("collections: \(collections.count), \(collections.filter(\.isLocked).count) locked")
    for collection in collections {
      let state = collection.isLocked ? "locked" : "unlocked"
      let mark = collection.path == defaultPath ? " (default)" : ""
      print("  “\(collection.label)”\(mark): \(state), \(collection.itemCount) item(s)")
    }
    print("items: \(items)")
    for source in sources {
      let waiting = source.count("pending") + source.count("imported")
      var line = "\(source.name) keyrings: \(source.count("unchanged")) imported"
      if waiting > 0 { line += ", \(waiting) not yet (keychainctl import \(source.name))" }
      if source.count("failed") > 0 { line += ", \(source.count("failed")) damaged" }
      if source.count("skipped") > 0 {
        line += ", \(source.count("skipped")) left alone (migrated by oo7)"
      }
      print(line)
    }
  }
}

/// What a dry-run import says of one other keyring's files, for `status`.
private struct ImportState {
  let name: String
  let json: String
  let files: [ImportFileReport]

  init(name: String, json: String, files: [ImportFileReport]?) {
    self.name = name
    self.json = json
    self.files = files ?? []
  }

  func count(_ status: String) -> Int { files.filter { $0.status == status }.count }
}

/// The one collection `name` (an object path or a label) names.
func collectionPath(_ client: SecretServiceClient, _ name: String) async throws -> ObjectPath {
  let paths = try await collectionPaths(client, name)
  guard paths.count == 1 else {
    complain("keychainctl: '\(name)' names \(paths.count) collections; give the path")
    throw Exit.failure
  }
  return paths[0]
}

struct Create: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Create a collection; its password is asked through the provider's prompt.")
  @Argument(help: "The collection's label.") var label: String
  @Option(help: "An alias for it, such as default.") var alias: String = ""
  @Flag(help: .passwordStdin) var passwordStdin = false

  func run() async throws {
    let client = try await connectedClient()
    let path =
      if passwordStdin {
        try await client.createCollection(
          label: label, alias: alias,
          password: SecureBytes(copying: try SecretInput.newPassword(prompt: "Password: ")))
      } else {
        try await offeringPasswordStdin(["create", label]) {
          try await client.createCollection(label: label, alias: alias)
        }
      }
    print(path.rawValue)
  }
}

struct Delete: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Delete a collection (by path or label) and every item in it.")
  @Argument(help: "The collection's object path or label.") var collection: String

  func run() async throws {
    let client = try await connectedClient()
    try await client.deleteCollection(try await collectionPath(client, collection))
  }
}

struct SetDefault: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "set-default",
    abstract: "Make a collection (by path or label) the default one.")
  @Argument(help: "The collection's object path or label.") var collection: String

  func run() async throws {
    let client = try await connectedClient()
    try await client.setAlias("default", to: try await collectionPath(client, collection))
  }
}

struct Passwd: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Change a collection's password through the provider's prompt.",
    discussion: """
      With --password-stdin, the current and the new password are read from standard input, \
      one per line, or typed at the terminal (the new one twice). With --recovery, a recovery \
      key of the collection stands for the current password: for a password that was lost.
      """)
  @Argument(help: "The collection's object path or label.") var collection: String
  @Flag(help: .passwordStdin) var passwordStdin = false
  @Flag(help: "Prove it with a recovery key instead of the current password.") var recovery = false

  func run() async throws {
    let client = try await connectedClient()
    let path = try await collectionPath(client, collection)
    if recovery {
      guard let key = SecretInput.line(prompt: "Recovery key: ") else {
        throw InputError("no recovery key given")
      }
      let new = try SecretInput.newPassword(prompt: "New password: ")
      return try await sayingWhy {
        try await client.resetPassword(
          of: path, recoveryKey: SecureBytes(copying: key), to: SecureBytes(copying: new))
      }
    }
    guard passwordStdin else {
      return try await offeringPasswordStdin(["passwd", collection]) {
        try await client.changePassword(of: path)
      }
    }
    guard let old = SecretInput.line(prompt: "Current password: ") else {
      throw InputError("no current password given")
    }
    let new = try SecretInput.newPassword(prompt: "New password: ")
    try await sayingWrongPassword {
      try await client.changePassword(
        of: path, from: SecureBytes(copying: old), to: SecureBytes(copying: new))
    }
  }
}

/// Runs `body`; a provider's "wrong password" becomes one plain line and exit status 1.
func sayingWrongPassword(_ body: () async throws -> Void) async throws {
  do {
    try await body()
  } catch let error as DBusError where error.name.meansWrongPassword {
    complain("keychainctl: the password is not correct")
    throw Exit.failure
  }
}

/// Runs a call that shows the provider's dialog. keychaind dismisses a dialog it cannot show
/// (no display, no pinentry) and says why only in its own log, so a dismissed one is said
/// together with what works without a dialog: `keychainctl COMMAND --password-stdin`.
func offeringPasswordStdin<T>(_ arguments: [String], _ body: () async throws -> T) async throws
  -> T
{
  do {
    return try await body()
  } catch is PromptDismissed {
    let command = arguments.map(shellWord).joined(separator: " ")
    complain(
      "keychainctl: the dialog was dismissed, or none could be shown (no display?); "
        + "`keychainctl \(command) --password-stdin` asks for the password here instead")
    throw Exit.failure
  }
}

/// `word` as a shell reads it back: in single quotes unless it holds only plain characters.
func shellWord(_ word: String) -> String {
  let plain = word.allSatisfy {
    $0.isASCII && ($0.isLetter || $0.isNumber || "-_./:@=".contains($0))
  }
  guard !plain || word.isEmpty else { return word }
  return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

extension ArgumentHelp {
  /// The help of every `--password-stdin` flag.
  static let passwordStdin = ArgumentHelp(
    "Read the password from standard input (typed without echo at a terminal) instead of the "
      + "provider's prompt; for scripts and machines with nobody to answer a prompt.")
}
