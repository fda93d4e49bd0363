// SPDX-License-Identifier: MIT
//
// The audit log's files: `audit.jsonl` in keychaind's state directory, rotated to
// `audit.jsonl.1` … `.4` at a bounded size. Start-up reads only the end of the live file (its
// last line says where the chain goes on), never the history before it; a rotation reads only
// the first line of the file that becomes the oldest (where the log must now start) and the
// last line of the one it drops.

import Foundation
import KeychainSystem
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Reading and naming an audit log's files (see the top of this file).
struct AuditFiles: Sendable {
  let directory: String
  let keep: Int

  /// The live file.
  var live: String { directory + "/audit.jsonl" }

  /// The file rotated `index` times (`live` for 0).
  func rotated(_ index: Int) -> String { index == 0 ? live : "\(live).\(index)" }

  /// How much of a file's end is read to find its last line: a record is a few hundred bytes.
  static let tailBytes = 64 << 10

  /// The last line of `path`, and whether the file ends in a newline (a half-written line
  /// otherwise); nil when it is empty or missing.
  static func lastLine(of path: String) -> (line: Substring, complete: Bool)? {
    guard let file = try? FileDescriptor.open(path: path, .readOnly) else { return nil }
    defer { file.closeQuietly() }
    guard let status = try? file.status(), status.st_size > 0 else { return nil }
    let length = Int(min(Int64(tailBytes), Int64(status.st_size)))
    var bytes = [UInt8](repeating: 0, count: length)
    let count = bytes.withUnsafeMutableBytes {
      try? file.read(fromAbsoluteOffset: Int64(status.st_size) - Int64(length), into: $0)
    }
    guard count == length else { return nil }
    let complete = bytes.last == UInt8(ascii: "\n")
    // The last line's bytes, found among bytes (splitting 64 KiB as characters cost tens of
    // millions of instructions at every start).
    let body = complete ? bytes.dropLast() : bytes[...]
    let start = body.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? body.startIndex
    return (Substring(String(decoding: body[start...], as: UTF8.self)), complete)
  }

  /// The first line of `path`, nil when it is empty or missing.
  static func firstLine(of path: String) -> Substring? {
    guard let file = try? FileDescriptor.open(path: path, .readOnly) else { return nil }
    defer { file.closeQuietly() }
    var bytes = [UInt8](repeating: 0, count: tailBytes)
    guard let count = bytes.withUnsafeMutableBytes({ try? file.read(into: $0) }), count > 0
    else { return nil }
    let head = bytes.prefix(count)
    let end = head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex
    return Substring(String(decoding: head[..<end], as: UTF8.self))
  }

  /// Where the log must start: the first record of its oldest file, and the link before it
  /// (that record's `prev` if it is a rotation's, the chain's start for record 1). A first
  /// record that says neither (a log rotated by an older keychaind) is taken as it is: the
  /// floor is the record after it.
  func floor() -> AuditChain.Floor? {
    for index in stride(from: keep, through: 0, by: -1) {
      guard let line = Self.firstLine(of: rotated(index)), !line.isEmpty,
        let record = AuditChain.record(line), let (_, link) = AuditChain.split(line)
      else { continue }
      if record.seq == 1 { return .beginning }
      if record.op == .rotate, let prev = record.prev.flatMap({ AuditChain.bytes(hex: $0[...]) }) {
        return AuditChain.Floor(seq: record.seq, prev: prev)
      }
      return AuditChain.Floor(seq: record.seq + 1, prev: link.bytes)
    }
    return nil
  }

  /// Opens the live file for appending (0600); its descriptor and size.
  func openLive() throws -> (FileDescriptor, Int) {
    guard
      let file = try? FileDescriptor.open(
        path: live, .writeOnly, options: [.append, .create, .closeOnExec],
        permissions: [.ownerReadWrite])
    else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: live]) }
    let size = (try? file.status()).map { Int($0.st_size) } ?? 0
    return (file, size)
  }

  /// Moves `audit.jsonl` to `.1` (and `.1` to `.2`, …, dropping the oldest); returns the last
  /// record of the file dropped (0 for none). The renames are durable once this returns.
  func shift() -> UInt64 {
    let manager = FileManager.default
    let oldest = rotated(keep)
    let dropped = Self.lastLine(of: oldest).flatMap { AuditChain.record($0.line)?.seq } ?? 0
    try? manager.removeItem(atPath: oldest)
    for index in stride(from: keep - 1, through: 0, by: -1) {
      try? manager.moveItem(atPath: rotated(index), toPath: rotated(index + 1))
    }
    SystemFiles.syncDirectory(directory)
    return dropped
  }

  /// The files, oldest first, with their text.
  func all() -> [(name: String, text: String)] {
    stride(from: keep, through: 0, by: -1).compactMap { index in
      let path = rotated(index)
      return (try? String(contentsOfFile: path, encoding: .utf8)).map {
        ((path as NSString).lastPathComponent, $0)
      }
    }
  }
}

extension AuditLog {
  /// The record on the first line of the file at `path`, nil if none.
  public static func firstRecord(of path: String) -> AuditRecord? {
    AuditFiles.firstLine(of: path).flatMap(AuditChain.record)
  }
}
