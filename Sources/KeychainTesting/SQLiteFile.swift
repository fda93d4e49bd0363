// SPDX-License-Identifier: MIT
//
// Direct access to a store's database file for tests that damage it the way a bad disk would.

import GRDB

/// A database file opened behind keychaind's back.
public struct SQLiteFile {
  private let path: String

  public init(_ path: String) throws { self.path = path }

  /// Runs `sql` in one transaction, then closes the file.
  public func execute(_ sql: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: sql) }
    try queue.close()
  }
}
