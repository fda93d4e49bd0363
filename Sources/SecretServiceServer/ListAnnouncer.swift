// SPDX-License-Identifier: MIT
//
// A collection's `Items` and the service's `Collections` change with every create and delete,
// and clients need the whole new list in PropertiesChanged (libsecret reads nothing else). At
// 100k items that list is 4.5 MB of paths and about 0.1 s of work, so it is announced at most
// once per 50 ms per object, with the list as it is when it goes out: a burst of writes sends it
// once, and no write waits for it (each still gets its ItemCreated or ItemDeleted at once).

import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import Logging
import SecretServiceProtocol
import Synchronization

final class ListAnnouncer: Sendable {
  /// The shortest wait before an announcement; a long list waits four times what the last
  /// announcement of it took, so that announcing takes at most a fifth of the time in a burst.
  static let delay: Duration = .milliseconds(50)

  /// Objects with an announcement on its way: a collection's name, or "" for the service.
  private let pending = Mutex(Set<String>())
  /// How long each object's last announcement took.
  private let costs = Mutex([String: Duration]())

  /// Announces `collection`'s `Items` soon, if that is not already on its way.
  func itemsChanged(
    _ collection: String, connection: any MessageTransport, store: KeychainStore, logger: Logger
  ) {
    schedule(collection, on: connection) {
      let start = ContinuousClock.now
      guard let items = try? store.items(in: collection) as [ItemID] else { return }
      defer {
        if items.count >= MemoryRelease.largeList {
          logger.debug(
            "announced the \(items.count) items of \(collection) in \(ContinuousClock.now - start)")
        }
      }
      try? await connection.emitPropertiesChanged(
        at: Resolver.path(ofCollection: collection), interface: SecretService.collectionInterface,
        changed: SecretService.CollectionProperty.items.changed(Resolver.paths(of: items)),
        invalidated: [])
      if items.count >= MemoryRelease.largeList { MemoryRelease.soon() }
    }
  }

  /// Announces the service's `Collections` soon, if that is not already on its way.
  func collectionsChanged(connection: any MessageTransport, store: KeychainStore) {
    schedule("", on: connection) {
      guard let names = try? store.collections().map(\.name) else { return }
      try? await connection.emitPropertiesChanged(
        at: SecretPath.base, interface: SecretService.serviceInterface,
        changed: SecretService.ServiceProperty.collections.changed(
          names.map(Resolver.path(ofCollection:))),
        invalidated: [])
    }
  }

  /// Runs `announce` after the wait, as work of `connection`'s (an in-memory transport in a
  /// test runs it when the test says).
  private func schedule(
    _ key: String, on connection: any MessageTransport,
    _ announce: @escaping @Sendable () async -> Void
  ) {
    guard pending.withLock({ $0.insert(key).inserted }) else { return }
    let wait = max(Self.delay, (costs.withLock { $0[key] } ?? .zero) * 4)
    connection.afterReply { [self] in
      try? await Task.sleep(for: wait)
      // Cleared before the list is read, so a change made meanwhile is announced again.
      pending.withLock { _ = $0.remove(key) }
      let cost = await ContinuousClock().measure { await announce() }
      costs.withLock { $0[key] = cost }
    }
  }
}
