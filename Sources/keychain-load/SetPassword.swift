// SPDX-License-Identifier: MIT

import ArgumentParser
import KeychainDBus
import SecretServiceProtocol

/// Sets a collection's password through gnome-keyring's master-password methods: after `seed
/// gnome-keyring`, this turns the seeded text keyring into gnome-keyring's encrypted format.
struct SetPassword: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Change a collection's password with ChangeWithMasterPassword (gnome-keyring's).",
    discussion: """
      Waits (up to 5 minutes) for the collection to appear, as a big keyring loads slowly,
      unlocks it with the old password if it is locked, changes the password and checks the
      number of items when --items is given. For benchmark stores: the passwords are
      arguments.
      """)

  @Option(help: "The collection.")
  var collection = "/org/freedesktop/secrets/collection/login"

  @Option(help: "The current password.")
  var old = ""

  @Option(help: "The new password.")
  var new: String

  @Option(help: "How many items the collection must hold.")
  var items: Int?

  func run() async throws {
    let connection = try await Connection.sessionBus()
    let path = try ObjectPath(collection)
    let client = ServiceClient(connection: connection, collection: path)
    var locked: Bool?
    for _ in 0..<3000 where locked == nil {
      locked = try? await connection.getSecretServiceProperty(
        path, SecretService.CollectionProperty.locked)
      if locked == nil { try await Task.sleep(for: .milliseconds(100)) }
    }
    guard let locked else { throw WrongAnswer(description: "no collection at \(path)") }
    let session = try await client.openSession(.plain)
    if locked {
      try await client.unlock(path, old, session: session)
    }
    try await client.changePassword(path, from: old, to: new, session: session)
    if let items {
      let count = try await connection.getSecretServiceProperty(
        path, SecretService.CollectionProperty.items
      ).count
      guard count == items else {
        throw WrongAnswer(description: "the collection holds \(count) items, not \(items)")
      }
    }
  }
}
