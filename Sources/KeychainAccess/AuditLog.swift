// SPDX-License-Identifier: MIT
//
// Appends chained records (`AuditChain`) to the audit log's files (`AuditFiles`). Records are
// written in batches: a hundredth of a second after the first one waiting (at once past 256),
// on a task of their own, each batch's lines chained and written with one write(2); so a read
// costs its caller only putting its record in the queue (a line, its MAC and a write(2) per
// read were 8–10 µs of the daemon's time). Lines are made durable a second after the first
// unsynced one (at once past 4,096), never with an fsync per read (one per 64 lines cost every
// read 20 µs). A read repeating one of the last minute is counted, not written (see
// `AuditCoalescer`). Whatever reads the files here (`verify`, `files`, `anchor`, `sync`) writes
// the queue and the counts first.
//
// Nothing waits for the chain's key: until the store gives it (at the first unlock), lines are
// hashed, and written like the others; once it comes, a `seal` record's MAC vouches for them.
// A kill -9 then loses at most the batch in flight.

import Foundation
import KeychainCrypto
import KeychainSystem
import Logging
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Appends chained records to the audit files (see the top of this file).
public final class AuditLog: Sendable {
  /// The directory the files are in.
  public let directory: String
  let fileSet: AuditFiles
  let maximumBytes: Int
  let logger: Logger
  /// Unsynced lines past which an fsync is not left to the timer.
  public static let syncEvery = 4096
  /// How long a record waits for others to be written with it, at most.
  static let batchDelay = Duration.milliseconds(10)
  /// Records waiting past which they are written at once, by the call that queues the last.
  static let batchLimit = 256

  struct State {
    var file: FileDescriptor?
    var size = 0
    var key: HMACKey?
    var lastSeq: UInt64 = 0
    var lastLink = AuditChain.start
    /// Whether the last line is hashed (written before the key): a seal must follow.
    var lastHashed = false
    /// The first record this keychaind wrote, once it has.
    var resumed: UInt64?
    /// Where the log must start; nil until the key brings the store's, or a rotation moves it.
    var floor: AuditChain.Floor?
    /// Records to write in the next batch.
    var queued: [AuditRecord] = []
    var batchScheduled = false
    /// Repeated reads, held as counts (see `AuditCoalescer`).
    var repeats = AuditCoalescer()
    var closingScheduled = false
    var unsynced = 0
    var syncScheduled = false
    var syncs = 0
  }
  private let state = Mutex(State())

  /// The live file.
  public var path: String { fileSet.live }

  /// Opens (or starts) the log in `directory`, made 0700 if it is new. The chain continues from
  /// the last line on disk (only the file's end is read); a last line that is no record is kept
  /// aside as `audit.jsonl.damaged-TIME` and a new file begun, never silently overwritten.
  public init(directory: String, logger: Logger, maximumBytes: Int = 8 << 20, keep: Int = 4)
    throws
  {
    self.directory = directory
    fileSet = AuditFiles(directory: directory, keep: keep)
    self.maximumBytes = maximumBytes
    self.logger = logger
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700])
    var last: (seq: UInt64, link: AuditChain.Link)?
    for index in 0...1 {
      let file = fileSet.rotated(index)
      guard let (line, complete) = AuditFiles.lastLine(of: file) else { continue }
      guard complete, let (body, link) = AuditChain.split(line),
        let seq = AuditChain.sequenceNumber(body)
      else {
        let aside = "\(file).damaged-\(Int(Date().timeIntervalSince1970))"
        try FileManager.default.moveItem(atPath: file, toPath: aside)
        logger.error("audit log damaged: \(file) does not end in a record; kept as \(aside)")
        break
      }
      last = (seq, link)
      break
    }
    let (file, size) = try fileSet.openLive()
    state.withLock {
      $0.file = file
      $0.size = size
      if let last {
        $0.lastSeq = last.seq
        $0.lastLink = last.link.bytes
        if case .hash = last.link { $0.lastHashed = true }
      }
    }
  }

  deinit {
    state.withLock { $0.queued += $0.repeats.closing(at: nil) }
    write(schedulingSync: false)
    state.withLock { state in
      if let file = state.file {
        _ = try? file.synchronize()
        file.closeQuietly()
      }
    }
  }

  /// Chains with `key` (from the store) from now on, and seals what was hashed before it.
  /// `anchor` is what the store kept of the chain: a log that ends before its end lost records
  /// while keychaind was not running (the numbers go on from the anchor, so that `verify` names
  /// the gap for as long as the log holds it); its floor is where the log must start.
  public func setKey(_ key: HMACKey, anchor: AuditChain.Anchor? = nil) {
    // What waited is written as it was recorded: before the key, hashed.
    writeQueued()
    state.withLock { state in
      state.key = key
      if let anchor, anchor.seq > state.lastSeq {
        logger.error(
          "audit log: it ends at record \(state.lastSeq), but keychaind had recorded up to \(anchor.seq): records were cut from its end while keychaind was not running"
        )
        state.lastSeq = anchor.seq
      }
      // A store from before floors: where the log starts now is where it must (read once).
      state.floor = state.floor ?? anchor?.floor ?? fileSet.floor() ?? .beginning
      // The first MAC'd line after hashed ones is the seal, whatever was queued meanwhile.
      if state.lastHashed {
        state.queued.insert(
          AuditRecord(op: .seal, decision: .allowed, app: AuditRecord.keychaind, sender: ""),
          at: 0)
      }
    }
    writeQueued()
  }

  /// The chain's end and floor, the queue written first, for the store to keep; nil before the
  /// key is known.
  public var anchor: AuditChain.Anchor? {
    writeRepeats()
    return state.withLock { state in
      state.key == nil
        ? nil : AuditChain.Anchor(seq: state.lastSeq, mac: state.lastLink, floor: state.floor)
    }
  }

  /// How many fsyncs the log has made (for tests that count them).
  public var syncCount: Int { state.withLock { $0.syncs } }

  /// Queues records, in order, for the next batch (see the top of this file); a read that
  /// repeats one of the last minute is counted instead (see `AuditCoalescer`).
  public func append(_ records: [AuditRecord]) {
    enum Next { case nothing, schedule, writeNow }
    var closeAt: Double?
    let next = state.withLock { state -> Next in
      for record in records { state.queued += state.repeats.admit(record) }
      if state.repeats.holdsRepeats, !state.closingScheduled {
        state.closingScheduled = true
        closeAt = state.repeats.nextClosing
      }
      if state.queued.isEmpty { return .nothing }
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
    scheduleClosing(at: closeAt)
  }

  /// Appends one record.
  public func append(_ record: AuditRecord) { append([record]) }

  /// At `time` (Unix time), writes the lines of the repeats whose minute is over, and waits for
  /// the next such minute if repeats are still held.
  private func scheduleClosing(at time: Double?) {
    guard let time else { return }
    // Weakly: a log let go writes what it holds as it goes (`deinit`), not a minute later.
    Task.detached { [weak self] in
      // At most a minute: a wall clock set back would otherwise hold the counts that long.
      let wait = min(time - Date().timeIntervalSince1970, AuditCoalescer.window)
      if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
      guard let self else { return }
      let next = state.withLock { state -> Double? in
        state.queued += state.repeats.closing(at: Date().timeIntervalSince1970)
        state.closingScheduled = state.repeats.holdsRepeats
        return state.repeats.nextClosing
      }
      writeQueued()
      scheduleClosing(at: next)
    }
  }

  /// Writes the repeats held, whatever their minute, with the queue: before the log is read,
  /// synced or closed.
  private func writeRepeats() {
    state.withLock { $0.queued += $0.repeats.closing(at: nil) }
    writeQueued()
  }

  /// Writes the queued records, in order, each given the next sequence number.
  public func writeQueued() { write(schedulingSync: true) }

  /// Writes the queued records; a sync is scheduled for them when `schedulingSync` (not from
  /// `deinit`, which syncs itself: a task then would outlive the log).
  private func write(schedulingSync: Bool) {
    var syncAfter: Duration?
    state.withLock { state in
      state.batchScheduled = false
      guard !state.queued.isEmpty, state.file != nil else { return }
      let records = state.queued
      state.queued = []
      var batch = Batch(state: state)
      for var record in records {
        // The seal says which hashed records this keychaind wrote (all, if it wrote none
        // before its own seal: those were in the file when it started).
        if record.op == .seal { record.resumed = state.resumed ?? (batch.seq + 1) }
        guard batch.add(record, limit: maximumBytes, logger: logger) else {
          flush(&batch, &state)
          guard rotate(&batch, &state) else { return }
          guard batch.add(record, limit: .max, logger: logger) else { break }
          continue
        }
        if state.resumed == nil { state.resumed = batch.seq }
      }
      flush(&batch, &state)
      if state.unsynced > 0, !state.syncScheduled || state.unsynced >= Self.syncEvery {
        state.syncScheduled = true
        syncAfter = state.unsynced >= Self.syncEvery ? .zero : .seconds(1)
      }
    }
    if let syncAfter, schedulingSync {
      Task.detached { [self] in
        if syncAfter > .zero { try? await Task.sleep(for: syncAfter) }
        syncWritten()
      }
    }
  }

  /// Lines chained and waiting to be written together.
  struct Batch {
    var buffer: [UInt8] = []
    var lines = 0
    var seq: UInt64
    var link: [UInt8]
    var hashed: Bool
    let key: HMACKey?
    let size: Int

    init(state: State) {
      (seq, link, hashed, key, size) = (
        state.lastSeq, state.lastLink, state.lastHashed, state.key, state.size
      )
    }

    /// Chains `record` after the batch; false (and nothing added) when the line would take the
    /// file past `limit` bytes.
    mutating func add(_ record: AuditRecord, limit: Int, logger: Logger) -> Bool {
      var record = record
      record.seq = seq + 1
      // Chained straight into the buffer, and taken out again if it would not fit.
      let start = buffer.count
      guard let lineLink = try? AuditChain.appendLine(record, after: link, key: key, to: &buffer)
      else {
        logger.error("audit log: cannot chain a record")
        buffer.removeSubrange(start...)
        return true
      }
      buffer.append(UInt8(ascii: "\n"))
      if size + buffer.count > limit, size + start > 0 {
        buffer.removeSubrange(start...)
        return false
      }
      (seq, link, lines) = (record.seq, lineLink.bytes, lines + 1)
      hashed = key == nil
      return true
    }
  }

  /// Writes `batch` to the live file; the chain moves on only once it is written.
  private func flush(_ batch: inout Batch, _ state: inout State) {
    guard !batch.buffer.isEmpty else { return }
    do {
      guard let file = state.file else { throw Errno.badFileDescriptor }
      _ = try file.writeAll(batch.buffer)
    } catch {
      logger.error("audit log: cannot write to \(path): \(error)")
      batch = Batch(state: state)
      return
    }
    state.size += batch.buffer.count
    (state.lastSeq, state.lastLink, state.lastHashed) = (batch.seq, batch.link, batch.hashed)
    state.unsynced += batch.lines
    batch = Batch(state: state)
  }

  /// Starts a new live file (see `AuditFiles.shift`), whose first record says so: the link
  /// before it, and what the rotation dropped. The floor moves to the oldest file left.
  private func rotate(_ batch: inout Batch, _ state: inout State) -> Bool {
    _ = try? state.file?.synchronize()
    state.file?.closeQuietly()
    state.unsynced = 0
    let dropped = fileSet.shift()
    do {
      (state.file, state.size) = try fileSet.openLive()
    } catch {
      logger.error("audit log: cannot start \(path) after rotating")
      state.file = nil
      return false
    }
    state.floor = fileSet.floor() ?? state.floor
    batch = Batch(state: state)
    var rotation = AuditRecord(
      op: .rotate, decision: .allowed, app: AuditRecord.keychaind, sender: "")
    rotation.prev = Hex.string(state.lastLink)
    rotation.dropped = dropped
    _ = batch.add(rotation, limit: .max, logger: logger)
    return true
  }

  /// Makes every record durable, the repeats held included.
  public func sync() {
    writeRepeats()
    syncWritten()
  }

  /// Makes the lines written and queued durable (the timer's sync: repeats stay held). The
  /// fsync runs outside the log's lock, on a duplicate of the descriptor (a rotation may close
  /// the original meanwhile), so that appends do not wait for the disk.
  private func syncWritten() {
    writeQueued()
    let duplicate: FileDescriptor? = state.withLock { state in
      state.syncScheduled = false
      guard state.unsynced > 0, let file = state.file else { return nil }
      state.unsynced = 0
      state.syncs += 1
      return try? file.duplicate()
    }
    guard let duplicate else { return }
    _ = try? duplicate.synchronize()
    duplicate.closeQuietly()
  }

  /// The log's files, oldest first, with their text (the queue written first).
  public func files() -> [(name: String, text: String)] {
    writeRepeats()
    return fileSet.all()
  }

  /// The files of a log in `directory`, oldest first.
  public static func files(in directory: String, keep: Int = 4) -> [(name: String, text: String)] {
    AuditFiles(directory: directory, keep: keep).all()
  }

  /// Checks the whole chain against this log's key, from the floor to the last record written;
  /// nil before the key is known.
  public func verify() -> AuditChain.Verdict? {
    sync()
    guard
      let (key, last, floor) = state.withLock({ state in
        state.key.map { ($0, state.lastSeq, state.floor) }
      })
    else { return nil }
    return AuditChain(key: key).verify(fileSet.all(), floor: floor, expectedLast: last)
  }

  /// The default directory: `$XDG_STATE_HOME/keychaind`, or `~/.local/state/keychaind`.
  public static func defaultDirectory(_ environment: [String: String]) -> String {
    let base =
      environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
      ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
    return base + "/keychaind"
  }
}
