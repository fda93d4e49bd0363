// SPDX-License-Identifier: MIT
//
// Locking and unlocking outside a call's own handler: for the session side (keychaind's lock
// timers and login unlock), for LockService, and what follows every unlock.

import KeychainDBus
import KeychainStore

extension DaemonCore {
  /// Tells clients that `collections` were unlocked outside any call (at login, through the
  /// control socket), together with what the password hook did meanwhile.
  public func announceUnlocked(
    _ collections: [String], _ effects: PasswordHookEffects, on connection: any MessageTransport
  ) async {
    // What the hook did first, as before: then the unlock of the collections themselves.
    await publish(
      StoreEvent.hooked(effects)
        + [.lockChanged(collections, changed: Set(collections), locked: false)],
      on: connection)
  }

  /// Locks the unlocked collections whose lock policy (their own over the defaults) `applies`
  /// says should lock now, given the collection's name, and tells clients; returns their
  /// names. A collection deleted meanwhile is skipped. A call in flight is not interrupted: it
  /// holds what it read, and the next call finds the collection locked.
  @discardableResult
  public func lock(
    on connection: any MessageTransport, where applies: (String, LockPolicy) -> Bool
  ) async -> [String] {
    guard let own = try? locks.policies() else { return [] }
    let locked =
      (try? lockEverything { applies($0, (own[$0] ?? LockPolicy()).over(locks.defaults)) }) ?? []
    await publish([.locked(locked)], on: connection)
    locks.forgetUse(of: locked)
    return locked
  }

  /// Each collection's own lock settings (those it does not set follow the defaults).
  public func lockPolicies() throws -> [String: LockPolicy] { try locks.policies() }

  /// How long ago a client last read or wrote a secret of `collection`, or it was unlocked;
  /// zero the first time it is asked about a collection.
  public func sinceLastUse(of collection: String) -> Duration {
    locks.sinceLastUse(of: collection)
  }

  /// Locks every unlocked collection for which `applies` holds (the in-memory session one has
  /// no lock) and returns their names: for LockService and for the locks that come from
  /// outside any call (screen lock, sleep, timers).
  package func lockEverything(where applies: (String) -> Bool = { _ in true }) throws
    -> [String]
  {
    let names = try store.collections().map(\.name).filter {
      $0 != KeychainStore.sessionCollection && !store.isLocked($0) && applies($0)
    }
    for name in names { try? store.lock(name) }  // one deleted meanwhile is not an error
    return names.filter { store.isLocked($0) }
  }

  /// After `collections` were unlocked: their search index is checked item by item in the
  /// background, and what damage showed is repaired and logged by object path.
  package func unlocked(_ collections: [String]) {
    locks.noteUse(collections)
    access.collectionsUnlocked(collections)
    access.checkKeptMode(in: collections)
    if access.isOn { access.pinOwners(in: collections) }
    let (store, logger) = (store, logger)
    for collection in collections {
      Task {
        do {
          let repair = try await Blocking.run { try store.repairIndex(collection) }
          MemoryRelease.soon()  // it read every item of the collection
          func paths(_ items: [ItemID]) -> String {
            items.map { Resolver.path(of: $0).rawValue }.joined(separator: ", ")
          }
          if !repair.rebuilt.isEmpty {
            logger.warning(
              "rebuilt the damaged search index of \(repair.rebuilt.count) item(s) of \(collection): \(paths(repair.rebuilt))"
            )
          }
          if !repair.unreadable.isEmpty {
            logger.error(
              "\(repair.unreadable.count) item(s) of \(collection) are damaged and do not decrypt: \(paths(repair.unreadable))"
            )
          }
        } catch {
          logger.warning("the search index of \(collection) could not be checked: \(error)")
        }
      }
    }
  }
}
