// SPDX-License-Identifier: MIT
//
// The database schema, only ever changed through named migrations. Nothing in it is secret in
// plaintext: labels, attributes and secrets are sealed; attribute search goes through keyed
// digests whose key lives outside the database.

import Foundation
import GRDB

enum Schema {
  /// The tables every version of the schema has; a database without them is not a store.
  static let tables = ["collection", "alias", "item", "item_digest"]

  /// The migrations; `keys` fill the check values of rows that predate them.
  static func migrator(_ keys: StoreKeys) -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1-collections-items-index") { db in
      try db.execute(
        sql: """
          CREATE TABLE collection (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            name TEXT NOT NULL UNIQUE,       -- the object path element, e.g. 'login'
            sealedLabel BLOB NOT NULL,       -- AES-GCM under the metadata key
            created INTEGER NOT NULL,
            modified INTEGER NOT NULL,
            kdfSalt BLOB NOT NULL,
            kdfIterations INTEGER NOT NULL,
            kdfMemoryKiB INTEGER NOT NULL,
            kdfParallelism INTEGER NOT NULL,
            wrappedKey BLOB NOT NULL         -- the data key, AES-GCM under Argon2id(password)
          );
          CREATE TABLE alias (
            name TEXT PRIMARY KEY,
            collectionID INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE
          );
          CREATE TABLE item (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            collectionID INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
            created INTEGER NOT NULL,
            modified INTEGER NOT NULL,
            sealed BLOB NOT NULL             -- label, attributes, content type, secret
          );
          CREATE INDEX item_collection ON item(collectionID);
          CREATE TABLE item_digest (
            digest BLOB NOT NULL,            -- HMAC(index key, name NUL value), 16 bytes
            itemID INTEGER NOT NULL REFERENCES item(id) ON DELETE CASCADE,
            PRIMARY KEY (digest, itemID)
          ) WITHOUT ROWID;
          CREATE INDEX item_digest_item ON item_digest(itemID);
          """)
    }
    // Checks made with the index key, so that damage is told apart from a wrong password or a
    // key file that belongs to another database (see StoreKeys).
    migrator.registerMigration("v2-check-values") { db in
      try db.execute(
        sql: """
          CREATE TABLE meta (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
          ALTER TABLE collection ADD COLUMN keyMAC BLOB;
          ALTER TABLE item ADD COLUMN indexMAC BLOB;
          """)
      try db.execute(
        sql: "INSERT INTO meta (name, value) VALUES ('index-key-check', ?)",
        arguments: [try keys.keyCheck()])
      for row in try Row.fetchAll(
        db,
        sql:
          "SELECT id, name, kdfSalt, kdfIterations, kdfMemoryKiB, kdfParallelism, wrappedKey FROM collection"
      ) {
        try db.execute(
          sql: "UPDATE collection SET keyMAC = ? WHERE id = ?",
          arguments: [try keys.collectionKeyMAC(row), row["id"] as Int64])
      }
      for id in try Int64.fetchAll(db, sql: "SELECT id FROM item") {
        let digests = try Data.fetchAll(
          db, sql: "SELECT digest FROM item_digest WHERE itemID = ?", arguments: [id])
        try db.execute(
          sql: "UPDATE item SET indexMAC = ? WHERE id = ?",
          arguments: [try keys.indexMAC(item: id, digests: digests), id])
      }
    }
    // What was imported from where (gnome-keyring's files), so that an unchanged source is not
    // read again and a changed one is merged. Paths and file identities only: nothing secret.
    migrator.registerMigration("v3-import-sources") { db in
      try db.execute(
        sql: """
          CREATE TABLE import_source (
            path TEXT PRIMARY KEY,           -- the source file, e.g. ~/.local/share/keyrings/login.keyring
            collection TEXT NOT NULL,        -- the collection it went into
            device INTEGER NOT NULL,
            inode INTEGER NOT NULL,
            size INTEGER NOT NULL,
            modifiedNS INTEGER NOT NULL,
            sha256 BLOB NOT NULL,
            importedAt INTEGER NOT NULL,
            result TEXT NOT NULL             -- what the last import did, for reports
          ) WITHOUT ROWID;
          """)
    }
    // Per-collection lock policies (`LockPolicy`): a setting named here overrides keychaind.conf
    // for that collection; one not named follows it.
    migrator.registerMigration("v4-lock-policies") { db in
      try db.execute(
        sql: """
          CREATE TABLE lock_policy (
            collectionID INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
            setting TEXT NOT NULL,           -- a keychaind.conf key, e.g. 'lock-after-unused'
            value INTEGER NOT NULL,          -- 0/1 for a switch, minutes for a timer
            PRIMARY KEY (collectionID, setting)
          ) WITHOUT ROWID;
          """)
    }
    // The commit counter the ledger beside the database is checked against (`CommitLedger`):
    // every durable transaction adds one.
    migrator.registerMigration("v5-commit-count") { db in
      try db.execute(sql: "INSERT INTO meta (name, value) VALUES ('commit-count', 0)")
    }
    // Per-application access (`KeychainStore+Access`): who owns each item, the grants the user
    // gave, and the audit log's chain key. All sealed under the collection's data key, so they
    // are read only while it is unlocked and cannot be forged without it; an item with no
    // owner row predates access control.
    migrator.registerMigration("v6-access") { db in
      try db.execute(
        sql: """
          CREATE TABLE item_owner (
            itemID INTEGER PRIMARY KEY REFERENCES item(id) ON DELETE CASCADE,
            sealed BLOB NOT NULL             -- the owner's identity key
          );
          CREATE TABLE access_grant (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            collectionID INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
            sealed BLOB NOT NULL             -- the grant, JSON
          );
          CREATE INDEX access_grant_collection ON access_grant(collectionID);
          CREATE TABLE audit_key (
            collectionID INTEGER PRIMARY KEY REFERENCES collection(id) ON DELETE CASCADE,
            sealed BLOB NOT NULL             -- the audit log's chain key
          );
          """)
    }
    // Key slots (KeySlots.swift) other than the password, which stays in `collection`'s own
    // columns: each wraps the collection's data key under a key of its own.
    migrator.registerMigration("v7-key-slots") { db in
      try db.execute(
        sql: """
          CREATE TABLE key_slot (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            collectionID INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,              -- 'recovery', 'tpm2', 'fido2', 'tpm2+fido2'
            sealedLabel BLOB NOT NULL,       -- AES-GCM under the metadata key
            created INTEGER NOT NULL,
            lastUsed INTEGER,                -- when it last opened the collection; NULL: never
            salt BLOB NOT NULL,
            wrappedKey BLOB NOT NULL,        -- the data key, AES-GCM under the slot's own key
            sealed BLOB,                     -- what the device needs: the TPM's sealed object,
                                             -- a FIDO2 key's salt and credential id
            policy TEXT,                     -- what else it takes, e.g. 'pin,pcrs=7+14'
            keyMAC BLOB NOT NULL             -- the record, checked with the metadata key
          );
          CREATE INDEX key_slot_collection ON key_slot(collectionID);
          """)
    }
    return migrator
  }

  /// Gives `target`, an empty database, the schema of `source`, a migrated store: its
  /// tables, indexes and triggers as SQLite recorded them, and the rows of `meta` and
  /// `grdb_migrations`, in one transaction. The in-memory session database is made this way at
  /// each start: running the six migrations again cost an eighth of keychaind's instructions
  /// to its first answer.
  static func copy(from source: some DatabaseReader, to target: some DatabaseWriter) throws {
    let (definitions, meta, migrations) = try source.read { db in
      (
        try String.fetchAll(
          db,
          sql: """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
            ORDER BY rowid
            """),
        try Row.fetchAll(db, sql: "SELECT name, value FROM meta"),
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
      )
    }
    try target.write { db in
      for definition in definitions { try db.execute(sql: definition) }
      for row in meta {
        try db.execute(
          sql: "INSERT INTO meta (name, value) VALUES (?, ?)",
          arguments: [row["name"] as DatabaseValue, row["value"] as DatabaseValue])
      }
      for identifier in migrations {
        try db.execute(
          sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
      }
    }
  }

  /// Adds one to the commit counter and returns it; in every durable transaction.
  static let bumpCommitCount =
    "UPDATE meta SET value = value + 1 WHERE name = 'commit-count' RETURNING value"
  /// The commit counter; 0 in a database from before it.
  static func commitCount(_ db: Database) throws -> Int64 {
    guard try db.tableExists("meta") else { return 0 }
    return try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE name = 'commit-count'") ?? 0
  }
}
