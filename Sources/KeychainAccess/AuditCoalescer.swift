// SPDX-License-Identifier: MIT
//
// Repeated reads, one line a minute. A program that reads the same item again and again (a mail
// client polling its account, a script in a loop) would otherwise write, MAC and keep a line
// per read: at 20,000 reads a day that is the log's whole 8 MiB, and a third of each read's
// cost. So the first read of an item by a process is written at once, as every access is; the
// identical reads that follow within a minute (same process, bus name, item and decision) are
// counted, and written as one line when the minute is over, or sooner when the log is read,
// synced or closed: `"count":N` says how many reads it stands for, `time` when the last was.
//
// What the log promises stays: who read what is on disk at the first read, and every read
// after it is counted in a chained line. What a kill -9 takes is the count of the repeats held
// (the first read of each is written), as it takes the batch in flight.

/// Holds repeated reads as counts (see the top of this file).
struct AuditCoalescer {
  /// How long a read's repeats are counted before their line is written, in seconds.
  static let window: Double = 60
  /// Items × processes held at most; past it, every count is written at once.
  static let limit = 4096

  /// What makes two reads the same line, apart from their sequence number and time.
  struct Key: Hashable {
    /// The application's JSON: its whole identity, pid included.
    let app: String
    let sender: String
    let item: String?
    let decision: AuditRecord.Decision

    /// Hashes the short fields only: the application's JSON is two hundred bytes (compared by
    /// `==`, which finds the same string's storage at once), whose hashing was a quarter of
    /// what a held repeat cost.
    func hash(into hasher: inout Hasher) {
      hasher.combine(item)
      hasher.combine(sender)
    }
  }

  /// A read that was written, and its repeats since.
  struct Window {
    /// The read that was written: the window closes a minute after it.
    let first: AuditRecord
    /// How many repeats are held, and when the last was (Unix time).
    var repeats = 0
    var last: Double = 0
  }

  private var windows: [Key: Window] = [:]

  /// Whether any repeat is held.
  private(set) var holdsRepeats = false

  /// Takes `record`, and returns what is to be written now: nothing when it is a repeat, now
  /// held and counted; the record itself when it is any access but a read, or the first read
  /// of its window; before it, the line of the window it replaces, if that held repeats the
  /// timer had not yet written.
  mutating func admit(_ record: AuditRecord) -> [AuditRecord] {
    guard record.op == .read else { return [record] }
    let key = Key(
      app: record.app.json, sender: record.sender, item: record.item, decision: record.decision)
    let index = windows.index(forKey: key)
    if let index, Self.isOpen(windows.values[index], at: record.time) {
      // In place: a repeat costs a lookup and two stores.
      windows.values[index].repeats += 1
      windows.values[index].last = record.time
      holdsRepeats = true
      return []
    }
    let old = index.map { windows.values[$0] }
    windows[key] = Window(first: record)
    var lines = old.flatMap(Self.line).map { [$0] } ?? []
    if windows.count > Self.limit { lines += closing(at: nil) }
    return lines + [record]
  }

  /// The lines of the repeats held in windows that closed by `now` (Unix time), or in every
  /// window when `now` is nil (the log is being read, synced or closed), in the order of
  /// their last read. Those windows are forgotten, so that the next read is written at once;
  /// so are windows that closed without repeats.
  mutating func closing(at now: Double?) -> [AuditRecord] {
    var lines: [AuditRecord] = []
    for (key, window) in windows where now.map({ !Self.isOpen(window, at: $0) }) ?? true {
      if let line = Self.line(window) { lines.append(line) }
      windows[key] = nil
    }
    holdsRepeats = windows.values.contains { $0.repeats > 0 }
    return lines.sorted { $0.time < $1.time }
  }

  /// When the first window holding repeats closes (Unix time); nil when none holds any.
  var nextClosing: Double? {
    windows.values.filter { $0.repeats > 0 }.map { $0.first.time + Self.window }.min()
  }

  /// Whether `window` counts repeats at `time`: within the minute after its first read. A time
  /// before that read (the wall clock was set back) closes it too, rather than holding its
  /// count until the clock catches up.
  private static func isOpen(_ window: Window, at time: Double) -> Bool {
    time >= window.first.time && time < window.first.time + Self.window
  }

  /// The line of a window's repeats, if it holds any: the read at the last one's time, with
  /// their count (none for one repeat: a line like any read's).
  private static func line(_ window: Window) -> AuditRecord? {
    guard window.repeats > 0 else { return nil }
    var line = window.first
    line.time = window.last
    line.count = window.repeats > 1 ? window.repeats : nil
    return line
  }
}
