// SPDX-License-Identifier: MIT
//
// The access-control mode the keyring was last set to, kept in the store so that editing
// keychaind.conf cannot lower it unseen (a program of the user can write that file): a plain
// copy read at start, before any collection is unlocked, and a copy sealed under each unlocked
// collection's data key, checked at unlock, so that lowering the plain copy is found as soon
// as there is anything to protect. Nothing can be read before an unlock, so the sealed copy
// comes in time.

import Foundation
import GRDB
import KeychainAccess
import KeychainCrypto

extension KeychainStore {
  private static let modeName = "access-mode"
  private static func sealedModeName(_ collection: String) -> String {
    "access-mode-sealed:\(collection)"
  }
  private static func modeAAD(_ collection: String) -> [UInt8] {
    Array("access mode:\(collection)".utf8)
  }

  /// The mode last kept (the plain copy); nil when none was.
  public func keptAccessMode() throws -> AccessMode? {
    let value = try lookup(persistent) { db in
      try Data.fetchOne(
        db, sql: "SELECT value FROM meta WHERE name = ?", arguments: [Self.modeName])
    }
    return value.flatMap { AccessMode(rawValue: String(decoding: $0, as: UTF8.self)) }
  }

  /// The mode sealed in `collection` (unlocked); nil when it holds none.
  public func sealedAccessMode(in collection: String) throws -> AccessMode? {
    let key = try dataKey(collection)
    let sealed = try lookup(persistent) { db in
      try Data.fetchOne(
        db, sql: "SELECT value FROM meta WHERE name = ?",
        arguments: [Self.sealedModeName(collection)])
    }
    guard let sealed else { return nil }
    do {
      let plain = try AESGCM.open(
        Array(sealed), key: key, associatedData: Self.modeAAD(collection))
      return plain.withUnsafeBytes { AccessMode(rawValue: String(decoding: $0, as: UTF8.self)) }
    } catch CryptoError.authenticationFailed {
      throw StoreError.corrupt("the access mode kept in \(collection) does not decrypt")
    }
  }

  /// Keeps `mode`: the plain copy, and a sealed one in each unlocked collection, durably.
  public func keepAccessMode(_ mode: AccessMode) throws {
    var sealed: [(String, Data)] = []
    for collection in try collections().map(\.name)
    where collection != Self.sessionCollection && !isLocked(collection) {
      let key = try dataKey(collection)
      sealed.append(
        (
          Self.sealedModeName(collection),
          Data(
            try AESGCM.seal(
              Array(mode.rawValue.utf8), key: key, associatedData: Self.modeAAD(collection)))
        ))
    }
    try commit { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
        arguments: [Self.modeName, Data(mode.rawValue.utf8)])
      for (name, value) in sealed {
        try db.execute(
          sql: "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", arguments: [name, value])
      }
    }
  }
}
