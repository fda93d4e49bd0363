// SPDX-License-Identifier: MIT
//
// Replacing a small file whole: the new bytes go to a temporary name beside it, are made
// durable, and are renamed over the old file, so a crash at any moment leaves the old file or
// the new one, never half of either.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Replaces the file at `path` with `bytes`, durably (see the top of this file). The file keeps
/// its permissions; a new one gets `permissions`.
public func replaceFile(atPath path: String, with bytes: [UInt8], permissions: mode_t = 0o600)
  throws(Errno)
{
  var existing = stat()
  let mode = stat(path, &existing) == 0 ? existing.st_mode & 0o7777 : permissions
  let temporary = path + ".new"
  let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
  guard descriptor >= 0 else { throw Errno(rawValue: errno) }
  let file = FileDescriptor(rawValue: descriptor)
  do throws(Errno) {
    let written = bytes.withUnsafeBytes { buffer in
      Result { () throws(Errno) in try file.writeAll(bytes: buffer) }
    }
    try written.get()
    guard fsync(descriptor) == 0 else { throw Errno(rawValue: errno) }
    close(descriptor)
    guard rename(temporary, path) == 0 else { throw Errno(rawValue: errno) }
  } catch {
    close(descriptor)
    unlink(temporary)
    throw error
  }
  // The rename itself is durable once the directory is.
  let slash = path.lastIndex(of: "/")
  let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
  let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  if folder >= 0 {
    fsync(folder)
    close(folder)
  }
}
