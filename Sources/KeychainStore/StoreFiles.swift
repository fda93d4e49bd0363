// SPDX-License-Identifier: MIT
//
// The store's directory and the index key file beside the database. The directory is 0700 and
// every file 0600; a store whose files are open to others is refused rather than "fixed",
// because the secrets may already have been read.

import Foundation
import KeychainCrypto

enum StoreFiles {
  static let databaseName = "keychain.db"
  static let indexKeyName = "index.key"

  /// Creates `directory` (0700) if needed and checks that it is private.
  static func prepare(_ directory: String) throws {
    var info = stat()
    if stat(directory, &info) != 0 {
      guard errno == ENOENT else {
        throw StoreError.invalid("cannot read \(directory): errno \(errno)")
      }
      try FileManager.default.createDirectory(
        atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
      )
      chmod(directory, 0o700)
      return
    }
    try checkPrivate(directory, info)
  }

  /// Refuses a file or directory that anyone but its owner can read, write or enter.
  static func checkPrivate(_ path: String, _ info: stat? = nil) throws {
    var status = info ?? stat()
    if info == nil {
      guard stat(path, &status) == 0 else { return }
    }
    let mode = UInt32(status.st_mode) & 0o777
    guard mode & 0o077 == 0 else { throw StoreError.unsafePermissions(path: path, mode: mode) }
  }

  /// The index key: made on first use, then read; usable while collections are locked.
  static func indexKey(in directory: String) throws -> SecureBytes {
    let path = directory + "/" + indexKeyName
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd >= 0 {
      defer { close(fd) }
      try checkPrivate(path)
      let key = try SecureBytes(count: 32) { buffer in
        guard read(fd, buffer.baseAddress, 32) == 32 else {
          throw StoreError.corrupt("\(indexKeyName) is not a 32-byte key")
        }
      }
      return key
    }
    guard errno == ENOENT else { throw StoreError.invalid("cannot read \(path): errno \(errno)") }
    let key = SecureBytes.random(count: 32, level: .longTerm)
    // Written to a temporary name and renamed, so a crash never leaves half a key.
    let temporary = path + ".new"
    let out = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard out >= 0 else { throw StoreError.invalid("cannot create \(path): errno \(errno)") }
    let written = key.withUnsafeBytes { write(out, $0.baseAddress, 32) }
    let synced = fsync(out) == 0
    close(out)
    guard written == 32, synced, rename(temporary, path) == 0 else {
      unlink(temporary)
      throw StoreError.invalid("cannot write \(path)")
    }
    syncDirectory(directory)
    return key
  }

  /// Makes the store's files private: the database and SQLite's WAL and shared-memory files.
  static func restrictDatabaseFiles(in directory: String) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
      chmod(directory + "/" + databaseName + suffix, 0o600)
    }
  }

  static func syncDirectory(_ directory: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
      fsync(fd)
      close(fd)
    }
  }
}
