// SPDX-License-Identifier: MIT
//
// The client side of the control protocol, as pam_gnome_keyring uses it: keychaind asks a
// running gnome-keyring-daemon to QUIT when it takes the Secret Service over (--replace).

import KeychainSystem
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Why a control request could not be made.
public struct ControlError: Error, CustomStringConvertible {
  public let description: String
}

public enum ControlClient {
  /// The control socket gnome-keyring listens on: `$GNOME_KEYRING_CONTROL/control`, else
  /// `$XDG_RUNTIME_DIR/keyring/control`.
  public static func socketPath(_ environment: [String: String]) -> String? {
    if let directory = environment["GNOME_KEYRING_CONTROL"], !directory.isEmpty {
      return directory + "/control"
    }
    guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
    return runtime + "/keyring/control"
  }

  /// Whether a server of this user listens at `path`, and its process id: it connects and
  /// reads the peer's credentials, and sends nothing (so no request is made of it).
  public static func probe(_ path: String) throws(ControlError) -> pid_t {
    let fd = try connected(path)
    defer { close(fd) }
    return try peer(fd: fd, path)
  }

  /// Sends one request to the daemon at `path` and returns its answer. The socket must be ours
  /// (owned by this user, not a link) and so must the process behind it (its credentials are
  /// read back); `serverPID` is that process's id.
  public static func send(_ request: [UInt8], to path: String) throws(ControlError)
    -> (result: ControlResult, serverPID: pid_t)
  {
    let fd = try connected(path)
    defer { close(fd) }
    let serverPID = try peer(fd: fd, path)
    guard writeAll(fd, [0] + request) else {
      throw ControlError(description: "write \(path): errno \(errno)")
    }
    var reply = [UInt8](repeating: 0, count: 8)
    let got = reply.withUnsafeMutableBytes { try? FileDescriptor(rawValue: fd).read(filling: $0) }
    guard got == reply.count else { throw ControlError(description: "no reply from \(path)") }
    guard ControlPacket.word(reply, at: 0) >= 8,
      let result = ControlResult(rawValue: ControlPacket.word(reply, at: 4))
    else { throw ControlError(description: "\(path) answered outside the protocol") }
    return (result, serverPID)
  }

  /// The pid of the process behind a connected control socket, which must be this user's.
  private static func peer(fd: Int32, _ path: String) throws(ControlError) -> pid_t {
    guard let server = ProcessControl.peerCredentials(of: FileDescriptor(rawValue: fd)),
      server.uid == getuid()
    else {
      throw ControlError(description: "the process behind \(path) is not this user's")
    }
    return server.pid
  }

  /// A socket connected to `path`, which must be this user's socket (not a link).
  private static func connected(_ path: String) throws(ControlError) -> Int32 {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw ControlError(
        description:
          "there is no control socket at \(path): neither keychaind-control.socket nor keychaind listens there"
      )
    }
    guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == getuid() else {
      throw ControlError(description: "\(path) is not a control socket of this user")
    }
    do {
      return try UnixSocket.connect(to: path, timeout: 5).rawValue
    } catch .fileNameTooLong {
      throw ControlError(description: "\(path) is too long for a socket path")
    } catch {
      throw ControlError(description: "connect \(path): \(error)")
    }
  }

  private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { (try? FileDescriptor(rawValue: fd).sendAll($0)) != nil }
  }
}
