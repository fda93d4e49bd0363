// SPDX-License-Identifier: MIT
//
// The owner thread of one libdbus connection. libdbus is not safe to drive from several threads
// (a thread blocked reading holds the connection's I/O lock, and another thread's send then
// waits until a message arrives), so exactly one thread runs a poll() loop over the
// connection's watches, its timeouts and a wake-up pipe, and that thread is also the serial
// executor of the `Connection` actor: every libdbus call happens on it.

import CKeychainDBus
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

final class EventLoop: SerialExecutor, @unchecked Sendable {
  // Invariant for @unchecked Sendable: `pending` is guarded by its Mutex and the pipe fds never
  // change; every other stored property is read and written only on the loop thread.

  private struct Pending {
    var jobs: [UnownedJob] = []
    var closures: [@Sendable () -> Void] = []
    var stopping = false
  }

  private let pending = Mutex(Pending())
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let threadID = Mutex<pthread_t?>(nil)

  /// Set when the loop thread itself asked for a wake-up: the loop is awake already, so the
  /// next poll only must not block. (libdbus asks after every message it queues to send,
  /// which is after every reply: a pipe write and two reads per call saved.)
  private var wokenOnLoop = false
  // libdbus owns the watches and timeouts in `watches`, `polled` and `timeouts`: each pointer
  // is valid from the add callback that hands it over until the remove callback, which takes
  // it out of `watches` or `timeouts` (`polled` is checked against `watches` before use).
  fileprivate var watches: [OpaquePointer] = []
  // The poll set and the watches it covers, kept between rounds so that a round allocates
  // nothing: the loop goes round twice per call.
  private var pollSet: [pollfd] = []
  private var polled: [OpaquePointer] = []
  fileprivate var timeouts: [(timeout: OpaquePointer, deadline: UInt64)] = []
  /// Called after each round of I/O and jobs; the connection dispatches its messages here.
  var afterIteration: (() -> Void)?

  /// Starts the owner thread.
  static func start() -> EventLoop {
    let loop = EventLoop()
    var thread = pthread_t()
    // The retain goes to the new thread, which takes it over in `takeRetainedValue`: the
    // loop stays alive as long as its thread runs.
    let context = Unmanaged.passRetained(loop).toOpaque()
    let rc = pthread_create(
      &thread, nil,
      { context in
        let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
        loop.run()
        return nil
      }, context)
    precondition(rc == 0, "cannot start the D-Bus thread: error \(rc)")
    pthread_detach(thread)
    return loop
  }

  private init() {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0, "cannot create the D-Bus wake-up pipe")
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    wakeRead = fds[0]
    wakeWrite = fds[1]
  }

  // MARK: Executor

  func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    pending.withLock { $0.jobs.append(unowned) }
    wake()
  }

  /// Runs `body` on the loop thread, after the work already queued.
  func execute(_ body: @escaping @Sendable () -> Void) {
    pending.withLock { $0.closures.append(body) }
    wake()
  }

  /// Runs `body` on the loop thread and returns its result.
  func run<T: Sendable>(_ body: @escaping @Sendable () throws(DBusError) -> T)
    async throws(DBusError) -> T
  {
    let result: Result<T, DBusError> = await withCheckedContinuation { continuation in
      execute {
        do throws(DBusError) {
          continuation.resume(returning: .success(try body()))
        } catch {
          continuation.resume(returning: .failure(error))
        }
      }
    }
    return try result.get()
  }

  /// Whether the caller is on the loop thread.
  var isCurrent: Bool {
    guard let id = threadID.withLock({ $0 }) else { return false }
    return pthread_equal(id, pthread_self()) != 0
  }

  func checkIsolated() {
    precondition(isCurrent, "D-Bus state touched outside the connection's thread")
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// Ends the loop once the queued work has run. Called when the connection goes away.
  func stop() {
    pending.withLock { $0.stopping = true }
    wake()
  }

  private func wake() {
    if isCurrent {
      wokenOnLoop = true
      return
    }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)  // a full pipe already means "wake up"
  }

  // MARK: The loop

  private func run() {
    threadID.withLock { $0 = pthread_self() }
    while true {
      // Taken whole, leaving empty arrays: emptying them in place would copy their buffers,
      // which `work` still shares.
      let (work, stopping) = pending.withLock { state -> (Pending, Bool) in
        let work = state
        state.jobs = []
        state.closures = []
        return (work, work.stopping)
      }
      for closure in work.closures { closure() }
      for job in work.jobs { job.runSynchronously(on: asUnownedSerialExecutor()) }
      afterIteration?()
      let idle = pending.withLock { $0.jobs.isEmpty && $0.closures.isEmpty } && !wokenOnLoop
      wokenOnLoop = false
      if stopping && idle && work.jobs.isEmpty && work.closures.isEmpty { break }
      pollOnce(timeoutMilliseconds: idle ? nextTimeoutMilliseconds() : 0)
    }
    close(wakeRead)
    close(wakeWrite)
  }

  private func pollOnce(timeoutMilliseconds: Int32) {
    polled.removeAll(keepingCapacity: true)
    pollSet.removeAll(keepingCapacity: true)
    pollSet.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
    for watch in watches where dbus_watch_get_enabled(watch) != 0 {
      let flags = dbus_watch_get_flags(watch)
      var events: Int16 = 0
      if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
      if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
      polled.append(watch)
      pollSet.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
    }
    let ready = poll(&pollSet, nfds_t(pollSet.count), timeoutMilliseconds)
    if ready > 0 {
      if pollSet[0].revents != 0 { drainWakePipe() }
      for (index, watch) in polled.enumerated() {
        let revents = pollSet[index + 1].revents
        // A handled watch may remove others: only handle watches that still exist.
        guard revents != 0, watches.contains(watch) else { continue }
        var flags: UInt32 = 0
        if revents & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
        if revents & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if revents & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
        if revents & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
        dbus_watch_handle(watch, flags)
      }
    }
    fireExpiredTimeouts()
  }

  private func drainWakePipe() {
    var buffer = [UInt8](repeating: 0, count: 256)
    while read(wakeRead, &buffer, buffer.count) > 0 {}
  }

  // MARK: Timeouts

  /// Milliseconds on a monotonic clock (libdbus's timeouts are intervals, so any will do).
  /// KeychainDBus sits beside KeychainSystem, not on it: the standard library's clock.
  static func now() -> UInt64 {
    // The origin first: a lazily made origin read after the clock would lie ahead of it, and
    // a negative count of milliseconds would stop the program.
    let start = origin
    let elapsed = (ContinuousClock.now - start).components
    return UInt64(max(0, elapsed.seconds)) * 1000
      + UInt64(max(0, elapsed.attoseconds) / 1_000_000_000_000_000)
  }
  private static let origin = ContinuousClock.now

  fileprivate func arm(_ timeout: OpaquePointer) {
    timeouts.removeAll { $0.timeout == timeout }
    guard dbus_timeout_get_enabled(timeout) != 0 else { return }
    let interval = UInt64(max(0, dbus_timeout_get_interval(timeout)))
    timeouts.append((timeout, EventLoop.now() + interval))
  }

  private func nextTimeoutMilliseconds() -> Int32 {
    guard let soonest = timeouts.map(\.deadline).min() else { return -1 }
    let now = EventLoop.now()
    return soonest <= now ? 0 : Int32(min(soonest - now, 60_000))
  }

  private func fireExpiredTimeouts() {
    // Most turns of the loop have no timeout armed (a daemon waits for no reply): no clock.
    guard !timeouts.isEmpty else { return }
    let now = EventLoop.now()
    for entry in timeouts where entry.deadline <= now {
      guard timeouts.contains(where: { $0.timeout == entry.timeout }) else { continue }
      // libdbus timeouts repeat: re-arm before handling, which may remove it again.
      arm(entry.timeout)
      dbus_timeout_handle(entry.timeout)
    }
  }

  // MARK: Hooking a connection into the loop

  /// Gives libdbus our watch and timeout functions. Call on the loop thread.
  func attach(_ connection: OpaquePointer) -> Bool {
    // Unretained, with no free function: libdbus calls these only from libdbus calls made on
    // this thread, and `Connection.deinit` closes and unrefs the connection here before the
    // loop stops, while the running thread still holds the loop.
    let me = Unmanaged.passUnretained(self).toOpaque()
    let watchesOK = dbus_connection_set_watch_functions(
      connection,
      { watch, data in
        EventLoop.from(data).watches.append(watch!)
        return 1
      },
      { watch, data in EventLoop.from(data).watches.removeAll { $0 == watch } },
      nil,  // toggles need no work: enabled watches are collected before every poll
      me, nil)
    let timeoutsOK = dbus_connection_set_timeout_functions(
      connection,
      { timeout, data in
        EventLoop.from(data).arm(timeout!)
        return 1
      },
      { timeout, data in EventLoop.from(data).timeouts.removeAll { $0.timeout == timeout } },
      { timeout, data in EventLoop.from(data).arm(timeout!) },
      me, nil)
    // libdbus asks for a wake-up when work appears outside a dispatch; the pipe provides it.
    dbus_connection_set_wakeup_main_function(
      connection, { data in EventLoop.from(data).wake() }, me, nil)
    return watchesOK != 0 && timeoutsOK != 0
  }

  fileprivate static func from(_ data: UnsafeMutableRawPointer?) -> EventLoop {
    Unmanaged<EventLoop>.fromOpaque(data!).takeUnretainedValue()
  }
}
