// SPDX-License-Identifier: MIT
//
// Collections as keychainctl shows them: label, lock state, item count, the default alias.

import KeychainDBus
import SecretServiceProtocol

/// A collection as the provider describes it.
public struct RemoteCollection: Sendable, Hashable {
  public var path: ObjectPath
  public var label: String
  public var isLocked: Bool
  public var itemCount: Int
  /// Its items' paths, as its `Items` property lists them.
  public var items: [ObjectPath] = []
}

extension SecretServiceClient {
  /// Every collection of the provider, in its order.
  public func collections() async throws -> [RemoteCollection] {
    typealias Collection = SecretService.CollectionProperty
    var collections: [RemoteCollection] = []
    for path in try await get(SecretService.ServiceProperty.collections, of: Self.service) {
      let properties = try await properties(of: path, SecretService.collectionInterface)
      let items = try Collection.items.value(in: properties) ?? []
      guard let locked = try Collection.locked.value(in: properties) else {
        throw DBusError(.failed, "\(path) has no Locked property")
      }
      collections.append(
        RemoteCollection(
          path: path, label: try Collection.label.value(in: properties) ?? "", isLocked: locked,
          itemCount: items.count, items: items))
    }
    return collections
  }

  /// The collection an alias (`default`) names, or nil.
  public func readAlias(_ name: String) async throws -> ObjectPath? {
    let path = try await call(Self.service, SecretService.ServiceMethods.readAlias, name)
    return path.rawValue == "/" ? nil : path
  }

  /// The unique name and process id of the provider.
  public func provider() async throws -> (name: BusName?, pid: UInt32?) {
    let owner = try await connection.nameOwner(SecretService.busName)
    let pid = try? await connection.credentials(of: SecretService.busName).pid
    return (owner, pid)
  }
}

extension SecretServiceClient {
  /// CreateCollection with `label` (and `alias`, if given), through the provider's prompt.
  public func createCollection(label: String, alias: String = "") async throws -> ObjectPath {
    let (collection, prompt) = try await call(
      Self.service, SecretService.ServiceMethods.createCollection,
      NewCollectionProperties(label: label).dbusProperties, alias)
    if collection.rawValue != "/" { return collection }
    guard let created = try await complete(prompt)?.objectPath else {
      throw DBusError(.failed, "CreateCollection's prompt returned no collection")
    }
    return created
  }

  /// Deletes a collection and its items (through the provider's prompt, if it asks).
  public func deleteCollection(_ collection: ObjectPath) async throws {
    let prompt = try await call(collection, SecretService.CollectionMethods.delete)
    _ = try await complete(prompt)
  }

  /// Points alias `name` (`default`) at `collection`.
  public func setAlias(_ name: String, to collection: ObjectPath) async throws {
    try await call(Self.service, SecretService.ServiceMethods.setAlias, name, collection)
  }

  /// Changes a collection's password through the provider's prompt (gnome-keyring's
  /// ChangeWithPrompt, which keychaind also offers).
  public func changePassword(of collection: ObjectPath) async throws {
    let prompt = try await call(
      Self.service, SecretService.GnomeKeyringMethods.changeWithPrompt, collection)
    _ = try await complete(prompt)
  }
}
