// SPDX-License-Identifier: MIT
//
// keychainctl import gnome-keyring: asks the running keychaind to bring gnome-keyring's
// keyrings over (keychaind does the reading and writing; gnome-keyring's files are only read),
// with a password for the keyrings its own passwords do not open, and prints what happened to
// each file.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

struct Import: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Bring another keyring's secrets into keychaind.",
    subcommands: [
      ImportGnomeKeyring.self, ImportOO7.self, ImportKWallet.self, ImportBackup.self,
    ])
}

struct ImportGnomeKeyring: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "gnome-keyring",
    abstract: "Import gnome-keyring's keyrings into the running keychaind.",
    discussion: """
      keychaind reads every *.keyring file of gnome-keyring's directory \
      ($XDG_DATA_HOME/keyrings), decrypts it whole with the passwords it knows (those that \
      opened its collections, those gnome-keyring keeps in its login keyring, and one given \
      here), and merges each into the collection of the same name in one transaction: same \
      item paths where free, labels, attributes, secrets and dates; nothing in keychaind is \
      deleted; a file already imported and unchanged is skipped. gnome-keyring's files are \
      opened read-only and never changed. keychaind does the same by itself whenever a \
      password unlocks it. At a terminal, a password is asked for each keyring that is still \
      waiting for one (an empty answer skips it). Exit codes: 0 every keyring is imported (or \
      was already); 1 a file is damaged or unreadable (named, with the byte or line); 2 a \
      keyring still waits for its password; 69 keychaind is not running or another provider \
      answers.
      """)

  @Option(name: .customLong("dir"), help: "gnome-keyring's directory (default: its own).")
  var directory: String?

  @Flag(help: "Read and decrypt everything, write nothing, and report what would be imported.")
  var dryRun = false

  @Flag(help: "Read one password from standard input (one line) and try it on every keyring.")
  var passwordStdin = false

  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await FileImport(
      source: "gnome-keyring's", directory: directory, dryRun: dryRun,
      passwordStdin: passwordStdin, json: json
    ).run { try await $0.importGnomeKeyring(directory: $1, passwords: $2, dryRun: $3) }
  }
}

struct ImportOO7: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "oo7",
    abstract: "Import oo7's keyrings (the v1 format) into the running keychaind.",
    discussion: """
      keychaind reads every *.keyring file of oo7's directory ($XDG_DATA_HOME/keyrings/v1, \
      also where libsecret's file backend writes), checks its whole structure, then decrypts \
      it with the passwords it knows (those that opened its collections, those gnome-keyring \
      kept in its login keyring, and one given here), item by item, since a file may hold \
      items under two passwords. login goes into keychaind's login collection, any other file \
      into the collection of its name (made with the file's password if there is none), in one \
      transaction per file: labels, attributes, secrets and dates; xdg:content-type becomes the \
      item's content type. Nothing in keychaind is deleted; an unchanged file is skipped; oo7's \
      files are opened read-only and never changed. keychaind does the same by itself whenever \
      a password unlocks it. At a terminal, a password is asked for each keyring still waiting \
      for one (an empty answer skips it). Exit codes: 0 every keyring is imported (or was \
      already); 1 a file or an item is damaged (named, with the byte or the item's position); \
      2 a keyring, or some of its items, still waits for a password; 69 keychaind is not \
      running or another provider answers.
      """)

  @Option(name: .customLong("dir"), help: "oo7's keyring directory (default: its own).")
  var directory: String?

  @Flag(help: "Read and decrypt everything, write nothing, and report what would be imported.")
  var dryRun = false

  @Flag(help: "Read one password from standard input (one line) and try it on every keyring.")
  var passwordStdin = false

  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await FileImport(
      source: "oo7's", directory: directory, dryRun: dryRun, passwordStdin: passwordStdin,
      json: json
    ).run { try await $0.importOO7(directory: $1, passwords: $2, dryRun: $3) }
  }
}

struct ImportKWallet: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "kwallet",
    abstract: "Import KDE's wallets into the running keychaind.",
    discussion: """
      keychaind reads every *.kwl file of KWallet's directory ($XDG_DATA_HOME/kwalletd), with \
      its .salt file, decrypts it whole with the passwords it knows (those that opened its \
      collections, and one given here) and merges it in one transaction: the default wallet \
      (kdewallet, or kwalletrc's Default Wallet) into keychaind's default collection, any other \
      into the collection with its name, made with the wallet's password if there is none. \
      Entries become the items KDE programs find through keychaind's KWallet API (folder = \
      attribute server, key = user, type plaintext, base64 or map). Nothing in keychaind is \
      deleted; an unchanged file is skipped; KWallet's files are opened read-only and never \
      changed. keychaind does the same by itself whenever a password unlocks it. GPG wallets \
      wait (decrypt them with KWallet first). At a terminal, a password is asked for each \
      wallet still waiting for one (an empty answer skips it). Exit codes: 0 every wallet is \
      imported (or was already); 1 a file is damaged or unreadable (named, with the byte); 2 \
      a wallet still waits for its password; 69 keychaind is not running or another provider \
      answers.
      """)

  @Option(name: .customLong("dir"), help: "KWallet's directory (default: its own).")
  var directory: String?

  @Flag(help: "Read and decrypt everything, write nothing, and report what would be imported.")
  var dryRun = false

  @Flag(help: "Read one password from standard input (one line) and try it on every wallet.")
  var passwordStdin = false

  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await FileImport(
      source: "KWallet's", directory: directory, dryRun: dryRun, passwordStdin: passwordStdin,
      json: json
    ).run { try await $0.importKWallet(directory: $1, passwords: $2, dryRun: $3) }
  }
}

/// What both imports of another keyring's files share: the passwords, the progress bar, a
/// password asked at a terminal for each file still waiting, the report and the exit status.
struct FileImport {
  /// Whose files, for the prompt: "gnome-keyring's", "KWallet's".
  let source: String
  let directory: String?
  let dryRun: Bool
  let passwordStdin: Bool
  let json: Bool

  typealias Call = (SecretServiceClient, String, [SecureBytes], Bool) async throws
    -> [ImportFileReport]

  func run(_ call: Call) async throws {
    let client = try await connectedClient()
    let path = directory.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? ""
    var passwords: [SecureBytes] = []
    if passwordStdin {
      guard let line = SecretInput.line(prompt: "Password: ") else {
        throw ValidationError("no password on standard input")
      }
      passwords.append(SecureBytes(copying: line))
    }
    var files = try await importing(client, path, passwords, call)
    // At a terminal, a password for each file that waits for one, until none does.
    if !passwordStdin, SecretInput.isTerminal {
      var asked = Set<String>()
      while let waiting = files.first(where: { $0.status == "pending" && !asked.contains($0.file) })
      {
        asked.insert(waiting.file)
        let name = URL(fileURLWithPath: waiting.file).lastPathComponent
        let typed = SecretInput.line(prompt: "Password of \(source) \(name) (empty to skip): ")
        guard let typed, !typed.isEmpty else { continue }
        files = try await importing(client, path, [SecureBytes(copying: typed)], call)
      }
    }
    ImportReport.print(files, json: json, dryRun: dryRun)
    try ImportReport.exitIfIncomplete(files)
  }

  private func importing(
    _ client: SecretServiceClient, _ path: String, _ passwords: [SecureBytes], _ call: Call
  ) async throws -> [ImportFileReport] {
    // A progress bar on a terminal, from keychaind's Progress signals.
    let bar = isatty(STDERR_FILENO) != 0 && !json ? await ProgressBar(client) : nil
    defer { bar?.finish() }
    do {
      return try await call(client, path, passwords, dryRun)
    } catch let error as DBusError where error.name == .unknownMethod {
      complain("keychainctl: the Secret Service provider running is not keychaind (\(error))")
      throw Exit.unavailable
    }
  }
}

/// Files and items done, drawn on standard error while keychaind imports.
final class ProgressBar: Sendable {
  private let watcher: Task<Void, Never>

  init?(_ client: SecretServiceClient) async {
    let progress = SecretService.ImportSignals.progress
    guard
      let stream = try? await client.connection.signals(
        matching: progress.rule(sender: SecretService.busName))
    else { return nil }
    watcher = Task {
      for await message in stream {
        guard let (file, index32, files32, done32, items32) = try? progress.arguments(of: message)
        else { continue }
        let (index, files, done, items) = (
          Int(index32), Int(files32), Int(done32), Int(items32)
        )
        let filled = items > 0 ? 20 * done / items : 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled)
        let name = URL(fileURLWithPath: file).lastPathComponent
        FileHandle.standardError.write(
          Data("\r\u{1B}[K[\(bar)] \(name) (\(index + 1)/\(files)): \(done)/\(items) items".utf8))
      }
    }
  }

  func finish() {
    watcher.cancel()
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }
}

/// What keychaind answered for each file or collection, as text or JSON.
enum ImportReport {
  static func print(_ files: [ImportFileReport], json: Bool, dryRun: Bool) {
    if json {
      let objects = files.map { file -> [String: Any] in
        var object: [String: Any] = [
          "file": file.file, "collection": file.collection, "status": file.status,
        ]
        if let reason = file.reason { object["reason"] = reason }
        for (name, value) in file.counts { object[name] = value }
        return object
      }
      try? printJSON(["dry_run": dryRun, "files": objects])
      return
    }
    if files.isEmpty { Swift.print("nothing to import") }
    for file in files {
      // A file that failed before its collection was known has none to name.
      var line = file.collection.isEmpty ? file.file : "\(file.file) → \(file.collection)"
      line += ": \(file.status)"
      if dryRun, file.status == "imported" { line += " (dry run: nothing written)" }
      if file.status == "imported" { line += ": " + file.summary }
      if let reason = file.reason { line += " (\(reason))" }
      Swift.print(line)
    }
  }

  /// The exit status the manual documents: 1 if anything failed, 2 if anything waits.
  static func exitIfIncomplete(_ files: [ImportFileReport]) throws {
    if files.contains(where: { $0.status == "failed" }) { throw Exit.failure }
    if files.contains(where: { $0.status == "pending" }) { throw ExitCode(2) }
  }
}
