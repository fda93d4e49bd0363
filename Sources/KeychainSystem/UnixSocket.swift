// SPDX-License-Identifier: MIT
//
// Unix stream sockets by path: a listening socket made private from its first moment (bound
// under a umask that leaves it 0600), a connection with send and receive timeouts, and the
// path a socket passed by systemd is bound to. Paths longer than sockaddr_un holds are
// `Errno.fileNameTooLong`, never cut short.

import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Unix stream sockets named by a path.
public enum UnixSocket {
  /// A socket listening at `path` (which must not exist), 0600 from the moment it is bound.
  public static func listen(at path: String, backlog: Int32 = 16) throws(Errno)
    -> FileDescriptor
  {
    var address = try self.address(path)
    let socket = try stream()
    let previous = umask(0o177)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    umask(previous)
    guard bound == 0, Glibc.listen(socket.rawValue, backlog) == 0 else {
      let error = Errno(rawValue: errno)
      socket.closeQuietly()
      throw error
    }
    return socket
  }

  /// A socket connected to `path`; a read or write that waits longer than `timeout` seconds
  /// fails (EAGAIN) instead of hanging on a peer that stopped answering.
  public static func connect(to path: String, timeout: Int = 5) throws(Errno) -> FileDescriptor {
    var address = try self.address(path)
    let socket = try stream()
    var limit = timeval(tv_sec: timeout, tv_usec: 0)
    let size = socklen_t(MemoryLayout<timeval>.size)
    setsockopt(socket.rawValue, SOL_SOCKET, SO_RCVTIMEO, &limit, size)
    setsockopt(socket.rawValue, SOL_SOCKET, SO_SNDTIMEO, &limit, size)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      let error = Errno(rawValue: errno)
      socket.closeQuietly()
      throw error
    }
    return socket
  }

  /// The path `socket` is bound to, if it is a listening-type Unix stream socket (one systemd
  /// passed, say); nil for anything else.
  public static func boundPath(of socket: FileDescriptor) -> String? {
    var type: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    var address = sockaddr_un()
    var addressLength = socklen_t(MemoryLayout<sockaddr_un>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(socket.rawValue, $0, &addressLength)
      }
    }
    guard getsockopt(socket.rawValue, SOL_SOCKET, SO_TYPE, &type, &length) == 0,
      type == Int32(SOCK_STREAM.rawValue), named == 0, address.sun_family == sa_family_t(AF_UNIX)
    else { return nil }
    // A path that fills sun_path has no terminating NUL (unix(7)): read up to the first NUL
    // within the field, never past it.
    return withUnsafeBytes(of: &address.sun_path) { field in
      String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  /// The address the peer of connected `socket` is bound to, as the kernel gives it: the
  /// bytes of `sun_path` within the length it reports (an abstract address starts with a NUL);
  /// empty for an unbound peer, nil when it cannot be read.
  public static func peerAddress(of socket: FileDescriptor) -> [UInt8]? {
    var address = sockaddr_un()
    var length = socklen_t(MemoryLayout<sockaddr_un>.size)
    let read = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getpeername(socket.rawValue, $0, &length)
      }
    }
    let header = MemoryLayout<sa_family_t>.size
    guard read == 0, address.sun_family == sa_family_t(AF_UNIX), Int(length) >= header else {
      return nil
    }
    return withUnsafeBytes(of: &address.sun_path) {
      Array($0.prefix(min(Int(length) - header, $0.count)))
    }
  }

  /// Accepts connections on `listener` one at a time and hands each to `answer`, closing it
  /// after, until `stopped` is true (looked at four times a second) or the listener fails;
  /// then closes the listener. For the daemon's small servers, each on a thread of its own.
  public static func acceptEach(
    on listener: FileDescriptor, until stopped: () -> Bool, _ answer: (FileDescriptor) -> Void
  ) {
    while !stopped() {
      guard let ready = try? FileDescriptor.waitReadable([listener], timeout: 250) else { break }
      guard !ready.isEmpty, !stopped() else { continue }
      let client: FileDescriptor?
      do { client = try listener.acceptConnection() } catch { break }
      guard let client else { continue }
      answer(client)
      try? client.close()
    }
    listener.closeQuietly()
  }

  private static func stream() throws(Errno) -> FileDescriptor {
    let socket = Glibc.socket(
      AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socket >= 0 else { throw Errno(rawValue: errno) }
    return FileDescriptor(rawValue: socket)
  }

  private static func address(_ path: String) throws(Errno) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard !bytes.isEmpty, bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      throw Errno.fileNameTooLong
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }
}
