// SPDX-License-Identifier: MIT
//
// Filling a provider's store with N items without going through CreateItem, for runs at 10k
// and 100k items: gnome-keyring rewrites its whole file on every CreateItem, so filling it
// through the bus would take hours. Both stores get the items `measure --seeded` expects.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainStore
import KeychainSystem
import SystemPackage

struct Seed: ParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Fill an empty store with ITEMS items, the provider not running.",
    discussion: """
      keychaind: the store in --data-dir (keychaind's data directory) gets a "login"
      collection, alias "default", with the password read from standard input, holding the
      items; start keychaind with --unlock and the same password afterwards.

      gnome-keyring: --data-dir is its keyrings directory; login.keyring is written in
      gnome-keyring's unencrypted text format. Start gnome-keyring-daemon, then convert it to
      its encrypted format with `keychain-load set-password --old '' --new PASSWORD`.
      """)

  enum Format: String, ExpressibleByArgument, CaseIterable {
    case keychaind
    case gnomeKeyring = "gnome-keyring"
  }

  @Argument(help: "Whose store to write: keychaind or gnome-keyring.")
  var format: Format

  @Option(help: "The directory the store lives in.")
  var dataDir: String

  @Option(help: "How many items.")
  var items: Int

  func run() throws {
    guard items > 0 else { throw ValidationError("items must be > 0") }
    switch format {
    case .keychaind: try seedKeychaind()
    case .gnomeKeyring: try seedGnomeKeyring()
    }
  }

  private func seedKeychaind() throws {
    var input = FileHandle.standardInput.readDataToEndOfFile()
    if input.last == 0x0A { input.removeLast() }
    let password = SecureBytes(copying: Array(input))
    let store = try KeychainStore(directory: dataDir)
    guard try !store.hasCollection(KeychainStore.loginCollection) else {
      throw ValidationError("\(dataDir) already has a login collection")
    }
    try store.createCollection(
      name: KeychainStore.loginCollection, label: "Login", password: password)
    try store.setAlias("default", to: KeychainStore.loginCollection)
    // Batches of 500: each secret waits in libgcrypt's secure pool until its batch is written, and
    // the pool's first-fit allocator slows down with every block it holds.
    for start in stride(from: 0, to: items, by: 500) {
      let batch = (start..<min(items, start + 500)).map { index in
        ImportedItem(
          label: ServiceClient.label(index),
          attributes: ServiceClient.attributes(index: index, run: ServiceClient.seedRun),
          secret: SecureBytes(
            copying: ServiceClient.secret(index: index, run: ServiceClient.seedRun)))
      }
      _ = try store.importItems(batch, into: KeychainStore.loginCollection)
    }
    try store.close()
  }

  /// gnome-keyring's text format: a [keyring] group, then per item a group [ID] and one group
  /// [ID:attributeJ] per attribute. Our values need no escaping (ASCII, no newlines).
  private func seedGnomeKeyring() throws {
    try FileManager.default.createDirectory(
      atPath: dataDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let path = dataDir + "/login.keyring"
    guard !FileManager.default.fileExists(atPath: path) else {
      throw ValidationError("\(path) exists already")
    }
    let now = Int(Date().timeIntervalSince1970)
    var text = """
      [keyring]
      display-name=Login
      ctime=\(now)
      mtime=\(now)
      lock-on-idle=false
      lock-after=false


      """
    for index in 0..<items {
      let id = index + 1
      let secret = String(
        decoding: ServiceClient.secret(index: index, run: ServiceClient.seedRun), as: UTF8.self)
      text += "[\(id)]\nitem-type=0\ndisplay-name=\(ServiceClient.label(index))\n"
      text += "secret=\(secret)\nmtime=\(now)\nctime=\(now)\n\n"
      let attributes = ServiceClient.attributes(index: index, run: ServiceClient.seedRun)
      for (number, (name, value)) in attributes.sorted(by: { $0.key < $1.key }).enumerated() {
        text += "[\(id):attribute\(number)]\nname=\(name)\ntype=string\nvalue=\(value)\n\n"
      }
    }
    guard
      let file = try? FileDescriptor.open(
        path: path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec],
        permissions: [.ownerReadWrite])
    else { throw ValidationError("cannot create \(path)") }
    defer { file.closeQuietly() }
    try file.writeAll(text.utf8)
  }
}
