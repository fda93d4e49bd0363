// SPDX-License-Identifier: MIT
//
// What keychaind's import calls answer for each keyring file or backup collection: an `a{sv}`
// on the wire (so that fields can be added without breaking older clients), a typed struct on
// both sides, its keys spelled here and nowhere else (as zvariant's SerializeDict does).

import KeychainDBus

/// One keyring file's (or backup collection's) import outcome.
public struct ImportFileReport: DBusRepresentable, Sendable {
  /// The file, or the backup's collection.
  public var file: String
  /// The collection it went into.
  public var collection: String
  /// `imported`, `unchanged`, `pending` (no password opens it yet) or `failed`.
  public var status: String
  /// Why it is pending or failed.
  public var reason: String?
  /// Its items, and what became of them.
  public var items = 0
  public var added = 0
  public var updated = 0
  public var unchanged = 0
  /// Items that got a new number because theirs was taken.
  public var renumbered = 0
  /// Secrets written over several lines, recovered (textual keyrings).
  public var recovered = 0
  /// gnome-keyring access-control entries dropped.
  public var accessEntries = 0
  /// Flatpak apps' portal keys among the items.
  public var portalKeys = 0
  /// Items a newer copy was not let replace, because they belong to programs.
  public var kept = 0

  public init(file: String, collection: String, status: String, reason: String? = nil) {
    self.file = file
    self.collection = collection
    self.status = status
    self.reason = reason
  }

  /// "12 items, 10 added, 2 updated, 0 already there, 1 under a new path (theirs was
  /// taken)…": the one wording of an import's counts, in keychaind's log and keychainctl's
  /// report alike.
  public var summary: String {
    var parts = [
      "\(items) item(s)", "\(added) added", "\(updated) updated", "\(unchanged) already there",
    ]
    let notes = [
      (renumbered, "under a new path (theirs was taken)"),
      (recovered, "secrets written over several lines recovered"),
      (portalKeys, "Flatpak app keys"),
      (kept, "newer copies not taken (the items belong to programs)"),
      (accessEntries, "old access-control entries dropped"),
    ]
    for (count, words) in notes where count > 0 { parts.append("\(count) \(words)") }
    return parts.joined(separator: ", ")
  }

  /// The counts by their wire names, in order (for reports and JSON).
  public var counts: [(name: String, value: Int)] {
    Self.countFields.map { ($0.name, self[keyPath: $0.path]) }
  }

  private static let countFields: [(name: String, path: WritableKeyPath<Self, Int> & Sendable)] = [
    ("items", \.items), ("added", \.added), ("updated", \.updated), ("unchanged", \.unchanged),
    ("renumbered", \.renumbered), ("recovered", \.recovered),
    ("access_entries", \.accessEntries), ("portal_keys", \.portalKeys), ("kept", \.kept),
  ]

  public static var dbusType: DBusType { .dictionary(key: .string, value: .variant) }

  public var dbusValue: DBusValue {
    var fields: [String: DBusValue] = [
      "file": .string(file), "collection": .string(collection), "status": .string(status),
    ]
    if let reason { fields["reason"] = .string(reason) }
    for (name, value) in counts { fields[name] = .uint32(UInt32(clamping: value)) }
    return fields.dbusValue
  }

  /// Reads the fields it knows; one missing is empty or zero, and unknown ones are ignored
  /// (a newer daemon may send more).
  public init(dbusValue: DBusValue) throws(DBusError) {
    let fields = try [String: DBusValue](dbusValue: dbusValue)
    self.init(
      file: fields["file"]?.string ?? "", collection: fields["collection"]?.string ?? "",
      status: fields["status"]?.string ?? "", reason: fields["reason"]?.string)
    for (name, path) in Self.countFields {
      if case .uint32(let value)? = fields[name] { self[keyPath: path] = Int(value) }
    }
  }
}
