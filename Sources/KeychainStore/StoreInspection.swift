// SPDX-License-Identifier: MIT
//
// What is in the store's directory, judged from the bytes of its files before SQLite opens
// any of them: SQLite itself starts a new, empty database over a file of zero bytes, and
// silently ignores a write-ahead log whose header or frames fail their checksums, so a damaged
// store would otherwise open as an empty or shorter one. Formats: https://sqlite.org/fileformat2.html
// (§1.3 the database header, §4 the WAL).

import Foundation

/// The store's files as found at start-up, and whether they can be opened without losing data.
struct StoreInspection {
  let directory: String
  var databaseExists = false
  var keyExists = false
  var logExists = false
  /// A half-made database left by an interrupted first start (see `StoreFiles.create`).
  var unfinishedDatabaseExists = false

  init(_ directory: String) throws(StoreError) {
    self.directory = directory
    func exists(_ name: String) -> Bool { access(directory + "/" + name, F_OK) == 0 }
    databaseExists = exists(StoreFiles.databaseName)
    keyExists = exists(StoreFiles.indexKeyName)
    logExists = exists(StoreFiles.databaseName + "-wal")
    unfinishedDatabaseExists = exists(StoreFiles.unfinishedName)
  }

  /// Nothing of a store is here: the only case in which a new one may be made.
  var isEmpty: Bool { !databaseExists && !logExists && (!keyExists || unfinishedDatabaseExists) }

  private func path(_ name: String) -> String { directory + "/" + name }

  /// Refuses a store whose files say that opening it would lose or replace data.
  func checkFiles() throws(StoreError) {
    let database = path(StoreFiles.databaseName)
    guard databaseExists else {
      if logExists {
        throw .damaged(
          path: database + "-wal", problem: "the write-ahead log is here but keychain.db is not",
          remedy: "Restore keychain.db beside it; to start a new keyring instead, move the "
            + "directory aside.")
      }
      throw .damaged(
        path: path(StoreFiles.indexKeyName),
        problem: "the index key is here but keychain.db is not",
        remedy: "Restore keychain.db from a backup; to start a new keyring instead, move the "
          + "directory aside.")
    }
    guard keyExists else {
      throw .damaged(
        path: path(StoreFiles.indexKeyName),
        problem: "keychain.db is here but its index key is missing, so no attribute and no "
          + "collection label could be read",
        remedy: "Restore index.key from the backup it was taken with.")
    }
    let pageSize = try Self.checkDatabaseHeader(database)
    if logExists { try Self.checkLog(database + "-wal", databasePageSize: pageSize) }
  }

  /// The database file's header (sqlite.org/fileformat2.html §1.3); returns the page size.
  static func checkDatabaseHeader(_ path: String) throws(StoreError) -> Int {
    let bytes = try read(path, limit: 100)
    let size = try fileSize(path)
    func damaged(_ problem: String) -> StoreError {
      .damaged(
        path: path, problem: problem,
        remedy: "Restore it from a backup; keychainctl check describes the damage.")
    }
    guard size > 0 else { throw damaged("the database file is empty (0 bytes)") }
    guard bytes.count == 100, bytes.starts(with: Array("SQLite format 3\0".utf8)) else {
      throw damaged("this is not an SQLite database")
    }
    let raw = Int(bytes[16]) << 8 | Int(bytes[17])
    let pageSize = raw == 1 ? 65536 : raw
    guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
      throw damaged("its header names an impossible page size, \(raw)")
    }
    guard size % pageSize == 0 else {
      throw damaged("it is \(size) bytes long, not a whole number of \(pageSize)-byte pages")
    }
    // The page count in the header is valid when the change counter matches "version valid for".
    if word(bytes, 24) == word(bytes, 92), word(bytes, 28) > 0 {
      let expected = Int(word(bytes, 28)) * pageSize
      guard size >= expected else {
        throw damaged("it was cut short: \(size) bytes of the \(expected) its header names")
      }
    }
    return pageSize
  }

  /// The write-ahead log (sqlite.org/fileformat2.html §4). SQLite replays frames up to the last
  /// commit whose checksums hold and silently drops the rest. Every acknowledged commit was synced
  /// whole, so a damaged or torn tail can only hold the one transaction in flight at a crash: a
  /// commit frame of the same log generation beyond the first bad frame means that acknowledged
  /// changes would vanish, and so does a header that fails its checksum in front of frames.
  static func checkLog(_ path: String, databasePageSize: Int) throws(StoreError) {
    let bytes = try read(path, limit: Int.max)
    func damaged(_ problem: String) -> StoreError {
      .damaged(
        path: path, problem: problem,
        remedy: "The changes written since the last checkpoint are in this file. To open the "
          + "store without them, move the file aside (keychain.db alone is the store as of "
          + "its last checkpoint); keychainctl check describes the damage.")
    }
    guard bytes.count > 32 else { return }  // no frame: nothing that could be lost
    let magic = word(bytes, 0)
    guard magic == 0x377f_0682 || magic == 0x377f_0683, word(bytes, 4) == 3_007_000 else {
      throw damaged("its header is not a write-ahead log header (offset 0)")
    }
    let bigEndian = magic & 1 == 1
    let pageSize = Int(word(bytes, 8)) == 1 ? 65536 : Int(word(bytes, 8))
    guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
      throw damaged("its header names an impossible page size (offset 8)")
    }
    var sum = checksum(bytes[0..<24], bigEndian: bigEndian, (0, 0))
    guard sum == (word(bytes, 24), word(bytes, 28)) else {
      throw damaged("its header fails its checksum (offset 24)")
    }
    let salts = (word(bytes, 16), word(bytes, 20))
    let frameSize = 24 + pageSize
    var offset = 32
    // Frames that check out, one after the other.
    while offset + frameSize <= bytes.count {
      guard (word(bytes, offset + 8), word(bytes, offset + 12)) == salts else { break }
      sum = checksum(bytes[offset..<(offset + 8)], bigEndian: bigEndian, sum)
      sum = checksum(bytes[(offset + 24)..<(offset + frameSize)], bigEndian: bigEndian, sum)
      guard sum == (word(bytes, offset + 16), word(bytes, offset + 20)) else { break }
      offset += frameSize
    }
    let firstBad = offset
    // Beyond it: a commit of this generation that SQLite would drop.
    while offset + frameSize <= bytes.count {
      if (word(bytes, offset + 8), word(bytes, offset + 12)) == salts, word(bytes, offset + 4) != 0
      {
        throw damaged(
          "the frame at offset \(firstBad) fails its checksum, and a committed transaction "
            + "follows it at offset \(offset): SQLite would silently drop it")
      }
      offset += frameSize
    }
  }

  // MARK: Bytes

  static func read(_ path: String, limit: Int) throws(StoreError) -> [UInt8] {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw .invalid("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { try? handle.close() }
    do {
      let data = limit == .max ? try handle.readToEnd() : try handle.read(upToCount: limit)
      return Array(data ?? Data())
    } catch {
      throw .invalid("cannot read \(path): \(error)")
    }
  }

  static func fileSize(_ path: String) throws(StoreError) -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw .invalid("cannot read \(path): \(String(cString: strerror(errno)))")
    }
    return Int(info.st_size)
  }

  /// The big-endian 32-bit word at `offset`.
  static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
  }

  /// SQLite's WAL checksum, continued from `start` over `bytes` (a multiple of 8 bytes), reading
  /// words in the byte order the log's magic names.
  static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, _ start: (UInt32, UInt32))
    -> (UInt32, UInt32)
  {
    var (s0, s1) = start
    bytes.withUnsafeBytes { raw in
      func word(_ offset: Int) -> UInt32 {
        let value = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
      }
      for offset in stride(from: 0, to: raw.count - 7, by: 8) {
        s0 = s0 &+ word(offset) &+ s1
        s1 = s1 &+ word(offset + 4) &+ s0
      }
    }
    return (s0, s1)
  }
}
