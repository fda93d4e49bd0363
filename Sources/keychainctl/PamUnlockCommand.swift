// SPDX-License-Identifier: MIT
//
// keychainctl pam-unlock: login unlock for systems without pam_gnome_keyring.so, through the
// stock pam_exec.so. pam_exec runs it during authentication with the password on standard input
// (expose_authtok) and PAM_USER, PAM_TYPE in the environment; it sends the control protocol's
// UNLOCK to the user's keychaind, as pam_gnome_keyring would. Placed after the stack that
// authenticates (Debian: after `@include common-auth`, whose failure path ends the stack), it
// only ever sees a password that authenticated, so a keyring is never created from a wrong one.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainSystem
import KeyringControl

#if canImport(Glibc)
  import Glibc
#endif

struct PamUnlock: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "pam-unlock",
    abstract: "Unlock keychaind at login from pam_exec.so (for systems without pam_gnome_keyring).",
    discussion: """
      For a PAM line such as `auth optional pam_exec.so expose_authtok quiet \
      /usr/bin/keychainctl pam-unlock` (/usr/local/bin after `make install`), placed after the \
      lines that authenticate. Reads \
      the password from standard input, and as PAM_USER (it leaves root's privileges first) \
      sends it to keychaind's control socket, /run/user/UID/keyring/control, which \
      keychaind-control.socket listens on. Outside the auth stage it does nothing. The password \
      is never put in an argument, the environment or a log. A login that gave no password \
      unlocks nothing. Exit codes: 0 unlocked (or nothing to do); 1 refused or no keychaind; 2 \
      bad invocation.
      """)

  @Option(help: "The control socket (default: /run/user/UID/keyring/control).")
  var socket: String?

  func run() throws {
    let environment = ProcessInfo.processInfo.environment
    guard environment["PAM_TYPE"] == "auth" else { return }
    guard let name = environment["PAM_USER"], let account = getpwnam(name) else {
      complain("keychainctl pam-unlock: no PAM_USER")
      throw ExitCode(2)
    }
    // `account` points into getpwnam's static storage, which any later getpw* call may
    // overwrite: both ids are copied out at once, and the pointer is not used again.
    let (uid, gid) = (account.pointee.pw_uid, account.pointee.pw_gid)
    // Read the password first (as whoever runs us), into locked memory.
    // pam_exec ends it with a NUL; a pipe may end it with a newline.
    let password: SecureBytes
    do {
      password = try SecretReader.read(
        prompt: "Password: ", maximumLength: 8192, trailing: .newlinesAndNULs)
    } catch {
      complain("keychainctl pam-unlock: cannot read the password: \(error)")
      throw Exit.failure
    }
    // A login without a password (a fingerprint, a smart card, a module that keeps none) gives
    // nothing: that is not the keyring's password, and would make an empty one for a new
    // login keyring. pam_gnome_keyring sends nothing then either.
    guard password.count > 0 else {
      complain("keychainctl pam-unlock: PAM gave no password: nothing unlocked")
      return
    }
    // Become the user, as pam_gnome_keyring's client does: the socket and keychaind are theirs.
    if getuid() != uid {
      guard getuid() == 0, initgroups(name, gid) == 0, setgid(gid) == 0, setuid(uid) == 0 else {
        complain("keychainctl pam-unlock: cannot act as \(name)")
        throw Exit.failure
      }
    }
    let path = socket ?? "/run/user/\(uid)/keyring/control"
    let request = password.withUnsafeBytes { ControlPacket.request(.unlock, [Array($0)]) }
    do {
      let (result, _) = try ControlClient.send(request, to: path)
      guard result == .ok else {
        complain("keychainctl pam-unlock: keychaind answered \(result)")
        throw Exit.failure
      }
    } catch let error as ControlError {
      complain("keychainctl pam-unlock: \(error)")
      throw Exit.failure
    }
  }
}
