// SPDX-License-Identifier: MIT
//
// The audit log's files: `audit.jsonl` in keychaind's state directory, rotated to
// `audit.jsonl.1` … `.4` at a bounded size, the chain running on across files. Records are
// written in batches: a hundredth of a second after the first one waiting (at once past 256),
// on a task of their own, each batch's lines chained and written with one write(2); so a read
// costs its caller only putting its record in the queue (a line, its MAC and a write(2) per
// read were 8–10 µs of the daemon's time). Lines are made durable a second after the first
// unsynced one (at once past 4,096), never with an fsync per read (one per 64 lines cost every
// read 20 µs). Whatever reads the files here (`verify`, `files`, `anchor`, `sync`) writes the
// queue first. Until the store gives keychaind the chain's key (at the first unlock), records
// wait in memory: a MAC'd line cannot be written without it.

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
  /// Unsynced lines past which an fsync is not left to the timer.
  public static let syncEvery = 4096
  /// How long a record waits for others to be written with it, at most.
  static let batchDelay = Duration.milliseconds(10)
  /// Records waiting past which they are written at once, by the call that queues the last.
  static let batchLimit = 256

  struct State {
    var descriptor: Int32 = -1
    var size = 0
    var chain: AuditChain?
    var lastSeq: UInt64 = 0
    var lastMAC = AuditChain.start
    var pending: [AuditRecord] = []
    /// Records to write in the next batch (the key is known).
    var queued: [AuditRecord] = []
    var batchScheduled = false
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
      guard let text = try? String(contentsOfFile: file, encoding: .utf8), !text.isEmpty else {
        continue
      }
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
    writeQueued()
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

  /// Starts chaining with `key` (from the store), writing what waited for it. `anchor` is
  /// where the store last recorded the chain's end (`AuditChain.Anchor`): a log that ends
  /// before it lost records while keychaind was not running. The chain's numbers then go on
  /// from the anchor, so that `verify` names the gap for as long as the log holds it.
  public func setKey(_ key: HMACKey, anchor: AuditChain.Anchor? = nil) {
    let waiting = state.withLock { state in
      state.chain = AuditChain(key: key)
      if let anchor, anchor.seq > state.lastSeq {
        logger.error(
          "audit log: it ends at record \(state.lastSeq), but keychaind had recorded up to \(anchor.seq): records were cut from its end while keychaind was not running"
        )
        state.lastSeq = anchor.seq
      }
      defer { state.pending = [] }
      return state.pending
    }
    if !waiting.isEmpty { append(waiting) }
  }

  /// The chain's end, the queue written first, for the store to keep; nil before the key is
  /// known.
  public var anchor: AuditChain.Anchor? {
    writeQueued()
    return state.withLock { state in
      state.chain == nil ? nil : AuditChain.Anchor(seq: state.lastSeq, mac: state.lastMAC)
    }
  }

  /// How many fsyncs the log has made (for tests that count them).
  public var syncCount: Int { state.withLock { $0.syncs } }

  /// Queues records, in order, for the next batch (see the top of this file).
  public func append(_ records: [AuditRecord]) {
    enum Next { case nothing, schedule, writeNow }
    let next = state.withLock { state -> Next in
      guard state.chain != nil else {
        state.pending += records
        if state.pending.count > Self.maximumPending {
          state.dropped += state.pending.count - Self.maximumPending
          state.pending.removeFirst(state.pending.count - Self.maximumPending)
        }
        return .nothing
      }
      state.queued += records
      if state.queued.count >= Self.batchLimit { return .writeNow }
      guard !state.batchScheduled else { return .nothing }
      state.batchScheduled = true
      return .schedule
    }
    switch next {
    case .nothing: break
    case .writeNow: writeQueued()
    case .schedule:
      Task.detached { [self] in
        try? await Task.sleep(for: Self.batchDelay)
        writeQueued()
      }
    }
  }

  /// Appends one record.
  public func append(_ record: AuditRecord) { append([record]) }

  /// Writes the queued records, in order, each given the next sequence number.
  public func writeQueued() {
    var syncAfter: Duration?
    state.withLock { state in
      state.batchScheduled = false
      guard let chain = state.chain, !state.queued.isEmpty else { return }
      let records = state.queued
      state.queued = []
      // The batch's lines go out in one write; the chain moves on only once they are written.
      var buffer: [UInt8] = []
      var (seq, mac, lines) = (state.lastSeq, state.lastMAC, 0)
      func flush() -> Bool {
        guard !buffer.isEmpty else { return true }
        guard write(buffer, to: state.descriptor) else {
          logger.error("audit log: cannot write to \(path): \(String(cString: strerror(errno)))")
          return false
        }
        state.size += buffer.count
        (state.lastSeq, state.lastMAC) = (seq, mac)
        state.unsynced += lines
        (buffer, lines) = ([], 0)
        return true
      }
      for var record in records {
        record.seq = seq + 1
        let (line, lineMAC): (String, [UInt8])
        do {
          (line, lineMAC) = try chain.line(record, after: mac)
        } catch {
          logger.error("audit log: cannot chain a record: \(error)")
          break
        }
        let size = line.utf8.count + 1
        if state.size + buffer.count + size > maximumBytes, state.size + buffer.count > 0 {
          guard flush() else { return }
          rotate(&state)
        }
        buffer += line.utf8
        buffer.append(UInt8(ascii: "\n"))
        (seq, mac) = (record.seq, lineMAC)
        lines += 1
      }
      guard flush() else { return }
      if state.unsynced > 0, !state.syncScheduled || state.unsynced >= Self.syncEvery {
        state.syncScheduled = true
        syncAfter = state.unsynced >= Self.syncEvery ? .zero : .seconds(1)
      }
    }
    if let syncAfter {
      Task.detached { [self] in
        if syncAfter > .zero { try? await Task.sleep(for: syncAfter) }
        sync()
      }
    }
  }

  /// Makes every written line durable. The fsync runs outside the log's lock, on a duplicate
  /// of the descriptor (a rotation may close the original meanwhile), so that appends do not
  /// wait for the disk.
  public func sync() {
    writeQueued()
    let duplicate: Int32 = state.withLock { state in
      state.syncScheduled = false
      guard state.unsynced > 0, state.descriptor >= 0 else { return -1 }
      state.unsynced = 0
      state.syncs += 1
      return dup(state.descriptor)
    }
    guard duplicate >= 0 else { return }
    fsync(duplicate)
    close(duplicate)
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

  /// The log's files, oldest first, with their text (the queue written first).
  public func files() -> [(name: String, text: String)] {
    writeQueued()
    return Self.files(in: directory, keep: keep)
  }

  /// The files of a log in `directory`, oldest first.
  public static func files(in directory: String, keep: Int = 4) -> [(name: String, text: String)] {
    let names = stride(from: keep, through: 1, by: -1).map { "audit.jsonl.\($0)" } + ["audit.jsonl"]
    return names.compactMap { name in
      (try? String(contentsOfFile: directory + "/" + name, encoding: .utf8)).map { (name, $0) }
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
