// SPDX-License-Identifier: MIT
//
// Telling clients what changed: the Secret Service's own signals and PropertiesChanged, from
// the objects' canonical paths (as gnome-keyring does; alias paths are only ways in).

import KeychainDBus
import KeychainStore
import SecretServiceProtocol

/// The signals that follow a change. A signal that cannot be sent does not fail the change
/// that caused it: the change has been made, and the caller gets its reply.
struct ChangeSignals {
  let connection: Connection

  func itemCreated(_ item: ItemID) async {
    await emit(.collection, "ItemCreated", collection(item.collection), item)
    await invalidated(collection(item.collection), .collection, ["Items"])
  }

  func itemChanged(_ item: ItemID, _ properties: [String: DBusValue] = [:]) async {
    let path = Resolver.path(of: item)
    try? await connection.emitPropertiesChanged(
      at: path, interface: SecretService.itemInterface, changed: properties,
      invalidated: properties["Modified"] == nil ? ["Modified"] : [])
    await emit(.collection, "ItemChanged", collection(item.collection), item)
  }

  func itemDeleted(_ item: ItemID) async {
    await emit(.collection, "ItemDeleted", collection(item.collection), item)
    await invalidated(collection(item.collection), .collection, ["Items"])
  }

  func collectionCreated(_ name: String) async {
    await emit(.service, "CollectionCreated", SecretPath.base, collection(name))
    await invalidated(SecretPath.base, .service, ["Collections"])
  }

  /// A change to a collection; `Modified` is announced as invalidated unless `touched` is
  /// false (locking changes no content).
  func collectionChanged(
    _ name: String, _ properties: [String: DBusValue] = [:], touched: Bool = true
  ) async {
    try? await connection.emitPropertiesChanged(
      at: collection(name), interface: SecretService.collectionInterface, changed: properties,
      invalidated: touched ? ["Modified"] : [])
    await emit(.service, "CollectionChanged", SecretPath.base, collection(name))
  }

  func collectionDeleted(_ name: String) async {
    await emit(.service, "CollectionDeleted", SecretPath.base, collection(name))
    await invalidated(SecretPath.base, .service, ["Collections"])
  }

  /// After a lock or unlock: each collection's `Locked`.
  func lockChanged(_ names: [String], locked: Bool) async {
    for name in names {
      await collectionChanged(name, ["Locked": .boolean(locked)], touched: false)
    }
  }

  // MARK: Helpers

  private enum Interface {
    case service, collection
    var name: InterfaceName {
      self == .service ? SecretService.serviceInterface : SecretService.collectionInterface
    }
  }

  private func collection(_ name: String) -> ObjectPath { Resolver.path(ofCollection: name) }

  private func emit(
    _ interface: Interface, _ member: MemberName, _ from: ObjectPath, _ item: ItemID
  )
    async
  {
    await emit(interface, member, from, Resolver.path(of: item))
  }

  private func emit(
    _ interface: Interface, _ member: MemberName, _ from: ObjectPath, _ object: ObjectPath
  ) async {
    try? await connection.emit(interface.name, member, from: from, [.objectPath(object)])
  }

  /// Lists that may be long (Items, Collections) are announced as invalidated, not resent.
  private func invalidated(_ path: ObjectPath, _ interface: Interface, _ names: [String]) async {
    try? await connection.emitPropertiesChanged(
      at: path, interface: interface.name, changed: [:], invalidated: names)
  }
}
