// SPDX-License-Identifier: MIT
//
// Changes as events. A handler records what it changed on its request (`StoreView.record`);
// work outside any call (a prompt finishing, a lock timer, a login) publishes its events
// directly. Either way they reach `DaemonCore.publish`, which hands them to every API's
// announcer, so a write through one API raises every API's signals, and then does the daemon's
// own follow-up of an unlock (the search index's check, "used now" for the lock timers) in one
// place. (GRDB's TransactionObserver sees a change where it happens; this is the same idea one
// level up, where the signals' order relative to the reply is known.)

import KeychainDBus
import KeychainStore

/// A change clients should hear of.
package enum StoreEvent: Sendable {
  case itemCreated(ItemID)
  /// An item replaced by `CreateItem(replace: true)`.
  case itemReplaced(ItemID)
  /// An item's secret or properties changed; `properties` holds the new values of those set.
  case itemChanged(ItemID, properties: [String: DBusValue] = [:])
  /// An item deleted; `attributes` are those it had (an API whose names come from them, as
  /// KWallet's folders do, says where it was).
  case itemDeleted(ItemID, attributes: [String: String] = [:])
  case collectionCreated(String)
  /// A collection's label or password changed; `properties` holds new values set.
  case collectionChanged(String, properties: [String: DBusValue] = [:])
  case collectionDeleted(String)
  /// Collections locked or unlocked; `changed` are those whose state did change.
  case lockChanged([String], changed: Set<String>, locked: Bool)
  /// Items were added to or changed in a collection in bulk (an import): its item list.
  case itemsChanged(String)
  /// What an import wrote, item by item, and who asked for it (nil: keychaind's own import at
  /// an unlock): for the audit log, not for clients.
  case itemsImported(ImportedItems, by: CallerApp?)

  /// Collections that were unlocked and are locked now.
  package static func locked(_ collections: [String]) -> StoreEvent {
    .lockChanged(collections, changed: Set(collections), locked: true)
  }

  /// The events for what a password hook did: new collections, the unlock of those it
  /// unlocked, then the new item lists of those it changed. `caller` is who asked for the
  /// import, if a call did.
  package static func hooked(_ effects: PasswordHookEffects, by caller: CallerApp? = nil)
    -> [StoreEvent]
  {
    var events = effects.createdCollections.map(StoreEvent.collectionCreated)
    let unlocked = effects.unlockedCollections
    if !unlocked.isEmpty {
      events.append(.lockChanged(unlocked, changed: Set(unlocked), locked: false))
    }
    events += effects.changedCollections.filter { !effects.createdCollections.contains($0) }
      .map(StoreEvent.itemsChanged)
    if !effects.imported.isEmpty { events.append(.itemsImported(effects.imported, by: caller)) }
    return events
  }

  /// The events after `collections` were unlocked (`changed`: those that were locked), and
  /// after what the password hook did with the password that unlocked them.
  package static func unlocked(
    _ collections: [String], changed: Set<String>, hooked: PasswordHookEffects = .init()
  ) -> [StoreEvent] {
    [.lockChanged(collections, changed: changed, locked: false)] + Self.hooked(hooked)
  }
}

/// Turns events into one API's signals, in the order its clients expect them.
package protocol ChangeAnnouncer: Sendable {
  /// Sends the signals for `events` on `connection`. With `request` (the events came from
  /// that call) the signals that must follow the reply wait for it; without one they go now.
  func announce(
    _ events: [StoreEvent], on connection: any MessageTransport, after request: MethodRequest?)
    async
}

extension StoreView {
  /// Records that the call changed something; the announcers hear of it when the call
  /// returns (see `EventFilter`).
  package func record(_ events: StoreEvent...) { record(contentsOf: events) }

  /// Records `events`, in order.
  package func record(contentsOf events: [StoreEvent]) {
    request.context.modify([StoreEvent]()) { $0 += events }
  }
}

extension DaemonCore {
  /// Brings the core's own state up to `events` (`react`), then tells every API's announcer:
  /// a client that acts on a signal finds what it announces settled.
  package func publish(
    _ events: [StoreEvent], on connection: any MessageTransport, after request: MethodRequest? = nil
  ) async {
    guard !events.isEmpty else { return }
    react(to: events)
    for announcer in announcers.all {
      await announcer.announce(events, on: connection, after: request)
    }
  }

  /// The core's reactions to `events`: an unlocked or new collection counts as used now, gets
  /// its audit key and owners, and has its search index checked; an import is audited item by
  /// item; a deleted collection's lock policy is forgotten.
  private func react(to events: [StoreEvent]) {
    for event in events {
      switch event {
      case .lockChanged(let names, _, false): unlocked(names)
      // A collection made now is unlocked too: its audit key and owners start with it.
      case .collectionCreated(let name): unlocked([name])
      case .itemsImported(let items, let caller): access.logImport(items, by: caller)
      // Its lock policy went with it.
      case .collectionDeleted: locks.policiesChanged()
      default: break
      }
    }
  }
}

/// After every call that succeeded: what it recorded goes to `DaemonCore.publish`, before
/// the reply (the signals that must follow the reply are queued behind it).
package struct EventFilter: CallFilter {
  let core: DaemonCore
  /// Where the events are announced: the caller's connection when nil (see `shareServer`).
  var on: (any MessageTransport)? = nil

  package init(core: DaemonCore, on: (any MessageTransport)? = nil) {
    self.core = core
    self.on = on
  }

  package nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    let results = try await next(request)
    if let events = request.context.value([StoreEvent].self) {
      await core.publish(events, on: on ?? request.connection, after: request)
    }
    return results
  }
}
