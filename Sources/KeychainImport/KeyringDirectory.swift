// SPDX-License-Identifier: MIT
//
// gnome-keyring's directory, read and never written: `$XDG_DATA_HOME/keyrings` (the legacy
// `~/.gnome2/keyrings` only when that does not exist), its `*.keyring` files and its `default`
// file. Each file is opened read-only without following links, read whole within a size limit,
// and described by what identifies it (device, inode, size, modification time, SHA-256), so that
// an import can tell later whether the file changed since.

import Foundation
import KeychainCrypto
import KeychainSystem
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A keyring file read from gnome-keyring's directory.
public struct KeyringSource: Sendable {
  /// The file's name without `.keyring`: the collection's identifier and path element.
  public var name: String
  public var path: String
  public var bytes: [UInt8]
  public var device: UInt64
  public var inode: UInt64
  public var size: Int64
  public var modifiedNanoseconds: Int64
  public var sha256: [UInt8]
}

/// gnome-keyring's keyring directory.
public struct KeyringDirectory: Sendable {
  public let path: String

  /// The directory gnome-keyring uses for this environment, whether or not it exists.
  public static func standard(_ environment: [String: String]) -> KeyringDirectory {
    let home = environment["HOME"] ?? NSHomeDirectory()
    let data =
      environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? home + "/.local/share"
    let current = data + "/keyrings"
    let legacy = home + "/.gnome2/keyrings"
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: current),
      FileManager.default.fileExists(atPath: legacy, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      return KeyringDirectory(path: legacy)
    }
    return KeyringDirectory(path: current)
  }

  public init(path: String) { self.path = path }

  /// The names of its keyring files (sorted, `login` first), or none if there is no directory.
  public func keyringNames() -> [String] {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
      .filter { $0.hasSuffix(".keyring") && $0.count > ".keyring".count && !$0.hasPrefix(".") }
      .map { String($0.dropLast(".keyring".count)) }
    return names.sorted { a, b in (a == "login") != (b == "login") ? a == "login" : a < b }
  }

  /// The identifier of gnome-keyring's default collection: the `default` file, else `login`.
  public func defaultName() -> String {
    guard let bytes = try? Self.readAll(path + "/default", limit: 4096),
      let text = String(validating: bytes, as: UTF8.self)?
        .trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
    else { return "login" }
    return text
  }

  /// Why `name.keyring` is not imported, if oo7 (0.7 or later) migrated it: its empty stamp
  /// `name.keyring.migrated` exists and the file has not changed since. Then oo7's v1 copy
  /// holds the same items (with newer times) and is imported instead; if the user deleted the
  /// collection under oo7 since (no v1 copy), it is not brought back. A file that changed after
  /// the stamp (gnome-keyring ran again, after a rollback) is imported too, and the two merge.
  public func migratedByOO7(_ name: String) -> String? {
    var stamp = stat()
    var file = stat()
    guard lstat(path + "/" + name + ".keyring.migrated", &stamp) == 0,
      lstat(path + "/" + name + ".keyring", &file) == 0
    else { return nil }
    let v1 = path + "/v1/" + name + ".keyring"
    guard FileManager.default.fileExists(atPath: v1) else {
      return "oo7 migrated it, and its collection was deleted under oo7 since (\(v1) is gone): "
        + "it is not brought back"
    }
    let fileTime = (Int64(file.st_mtim.tv_sec), Int64(file.st_mtim.tv_nsec))
    let stampTime = (Int64(stamp.st_mtim.tv_sec), Int64(stamp.st_mtim.tv_nsec))
    guard fileTime <= stampTime else { return nil }
    return "oo7 migrated it to \(v1), which is imported instead"
  }

  /// Reads `name.keyring` whole, read-only, not through a link; never changes it.
  public func read(_ name: String) throws -> KeyringSource {
    try Self.readFile(path + "/" + name + ".keyring", name: name)
  }

  /// Reads any file the same way (a backup, say), within the keyring size limit.
  public static func readFile(_ file: String, name: String) throws -> KeyringSource {
    let descriptor = try openSource(file)
    defer { descriptor.closeQuietly() }
    guard let status = try? descriptor.status(), status.st_mode & S_IFMT == S_IFREG else {
      throw KeyringFileError.unreadable(file: file, reason: "not a regular file")
    }
    guard status.st_size <= KeyringLimits.maxFileBytes else {
      throw KeyringFileError.tooLarge(file: file, reason: "\(status.st_size) bytes")
    }
    let bytes = try Self.readAll(descriptor, file: file, limit: KeyringLimits.maxFileBytes)
    return KeyringSource(
      name: name, path: file, bytes: bytes, device: UInt64(status.st_dev),
      inode: UInt64(status.st_ino), size: Int64(status.st_size),
      modifiedNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000
        + Int64(status.st_mtim.tv_nsec),
      sha256: SHA256.hash(bytes))
  }

  private static func readAll(_ file: String, limit: Int) throws -> [UInt8] {
    let descriptor = try openSource(file)
    defer { descriptor.closeQuietly() }
    return try readAll(descriptor, file: file, limit: limit)
  }

  /// Opens a file to import from read-only, never through a symbolic link, and never as a
  /// controlling terminal.
  private static func openSource(_ file: String) throws -> FileDescriptor {
    do {
      return try FileDescriptor.open(
        path: file, .readOnly, options: [.noFollow, .closeOnExec, .init(rawValue: O_NOCTTY)])
    } catch {
      throw KeyringFileError.unreadable(
        file: file, reason: String(cString: strerror(error.rawValue)))
    }
  }

  private static func readAll(_ descriptor: FileDescriptor, file: String, limit: Int) throws
    -> [UInt8]
  {
    do {
      return try descriptor.readToEnd(limit: limit)
    } catch .fileTooLarge {
      throw KeyringFileError.tooLarge(file: file, reason: "over \(limit) bytes")
    } catch {
      throw KeyringFileError.unreadable(file: file, reason: error.description)
    }
  }
}
