// SPDX-License-Identifier: MIT
//
// The statements on the hot paths (search, replace, read, write of one item), in one place so
// that a test can check their query plans: each must start from an index lookup (the digest or
// the row id), whatever the number of items. Plans are stable where timings are not.

enum StoreStatements {
  /// Items having digest `?` and `otherPairs` more digests, newest first; with `scoped`, only
  /// those of collection id `?` (and only their ids), otherwise ids and collection names.
  ///
  /// CROSS JOIN fixes the digest index as the outer loop. With plain joins and the collection
  /// filter SQLite started from the collection and walked each of its items: 34.7 ms a search at
  /// 100k items, where the digest gives one row.
  static func search(otherPairs: Int, scoped: Bool) -> String {
    otherPairs < spelt ? searches[otherPairs][scoped ? 1 : 0] : spellSearch(otherPairs, scoped)
  }

  /// How many items have each of `count` digests, each counted up to its own limit `?`.
  static func pairCounts(_ count: Int) -> String {
    count < spelt ? pairCountTexts[count] : spellPairCounts(count)
  }

  // The texts for up to `spelt` pairs are spelt once: they are built on every search
  // otherwise (a few allocations each), and searches rarely have more than four pairs.
  private static let spelt = 12
  private static let searches = (0..<spelt).map { [spellSearch($0, false), spellSearch($0, true)] }
  private static let pairCountTexts = (0..<spelt).map(spellPairCounts)

  private static func spellSearch(_ otherPairs: Int, _ scoped: Bool) -> String {
    let others = String(
      repeating:
        " AND EXISTS (SELECT 1 FROM item_digest o WHERE o.digest = ? AND o.itemID = d.itemID)",
      count: otherPairs)
    if scoped {
      return """
        SELECT d.itemID FROM item_digest d CROSS JOIN item ON item.id = d.itemID
        WHERE d.digest = ?\(others) AND item.collectionID = ? ORDER BY d.itemID DESC
        """
    }
    return """
      SELECT d.itemID, collection.name FROM item_digest d CROSS JOIN item ON item.id = d.itemID
      CROSS JOIN collection ON collection.id = item.collectionID
      WHERE d.digest = ?\(others) ORDER BY d.itemID DESC
      """
  }

  private static func spellPairCounts(_ count: Int) -> String {
    let probe = "(SELECT COUNT(*) FROM (SELECT 1 FROM item_digest WHERE digest = ? LIMIT ?))"
    return "SELECT " + Array(repeating: probe, count: count).joined(separator: ", ")
  }

  /// The id of the collection named `?`: on every scoped read, so prepared once.
  static let collectionID = "SELECT id FROM collection WHERE name = ?"

  /// The name of the collection alias `?` names.
  static let alias = """
    SELECT collection.name FROM alias JOIN collection ON collection.id = alias.collectionID
    WHERE alias.name = ?
    """

  /// The number of index rows of item `?` (an exact match for replace has as many as asked).
  static let pairsOfItem = "SELECT COUNT(*) FROM item_digest WHERE itemID = ?"

  /// Item `?` of the collection named `?`, sealed, with its dates.
  static let loadItem = """
    SELECT item.sealed, item.created, item.modified FROM item
    JOIN collection ON collection.id = item.collectionID WHERE item.id = ? AND collection.name = ?
    """

  /// 1 if item `?` is in the collection named `?` (reads no sealed bytes).
  static let itemExists = """
    SELECT 1 FROM item JOIN collection ON collection.id = item.collectionID
    WHERE item.id = ? AND collection.name = ?
    """

  /// The ids of collection `?`'s items, oldest first: a listing, linear in what it returns.
  static let collectionItems = "SELECT id FROM item WHERE collectionID = ? ORDER BY id"

  /// Every item's id and collection name, newest first (an empty search: all of them).
  static let allItems = """
    SELECT item.id, collection.name FROM item JOIN collection ON collection.id = item.collectionID
    ORDER BY item.id DESC
    """

  /// Every item of collection `?` with its check value and its index rows, in item order and
  /// each item's rows in byte order (how `StoreKeys.indexMAC` takes them).
  static let indexRowsOfCollection = """
    SELECT item.id, item.indexMAC, d.digest FROM item LEFT JOIN item_digest d ON d.itemID = item.id
    WHERE item.collectionID = ? ORDER BY item.id, d.digest
    """
}
