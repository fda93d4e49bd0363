// SPDX-License-Identifier: MIT
//
// Files made durable, in one place: syncing a file or its data, syncing the directory that
// holds a name (a rename or a new file is durable only once its directory is), a file written
// whole under a temporary name and renamed over the old one, and a file read whole. The store,
// the audit log and the importers call these instead of open/fsync/rename of their own.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
  /// Makes everything written to the file durable, its size and times included (fsync).
  public func synchronize() throws(Errno) {
    guard fsync(rawValue) == 0 else { throw Errno(rawValue: errno) }
  }

  /// Makes the file's data durable, without the times a read does not need (fdatasync).
  public func synchronizeData() throws(Errno) {
    guard fdatasync(rawValue) == 0 else { throw Errno(rawValue: errno) }
  }

  /// Opens `name` inside this directory (openat): a name that a rename of the directory's path
  /// cannot redirect.
  public func open(
    relative name: String, _ mode: AccessMode, options: OpenOptions = [.closeOnExec]
  ) throws(Errno) -> FileDescriptor {
    let descriptor = openat(rawValue, name, mode.rawValue | options.rawValue)
    guard descriptor >= 0 else { throw Errno(rawValue: errno) }
    return FileDescriptor(rawValue: descriptor)
  }

  /// Opens `path` as swift-system does, with the error typed.
  public static func open(
    path: String, _ mode: AccessMode, options: OpenOptions = [.closeOnExec],
    permissions: FilePermissions? = nil
  ) throws(Errno) -> FileDescriptor {
    do {
      return try open(FilePath(path), mode, options: options, permissions: permissions)
    } catch let error as Errno { throw error } catch { throw Errno.ioError }
  }

  /// The file's status (fstat).
  public func status() throws(Errno) -> Glibc.stat {
    var status = Glibc.stat()
    guard fstat(rawValue, &status) == 0 else { throw Errno(rawValue: errno) }
    return status
  }

  /// Closes the descriptor, ignoring a failure: for paths that have already failed or only read.
  public func closeQuietly() { _ = try? close() }
}

/// Whole files, durably.
public enum SystemFiles {
  /// Makes the names in `directory` durable (a rename, a new or removed file); false if the
  /// directory cannot be opened or synced.
  @discardableResult
  public static func syncDirectory(_ directory: String) -> Bool {
    guard
      let folder = try? FileDescriptor.open(
        path: directory, .readOnly, options: [.directory, .closeOnExec])
    else { return false }
    defer { folder.closeQuietly() }
    return (try? folder.synchronize()) != nil
  }

  /// Makes `path` a directory only this user can enter (0700) if it is missing, and checks
  /// that what is there is one: a directory (not a link to one) of this user's, closed to
  /// others. `.fileExists` when something else is in the way; a new one with `exclusive` only.
  public static func privateDirectory(_ path: String, exclusive: Bool = false) throws(Errno) {
    if mkdir(path, 0o700) != 0 {
      let error = Errno(rawValue: errno)
      guard error == .fileExists, !exclusive else { throw error }
    }
    var info = stat()
    guard lstat(path, &info) == 0 else { throw Errno(rawValue: errno) }
    guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(), info.st_mode & 0o077 == 0
    else { throw .fileExists }
  }

  /// The directory part of `path` ("." for a bare name, "/" for a name at the root).
  public static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Replaces the file at `path` with `bytes`: written under `path.new`, synced, renamed over
  /// the old file, and the directory synced, so a crash at any moment leaves the old file or
  /// the new one, never half of either. An existing file keeps its permissions; a new one gets
  /// `permissions`. `bytes` is read in place (a key in locked memory is never copied).
  public static func replace(
    atPath path: String, with bytes: UnsafeRawBufferPointer, permissions: mode_t = 0o600
  ) throws(Errno) {
    var existing = stat()
    let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : permissions
    let temporary = path + ".new"
    // A new file of our own: whatever is at the temporary name (a crash's leftover, or a link
    // planted to redirect the write) is removed, never written through.
    unlink(temporary)
    let file = try FileDescriptor.open(
      path: temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
      permissions: FilePermissions(rawValue: mode))
    do throws(Errno) {
      // The mode exactly, whatever the umask is at this moment (another thread may have
      // narrowed it to bind a socket).
      guard fchmod(file.rawValue, mode) == 0 else { throw Errno(rawValue: errno) }
      _ = try FileDescriptor.asErrno { try file.writeAll(bytes) }
      try file.synchronize()
      try FileDescriptor.asErrno { try file.close() }
    } catch {
      file.closeQuietly()
      unlink(temporary)
      throw error
    }
    try rename(temporary, to: path)
  }

  /// `replace(atPath:with:permissions:)` for bytes that are not secret.
  public static func replace(atPath path: String, with bytes: [UInt8], permissions: mode_t = 0o600)
    throws(Errno)
  {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(Errno) in try replace(atPath: path, with: buffer, permissions: permissions)
      }
    }
    try result.get()
  }

  /// Renames the whole, synced file `temporary` over `path` and syncs the directory: the last
  /// step of `replace`, for a file another library wrote (a database made under a temporary
  /// name, say). The file is synced first, so the new name never points at unwritten blocks.
  public static func commit(_ temporary: String, to path: String) throws(Errno) {
    let file = try FileDescriptor.open(path: temporary, .readOnly)
    defer { file.closeQuietly() }
    try file.synchronize()
    try rename(temporary, to: path)
  }

  private static func rename(_ temporary: String, to path: String) throws(Errno) {
    guard Glibc.rename(temporary, path) == 0 else {
      let error = Errno(rawValue: errno)
      unlink(temporary)
      throw error
    }
    syncDirectory(directory(of: path))
  }

  /// The whole file at `path`, read in `chunk`-byte steps (small for /proc's files, read by
  /// the dozen per caller); past `limit` bytes, as `FileDescriptor.readToEnd` says.
  public static func read(
    atPath path: String, limit: Int = .max, chunk: Int = 65536, truncating: Bool = false,
    options: FileDescriptor.OpenOptions = [.closeOnExec]
  ) throws(Errno) -> [UInt8] {
    let file = try FileDescriptor.open(path: path, .readOnly, options: options)
    defer { file.closeQuietly() }
    return try file.readToEnd(limit: limit, chunk: chunk, truncating: truncating)
  }
}
