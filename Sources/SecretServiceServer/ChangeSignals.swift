// SPDX-License-Identifier: MIT
//
// Telling clients what changed, in gnome-keyring's order (measured against gnome-keyring 42.1):
// the Secret Service's own signals (ItemCreated, ItemChanged, CollectionChanged, …) go out
// before the method's reply, and PropertiesChanged after it, always with the new value in
// `changed_properties` and nothing in `invalidated`. libsecret's proxies read only the changed
// values and drop an invalidated property from their cache; a collection whose `Items` was
// invalidated then crashes libsecret (and Seahorse) on the next ItemCreated or ItemDeleted.
// Signals come from the objects' canonical paths: alias paths are only ways in.

import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// The Secret Service's announcer: its signals for each event (see `StoreEvent`).
struct SecretServiceAnnouncer: ChangeAnnouncer {
  let core: DaemonCore
  /// Announces changed `Items` and `Collections` lists (see `ListAnnouncer`).
  let lists = ListAnnouncer()

  func announce(
    _ events: [StoreEvent], on connection: any MessageTransport, after request: MethodRequest?
  ) async {
    let signals = ChangeSignals(
      connection: connection, core: core, lists: lists, request: request)
    for event in events {
      switch event {
      case .itemCreated(let item): await signals.itemCreated(item)
      case .itemReplaced(let item): await signals.itemReplaced(item)
      case .itemChanged(let item, let properties): await signals.itemChanged(item, properties)
      case .itemDeleted(let item, _): await signals.itemDeleted(item)
      case .collectionCreated(let name): await signals.collectionCreated(name)
      case .collectionChanged(let name, let properties):
        await signals.collectionChanged(name, properties)
      case .collectionDeleted(let name): await signals.collectionDeleted(name)
      case .lockChanged(let names, let changed, let locked):
        signals.lockChanged(names, changed: changed, locked: locked)
      case .itemsChanged(let name): signals.afterReply { signals.itemsChanged(name) }
      case .itemsImported: break
      }
    }
  }
}

/// The signals that follow a change. A signal that cannot be sent does not fail the change
/// that caused it: the change has been made, and the caller gets its reply.
private struct ChangeSignals {
  let connection: any MessageTransport
  let core: DaemonCore
  let lists: ListAnnouncer
  var store: KeychainStore { core.store }
  /// The call that made the change: its PropertiesChanged wait for its reply. Without one (a
  /// prompt's work, which runs after `Prompt()` replied) they go at once.
  let request: MethodRequest?

  // MARK: Items

  /// A new item: `ItemCreated`, then the collection's new `Items`.
  func itemCreated(_ item: ItemID) async {
    await emit(Items.itemCreated, from: collection(item.collection), item)
    afterReply { itemsChanged(item.collection) }
  }

  /// An item replaced by `CreateItem(replace: true)`: `ItemCreated` for the same path, as
  /// gnome-keyring sends, and also `ItemChanged`, after which libsecret reads the item's new
  /// label and attributes (gnome-keyring leaves its proxies with the old ones).
  func itemReplaced(_ item: ItemID) async {
    await emit(Items.itemCreated, from: collection(item.collection), item)
    await emit(Items.itemChanged, from: collection(item.collection), item)
  }

  /// A changed item: `ItemChanged`, then its changed properties' new values, if any.
  func itemChanged(_ item: ItemID, _ properties: [String: DBusValue] = [:]) async {
    await emit(Items.itemChanged, from: collection(item.collection), item)
    guard !properties.isEmpty else { return }
    afterReply {
      await propertiesChanged(Resolver.path(of: item), SecretService.itemInterface, properties)
    }
  }

  /// A deleted item: `ItemDeleted`, then the collection's new `Items`.
  func itemDeleted(_ item: ItemID) async {
    await emit(Items.itemDeleted, from: collection(item.collection), item)
    afterReply { itemsChanged(item.collection) }
  }

  // MARK: Collections

  func collectionCreated(_ name: String) async {
    await emit(Collections.collectionCreated, from: SecretPath.base, collection(name))
    afterReply { collectionsChanged() }
  }

  /// A changed collection: `CollectionChanged`, then its changed properties' new values.
  func collectionChanged(_ name: String, _ properties: [String: DBusValue] = [:]) async {
    await emit(Collections.collectionChanged, from: SecretPath.base, collection(name))
    guard !properties.isEmpty else { return }
    afterReply {
      await propertiesChanged(collection(name), SecretService.collectionInterface, properties)
    }
  }

  func collectionDeleted(_ name: String) async {
    await emit(Collections.collectionDeleted, from: SecretPath.base, collection(name))
    afterReply { collectionsChanged() }
  }

  /// After a lock or unlock of `names`: for each collection, `ItemChanged` for each of its
  /// items and `CollectionChanged`; then, for those whose state did change (`changed`), each
  /// item's and the collection's new `Locked`. So a client's proxies reread the items, whose
  /// label and attributes come back after an unlock.
  ///
  /// gnome-keyring sends the same signals in the same order, the first ones before its reply;
  /// keychaind sends them all after the reply, in batches, so that locking a collection of
  /// 100k items (200k signals) does not hold its caller for seconds.
  func lockChanged(_ names: [String], changed: Set<String>, locked: Bool) {
    let (connection, store) = (connection, store)
    afterReply {
      for name in names {
        let items = (try? store.items(in: name) as [ItemID]) ?? []
        let path = Resolver.path(ofCollection: name)
        // Messages made a batch at a time, each batch sent in one visit to the connection's
        // thread, which is free in between to write them out.
        func send(_ count: Int, _ message: (Int) -> Message) async {
          for start in stride(from: 0, to: count, by: 1000) {
            try? await connection.send((start..<min(start + 1000, count)).map(message))
            await Task.yield()
          }
        }
        let itemPaths = SecretPath.items(of: name, items.map { $0.id })
        await send(itemPaths.count) { index in
          Items.itemChanged.message(from: path, itemPaths[index])
        }
        try? await connection.emit(Collections.collectionChanged, from: SecretPath.base, path)
        guard changed.contains(name) else { continue }
        let lockedValue = SecretService.ItemProperty.locked.changed(locked).dbusValue
        await send(itemPaths.count) { index in
          .signal(
            path: itemPaths[index], interface: .properties, member: "PropertiesChanged",
            body: [
              .string(SecretService.itemInterface.rawValue), lockedValue, [String]().dbusValue,
            ])
        }
        try? await connection.emitPropertiesChanged(
          at: path, interface: SecretService.collectionInterface,
          changed: SecretService.CollectionProperty.locked.changed(locked))
        if items.count >= MemoryRelease.largeList { MemoryRelease.soon() }
      }
    }
  }

  // MARK: Helpers

  private typealias Items = SecretService.CollectionSignals
  private typealias Collections = SecretService.ServiceSignals

  private func collection(_ name: String) -> ObjectPath { Resolver.path(ofCollection: name) }

  func afterReply(_ action: @escaping @Sendable () async -> Void) {
    if let request {
      request.afterReply(action)
    } else {
      connection.afterReply(action)
    }
  }

  private func emit(_ signal: Emits<ObjectPath>, from path: ObjectPath, _ item: ItemID) async {
    await emit(signal, from: path, Resolver.path(of: item))
  }

  private func emit(_ signal: Emits<ObjectPath>, from path: ObjectPath, _ object: ObjectPath)
    async
  {
    try? await connection.emit(signal, from: path, object)
  }

  private func propertiesChanged(
    _ path: ObjectPath, _ interface: InterfaceName, _ properties: [String: DBusValue]
  ) async {
    try? await connection.emitPropertiesChanged(
      at: path, interface: interface, changed: properties, invalidated: [])
  }

  /// The collection's `Items`, soon (see `ListAnnouncer`).
  func itemsChanged(_ name: String) {
    lists.itemsChanged(name, connection: connection, store: store, logger: core.logger)
  }

  /// The service's `Collections`, soon.
  private func collectionsChanged() {
    lists.collectionsChanged(connection: connection, store: store)
  }
}
