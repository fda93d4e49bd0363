// SPDX-License-Identifier: MIT
//
// What one scoped share shows (`keychainctl share`): the items it was made with, the
// collections they are in, and nothing else. Its clients reach keychaind on a private bus of
// their own; every call from there carries the scope, and `StoreView`, the `Resolver` and the
// object tree answer through it, so that anything outside is absent (no such object), never
// merely locked. The share itself is the grant: its items are read without asking, and each
// read is audited under the share's id.

import Foundation
import KeychainAccess
import KeychainStore
import Synchronization

/// One share's items and rules (see the top of this file).
public final class ShareScope: Sendable {
  /// Random, 12 hex digits: the name of its socket's directory and of its audit records.
  public let id: String
  public let label: String
  /// Whether its clients may only read.
  public let readOnly: Bool
  public let created: Date
  /// When it ends by itself; nil for "when revoked, or when keychaind stops".
  public let expires: Date?
  /// The collections of the shared items: the only ones its clients see.
  public let collections: Set<String>
  /// Where `default` leads for its clients, and where a share that may write stores new
  /// items: the default collection when it holds shared items, else the first shared item's.
  public let defaultCollection: String
  /// How its callers are named in the audit log and in dialogs.
  package let identity: AppIdentity
  private let members: Mutex<Set<ItemID>>

  /// A scope of `items` (at least one), the first of which names its default collection
  /// unless `storeDefault` holds one of them.
  public init(
    id: String, label: String, items: [ItemID], readOnly: Bool, created: Date, expires: Date?,
    storeDefault: String?
  ) {
    precondition(!items.isEmpty, "a share needs an item")
    (self.id, self.label, self.readOnly) = (id, label, readOnly)
    (self.created, self.expires) = (created, expires)
    let collections = Set(items.map(\.collection))
    self.collections = collections
    defaultCollection =
      storeDefault.flatMap { collections.contains($0) ? $0 : nil } ?? items[0].collection
    members = Mutex(Set(items))
    let named = label.isEmpty ? "" : " “\(label)”"
    identity = AppIdentity(
      kind: .share, key: "share:\(id)", display: "share \(id)\(named)", verified: true)
  }

  /// The shared items, in order.
  public var items: [ItemID] { members.withLock { $0.sorted() } }

  /// Whether `item` is shared.
  public func contains(_ item: ItemID) -> Bool { members.withLock { $0.contains(item) } }

  /// Whether `collection` is shown.
  package func shows(collection: String) -> Bool { collections.contains(collection) }

  /// An item a client of the share stored joins it; one it deleted leaves.
  package func admit(_ item: ItemID) { _ = members.withLock { $0.insert(item) } }
  package func remove(_ item: ItemID) { _ = members.withLock { $0.remove(item) } }

  /// The collection alias `name` leads to for the share's clients: the store's target when it
  /// is shown; otherwise, for `default`, the share's own default.
  func alias(_ name: String, in store: KeychainStore) throws -> String? {
    if let target = try store.alias(name), shows(collection: target) { return target }
    return name == "default" ? defaultCollection : nil
  }
}
