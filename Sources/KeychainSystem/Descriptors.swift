// SPDX-License-Identifier: MIT
//
// Reading and writing whole buffers, in one place, on apple/swift-system's `FileDescriptor`
// (which retries a call interrupted by a signal): reads to the end or of an exact length,
// writes and socket sends of everything, and waiting for input. Every loop over EINTR and short
// counts that keychaind's modules used to write for themselves is here, once.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

extension FileDescriptor {
  /// Everything up to the end of the file or stream, read `chunk` bytes at a time. Past
  /// `limit` bytes: `Errno.fileTooLarge`, or with `truncating` the bytes read up to then (a
  /// /proc file that a process may make as long as it likes).
  public func readToEnd(limit: Int = .max, chunk size: Int = 65536, truncating: Bool = false)
    throws(Errno) -> [UInt8]
  {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: size)
    while true {
      let got = try Self.asErrno { try chunk.withUnsafeMutableBytes { try read(into: $0) } }
      if got == 0 { return bytes }
      bytes += chunk[..<got]
      guard bytes.count >= limit else { continue }
      if truncating { return bytes }
      if bytes.count > limit { throw Errno.fileTooLarge }
    }
  }

  /// Fills `buffer` from the start (short reads continued); returns how much it filled, less
  /// than its size only at the end of the stream.
  public func read(filling buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
    var count = 0
    while count < buffer.count {
      let got = try Self.asErrno {
        try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]))
      }
      if got == 0 { break }
      count += got
    }
    return count
  }

  /// Writes all of `bytes` (short writes continued); a pipe whose reader is gone is
  /// `Errno.brokenPipe`, not the end of the process (see `withSIGPIPEBlocked`).
  public func writeAll(bytes: UnsafeRawBufferPointer) throws(Errno) {
    _ = try withSIGPIPEBlocked { () throws(Errno) in try Self.asErrno { try writeAll(bytes) } }
  }

  /// Sends all of `bytes` on a socket without raising SIGPIPE (`MSG_NOSIGNAL`), continuing
  /// short sends and sends interrupted by a signal.
  public func sendAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var sent = 0
    while sent < bytes.count {
      let count = Glibc.send(
        rawValue, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { throw Errno(rawValue: count < 0 ? errno : EPIPE) }
      sent += count
    }
  }

  /// The next connection on a listening socket, close-on-exec; nil when there was none after
  /// all (a signal, a client that gave up, a non-blocking socket with nothing waiting).
  public func acceptConnection() throws(Errno) -> FileDescriptor? {
    let client = accept(rawValue, nil, nil)
    guard client >= 0 else {
      if errno == EINTR || errno == ECONNABORTED || errno == EAGAIN { return nil }
      throw Errno(rawValue: errno)
    }
    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
    return FileDescriptor(rawValue: client)
  }

  /// Waits until one of `descriptors` can be read (or has hung up), up to `timeout`
  /// milliseconds (-1: for ever), continuing after a signal; the indices of the ready ones,
  /// empty on timeout.
  public static func waitReadable(_ descriptors: [FileDescriptor], timeout: Int32 = -1)
    throws(Errno) -> [Int]
  {
    var entries = descriptors.map { pollfd(fd: $0.rawValue, events: Int16(POLLIN), revents: 0) }
    while true {
      let ready = poll(&entries, nfds_t(entries.count), timeout)
      if ready < 0, errno == EINTR { continue }
      guard ready >= 0 else { throw Errno(rawValue: errno) }
      return entries.indices.filter { entries[$0].revents != 0 }
    }
  }

  /// `body`'s errors as the `Errno` swift-system throws.
  static func asErrno<T>(_ body: () throws -> T) throws(Errno) -> T {
    do { return try body() } catch let error as Errno { throw error } catch {
      throw Errno.ioError
    }
  }
}

/// Runs `body` with SIGPIPE blocked on this thread: a write to a pipe or socket whose reader is
/// gone then fails with EPIPE instead of ending the process. A SIGPIPE the write raised is
/// taken off before the mask is restored, so it is never delivered later.
public func withSIGPIPEBlocked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
  var pipeSignal = sigset_t()
  sigemptyset(&pipeSignal)
  sigaddset(&pipeSignal, SIGPIPE)
  var previous = sigset_t()
  pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
  defer {
    var pending = sigset_t()
    sigpending(&pending)
    if sigismember(&pending, SIGPIPE) == 1 {
      var now = timespec()
      _ = sigtimedwait(&pipeSignal, nil, &now)
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
  }
  return try body()
}
