// SPDX-License-Identifier: MIT
//
// The fault VFS (Sources/KeychainFaultVFS) loaded into the real keychaind with LD_PRELOAD: it
// logs every sync of the store's files and keeps a copy of each file as of its last sync, which
// is what a power cut would leave on the disk.

import Foundation

/// Syncs of a keychaind under test, and the power cuts it can be put through.
public struct FaultVFS: Sendable {
  /// The log of writes and syncs ("sync keychain.db-wal", one a line).
  public let logPath: String
  /// Where the VFS keeps each file as of its last sync.
  public let shadowDirectory: String
  /// Holds the byte quota of the store's directory, when one is set (`fillDisk`).
  public let quotaPath: String
  private let directory: TemporaryDirectory

  /// The shared library, built beside keychaind (`swift build` builds it with the tests).
  public static var library: String { Binaries.helper("libKeychainFaultVFS.so") }

  public init() throws {
    directory = try TemporaryDirectory(prefix: "fault-vfs")
    logPath = directory.path + "/log"
    shadowDirectory = directory.path + "/shadow"
    quotaPath = directory.path + "/quota"
    try FileManager.default.createDirectory(
      atPath: shadowDirectory, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: logPath, contents: nil)
  }

  /// The variables that load the VFS into a daemon.
  public var environment: [String: String] {
    [
      "LD_PRELOAD": Self.library, "KEYCHAIN_FAULT_VFS_LOG": logPath,
      "KEYCHAIN_FAULT_VFS_SHADOW": shadowDirectory, "KEYCHAIN_FAULT_VFS_QUOTA": quotaPath,
    ]
  }

  /// From now on the store's directory (`store`) cannot grow beyond its present size plus
  /// `headroom` bytes, as on a disk that is full; nil lifts the limit.
  public func fillDisk(store: String?, headroom: Int = 0) throws {
    guard let store else {
      try? FileManager.default.removeItem(atPath: quotaPath)
      return
    }
    var total = 0
    for name in try FileManager.default.contentsOfDirectory(atPath: store) {
      let attributes = try FileManager.default.attributesOfItem(atPath: store + "/" + name)
      if attributes[.type] as? FileAttributeType == .typeRegular {
        total += attributes[.size] as? Int ?? 0
      }
    }
    try String(total + headroom).write(toFile: quotaPath, atomically: true, encoding: .utf8)
  }

  /// How many syncs of `file` (a base name, such as keychain.db-wal) have been logged.
  public func syncs(of file: String) -> Int {
    let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    return log.split(separator: "\n").filter { $0 == "sync \(file)" }.count
  }

  /// After the daemon was killed: replaces the store's files in `store` (its data directory)
  /// with what their last syncs left. A log never synced is gone; the database file keeps its
  /// content when SQLite never synced it (it was synced whole when the store was made); the
  /// shared-memory index is gone, as it is after any crash that SQLite recovers from.
  public func cutPower(store: String) throws {
    let manager = FileManager.default
    for name in ["keychain.db", "keychain.db-wal"] {
      let target = store + "/" + name
      let kept = shadowDirectory + "/" + name
      if manager.fileExists(atPath: kept) {
        try? manager.removeItem(atPath: target)
        try manager.copyItem(atPath: kept, toPath: target)
        chmod(target, 0o600)
      } else if name.hasSuffix("-wal") {
        try? manager.removeItem(atPath: target)
      }
    }
    try? manager.removeItem(atPath: store + "/keychain.db-shm")
  }
}
