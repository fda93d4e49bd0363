// SPDX-License-Identifier: MIT
//
// Imports that can be repeated: a source's items merged into a collection in one transaction,
// and a record of which file (identity and hash) was imported, so that an unchanged file is
// skipped and a changed one is merged again. Merging never deletes: an item matches one already
// there by its number and attributes, or by its attributes alone; the newer modification date
// wins (a newer copy with the same label, content type and secret changes nothing), when the
// import may change that item at all (`ImportUpdateRule`: by default only items no program
// owns, so that a file any program can write cannot replace another program's secret); anything
// else is added.

import Foundation
import GRDB
import KeychainAccess
import KeychainCrypto

/// A file an import read, as identified when it was read.
public struct ImportSource: Equatable, Sendable {
  public var path: String
  public var collection: String
  public var device: UInt64
  public var inode: UInt64
  public var size: Int64
  public var modifiedNanoseconds: Int64
  public var sha256: [UInt8]
  public var importedAt: Date
  /// What the import did, in words, for reports.
  public var result: String

  public init(
    path: String, collection: String, device: UInt64, inode: UInt64, size: Int64,
    modifiedNanoseconds: Int64, sha256: [UInt8], importedAt: Date = Date(), result: String = ""
  ) {
    self.path = path
    self.collection = collection
    self.device = device
    self.inode = inode
    self.size = size
    self.modifiedNanoseconds = modifiedNanoseconds
    self.sha256 = sha256
    self.importedAt = importedAt
    self.result = result
  }

  /// Whether `other` describes the same file content as this record does.
  public func sameFile(as other: ImportSource) -> Bool {
    (device, inode, size, modifiedNanoseconds, sha256)
      == (other.device, other.inode, other.size, other.modifiedNanoseconds, other.sha256)
  }
}

/// Which items already there an import may overwrite with a newer copy, given the item and its
/// owner (nil: none).
public typealias ImportUpdateRule = @Sendable (ItemID, ItemOwner?) -> Bool

extension KeychainStore {
  /// Only items no program owns: those stored before access control, or imported. What
  /// keychaind's own imports follow (any program of the user can write the files they read).
  public static let unownedOnly: ImportUpdateRule = { $1 == nil }
}

/// What a merge did.
public struct MergeReport: Equatable, Sendable {
  /// Items that were not there, and were added.
  public var added: [ItemID] = []
  /// Items that were there, older, and took the source's label, secret and date.
  public var updated: [ItemID] = []
  /// Items that were there, as new or newer or with the same label, content type and secret:
  /// left as they were.
  public var unchanged = 0
  /// Added items whose number was taken, so that they got another (and another path).
  public var renumbered = 0
  /// Items there, older, that the import's rule did not let it change: kept as they were.
  public var kept: [ItemID] = []

  public init() {}
}

extension KeychainStore {
  /// The record of the last import from `path`, if any.
  public func importSource(path: String) throws -> ImportSource? {
    try lookup(persistent) { db in
      try Row.fetchOne(db, sql: "SELECT * FROM import_source WHERE path = ?", arguments: [path])
        .map(Self.importSource)
    }
  }

  /// Every import record.
  public func importSources() throws -> [ImportSource] {
    try lookup(persistent) { db in
      try Row.fetchAll(db, sql: "SELECT * FROM import_source ORDER BY path").map(Self.importSource)
    }
  }

  private static func importSource(_ row: Row) -> ImportSource {
    ImportSource(
      path: row["path"], collection: row["collection"],
      device: UInt64(bitPattern: row["device"]), inode: UInt64(bitPattern: row["inode"]),
      size: row["size"], modifiedNanoseconds: row["modifiedNS"],
      sha256: Array(row["sha256"] as Data), importedAt: date(row["importedAt"]),
      result: row["result"])
  }

  /// Merges `items` into the unlocked `collection` and records `source`, in one durable
  /// transaction: all of it or nothing. See the file's header for the rules. `progress` hears
  /// how many items are done, every 500 and at the end.
  public func merge(
    _ items: [ImportedItem], into collection: String, source: ImportSource,
    updating mayUpdate: ImportUpdateRule = unownedOnly, progress: (Int) -> Void = { _ in }
  ) throws -> MergeReport {
    for item in items {
      try ItemPayload.checkLimits(
        label: item.label, attributes: item.attributes, secretCount: item.secret.count)
    }
    let key = try dataKey(collection)
    let owners = try self.owners(in: collection)
    let now = Self.seconds(self.now())
    var remembered: [ItemInfo] = []
    let report = try write(collection) { db -> MergeReport in
      let collectionID = try collectionID(collection, db)
      var report = MergeReport()
      var matched = Set<Int64>()
      var renumber: [(ImportedItem, ItemPayload, [Data], Int64)] = []
      func add(
        _ item: ImportedItem, _ payload: ItemPayload, _ wanted: [Data], _ modified: Int64,
        id: Int64?
      ) throws {
        let created = item.created.map(Self.seconds) ?? now
        let added = try insert(
          payload, digests: wanted, into: collection, collectionID: collectionID, key: key,
          stamp: modified, created: created, id: id, db)
        matched.insert(added.id)
        report.added.append(added)
        remembered.append(info(added, payload, created, modified))
      }
      for (index, item) in items.enumerated() {
        if index % 500 == 0, index > 0 { progress(index) }
        let wanted = try digests(item.attributes)
        let payload = ItemPayload(
          label: item.label, contentType: item.contentType, attributes: item.attributes,
          secret: item.secret)
        let modified = item.modified.map(Self.seconds) ?? now
        if let existing = try match(item, wanted, in: collection, excluding: matched, key, db) {
          matched.insert(existing.item.id)
          // The same item copied with newer times (oo7 resets them when it migrates a
          // keyring) changes nothing.
          let same =
            (existing.payload.label, existing.payload.contentType, existing.payload.secret)
            == (payload.label, payload.contentType, payload.secret)
          guard modified > existing.modified, !same else {
            report.unchanged += 1
            continue
          }
          guard mayUpdate(existing.item, owners[existing.item.id]) else {
            report.kept.append(existing.item)
            continue
          }
          try db.cachedStatement(sql: "UPDATE item SET sealed = ?, modified = ? WHERE id = ?")
            .execute(arguments: [
              try seal(payload, for: existing.item, key: key), modified, existing.item.id,
            ])
          report.updated.append(existing.item)
          remembered.append(info(existing.item, payload, existing.created, modified))
          continue
        }
        let free = try item.preferredID.flatMap { id in
          // Run for every numbered item, so prepared once (see KeychainStore+Items).
          try Int.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM item WHERE id = ?"), arguments: [id])
            == nil
            ? id : nil
        }
        guard item.preferredID == nil || free != nil else {
          renumber.append((item, payload, wanted, modified))
          continue
        }
        try add(item, payload, wanted, modified, id: free)
      }
      // Items whose number keychaind has taken get new ones, after every item that keeps its
      // own: a new number must not take one that a later item of the source still has.
      for (item, payload, wanted, modified) in renumber {
        report.renumbered += 1
        try add(item, payload, wanted, modified, id: nil)
      }
      progress(items.count)
      if !report.added.isEmpty || !report.updated.isEmpty {
        try db.execute(
          sql: "UPDATE collection SET modified = ? WHERE id = ?", arguments: [now, collectionID])
      }
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO import_source
            (path, collection, device, inode, size, modifiedNS, sha256, importedAt, result)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          source.path, collection, Int64(bitPattern: source.device),
          Int64(bitPattern: source.inode), source.size, source.modifiedNanoseconds,
          Data(source.sha256), now, source.result,
        ])
      return report
    }
    for info in remembered { metadata.remember(info) }
    return report
  }

  private func info(_ item: ItemID, _ payload: ItemPayload, _ created: Int64, _ modified: Int64)
    -> ItemInfo
  {
    ItemInfo(
      id: item, label: payload.label, attributes: payload.attributes,
      contentType: payload.contentType, created: Self.date(created),
      modified: Self.date(modified))
  }

  /// The item of `collection` that `item` is: the one with its number and the same attributes,
  /// else one with the same attributes that nothing else matched yet.
  private func match(
    _ item: ImportedItem, _ wanted: [Data], in collection: String, excluding matched: Set<Int64>,
    _ key: CipherKey, _ db: Database
  ) throws -> (item: ItemID, payload: ItemPayload, created: Int64, modified: Int64)? {
    var candidates = try matching(wanted, collection: collection, db)
      .filter { !matched.contains($0.id) }
    if let preferred = item.preferredID,
      let index = candidates.firstIndex(where: { $0.id == preferred })
    {
      candidates.swapAt(0, index)
    }
    for candidate in candidates {
      // The index finds items holding these pairs; only the sealed record says whether the
      // attributes are exactly these.
      let opened = try Self.openItem(candidate, key: key, db)
      if opened.payload.attributes == item.attributes {
        return (candidate, opened.payload, opened.created, opened.modified)
      }
    }
    return nil
  }
}
