// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

/// `org.freedesktop.Secret.Service` at `/org/freedesktop/secrets`.
struct ServiceInterface: DBusInterface {
  let core: DaemonCore

  typealias Methods = SecretService.ServiceMethods

  /// Each method's handler, from the declarations in SecretServiceProtocol.
  static let table = InterfaceTable<ServiceInterface>(SecretService.Interfaces.service) { table in
    table.on(Methods.openSession, openSession)
    table.on(Methods.createCollection, createCollection)
    table.on(Methods.searchItems, searchItems)
    table.on(Methods.unlock, unlock)
    table.on(Methods.lock, lock)
    table.on(Methods.getSecrets, getSecrets)
    table.on(Methods.readAlias, readAlias)
    table.on(Methods.setAlias, setAlias)
    table.on(Methods.lockService, lockService)
    table.on(Methods.changeLock, changeLock)
    table.get(SecretService.ServiceProperty.collections, collections)
  }

  func openSession(_ request: MethodRequest, algorithm: String, input: DBusValue) async throws
    -> (DBusValue, ObjectPath)
  {
    let (output, cipher) = try SessionNegotiation.open(algorithm: algorithm, input: input)
    return (output, try core.sessions.open(owner: request.caller, cipher: cipher))
  }

  func createCollection(
    _ request: MethodRequest, properties: [String: DBusValue], alias: String
  ) async throws -> (ObjectPath, ObjectPath) {
    if !alias.isEmpty, let existing = try StoreView(request, core: core).alias(alias) {
      return (Resolver.path(ofCollection: existing), SecretPath.none)
    }
    let label = try NewCollectionProperties(
      properties, invalid: SecretServiceError.invalidProperties
    ).label
    // A new collection needs a password, which only a prompt can ask for.
    let prompt = try await core.prompts.make(
      owner: request.caller, action: .createCollection(label: label, alias: alias))
    return (SecretPath.none, prompt)
  }

  func searchItems(_ request: MethodRequest, attributes: [String: String]) async throws
    -> ([ObjectPath], [ObjectPath])
  {
    let (readable, locked) = try StoreView(request, core: core).search(attributes)
    return (Resolver.paths(of: readable), Resolver.paths(of: locked))
  }

  func lockService(_ request: MethodRequest) async throws {
    // Every collection; gnome-keyring sends no signals here, which leaves its clients'
    // proxies showing unlocked collections: keychaind sends the usual ones.
    StoreView(request, core: core).record(.locked(try core.lockEverything()))
  }

  func changeLock(_ request: MethodRequest, collection path: ObjectPath) async throws
    -> ObjectPath
  {
    try await core.prompts.passwordChange(
      for: try StoreView(request, core: core).namedCollection(path), caller: request.caller)
  }

  func lock(_ request: MethodRequest, objects: [ObjectPath]) async throws
    -> ([ObjectPath], ObjectPath)
  {
    let view = StoreView(request, core: core)
    var locked: [ObjectPath] = []
    var collections: [String] = []
    var changed: Set<String> = []
    for object in objects {
      guard let collection = try view.owningCollection(object) else { continue }
      if !view.isLocked(collection), collection != KeychainStore.sessionCollection {
        try view.lock(collection)
        changed.insert(collection)
      }
      if !collections.contains(collection) { collections.append(collection) }
      locked.append(object)
    }
    view.record(.lockChanged(collections, changed: changed, locked: true))
    return (locked, SecretPath.none)
  }

  func getSecrets(_ request: MethodRequest, items: [ObjectPath], session: ObjectPath)
    async throws -> [ObjectPath: Secret]
  {
    let view = StoreView(request, core: core)
    let cipher = try core.sessions.cipher(session, caller: request.caller)
    var secrets: [ObjectPath: Secret] = [:]
    var bytes = 0
    var used = Set<String>()
    await view.askBeforeReading(
      items.compactMap { path in SecretPath(path).flatMap { try? view.itemID(at: $0) } })
    defer {
      if !used.isEmpty { view.noteUse(used) }
      if bytes >= MemoryRelease.largeSecret { view.noteLargeAnswer() }
    }
    for path in items {
      // Locked and missing items are skipped, as gnome-keyring does and libsecret expects: the
      // read itself tells, so no separate existence query.
      guard let parsed = SecretPath(path), let item = try? view.itemID(at: parsed),
        let (secret, contentType) = try? view.secret(of: item, notingUse: false)
      else { continue }
      used.insert(item.collection)
      let (parameters, value) = try cipher.encrypt(secret)
      bytes += value.count
      secrets[path] = Secret(
        session: session, parameters: parameters, value: value, contentType: contentType)
    }
    return secrets
  }

  func readAlias(_ request: MethodRequest, name: String) async throws -> ObjectPath {
    try StoreView(request, core: core).alias(name).map(Resolver.path(ofCollection:))
      ?? SecretPath.none
  }

  func setAlias(_ request: MethodRequest, name: String, collection target: ObjectPath)
    async throws
  {
    let view = StoreView(request, core: core)
    let collection = target == SecretPath.none ? nil : try view.namedCollection(target)
    guard try view.alias(name) != collection else { return }
    let label = try collection.map { try view.collection($0).label }
    let question =
      name == "default"
      ? try view.changeQuestion(
        label.map { "make the keyring “\($0)” your default" }
          ?? "leave you with no default keyring",
        "Passwords that applications store from now on go to the default keyring.")
      : try view.changeQuestion(
        "point the name “\(name)” at " + (label.map { "the keyring “\($0)”" } ?? "no keyring"),
        "Applications that use that name read and store there.")
    if let question {
      try await view.confirm(
        question, .alias, collection.map(Resolver.path(ofCollection:)) ?? target)
    }
    try await view.write { [collection] in try $0.setAlias(name, to: collection) }
  }

  /// Unlocked objects are echoed exactly as given (alias paths included: go-keyring compares
  /// them); locked ones wait for a prompt.
  func unlock(_ request: MethodRequest, objects: [ObjectPath]) async throws
    -> ([ObjectPath], ObjectPath)
  {
    let view = StoreView(request, core: core)
    var unlocked: [ObjectPath] = []
    var pending: [ObjectPath] = []
    var collections: [String] = []
    var asked: [ItemID] = []
    for object in objects {
      guard let collection = try view.owningCollection(object) else { continue }
      let item = try SecretPath(object).flatMap { try view.itemID(at: $0) }
      if view.isLocked(collection) {
        pending.append(object)
        if !collections.contains(collection) { collections.append(collection) }
        if let item { asked.append(item) }
      } else if let item, view.isLocked(item) {
        // Locked for this caller only: its application may not read the item yet.
        guard view.mayAsk(about: item) else { continue }
        pending.append(object)
        asked.append(item)
      } else {
        unlocked.append(object)
      }
    }
    guard !pending.isEmpty else { return (unlocked, SecretPath.none) }
    let access = try view.accessAsk(for: asked)
    let prompt = try await core.prompts.make(
      owner: request.caller,
      action: .unlock(collections: collections, objects: pending, access: access))
    return (unlocked, prompt)
  }

  func collections(_ request: MethodRequest) async throws -> [ObjectPath] {
    try StoreView(request, core: core).collections().map { Resolver.path(ofCollection: $0.name) }
  }
}
