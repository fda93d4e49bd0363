// SPDX-License-Identifier: MIT
//
// Writes, unlocking and prompts. A prompt is run the way libsecret runs one: subscribe to its
// Completed signal first, then call Prompt, then wait; a dismissed prompt is the user saying no.

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

/// The user dismissed a prompt (or no prompter could be shown).
public struct PromptDismissed: Error, CustomStringConvertible {
  public var description: String { "the prompt was dismissed" }
}

extension SecretServiceClient {
  /// Runs `prompt` (unless it is "/") and returns its result; throws `PromptDismissed`.
  func complete(_ prompt: ObjectPath) async throws -> DBusValue? {
    guard prompt.rawValue != "/" else { return nil }
    let completedSignal = SecretService.PromptSignals.completed
    let completed = try await connection.signals(matching: completedSignal.rule(path: prompt))
    try await call(prompt, SecretService.PromptMethods.prompt, "")
    for await signal in completed {
      guard let (dismissed, result) = try? completedSignal.arguments(of: signal) else { continue }
      guard !dismissed else { throw PromptDismissed() }
      return result
    }
    throw DBusError(.disconnected, "the bus closed while a prompt was open")
  }

  /// Unlocks `paths` (items or collections), prompting when the provider wants to; returns
  /// those unlocked.
  public func unlock(_ paths: [ObjectPath]) async throws -> [ObjectPath] {
    guard !paths.isEmpty else { return [] }
    return try await lockOrUnlock(SecretService.ServiceMethods.unlock, paths)
  }

  /// Locks `paths` (items or collections); returns those locked.
  public func lock(_ paths: [ObjectPath]) async throws -> [ObjectPath] {
    try await lockOrUnlock(SecretService.ServiceMethods.lock, paths)
  }

  /// Lock or Unlock: the objects done at once, plus those its prompt (if any) did.
  private func lockOrUnlock(
    _ method: Takes<[ObjectPath]>.Returns<[ObjectPath], ObjectPath>, _ paths: [ObjectPath]
  ) async throws -> [ObjectPath] {
    let (first, prompt) = try await call(Self.service, method, paths)
    var done = first
    if let more = try await complete(prompt) { done += try [ObjectPath](dbusValue: more) }
    return done
  }

  /// Creates an item in `collection` (the default one unless given). A missing default
  /// collection is created, and a locked one unlocked, through the provider's prompts.
  public func createItem(
    in collection: ObjectPath = defaultCollection, label: String,
    attributes: [String: String], secret: SecureBytes, contentType: String = "text/plain",
    replace: Bool = false
  ) async throws -> ObjectPath {
    let properties = NewItemProperties(label: label, attributes: attributes).dbusProperties
    let value = try secretValue(secret, contentType: contentType)
    var target = collection
    for attempt in 0..<3 {
      do {
        let (item, prompt) = try await call(
          target, SecretService.CollectionMethods.createItem, properties, value, replace)
        if item.rawValue != "/" { return item }
        guard let created = try await complete(prompt)?.objectPath else {
          throw DBusError(.failed, "CreateItem's prompt returned no item")
        }
        return created
      } catch let error as DBusError where attempt < 2 {
        if error.name == ErrorName.isLocked {
          _ = try await unlock([target])
        } else if error.name.meansNoSuchObject, target == Self.defaultCollection {
          target = try await createDefaultCollection()
        } else {
          throw error
        }
      }
    }
    throw DBusError(.failed, "CreateItem did not succeed")
  }

  /// CreateCollection with the `default` alias, as libsecret does on a fresh account.
  func createDefaultCollection() async throws -> ObjectPath {
    try await createCollection(label: "Default keyring", alias: "default")
  }

  /// Replaces the secret of an item.
  public func setSecret(
    _ secret: SecureBytes, of item: ObjectPath, contentType: String = "text/plain"
  )
    async throws
  {
    try await call(
      item, SecretService.ItemMethods.setSecret,
      try secretValue(secret, contentType: contentType))
  }

  /// Sets a writable property (an item's `Label` or `Attributes`, say) of the object at
  /// `path`.
  public func set<Value>(_ property: Property<Value>, of path: ObjectPath, to value: Value)
    async throws
  {
    _ = try await call(
      path, .properties, "Set",
      [.string(property.interface.rawValue), .string(property.name), .variant(value.dbusValue)])
  }

  /// Deletes an item (running the provider's prompt if it asks for one).
  public func delete(_ item: ObjectPath) async throws {
    let prompt = try await call(item, SecretService.ItemMethods.delete)
    _ = try await complete(prompt)
  }
}
