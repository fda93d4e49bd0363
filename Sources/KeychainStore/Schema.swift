// SPDX-License-Identifier: MIT
//
// The database schema, only ever changed through named migrations. Nothing in it is secret in
// plaintext: labels, attributes and secrets are sealed; attribute search goes through keyed
// digests whose key lives outside the database.

import GRDB

enum Schema {
  static var migrator: DatabaseMigrator {
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
    return migrator
  }
}
