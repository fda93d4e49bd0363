// SPDX-License-Identifier: MIT
//
// secret-tool's verbs, with its arguments and its output, over the bus.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

/// The provider on the session bus, or exit 69 saying why there is none.
func connectedClient() async throws -> SecretServiceClient {
  do {
    return try await SecretServiceClient.connect()
  } catch {
    complain("keychainctl: no Secret Service provider is reachable (\(error))")
    throw Exit.unavailable
  }
}

/// A QUERY of `exec` and `share`: attribute=value pairs joined by commas.
enum ItemQuery {
  /// The attributes of `query`; errors quote `context`, the argument it came in.
  static func parse(_ query: String, in context: String) throws -> [String: String] {
    var attributes: [String: String] = [:]
    for pair in query.split(separator: ",") {
      let attribute = pair.split(separator: "=", maxSplits: 1).map(String.init)
      guard attribute.count == 2, !attribute[0].isEmpty else {
        throw ValidationError("'\(context)': a QUERY is attribute=value pairs joined by commas")
      }
      attributes[attribute[0]] = attribute[1]
    }
    guard !attributes.isEmpty else {
      throw ValidationError("'\(context)': the QUERY names no attribute")
    }
    return attributes
  }

  /// `attributes` as a person typed them, sorted.
  static func text(_ attributes: [String: String]) -> String {
    attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
  }
}

/// Unlocked and (unlocked on request, through the provider's prompt) locked matches.
func matches(_ client: SecretServiceClient, _ attributes: [String: String], unlock: Bool)
  async throws -> [ObjectPath]
{
  let (unlocked, locked) = try await client.search(attributes)
  return unlock ? unlocked + (try await client.unlock(locked)) : unlocked
}

struct Store: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Store a secret (read from the terminal or standard input) with attributes.")

  @Option(help: "The item's label.") var label: String
  @Option(help: "The collection: a path, an alias's path or a label (default: the default one).")
  var collection: String?
  @OptionGroup var attributes: AttributePairs

  func run() async throws {
    let client = try await connectedClient()
    // Resolved before the secret is read, so that a wrong name costs no typing.
    var path = SecretServiceClient.defaultCollection
    if let collection {
      // An alias's path is taken as it is; anything else must name a collection.
      path =
        if let alias = ObjectPath(validating: collection),
          case .alias? = SecretPath(alias)
        {
          alias
        } else {
          try await collectionPath(client, collection)
        }
    }
    let secret = SecureBytes(copying: SecretInput.read(prompt: "Password: ", trimNewline: false))
    _ = try await client.createItem(
      in: path, label: label, attributes: attributes.attributes, secret: secret, replace: true)
  }
}

struct Lookup: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Print the secret of the first item with these attributes.")

  @OptionGroup var attributes: AttributePairs

  func run() async throws {
    let client = try await connectedClient()
    guard let item = try await matches(client, attributes.attributes, unlock: true).first else {
      throw Exit.failure
    }
    FileHandle.standardOutput.write(Data(try await client.secret(of: item).copyBytes()))
  }
}

struct Search: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show the items with these attributes (the first one unless --all).")

  @Flag(help: "Show every match.") var all = false
  @Flag(help: "Unlock locked matches (through the provider's prompt).") var unlock = false
  @Flag(help: "Print JSON: an array of items.") var json = false
  @OptionGroup var attributes: AttributePairs

  func run() async throws {
    let client = try await connectedClient()
    let (unlocked, locked) = try await client.search(attributes.attributes)
    var found = unlock ? unlocked + (try await client.unlock(locked)) : unlocked + locked
    if !all { found = Array(found.prefix(1)) }
    var objects: [[String: Any]] = []
    for path in found {
      let item = try await client.item(path)
      let secret = try? await client.secret(of: path)
      var object: [String: Any] = [
        "path": path.rawValue, "label": item.label, "attributes": item.attributes,
        "created": Int(item.created.timeIntervalSince1970),
        "modified": Int(item.modified.timeIntervalSince1970),
      ]
      if let secret { object["secret"] = String(decoding: secret.copyBytes(), as: UTF8.self) }
      objects.append(object)
      if !json { printBlock(item, secret: secret) }
    }
    if json { try printJSON(objects) }
    if found.isEmpty { throw Exit.failure }
  }

  /// secret-tool's layout: the path in brackets, then `name = value` lines.
  private func printBlock(_ item: RemoteItem, secret: SecureBytes?) {
    let format = DateFormatter()
    format.dateFormat = "yyyy-MM-dd HH:mm:ss"
    print("[\(item.path.rawValue)]")
    print("label = \(item.label)")
    if let secret { print("secret = \(String(decoding: secret.copyBytes(), as: UTF8.self))") }
    print("created = \(format.string(from: item.created))")
    print("modified = \(format.string(from: item.modified))")
    if let schema = item.attributes["xdg:schema"] { print("schema = \(schema)") }
    for (name, value) in item.attributes.sorted(by: { $0.key < $1.key }) where name != "xdg:schema"
    {
      print("attribute.\(name) = \(value)")
    }
  }
}

struct Clear: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Delete every item with these attributes.")

  @OptionGroup var attributes: AttributePairs

  func validate() throws {
    guard !attributes.pairs.isEmpty else {
      throw ValidationError("clear needs attributes; it will not delete everything")
    }
  }

  func run() async throws {
    let client = try await connectedClient()
    let items = try await matches(client, attributes.attributes, unlock: true)
    for item in items { try await client.delete(item) }
    if items.isEmpty { throw Exit.failure }
  }
}

/// The collection a lock or unlock names: with --collection, or as its one argument.
struct CollectionChoice: ParsableArguments {
  @Option(help: "The collection's object path or label.") var collection: String?
  @Argument(help: "The same, without --collection.") var name: String?

  var chosen: String? { collection ?? name }

  func validate() throws {
    guard collection == nil || name == nil else {
      throw ValidationError("name the collection once: as an argument or with --collection")
    }
  }
}

/// The collections a lock or unlock applies to: the one named, or all of them.
func collectionPaths(_ client: SecretServiceClient, _ collection: String?) async throws
  -> [ObjectPath]
{
  let all = try await client.collections()
  guard let collection else { return all.map(\.path) }
  var matching = all.filter { $0.path.rawValue == collection || $0.label == collection }
  if matching.isEmpty {
    // Its name, the last element of its path (`login` for the collection labelled Login).
    matching = all.filter { $0.path.rawValue.hasSuffix("/collection/" + collection) }
  }
  guard !matching.isEmpty else {
    complain("keychainctl: no collection '\(collection)'")
    throw Exit.failure
  }
  return matching.map(\.path)
}

struct Lock: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Lock a collection (by path or label), or all of them.")

  @OptionGroup var choice: CollectionChoice
  var collection: String? { choice.chosen }

  func run() async throws {
    let client = try await connectedClient()
    _ = try await client.lock(try await collectionPaths(client, collection))
  }
}

struct Unlock: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Unlock a collection (by path or label), or all of them, through the prompt.",
    discussion: """
      With --password-stdin, one collection is unlocked with the password given: the one named, \
      or the default collection. With --recovery, it is unlocked with one of its recovery keys \
      (`keychainctl slot add recovery`), typed at the terminal or read from standard input; \
      with --tpm2, with this machine's TPM (`keychainctl slot add tpm2`); with --fido2, with a \
      FIDO2 key (`keychainctl slot add fido2`); with both, with a slot that needs both.
      """)

  @OptionGroup var choice: CollectionChoice
  var collection: String? { choice.chosen }
  @Flag(help: .passwordStdin) var passwordStdin = false
  @Flag(help: "Unlock with a recovery key instead of the password.") var recovery = false
  @Flag(help: "Unlock with this machine's TPM (a tpm2 slot).") var tpm2 = false
  @Flag(help: "Unlock with the FIDO2 key plugged in (a fido2 slot); touch it.") var fido2 = false
  @Flag(help: "With --tpm2 or --fido2: ask for the slot's PIN (the TPM's when both).")
  var withPin = false
  @Flag(help: "With --tpm2 --fido2: ask for the FIDO2 key's PIN.") var withFido2Pin = false

  func run() async throws {
    let client = try await connectedClient()
    guard passwordStdin || recovery || tpm2 || fido2 else {
      let wanted = try await collectionPaths(client, collection)
      let command = ["unlock"] + (collection.map { ["--collection", $0] } ?? [])
      let unlocked = try await offeringPasswordStdin(command) { try await client.unlock(wanted) }
      if Set(unlocked) != Set(wanted) {
        complain("keychainctl: not unlocked (the prompt was dismissed?)")
        throw Exit.failure
      }
      return
    }
    guard let path = try await passwordTarget(client) else {
      complain("keychainctl: there is no default collection; name one with --collection")
      throw Exit.failure
    }
    guard passwordStdin else { return try await unlockWithSlot(client, path) }
    // One line, as create and passwd read it.
    guard let password = SecretInput.line(prompt: "Password: ") else {
      throw InputError("no password given")
    }
    try await sayingWrongPassword {
      try await client.unlock(path, password: SecureBytes(copying: password))
    }
  }

  /// Unlocks `path` with the key slot the flags name: a recovery key, the TPM, a FIDO2 key, or
  /// the TPM and a FIDO2 key together.
  private func unlockWithSlot(_ client: SecretServiceClient, _ path: ObjectPath) async throws {
    if recovery {
      guard let key = SecretInput.line(prompt: "Recovery key: ") else {
        throw InputError("no recovery key given")
      }
      return try await sayingWhy {
        try await client.unlock(path, recoveryKey: SecureBytes(copying: key))
      }
    }
    // With both devices, --with-pin is the TPM's, and --with-fido2-pin the key's.
    let tpmPIN = tpm2 && withPin ? SecretInput.line(prompt: "TPM PIN: ") ?? [] : []
    let keyPIN =
      fido2 && (tpm2 ? withFido2Pin : withPin)
      ? SecretInput.line(prompt: "FIDO2 key PIN: ") ?? [] : []
    if fido2, SecretInput.isTerminal { complain("Touch the FIDO2 key when it blinks.") }
    try await sayingWhy {
      switch (tpm2, fido2) {
      case (true, true):
        try await client.unlockWithTPM2AndFIDO2(
          path, tpmPIN: SecureBytes(copying: tpmPIN), fido2PIN: SecureBytes(copying: keyPIN))
      case (true, false):
        try await client.unlockWithTPM2(path, pin: SecureBytes(copying: tpmPIN))
      default:
        try await client.unlockWithFIDO2(path, pin: SecureBytes(copying: keyPIN))
      }
    }
  }

  /// The collection `--collection` names, else the default one.
  private func passwordTarget(_ client: SecretServiceClient) async throws -> ObjectPath? {
    if let collection { return try await collectionPath(client, collection) }
    return try await client.readAlias("default")
  }
}
