// SPDX-License-Identifier: MIT
//
// systemd's credentials, served from the keyring: a unit with
// `LoadCredential=ID:%t/keychaind/credentials` makes systemd connect to this socket from an
// abstract address that names the unit and the credential, and read to the end. This server
// answers with the secret the user granted that unit under that id, or closes at once, which
// systemd 252 takes as an empty credential: the unit runs with an empty file (a real user
// manager shows it: SystemdUserManagerTests). One thread accepts and answers one
// connection at a time; the peer must be this user (systemd's user manager), checked before
// anything is read.

import Foundation
import KeychainCrypto
import KeychainSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// What the daemon answers a unit with; called on the server's thread.
public protocol CredentialSource: Sendable {
  /// The secret for credential `id` of unit `unit`, or nil to refuse.
  func credential(unit: String, id: String, peer: pid_t) -> SecureBytes?
}

/// A listening credentials socket.
public final class CredentialServer: Sendable {
  public let path: String
  private let listener: Int32
  private let inode: UInt64
  private let closed = Atomic<Bool>(false)

  /// Where keychaind listens: `$XDG_RUNTIME_DIR/keychaind/credentials`; nil without one.
  public static func defaultPath(_ environment: [String: String]) -> String? {
    environment["XDG_RUNTIME_DIR"].map { $0 + "/keychaind/credentials" }
  }

  /// Listens at `path`, its directory made 0700 if missing. A stale socket of this user is
  /// replaced; anything else at the path is left alone and refused, with a message that says so.
  public static func listen(at path: String, source: some CredentialSource) throws(Errno)
    -> CredentialServer
  {
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    if !directory.isEmpty { mkdir(directory, 0o700) }
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else { throw .fileExists }
      unlink(path)
    }
    let listener = try UnixSocket.listen(at: path)
    guard lstat(path, &info) == 0 else {
      listener.closeQuietly()
      throw .noSuchFileOrDirectory
    }
    let server = CredentialServer(
      path: path, listener: listener.rawValue, inode: UInt64(info.st_ino))
    Thread { server.serve(source) }.start()
    return server
  }

  /// Serves on the credentials socket systemd passed (data/keychaind-credentials.socket, named
  /// `credentials`); nil when it passed none. The socket file is systemd's: `close` leaves it.
  public static func adopt(environment: [String: String], source: some CredentialSource)
    -> CredentialServer?
  {
    guard
      let socket = SocketActivation.socket(
        named: ["credentials", "keychaind-credentials.socket"], environment: environment),
      let path = UnixSocket.boundPath(of: socket)
    else { return nil }
    let server = CredentialServer(path: path, listener: socket.rawValue, inode: 0)
    Thread { server.serve(source) }.start()
    return server
  }

  private init(path: String, listener: Int32, inode: UInt64) {
    (self.path, self.listener, self.inode) = (path, listener, inode)
  }

  /// Stops listening and removes the socket file if it is still this server's (one systemd
  /// passed is systemd's, and stays).
  public func close() {
    guard !closed.exchange(true, ordering: .relaxed) else { return }
    var info = stat()
    if inode != 0, lstat(path, &info) == 0, UInt64(info.st_ino) == inode { unlink(path) }
  }

  private func serve(_ source: some CredentialSource) {
    UnixSocket.acceptEach(
      on: FileDescriptor(rawValue: listener), until: { self.closed.load(ordering: .relaxed) },
      { answer($0, source) })
  }

  /// One connection: this user's, from an address that names a unit and a credential, answered
  /// with the secret or with nothing.
  private func answer(_ client: FileDescriptor, _ source: some CredentialSource) {
    guard let (pid, uid) = ProcessControl.peerCredentials(of: client), uid == getuid(),
      let address = UnixSocket.peerAddress(of: client),
      let (unit, id) = CredentialAddress.parse(address),
      let secret = source.credential(unit: unit, id: id, peer: pid)
    else { return }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(
      client.rawValue, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = secret.withUnsafeBytes { try? client.sendAll($0) }
  }
}

/// The abstract address systemd binds before it connects: `\0<hex>/unit/<unit>/<id>`.
/// systemd 252 (Debian 12) writes it in src/core/execute.c, load_credential(), as
/// `"@%" PRIx64 "/unit/%s/%s"` (random, unit, credential id); later versions keep it, in
/// exec-credential.c.
public enum CredentialAddress {
  /// The unit and the credential id an address names; nil for any other address.
  public static func parse(_ address: [UInt8]) -> (unit: String, id: String)? {
    guard address.first == 0 else { return nil }
    let parts = address.dropFirst().split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    guard parts.count == 4, !parts[0].isEmpty, parts[0].count <= 16,
      parts[0].allSatisfy({ isHexDigit($0) }), parts[1].elementsEqual("unit".utf8),
      let unit = String(validating: parts[2], as: UTF8.self),
      let id = String(validating: parts[3], as: UTF8.self),
      !unit.isEmpty, !id.isEmpty, unit.count <= 255, id.count <= 255
    else { return nil }
    return (unit, id)
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
  }
}
