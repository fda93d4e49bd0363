// SPDX-License-Identifier: MIT
//
// One writer of the crash harness and what it knows the store must hold: its items by key, and
// the one call it had in flight when the daemon died.

import KeychainDBus
import SecretServiceProtocol

struct CrashWriter: Sendable {
  enum Call: Sendable {
    case create(key: Int, secret: [UInt8])
    case set(key: Int, secret: [UInt8])
    case delete(key: Int)
    /// SearchItems for the key's attributes, then GetSecret: both checked on the spot.
    case read(key: Int)

    var key: Int {
      switch self {
      case .create(let key, _), .set(let key, _), .delete(let key), .read(let key): key
      }
    }
    /// The key's secret if this call happened (nil: deleted; a read changes nothing, so it
    /// never needs this).
    var after: [UInt8]? {
      switch self {
      case .create(_, let secret), .set(_, let secret): secret
      case .delete, .read: nil
      }
    }
  }

  let writer: Int
  let run: String
  /// Secrets by key: what every acknowledged call left.
  private(set) var items: [Int: [UInt8]] = [:]
  private var paths: [Int: ObjectPath] = [:]
  private var nextKey = 0
  private var version = 0
  private(set) var acknowledged = 0
  private(set) var pending: Call?

  init(writer: Int, run: String) {
    self.writer = writer
    self.run = run
  }

  private func attributes(_ key: Int) -> [String: String] {
    ["crash-harness": run, "writer": String(writer), "key": String(key)]
  }

  static func openSession(_ connection: Connection) async throws -> ObjectPath {
    try await connection.callSecretService(
      "/org/freedesktop/secrets", SecretService.ServiceMethods.openSession, "plain",
      .string("")
    ).1
  }

  /// Paths of the items whose last call was acknowledged (the cut-off call's item left out):
  /// each must be found exactly after the next restart.
  var settledPaths: [ObjectPath] {
    paths.filter { items[$0.key] != nil && $0.key != pending?.key }.map(\.value)
  }

  /// Writes (and reads back) until a call fails (the daemon was killed), which stays
  /// `pending`, or `limit` calls were made; `replied` is called after every reply. A read that
  /// finds something else than expected throws: no kill excuses that.
  mutating func write(
    through connection: Connection, limit: Int = .max, replied: @Sendable () -> Void = {}
  ) async throws {
    defer { Task { [connection] in await connection.close() } }
    guard let session = try? await Self.openSession(connection) else { return }
    for _ in 0..<limit {
      version += 1
      let secret = Array("writer \(writer) version \(version) of \(run)".utf8)
      let roll = Int.random(in: 0..<10)
      let call: Call
      if let key = items.keys.randomElement(), roll >= 4 {
        call =
          roll < 6 ? .read(key: key) : roll < 8 ? .set(key: key, secret: secret) : .delete(key: key)
      } else {
        nextKey += 1
        call = .create(key: nextKey, secret: secret)
      }
      pending = call
      do {
        try await perform(call, connection, session)
      } catch let error as TestingError {
        throw error
      } catch {
        return
      }
      pending = nil
      acknowledged += 1
      replied()
      if case .read = call { continue }
      items[call.key] = call.after
    }
  }

  private mutating func perform(_ call: Call, _ connection: Connection, _ session: ObjectPath)
    async throws
  {
    switch call {
    case .create(let key, let secret):
      let properties = NewItemProperties(
        label: "crash \(writer)/\(key)", attributes: attributes(key)
      ).dbusProperties
      paths[key] =
        try await connection.callSecretService(
          "/org/freedesktop/secrets/aliases/default", SecretService.CollectionMethods.createItem,
          properties, wrap(secret, session), false
        ).0
    case .set(let key, let secret):
      try await connection.callSecretService(
        paths[key]!, SecretService.ItemMethods.setSecret, wrap(secret, session))
    case .delete(let key):
      _ = try await connection.callSecretService(paths[key]!, SecretService.ItemMethods.delete)
      paths[key] = nil
    case .read(let key):
      let found = try await connection.callSecretService(
        "/org/freedesktop/secrets", SecretService.ServiceMethods.searchItems, attributes(key))
      guard found.0 == [paths[key]!] else {
        throw TestingError("writer \(writer) key \(key): SearchItems found \(found)")
      }
      let secret = try await connection.callSecretService(
        paths[key]!, SecretService.ItemMethods.getSecret, session)
      guard secret.value == items[key] else {
        throw TestingError("writer \(writer) key \(key): read \(describe(secret.value))")
      }
    }
  }

  private func wrap(_ secret: [UInt8], _ session: ObjectPath) -> Secret {
    Secret(session: session, parameters: [], value: secret, contentType: "text/plain")
  }

  /// Reads back every item of this writer and compares; then takes what it found as the truth
  /// (settling the cut-off call) for the next cycle.
  mutating func verify(through connection: Connection, session: ObjectPath, cycle: Int)
    async throws
  {
    let (unlocked, locked) = try await connection.callSecretService(
      "/org/freedesktop/secrets", SecretService.ServiceMethods.searchItems,
      ["crash-harness": run, "writer": String(writer)])
    guard locked.isEmpty else {
      throw TestingError("cycle \(cycle): locked items after the restart")
    }
    var found: [Int: [UInt8]] = [:]
    var foundPaths: [Int: ObjectPath] = [:]
    for path in unlocked {
      let attributes = try await connection.getSecretServiceProperty(
        path, SecretService.ItemProperty.attributes)
      guard let key = Int(attributes["key"] ?? "") else {
        throw TestingError("cycle \(cycle): \(path) has no key attribute")
      }
      let secret = try await connection.callSecretService(
        path, SecretService.ItemMethods.getSecret, session)
      guard found.updateValue(secret.value, forKey: key) == nil else {
        throw TestingError("cycle \(cycle): writer \(writer) key \(key) stored twice")
      }
      foundPaths[key] = path
    }
    for key in Set(items.keys).union(found.keys) where found[key] != items[key] {
      guard let pending, pending.key == key, found[key] == pending.after else {
        throw TestingError(
          "cycle \(cycle): writer \(writer) key \(key): expected \(describe(items[key])), "
            + "found \(describe(found[key])) (call cut off: \(String(describing: pending)))")
      }
    }
    items = found
    paths = foundPaths
    pending = nil
  }

  private func describe(_ secret: [UInt8]?) -> String {
    secret.map { "\"\(String(decoding: $0, as: UTF8.self))\"" } ?? "no item"
  }
}
