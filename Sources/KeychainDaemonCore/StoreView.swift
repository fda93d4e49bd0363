// SPDX-License-Identifier: MIT
//
// The store as one call's caller sees it: the one seam between a call and the store. Handlers
// and the object tree read and write only through it, so the questions that may get a
// different answer for each caller ("is this item locked?", "which matches may it read?")
// are answered in this file and nowhere else. An item is locked for a caller when its
// collection is, and, with `access-control = protect`, when the caller's application neither
// owns it nor was allowed it (`AccessControl`): libsecret's clients then call `Unlock`, which
// asks the user. Every read of a secret is noted for the audit log.
//
// Reads run where the call is (on the connection's thread, without a hop); writes run on a
// blocking thread by construction (`write`). What a call used is recorded on its request, and
// the daemon's call filters act on it after the call (`UseTracking`, `MemoryReleaseFilter`).

import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainStore
import SecretServiceProtocol

package struct StoreView: Sendable {
  let core: DaemonCore
  /// The call this view answers.
  package let request: MethodRequest
  /// The call's access decisions; nil with access control off.
  package let decision: AccessDecision?
  private var store: KeychainStore { core.store }

  package init(_ request: MethodRequest, core: DaemonCore) {
    self.request = request
    self.core = core
    decision = request.context.value(AccessDecision.self)
  }

  // MARK: Lock state, as this caller sees it

  /// Whether the caller must unlock `collection` before using its items.
  package func isLocked(_ collection: String) -> Bool { store.isLocked(collection) }

  /// Whether the caller must unlock `item` before reading or changing it: its collection is
  /// locked, or its application may not use it yet.
  package func isLocked(_ item: ItemID) -> Bool {
    if isLocked(item.collection) { return true }
    guard let decision else { return false }
    return !decision.allows(item)
  }

  /// The application making the call; nil with access control off.
  package var caller: CallerApp? { decision?.caller }

  /// The share the call came through, whose items are all it may see; nil on the session bus.
  package var scope: ShareScope? { request.context.value(ShareScope.self) }

  /// Whether the caller may overwrite `item` (CreateItem's replace, KWallet's writeEntry):
  /// always outside `protect`; there, if its application may use the item.
  package var mayReplace: @Sendable (ItemID) -> Bool {
    if let scope { return { scope.contains($0) } }
    guard let decision, decision.enforces else { return { _ in true } }
    return { decision.allows($0) }
  }

  /// Which items an import the caller asked for may overwrite with newer copies: in `protect`
  /// those it may replace, as for its own writes; otherwise any.
  package var importRule: ImportUpdateRule {
    if scope != nil { return { _, _ in false } }
    guard let decision, decision.enforces else { return { _, _ in true } }
    return { item, _ in decision.allows(item) }
  }

  /// Notes that the caller was refused a replace of `item`, for the audit log and for
  /// `replaceRefused`.
  package func refusedReplace(of item: ItemID) {
    note(.write, .denied, item)
    request.context.modify(RefusedReplace()) { $0.item = item }
  }

  /// The error for a replace refused by `mayReplace`: it names the command that allows it.
  package func replaceRefused(_ error: StoreError) -> DBusError {
    guard let caller, let item = request.context.value(RefusedReplace.self)?.item else {
      return error.dbusError
    }
    return AccessRefusal.replace(caller.identity, item: Resolver.path(of: item).rawValue).error
  }

  /// Who new items are owned by: the caller's application, when it can be remembered.
  /// None for a share's: what its clients store stays the user's, whichever program reads it.
  package var creator: ItemOwner? {
    scope == nil ? caller.flatMap { ItemOwner($0.identity) } : nil
  }

  /// The attribute a Keychain client names an access group with (`kSecAttrAccessGroup`).
  static let groupAttribute = "keychain:agrp"

  /// Takes the access group a Keychain client named out of `attributes`; nil when none is
  /// named, or with access control off (the attribute is then an ordinary one). The caller
  /// must be in the group: its own identity's, or a named group it was made a member of in
  /// `collection` (in any unlocked collection when nil). Otherwise NotInAccessGroup, as
  /// Apple's keychain answers `errSecMissingEntitlement`.
  package func takeAccessGroup(from attributes: inout [String: String], in collection: String?)
    throws(DBusError) -> String?
  {
    guard let caller, let group = attributes.removeValue(forKey: Self.groupAttribute) else {
      return nil
    }
    let identity = caller.identity
    guard identity.isRememberable else {
      throw AccessRefusal.unidentifiedInNoGroup(identity).error
    }
    if group == identity.key { return group }
    if group.hasPrefix(AccessGrant.groupPrefix) {
      let collections =
        collection.map { [$0] } ?? ((try? store.collections().map(\.name)) ?? [])
      let member = collections.contains { name in
        !isLocked(name)
          && ((try? store.grants(in: name)) ?? []).contains {
            $0.app == identity.key && $0.admits(to: group, pin: identity.pin)
          }
      }
      if member { return group }
      throw AccessRefusal.notMember(identity, group: group).error
    }
    throw AccessRefusal.otherApplicationsGroup(identity, group: group).error
  }

  /// Throws `error` (the method's own Locked error) unless the caller may use `item` now for
  /// `operation`; a refusal by the access rules is noted for the audit log.
  package func requireUnlocked(
    _ item: ItemID, for operation: AuditRecord.Operation, else error: DBusError
  ) throws(DBusError) {
    guard !isLocked(item.collection) else { throw error }
    guard let decision, !decision.allows(item) else { return }
    if !wasAskedBeforeReading(item) {
      note(operation, decision.caller.hasDisplay ? .denied : .noDisplay, item)
    }
    throw error
  }

  /// Throws `error` unless the caller may use `collection`'s items now.
  package func requireUnlocked(collection: String, else error: DBusError) throws(DBusError) {
    guard !isLocked(collection) else { throw error }
  }

  // MARK: Reads

  /// The items whose attributes include all of `attributes`, in one collection or all, split
  /// into those the caller may read now and those it must unlock first.
  package func search(_ attributes: [String: String], in collection: String? = nil) throws
    -> (readable: [ItemID], locked: [ItemID])
  {
    var attributes = attributes
    let group = try takeAccessGroup(from: &attributes, in: collection)
    var (unlocked, locked) = try store.searchItems(attributes, in: collection)
    if let scope {
      unlocked.removeAll { !scope.contains($0) }
      locked.removeAll { !scope.contains($0) }
    }
    if let group {
      // A locked collection's owners are sealed: its matches stay, as locked.
      let inGroup = { (item: ItemID) in
        isLocked(item.collection) || (try? store.owner(of: item))??.key == group
      }
      unlocked.removeAll { !inGroup($0) }
      locked.removeAll { !inGroup($0) }
    }
    if unlocked.count + locked.count >= MemoryRelease.largeList { noteLargeAnswer() }
    if let decision, decision.enforces {
      let refused = Set(unlocked.filter { !decision.allows($0) })
      if !refused.isEmpty {
        unlocked.removeAll { refused.contains($0) }
        locked = (locked + refused).sorted()
      }
    }
    return (unlocked, locked)
  }

  /// An item's label, attributes and times. For an item the caller has locked, what was seen
  /// of it while its collection was unlocked in this run (as gnome-keyring shows it), or nil.
  package func info(_ item: ItemID) throws -> ItemInfo? {
    isLocked(item) ? store.knownInfo(item) : try store.itemInfo(item)
  }

  /// An item's secret and content type, for a caller that may read it (`StoreError.locked`
  /// otherwise); the read counts as a use of its collection, unless the caller notes the uses
  /// of a batch itself (`noteUse`).
  package func secret(of item: ItemID, notingUse: Bool = true) throws
    -> (secret: SecureBytes, contentType: String)
  {
    guard !isLocked(item.collection) else { throw StoreError.locked(collection: item.collection) }
    try checkAccess(.read, item)
    let read = try store.secret(of: item)
    if notingUse { noteUse(item.collection) }
    if read.secret.count >= MemoryRelease.largeSecret { noteLargeAnswer() }
    return read
  }

  /// Every item of `collection`, locked or not.
  package func items(in collection: String) throws -> [ItemID] {
    var items: [ItemID] = try store.items(in: collection)
    if let scope { items.removeAll { !scope.contains($0) } }
    if items.count >= MemoryRelease.largeList { noteLargeAnswer() }
    return items
  }

  /// Every collection.
  package func collections() throws -> [CollectionInfo] {
    guard let scope else { return try store.collections() }
    return try store.collections().filter { scope.shows(collection: $0.name) }
  }

  /// One collection's label, times and lock state.
  package func collection(_ name: String) throws -> CollectionInfo { try store.collection(name) }

  /// The collection an alias points at.
  package func alias(_ name: String) throws -> String? {
    if let scope { return try scope.alias(name, in: store) }
    return try store.alias(name)
  }

  /// The item an item path would name, whether or not it exists.
  package func itemID(at path: SecretPath) throws -> ItemID? {
    try Resolver.itemID(path, in: store, scope: scope)
  }

  /// The collection an object path leads to (see `Resolver.owningCollection`).
  package func owningCollection(_ path: ObjectPath) throws -> String? {
    try Resolver.owningCollection(path, in: store, scope: scope)
  }

  /// The collection a path argument names (see `Resolver.namedCollection`).
  package func namedCollection(_ path: ObjectPath) throws(DBusError) -> String {
    try Resolver.namedCollection(path, in: store, scope: scope)
  }

  /// What `read` finds among the store's own records (lock policies, the last login unlock):
  /// nothing a caller's access decides. Not for items, which the methods above answer.
  package func metadata<T>(_ read: (KeychainStore) throws -> T) rethrows -> T { try read(store) }

  // MARK: Writes

  /// Runs `change` on a blocking thread (a write returns once it is on disk, which must not
  /// hold the connection's thread), and counts it as a use of `collections`. Every write is
  /// followed by a memory release: a burst of them leaves freed heap behind.
  package func write<T: Sendable>(
    using collections: [String] = [], _ change: @escaping @Sendable (KeychainStore) throws -> T
  ) async throws -> T {
    for collection in collections { noteUse(collection) }
    noteLargeAnswer()
    return try await Blocking.run { [store] in try change(store) }
  }

  /// Locks `collection` for everyone (Lock; a lock is not per caller). Fast: it forgets the
  /// collection's key, and writes nothing.
  package func lock(_ collection: String) throws { try store.lock(collection) }

  // MARK: Access

  /// Notes `operation` on `item` for the audit log with what the rules say; throws
  /// `StoreError.locked` when they refuse it (`protect` only).
  func checkAccess(_ operation: AuditRecord.Operation, _ item: ItemID) throws {
    guard let decision else { return }
    switch decision.answer(item) {
    case .allow(let why):
      note(operation, why, item)
    case .ask:
      guard decision.enforces else { return note(operation, .wouldAsk, item) }
      note(operation, .denied, item)
      throw StoreError.locked(collection: item.collection)
    }
  }

  /// Whether the user may be asked about `item` for this caller now: not if its application
  /// denied it moments ago (noted as a refusal).
  package func mayAsk(about item: ItemID) -> Bool {
    guard let caller, core.access.recentlyDenied(caller, item) else { return true }
    note(.read, .denied, item)
    return false
  }

  /// What an Unlock prompt must ask about `items` after any password: nothing outside
  /// `protect`. A caller with no display to show a dialog on gets an error naming the command
  /// that grants access instead.
  package func accessAsk(for items: [ItemID]) throws(DBusError) -> AccessAsk? {
    guard core.access.enforces, scope == nil, let caller, !items.isEmpty else { return nil }
    guard caller.hasDisplay else {
      let refused = items.filter { !isLocked($0.collection) && isLocked($0) }
      guard !refused.isEmpty else { return AccessAsk(caller: caller, items: items) }
      for item in refused { note(.read, .noDisplay, item) }
      throw AccessRefusal.readWithoutDisplay(
        caller.identity, items: refused.map { Resolver.path(of: $0).rawValue }
      ).error
    }
    return AccessAsk(caller: caller, items: items)
  }

  /// Notes an access for the audit log (see `AccessFilter`).
  package func note(
    _ operation: AuditRecord.Operation, _ decision: AuditRecord.Decision, _ item: ItemID
  ) {
    self.decision?.note(operation, decision, Resolver.path(of: item).rawValue)
  }

  /// Notes an access to the object at `path` (an item, or a collection for collection-wide
  /// grants).
  package func note(
    _ operation: AuditRecord.Operation, _ decision: AuditRecord.Decision, _ path: ObjectPath
  ) {
    self.decision?.note(operation, decision, path.rawValue)
  }

  // MARK: What the call used

  /// Notes that the call read or wrote a secret of `collection` (see `UseTracking`).
  package func noteUse(_ collection: String) { noteUse([collection]) }

  /// Notes that the call read or wrote secrets of `collections`.
  package func noteUse(_ collections: some Sequence<String>) {
    request.context.modify(CallUse()) { $0.collections.formUnion(collections) }
  }

  /// Notes that the call made or read something large (see `MemoryReleaseFilter`).
  package func noteLargeAnswer() {
    request.context.modify(CallUse()) { $0.large = true }
  }
}

/// What a call used, recorded on its request by its `StoreView`.
struct CallUse: Sendable {
  /// Collections whose secrets it read or wrote.
  var collections: Set<String> = []
  /// Whether it moved enough memory that the heap's free pages should go back afterwards.
  var large = false
}

/// After every call: the collections it used count as used now (for "lock after N minutes
/// unused").
package struct UseTracking: CallFilter {
  let core: DaemonCore

  package init(core: DaemonCore) { self.core = core }

  package nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    defer {
      if let used = request.context.value(CallUse.self)?.collections, !used.isEmpty {
        core.locks.noteUse(used)
      }
    }
    return try await next(request)
  }
}

/// After a call that moved a lot of memory, once it has replied: the heap's free pages go back
/// to the system (see `MemoryRelease`).
package struct MemoryReleaseFilter: CallFilter {
  package init() {}

  package nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    defer {
      if request.context.value(CallUse.self)?.large == true {
        MemoryRelease.afterReply(to: request)
      }
    }
    return try await next(request)
  }
}

/// The item a replace was refused for, kept on the call (see `StoreView.mayReplace`).
struct RefusedReplace: Sendable {
  var item: ItemID?
}
