// SPDX-License-Identifier: MIT
//
// The server side of gnome-keyring's control protocol, so that the `pam_gnome_keyring.so` every
// distribution ships unlocks keychaind at login (UNLOCK with the login password), keeps it in
// step with `passwd` (CHANGE) and can stop it (QUIT). One thread accepts and answers one
// request per connection. Before a byte is read, the peer must be this user (SO_PEERCRED);
// packets are bounded and read into locked memory; passwords go only to the handler.

import Foundation
import KeychainCrypto
import KeychainSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What the daemon does with each request; called on the server's thread, one at a time.
public protocol ControlHandler: Sendable {
  /// Unlock the login collection with `password`, or create it with that password; `peer`
  /// is the process that asked (a PAM module's host: gdm, login, pamtester…).
  func unlock(password: SecureBytes, peer: pid_t) -> ControlResult
  /// Re-key the login collection from `old` to `new`.
  func change(old: SecureBytes, new: SecureBytes) -> ControlResult
  /// Stop the daemon (after the reply).
  func quit() -> ControlResult
}

/// A listening control socket.
public final class ControlServer: Sendable {
  public let path: String
  private let listener: Int32
  private let inode: UInt64
  private let closed = Atomic<Bool>(false)

  /// Listens at `path` (its directory made 0700 if missing). Nil when a live server already
  /// answers there (a running gnome-keyring-daemon): that one keeps it. A stale socket file is
  /// replaced; anything else at the path is left alone and refused.
  public static func listen(at path: String, handler: some ControlHandler) throws(ControlError)
    -> ControlServer?
  {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !directory.isEmpty { mkdir(directory, 0o700) }
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else {
        throw ControlError(description: "\(path) exists and is not this user's control socket")
      }
      // Someone answers (gnome-keyring-daemon): it keeps the path. Nothing is asked of it.
      if (try? ControlClient.probe(path)) != nil { return nil }
      unlink(path)
    }
    let listener: FileDescriptor
    do {
      listener = try UnixSocket.listen(at: path)
    } catch .fileNameTooLong {
      throw ControlError(description: "\(path) is too long for a socket path")
    } catch {
      throw ControlError(description: "cannot listen at \(path): \(error)")
    }
    guard lstat(path, &info) == 0 else {
      listener.closeQuietly()
      throw ControlError(description: "cannot listen at \(path): it went away")
    }
    let fd = listener.rawValue
    return start(ControlServer(path: path, listener: fd, inode: UInt64(info.st_ino)), handler)
  }

  /// Serves on the listening socket systemd passed (socket activation: the one named
  /// `control`, data/keychaind-control.socket's FileDescriptorName=, or the only one passed
  /// without names). Nil when none was passed. The socket file is systemd's: `close` leaves it
  /// in place.
  public static func adopt(
    environment: [String: String], handler: some ControlHandler
  ) -> ControlServer? {
    guard
      let socket = SocketActivation.socket(
        named: ["control", "keychaind-control.socket"], environment: environment,
        unnamedSingle: true),
      let path = UnixSocket.boundPath(of: socket)
    else { return nil }
    return start(ControlServer(path: path, listener: socket.rawValue, inode: 0), handler)
  }

  private static func start(_ server: ControlServer, _ handler: some ControlHandler)
    -> ControlServer
  {
    let thread = Thread { server.serve(handler) }
    thread.start()
    return server
  }

  private init(path: String, listener: Int32, inode: UInt64) {
    self.path = path
    self.listener = listener
    self.inode = inode
  }

  /// Stops listening and removes the socket file if it is still this server's.
  public func close() {
    guard !closed.exchange(true, ordering: .relaxed) else { return }
    // No shutdown(): a socket systemd passed is shared with it, and must keep listening for
    // the next login. The serving thread sees the flag within its poll interval.
    var info = stat()
    if inode != 0, lstat(path, &info) == 0, UInt64(info.st_ino) == inode { unlink(path) }
  }

  private func serve(_ handler: some ControlHandler) {
    UnixSocket.acceptEach(
      on: FileDescriptor(rawValue: listener), until: { self.closed.load(ordering: .relaxed) },
      { answer($0.rawValue, handler) })
  }

  /// One request: the peer checked, the credentials byte, one bounded packet, one reply.
  private func answer(_ client: Int32, _ handler: some ControlHandler) {
    guard let (pid, uid) = ProcessControl.peerCredentials(of: FileDescriptor(rawValue: client)),
      uid == getuid()
    else { return }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let header = SecureScratch(capacity: 5)
    guard readExactly(client, header, 5) else { return }
    let (credentials, length) = header.withUnsafeMutableBytes {
      ($0[0], ControlPacket.word($0.dropFirst(1), at: 0))
    }
    guard credentials == 0, length >= 8, length <= ControlPacket.maximumLength else {
      reply(client, .failed)
      return
    }
    let body = SecureScratch(capacity: Int(length) - 4)
    guard readExactly(client, body, Int(length) - 4),
      let (operation, arguments) = ControlPacket.parse(body.prefix(Int(length) - 4))
    else {
      reply(client, .failed)
      return
    }
    let result: ControlResult
    switch (operation, arguments.count) {
    case (.initialize, _):
      // The components are gnome-keyring's; keychaind has one, always running. The reply's
      // environment list is empty.
      result = .ok
    case (.unlock, 1): result = handler.unlock(password: arguments[0], peer: pid)
    case (.change, 2): result = handler.change(old: arguments[0], new: arguments[1])
    case (.quit, _): result = .ok
    default: result = .failed
    }
    reply(client, result, environment: operation == .initialize)
    if operation == .quit { _ = handler.quit() }
  }

  private func reply(_ client: Int32, _ result: ControlResult, environment: Bool = false) {
    // INITIALIZE's reply also carries a string list (here empty: a count of 0).
    let packet =
      environment
      ? ControlPacket.word(12) + ControlPacket.word(result.rawValue) + ControlPacket.word(0)
      : ControlPacket.reply(result)
    _ = packet.withUnsafeBytes { try? FileDescriptor(rawValue: client).sendAll($0) }
  }

  private func readExactly(_ client: Int32, _ buffer: borrowing SecureScratch, _ count: Int)
    -> Bool
  {
    buffer.withUnsafeMutableBytes { raw in
      let wanted = UnsafeMutableRawBufferPointer(rebasing: raw[..<count])
      return (try? FileDescriptor(rawValue: client).read(filling: wanted)) == count
    }
  }
}
