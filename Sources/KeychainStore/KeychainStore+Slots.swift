// SPDX-License-Identifier: MIT
//
// Key slots of collections (see KeySlots.swift): listing them, adding a recovery key or a slot a
// device keeps (the TPM, a FIDO2 key), removing them, and opening a collection, or setting a
// new password, with any slot. Every change of
// slots is proved by a slot that opens the collection, so a program that merely runs as the
// user cannot add a way in; the password slot cannot be removed, so a collection always keeps
// one slot that opens it.

import Foundation
import GRDB
import KeychainCrypto

extension KeychainStore {
  /// The slots of `collection`, the password first; readable while it is locked (labels are
  /// sealed with the metadata key, as collection labels are).
  public func keySlots(of collection: String) throws -> [KeySlot] {
    guard collection != Self.sessionCollection else { return [] }
    let info = try self.collection(collection)
    let rows = try lookup(persistent) { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT key_slot.id, kind, key_slot.sealedLabel, key_slot.created, lastUsed, policy
          FROM key_slot JOIN collection ON collection.id = key_slot.collectionID
          WHERE collection.name = ? ORDER BY key_slot.id
          """, arguments: [collection])
    }
    let password = KeySlot(
      id: KeySlot.passwordID, kind: .password, label: "", created: info.created,
      lastUsed: nil)
    return try [password]
      + rows.map { row in
        let id: Int64 = row["id"]
        guard let kind = KeySlot.Kind(rawValue: row["kind"]) else {
          throw StoreError.corrupt("key slot \(id) of '\(collection)' is of an unknown kind")
        }
        let label = try AESGCM.open(
          Array(row["sealedLabel"] as Data), key: keys.metadata,
          associatedData: Self.slotLabelAAD(collection, id))
        return KeySlot(
          id: id, kind: kind, label: String(decoding: label.copyBytes(), as: UTF8.self),
          created: Self.date(row["created"]),
          lastUsed: (row["lastUsed"] as Int64?).map(Self.date), policy: row["policy"])
      }
  }

  /// Adds a recovery key slot to `collection`, proved by `proof` (its password or another
  /// recovery key); returns the slot and the key, which is not kept anywhere: it is shown
  /// once. The collection's items and other slots are not touched.
  public func addRecoverySlot(to collection: String, proof: KeyProof, label: String) throws
    -> (KeySlot, RecoveryKey)
  {
    let recoveryKey = RecoveryKey.generate()
    let slot = try addSlot(.recovery, to: collection, proof: proof, label: label, policy: nil) {
      (recoveryKey.bytes, nil)
    }
    return (slot, recoveryKey)
  }

  /// Adds a slot whose random secret a device keeps: once `proof` opens the collection, `seal`
  /// is given a new 32-byte secret and returns what the device sealed it into (the TPM's sealed
  /// object), kept with `policy`, what unsealing takes.
  public func addSealedSlot(
    _ kind: KeySlot.Kind, to collection: String, proof: KeyProof, label: String,
    policy: String?, seal: (SecureBytes) throws -> [UInt8]
  ) throws -> KeySlot {
    try addSlot(kind, to: collection, proof: proof, label: label, policy: policy) {
      let secret = SecureBytes.random(count: 32, level: .longTerm)
      return (secret, Data(try seal(secret)))
    }
  }

  /// Adds a slot whose secret a device derives (a FIDO2 key's hmac-secret): once `proof`
  /// opens the collection, `enroll` returns the secret and what the device needs to derive it
  /// again, kept with `policy`.
  public func addDerivedSlot(
    _ kind: KeySlot.Kind, to collection: String, proof: KeyProof, label: String,
    policy: String?, enroll: () throws -> (secret: SecureBytes, kept: [UInt8])
  ) throws -> KeySlot {
    try addSlot(kind, to: collection, proof: proof, label: label, policy: policy) {
      let (secret, kept) = try enroll()
      return (secret, Data(kept))
    }
  }

  /// Adds a slot of `kind`: `make`, called once `proof` has opened the collection, gives the
  /// slot's secret and what a device keeps of it.
  private func addSlot(
    _ kind: KeySlot.Kind, to collection: String, proof: KeyProof, label: String,
    policy: String?, make: () throws -> (SecureBytes, Data?)
  ) throws -> KeySlot {
    guard label.utf8.count <= StoreLimits.maxTextBytes else {
      throw StoreError.limitExceeded("label too long")
    }
    let (dataKey, _) = try openKey(of: collection, with: proof)
    let (secret, sealed) = try make()
    let salt = Random.bytes(count: 16)
    let wrapped = Data(
      try AESGCM.seal(
        dataKey, key: try Self.slotWrapKey(secret, kind, salt: salt, collection: collection),
        associatedData: Self.slotKeyAAD(collection, kind)))
    let mac = try keys.slotMAC(
      collection: collection, kind: kind.rawValue, salt: Data(salt), wrappedKey: wrapped,
      sealed: sealed, policy: policy)
    let created = Self.seconds(now())
    let id: Int64 = try commit { db in
      let collectionID = try self.collectionID(collection, db)
      try db.execute(
        sql: """
          INSERT INTO key_slot (collectionID, kind, sealedLabel, created, salt, wrappedKey,
            sealed, policy, keyMAC)
          VALUES (?, ?, x'', ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          collectionID, kind.rawValue, created, Data(salt), wrapped, sealed, policy, mac,
        ])
      let id = db.lastInsertedRowID
      // The label is bound to the slot's id, known only now.
      let sealedLabel = try AESGCM.seal(
        Array(label.utf8), key: keys.metadata, associatedData: Self.slotLabelAAD(collection, id))
      try db.execute(
        sql: "UPDATE key_slot SET sealedLabel = ? WHERE id = ?",
        arguments: [Data(sealedLabel), id])
      return id
    }
    return KeySlot(
      id: id, kind: kind, label: label, created: Self.date(created), lastUsed: nil,
      policy: policy)
  }

  /// The slots of `collection` whose secret a device keeps, for the device to unseal.
  public func sealedSlots(of collection: String, kind: KeySlot.Kind) throws -> [SealedSlot] {
    try lookup(persistent) { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT key_slot.id, sealed, policy
          FROM key_slot JOIN collection ON collection.id = key_slot.collectionID
          WHERE collection.name = ? AND kind = ? AND sealed IS NOT NULL ORDER BY key_slot.id
          """, arguments: [collection, kind.rawValue])
    }.map { row in
      SealedSlot(
        id: row["id"], kind: kind, sealed: Array(row["sealed"] as Data), policy: row["policy"])
    }
  }

  /// Removes slot `id` of `collection`, proved by `proof` (which may open that very slot).
  /// The password slot cannot be removed: it is what keeps the collection openable.
  public func removeSlot(_ id: Int64, of collection: String, proof: KeyProof) throws {
    guard id != KeySlot.passwordID else {
      throw StoreError.invalid(
        "the password slot cannot be removed; every collection keeps its password")
    }
    _ = try openKey(of: collection, with: proof)
    try commit { db in
      let collectionID = try self.collectionID(collection, db)
      try db.execute(
        sql: "DELETE FROM key_slot WHERE id = ? AND collectionID = ?",
        arguments: [id, collectionID])
      guard db.changesCount == 1 else {
        throw StoreError.invalid("collection '\(collection)' has no key slot \(id)")
      }
    }
  }

  /// Checks that `proof` opens slot `id` of `collection` (that one, not another), changing
  /// nothing: `wrongPassword` or `wrongRecoveryKey` if it does not.
  public func testSlot(_ id: Int64, of collection: String, with proof: KeyProof) throws {
    let slots = try keySlots(of: collection)
    guard let slot = slots.first(where: { $0.id == id }) else {
      throw StoreError.invalid("collection '\(collection)' has no key slot \(id)")
    }
    guard proof.kind == nil || slot.kind == proof.kind else {
      throw StoreError.invalid(
        "key slot \(id) of '\(collection)' is a \(slot.kind.rawValue) slot; "
          + "give its \(slot.kind == .password ? "password" : "key")")
    }
    _ = try openKey(of: collection, with: proof, onlySlot: id)
  }

  /// Unlocks `collection` with any of its slots; a slot other than the password notes its use.
  /// A wrong key throws and changes nothing.
  public func unlock(_ collection: String, with proof: KeyProof) throws {
    guard collection != Self.sessionCollection else { return }
    let (dataKey, slot) = try openKey(of: collection, with: proof)
    let key = try CipherKey.gcm(dataKey)
    if let slot { try noteSlotUse(slot) }
    unlocked.withLock { $0[collection] = key }
  }

  /// Sets a new password on `collection` with a recovery key, for a password that was lost:
  /// the data key is re-wrapped (O(1)); items, other slots and the key itself stay valid.
  public func resetPassword(
    _ collection: String, recoveryKey: RecoveryKey, to newPassword: SecureBytes
  ) throws {
    guard collection != Self.sessionCollection else {
      throw StoreError.invalid("the session collection has no password")
    }
    let (dataKey, slot) = try openKey(of: collection, with: .recoveryKey(recoveryKey))
    try rewrapPassword(of: collection, dataKey: dataKey, newPassword: newPassword)
    if let slot { try noteSlotUse(slot) }
  }

  /// The data key `proof` opens, and the slot that opened it (nil for the password).
  /// Damaged slot records are skipped while another opens; when none does and one was
  /// damaged, that is said rather than "wrong key".
  func openKey(of collection: String, with proof: KeyProof, onlySlot: Int64? = nil) throws
    -> (SecureBytes, Int64?)
  {
    let (secret, only): (SecureBytes, Int64?)
    switch proof {
    case .password(let password): return (try unwrap(collection, password), nil)
    case .recoveryKey(let key): (secret, only) = (key.bytes, onlySlot)
    case .sealedSecret(let slot, let bytes): (secret, only) = (bytes, slot)
    }
    let rows = try lookup(persistent) { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT key_slot.id, kind, salt, key_slot.wrappedKey, sealed, policy, key_slot.keyMAC
          FROM key_slot JOIN collection ON collection.id = key_slot.collectionID
          WHERE collection.name = ?
          """, arguments: [collection])
    }
    if rows.isEmpty { _ = try self.collection(collection) }
    var damaged: [Int64] = []
    for row in rows where only == nil || row["id"] == only {
      guard let kind = KeySlot.Kind(rawValue: row["kind"]),
        proof.kind == nil || kind == proof.kind
      else { continue }
      let (salt, wrapped): (Data, Data) = (row["salt"], row["wrappedKey"])
      let expected = try keys.slotMAC(
        collection: collection, kind: kind.rawValue, salt: salt, wrappedKey: wrapped,
        sealed: row["sealed"], policy: row["policy"])
      guard row["keyMAC"] as Data? == expected else {
        damaged.append(row["id"])
        continue
      }
      let wrapKey = try Self.slotWrapKey(secret, kind, salt: Array(salt), collection: collection)
      if let key = try? AESGCM.open(
        Array(wrapped), key: wrapKey, associatedData: Self.slotKeyAAD(collection, kind))
      {
        return (key, row["id"])
      }
    }
    if let slot = damaged.first {
      throw StoreError.corrupt(
        "key slot \(slot) of '\(collection)' is damaged; no key can open it")
    }
    if case .sealedSecret(let slot, _) = proof {
      throw StoreError.corrupt(
        "what the device gave back does not open key slot \(slot) of '\(collection)'")
    }
    throw StoreError.wrongRecoveryKey
  }

  /// Records that slot `id` opened its collection, for `slot list`.
  private func noteSlotUse(_ id: Int64) throws {
    try commit { db in
      try db.execute(
        sql: "UPDATE key_slot SET lastUsed = ? WHERE id = ?",
        arguments: [Self.seconds(now()), id])
    }
  }

  static func slotWrapKey(
    _ secret: SecureBytes, _ kind: KeySlot.Kind, salt: [UInt8], collection: String
  ) throws -> SecureBytes {
    try HKDF.deriveKey(
      inputKey: secret, salt: salt,
      info: Array("keychain-linux \(kind.rawValue) slot:\(collection)".utf8),
      length: AESGCM.keySize)
  }

  static func slotKeyAAD(_ collection: String, _ kind: KeySlot.Kind) -> [UInt8] {
    Array("key slot:\(kind.rawValue):\(collection)".utf8)
  }

  static func slotLabelAAD(_ collection: String, _ id: Int64) -> [UInt8] {
    Array("key slot label:\(id):\(collection)".utf8)
  }
}
