// SPDX-License-Identifier: MIT
//
// The encrypted backup: `keychainctl export` reads chosen collections through the Secret
// Service (any provider: keychaind or gnome-keyring) and seals them, every field of every
// item, into one file with a passphrase (Argon2id and AES-256-GCM; the layout is in
// Sources/KeychainImport/Backup.swift and keychainctl(1)); `keychainctl import backup` has
// keychaind restore it with the import's merge rules.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import KeychainImport
import KeychainSystem
import SecretServiceClient
import SecretServiceProtocol
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

struct Export: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Write collections, every item whole, to a file sealed with a passphrase.",
    discussion: """
      With --format v1, one collection is written as a keyring file that oo7 and libsecret's \
      file backend open with that password (put it at $XDG_DATA_HOME/keyrings/v1/NAME.keyring \
      for oo7-daemon); with --format v0, as gnome-keyring's own keyring file (put it at \
      $XDG_DATA_HOME/keyrings/NAME.keyring). Otherwise (--format backup): every item's label, \
      attributes, content type, dates, number and secret, for the collections named with \
      --collection (by name, the last element of their path, or label), or all of them. Locked \
      collections are unlocked through the provider's prompt first. The passphrase (asked \
      twice without echo at a terminal, else one line of standard input) is stretched with \
      Argon2id (t=3, m=64 MiB, p=4) into an AES-256-GCM key; a changed byte makes the whole \
      file refused. The file is created 0600 and never overwritten. Restore it with \
      `keychainctl import backup FILE`. Works with any Secret Service provider. The file: the \
      16 bytes "KEYCHAIN-BACKUP\\n", a version byte (1), Argon2id's t, m (KiB) and p as \
      big-endian 32-bit numbers, a 16-byte salt, then a 12-byte nonce, the AES-256-GCM \
      ciphertext and its 16-byte tag, the first 45 bytes being the associated data. The \
      plaintext: a 32-bit collection count; per collection its name and label, an item count; \
      per item its number, label, content type, created and modified (64-bit seconds), an \
      attribute count, each name and value, and the secret; texts and the secret each after a \
      32-bit length.
      """)

  /// What the file is.
  enum Format: String, ExpressibleByArgument, CaseIterable {
    /// keychainctl's own sealed backup, of any number of collections.
    case backup
    /// The keyring file of oo7 and libsecret's file backend, of one collection.
    case v1
    /// gnome-keyring's own keyring file, of one collection.
    case v0
  }

  @Option(name: .shortAndLong, help: "The file to write (must not exist).")
  var output: String

  @Option(
    help: ArgumentHelp(
      "backup (the default), v1 (oo7's and libsecret's file) or v0 (gnome-keyring's file).",
      discussion: "v1 and v0 hold one collection, keyed by a password asked like the passphrase."))
  var format: Format = .backup

  @Option(help: "A collection to export (repeatable; default: all).")
  var collection: [String] = []

  @Argument(help: "Collections to export, as with --collection.")
  var collections: [String] = []

  func run() async throws {
    let client = try await connectedClient()
    let collection = self.collection + collections
    if format != .backup, collection.count != 1 {
      throw ValidationError("--format \(format.rawValue) writes one collection: name it")
    }
    var chosen = try await client.collections().filter { !$0.path.rawValue.hasSuffix("/session") }
    if !collection.isEmpty {
      // By label, or by name (the last element of its path).
      func names(_ name: String, _ remote: RemoteCollection) -> Bool {
        name == remote.label
          || name == remote.path.rawValue.split(separator: "/").last.map(String.init)
      }
      chosen = chosen.filter { remote in collection.contains { names($0, remote) } }
      let missing = collection.filter { name in !chosen.contains { names(name, $0) } }
      guard missing.isEmpty else {
        complain("keychainctl: no collection " + missing.map { "'\($0)'" }.joined(separator: ", "))
        throw Exit.failure
      }
    }
    let passphrase = try SecretInput.newPassword(
      prompt: format == .backup ? "Passphrase for the backup: " : "Password for the keyring file: ")
    guard !passphrase.isEmpty else { throw ValidationError("the passphrase is empty") }
    var collections: [BackupCollection] = []
    for remote in chosen {
      if remote.isLocked {
        guard try await !client.unlock([remote.path]).isEmpty else {
          complain("keychainctl: \(remote.label) stayed locked; nothing was written")
          throw Exit.failure
        }
      }
      var items: [BackupItem] = []
      for path in remote.items {
        let item = try await client.item(path)
        let (secret, contentType) = try await client.secretAndContentType(of: path)
        items.append(
          BackupItem(
            number: UInt32(path.rawValue.split(separator: "/").last ?? "") ?? 0,
            label: item.label, contentType: contentType, created: item.created,
            modified: item.modified, attributes: item.attributes, secret: secret))
      }
      let name = remote.path.rawValue.split(separator: "/").last.map(String.init) ?? ""
      collections.append(BackupCollection(name: name, label: remote.label, items: items))
    }
    let key = SecureBytes(copying: passphrase)
    let sealed: [UInt8]
    switch format {
    case .backup: sealed = try Backup.seal(collections, passphrase: key)
    case .v1: sealed = try V1Writer.seal(collections[0].items, password: key)
    case .v0:
      let times = collections[0].items.flatMap { [$0.created, $0.modified] }
      sealed = try BinaryKeyringWriter.seal(
        label: collections[0].label, created: times.min() ?? Date(),
        modified: times.max() ?? Date(), items: collections[0].items, password: key)
    }
    try write(sealed, to: output)
    let count = collections.reduce(0) { $0 + $1.items.count }
    print("wrote \(count) item(s) of \(collections.count) collection(s) to \(output)")
  }

  /// Creates `path` 0600, failing if it exists, and syncs it before returning.
  private func write(_ bytes: [UInt8], to path: String) throws {
    let file: FileDescriptor
    do {
      file = try FileDescriptor.open(
        path: path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec, .noFollow],
        permissions: [.ownerReadWrite])
    } catch {
      complain("keychainctl: cannot create \(path): \(error)")
      throw Exit.failure
    }
    defer { file.closeQuietly() }
    do {
      try bytes.withUnsafeBytes { try file.writeAll(bytes: $0) }
    } catch {
      complain("keychainctl: cannot write \(path): \(error)")
      unlink(path)
      throw Exit.failure
    }
    do {
      try file.synchronize()
    } catch {
      complain("keychainctl: cannot sync \(path): \(error)")
      throw Exit.failure
    }
  }
}

struct ImportBackup: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "backup",
    abstract: "Restore a backup made by keychainctl export into the running keychaind.",
    discussion: """
      keychaind reads and authenticates the whole file first (a wrong passphrase or a changed \
      byte: nothing is written), then merges each collection into the one of the same name: \
      an item matches by its number and attributes, or its attributes; the newer one is kept; \
      nothing is deleted or duplicated. A collection keychaind does not have is created with \
      the backup's passphrase as its password (change it with keychainctl passwd); a locked \
      one waits until it is unlocked. Exit codes: 0 restored; 1 the file cannot be read or \
      opened; 2 a collection is locked; 69 keychaind is not running. The passphrase is asked \
      without echo at a terminal, else read as one line of standard input.
      """)

  @Argument(help: "The backup file.") var file: String

  @Flag(help: "Read and authenticate the backup, write nothing, and report what it holds.")
  var dryRun = false

  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    let client = try await connectedClient()
    guard let passphrase = SecretInput.line(prompt: "Passphrase: "), !passphrase.isEmpty else {
      throw ValidationError("no passphrase given")
    }
    let path = URL(fileURLWithPath: file).standardizedFileURL.path
    let collections: [ImportFileReport]
    do {
      collections = try await client.importBackup(
        file: path, passphrase: SecureBytes(copying: passphrase), dryRun: dryRun)
    } catch let error as DBusError where error.name == .unknownMethod {
      complain("keychainctl: the Secret Service provider running is not keychaind (\(error))")
      throw Exit.unavailable
    }
    ImportReport.print(collections, json: json, dryRun: dryRun)
    try ImportReport.exitIfIncomplete(collections)
  }
}
