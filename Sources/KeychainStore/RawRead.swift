// SPDX-License-Identifier: MIT
//
// The hottest reads (a search's probes and walk, an item's existence and load) step their
// cached statements through SQLite's C API. GRDB's fetch methods box every argument, keep a
// copy of the arguments, and build a row object per result: on a one-hit SearchItems that was
// about a third of the daemon's time (perf with DWARF stacks on `keychain-load --only search`;
// Benchmarks/README.md). Everything else goes through GRDB as usual.
//
// Only for reads, inside a `lookup` or a write's transaction, on the statement's own
// connection: GRDB has serialized the access already. The statement is reset before it
// returns, which outside a transaction ends SQLite's implicit read transaction: a read left
// open would keep a WAL snapshot and stall checkpoints.

import Foundation
import GRDB
import GRDBSQLite

/// One run of a cached, read-only statement.
struct RawRead {
  private let statement: Statement
  // Owned by GRDB's `statement`, which this struct holds: valid for the whole run.
  private var raw: OpaquePointer { statement.sqliteStatement }

  /// Binds `arguments` to `statement` (1-based, in order), after resetting it.
  init(_ statement: Statement, _ arguments: [RawArgument]) throws {
    self.statement = statement
    sqlite3_reset(raw)
    sqlite3_clear_bindings(raw)
    for (index, argument) in zip(Int32(1)..., arguments) {
      let code: Int32
      switch argument {
      case .integer(let value):
        code = sqlite3_bind_int64(raw, index, value)
      case .text(let value):
        code = sqlite3_bind_text(raw, index, value, -1, RawRead.transient)
      case .blob(let value):
        code = value.withUnsafeBytes { bytes in
          sqlite3_bind_blob(raw, index, bytes.baseAddress, Int32(bytes.count), RawRead.transient)
        }
      }
      guard code == SQLITE_OK else { throw error(code) }
    }
  }

  /// Calls `body` with each result row; stops early when it returns false.
  func forEachRow(_ body: (RawRow) throws -> Bool) throws {
    defer { sqlite3_reset(raw) }
    while true {
      let code = sqlite3_step(raw)
      if code == SQLITE_DONE { return }
      guard code == SQLITE_ROW else { throw error(code) }
      guard try body(RawRow(raw: raw)) else { return }
    }
  }

  /// The first row's value of `read`, or nil when there is no row.
  func first<T>(_ read: (RawRow) throws -> T) throws -> T? {
    var value: T?
    try forEachRow { row in
      value = try read(row)
      return false
    }
    return value
  }

  private func error(_ code: Int32) -> DatabaseError {
    DatabaseError(
      resultCode: ResultCode(rawValue: code),
      message: String(cString: sqlite3_errmsg(sqlite3_db_handle(raw))), sql: statement.sql)
  }

  // SQLite copies a transient argument at once: the values bound are a few bytes each.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// An argument of a `RawRead`.
enum RawArgument {
  case integer(Int64)
  case text(String)
  case blob(Data)
}

/// The current row of a `RawRead`, valid only inside its `forEachRow` body.
///
/// The column pointers SQLite returns stay valid only until the next step or reset (asked for
/// before the size, as SQLite requires, so no conversion moves them): `text` copies at once,
/// and `withBlob` lends the blob only for the duration of `body`.
struct RawRow {
  fileprivate let raw: OpaquePointer

  func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }

  func text(_ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(raw, column) else { return "" }
    let count = Int(sqlite3_column_bytes(raw, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
  }

  /// The blob in `column`, lent to `body` without a copy (empty for NULL).
  func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    let base = sqlite3_column_blob(raw, column)
    let count = Int(sqlite3_column_bytes(raw, column))
    return try body(UnsafeRawBufferPointer(start: base, count: base == nil ? 0 : count))
  }
}
