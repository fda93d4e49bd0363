// SPDX-License-Identifier: MIT
//
// The audit log's files: `audit.jsonl` in keychaind's state directory, rotated to
// `audit.jsonl.1` … `.4` at a bounded size, the chain running on across files. Lines are
// appended at once and made durable in batches (every 64 lines, or a second after the first
// unsynced one), so a read costs a write(2), not an fsync. Until the store gives keychaind the
// chain's key (at the first unlock), records wait in memory: a MAC'd line cannot be written
// without it.

import Foundation
import KeychainCrypto
import Logging
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Appends chained records to the audit files (see the top of this file).
public final class AuditLog: Sendable {
  /// The directory the files are in.
  public let directory: String
  let maximumBytes: Int
  let keep: Int
  let logger: Logger
  /// Records kept while no key is known, at most; the oldest beyond are dropped and counted.
  static let maximumPending = 10_000
  /// Lines written before an fsync is forced.
  public static let syncEvery = 64

  struct State {
    var descriptor: Int32 = -1
    var size = 0
    var chain: AuditChain?
    var lastSeq: UInt64 = 0
    var lastMAC = AuditChain.start
    var pending: [AuditRecord] = []
    var dropped = 0
    var unsynced = 0
    var syncScheduled = false
    var syncs = 0
  }
  private let state = Mutex(State())

  /// The live file.
  public var path: String { directory + "/audit.jsonl" }

  /// Opens (or starts) the log in `directory`, made 0700 if it is new. The chain continues from
  /// the last line on disk; a last line that is no record is kept aside as
  /// `audit.jsonl.damaged-TIME` and a new file begun, never silently overwritten.
  public init(directory: String, logger: Logger, maximumBytes: Int = 8 << 20, keep: Int = 4)
    throws
  {
    self.directory = directory
    self.maximumBytes = maximumBytes
    self.keep = keep
    self.logger = logger
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    var continued = (seq: UInt64(0), mac: AuditChain.start)
    for name in ["audit.jsonl", "audit.jsonl.1"] {
      let file = directory + "/" + name
      guard let text = ProcessFacts.text(file), !text.isEmpty else { continue }
      guard let last = text.split(separator: "\n").last, let record = AuditChain.record(last),
        let (_, mac) = AuditChain.split(last)
      else {
        let aside = "\(file).damaged-\(Int(Date().timeIntervalSince1970))"
        try FileManager.default.moveItem(atPath: file, toPath: aside)
        logger.error("audit log damaged: \(file) does not end in a record; kept as \(aside)")
        break
      }
      continued = (record.seq, mac)
      break
    }
    let (lastSeq, lastMAC) = continued
    let (descriptor, size) = try Self.open(path)
    state.withLock {
      $0.descriptor = descriptor
      $0.size = size
      $0.lastSeq = lastSeq
      $0.lastMAC = lastMAC
    }
  }

  deinit {
    state.withLock { state in
      if state.descriptor >= 0 {
        fsync(state.descriptor)
        close(state.descriptor)
      }
    }
  }

  private static func open(_ path: String) throws -> (Int32, Int) {
    let descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
    }
    var status = stat()
    fstat(descriptor, &status)
    return (descriptor, Int(status.st_size))
  }

  /// Starts chaining with `key` (from the store), writing what waited for it.
  public func setKey(_ key: HMACKey) {
    let waiting = state.withLock { state in
      state.chain = AuditChain(key: key)
      defer { state.pending = [] }
      return state.pending
    }
    if !waiting.isEmpty { append(waiting) }
  }

  /// Whether records are being written (a key is known).
  public var isChaining: Bool { state.withLock { $0.chain != nil } }

  /// The last sequence number written.
  public var lastSeq: UInt64 { state.withLock { $0.lastSeq } }

  /// How many fsyncs the log has made (for tests that count them).
  public var syncCount: Int { state.withLock { $0.syncs } }

  /// Appends records in order, giving each the next sequence number.
  public func append(_ records: [AuditRecord]) {
    var needsSync = false
    var scheduleSync = false
    state.withLock { state in
      guard let chain = state.chain else {
        state.pending += records
        if state.pending.count > Self.maximumPending {
          state.dropped += state.pending.count - Self.maximumPending
          state.pending.removeFirst(state.pending.count - Self.maximumPending)
        }
        return
      }
      for var record in records {
        record.seq = state.lastSeq + 1
        do {
          let (line, mac) = try chain.line(record, after: state.lastMAC)
          let bytes = Array((line + "\n").utf8)
          if state.size + bytes.count > maximumBytes, state.size > 0 { rotate(&state) }
          guard write(bytes, to: state.descriptor) else {
            logger.error("audit log: cannot write to \(path): \(String(cString: strerror(errno)))")
            return
          }
          state.size += bytes.count
          state.lastSeq = record.seq
          state.lastMAC = mac
          state.unsynced += 1
        } catch {
          logger.error("audit log: cannot chain a record: \(error)")
          return
        }
      }
      if state.unsynced >= Self.syncEvery {
        needsSync = true
      } else if state.unsynced > 0, !state.syncScheduled {
        state.syncScheduled = true
        scheduleSync = true
      }
    }
    if needsSync { sync() }
    if scheduleSync {
      Task.detached { [self] in
        try? await Task.sleep(for: .seconds(1))
        sync()
      }
    }
  }

  /// Appends one record.
  public func append(_ record: AuditRecord) { append([record]) }

  /// Makes every written line durable.
  public func sync() {
    state.withLock { state in
      state.syncScheduled = false
      guard state.unsynced > 0, state.descriptor >= 0 else { return }
      fsync(state.descriptor)
      state.syncs += 1
      state.unsynced = 0
    }
  }

  private func write(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Moves `audit.jsonl` to `.1` (and `.1` to `.2`, …, dropping the oldest) and starts a new
  /// file; the chain goes on in it.
  private func rotate(_ state: inout State) {
    fsync(state.descriptor)
    close(state.descriptor)
    state.unsynced = 0
    let manager = FileManager.default
    try? manager.removeItem(atPath: "\(path).\(keep)")
    for index in stride(from: keep - 1, through: 1, by: -1) {
      try? manager.moveItem(atPath: "\(path).\(index)", toPath: "\(path).\(index + 1)")
    }
    try? manager.moveItem(atPath: path, toPath: "\(path).1")
    do {
      (state.descriptor, state.size) = try Self.open(path)
    } catch {
      logger.error("audit log: cannot start \(path) after rotating")
      state.descriptor = -1
    }
    // The renames are durable once the directory is.
    let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
      fsync(folder)
      close(folder)
    }
  }

  /// The log's files, oldest first, with their text.
  public func files() -> [(name: String, text: String)] {
    Self.files(in: directory, keep: keep)
  }

  /// The files of a log in `directory`, oldest first.
  public static func files(in directory: String, keep: Int = 4) -> [(name: String, text: String)] {
    let names = stride(from: keep, through: 1, by: -1).map { "audit.jsonl.\($0)" } + ["audit.jsonl"]
    return names.compactMap { name in
      ProcessFacts.text(directory + "/" + name).map { (name, $0) }
    }
  }

  /// Checks the whole chain against this log's key, including that nothing was cut from its end.
  public func verify() -> AuditChain.Verdict? {
    sync()
    guard let (chain, last) = state.withLock({ state in state.chain.map { ($0, state.lastSeq) } })
    else { return nil }
    return chain.verify(files(), expectedLast: last)
  }

  /// The default directory: `$XDG_STATE_HOME/keychaind`, or `~/.local/state/keychaind`.
  public static func defaultDirectory(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
    return base + "/keychaind"
  }
}
