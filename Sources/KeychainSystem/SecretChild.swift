// SPDX-License-Identifier: MIT
//
// Handing secrets to one child program without writing them anywhere (`keychainctl exec`):
// environment entries built in locked memory and wiped once the child has started, and files
// that live only in memory (memfd), sealed read-only, inherited by the child as descriptors.

import CKeychainProcess
import KeychainCrypto
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// A child started with secrets, and waited for.
public enum SecretChild {
  /// A file of `contents` in memory only, sealed so that nothing can change it, positioned at
  /// its start, and left open across exec for a child to inherit: `/dev/fd/N` names it there.
  /// `name` shows in the child's /proc/self/fd (as `memfd:NAME`).
  public static func memoryFile(named name: String, contents: SecureBytes) throws(Errno)
    -> FileDescriptor
  {
    let fd = contents.withUnsafeBytes { bytes in
      keychain_memory_file(
        name, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
    }
    guard fd >= 0 else { throw Errno(rawValue: -fd) }
    return FileDescriptor(rawValue: fd)
  }

  /// Starts `file` (a path, or a name looked up on PATH) with `arguments` (the first is its
  /// name), `environment` ("NAME=value"), and `secrets` as more environment entries, built in
  /// locked memory and wiped as soon as the child has its copy; signals as `ProcessControl.spawn`
  /// leaves them. Returns its pid.
  public static func spawn(
    _ file: String, _ arguments: [String], environment: [String],
    secrets: [(name: String, value: SecureBytes)]
  ) -> Result<pid_t, Errno> {
    let entries = secrets.map { name, value in
      SecureBytes(count: name.utf8.count + 1 + value.count + 1) { out in
        var offset = 0
        for byte in name.utf8 + [UInt8(ascii: "=")] {
          out[offset] = byte
          offset += 1
        }
        value.withUnsafeBytes {
          UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + value.count)])
            .copyMemory(from: $0)
        }
        out[offset + value.count] = 0
      }
    }
    return withPointers(to: entries) { secretEntries in
      var argv = arguments.map { strdup($0) } + [nil]
      var envp = environment.map { strdup($0) } + secretEntries + [nil]
      defer { for pointer in argv + environment.indices.map({ envp[$0] }) { free(pointer) } }
      var pid: pid_t = 0
      let rc = keychain_spawn(&pid, file, nil, &argv, &envp)
      return rc == 0 ? .success(pid) : .failure(Errno(rawValue: rc))
    }
  }

  /// How the child ended, as a shell reports it: its exit status, or 128 + the signal that
  /// killed it. Meanwhile this process ignores SIGINT and SIGQUIT, as system(3) does: the
  /// terminal's Ctrl-C is the child's to handle.
  public static func wait(for pid: pid_t) -> Int32 {
    let (interrupt, quit) = (signal(SIGINT, SIG_IGN), signal(SIGQUIT, SIG_IGN))
    defer {
      signal(SIGINT, interrupt)
      signal(SIGQUIT, quit)
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return 127 }
    }
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
  }

  /// The entries' bytes as C strings, for the length of `body`.
  private static func withPointers<R>(
    to entries: [SecureBytes], _ body: ([UnsafeMutablePointer<CChar>?]) -> R
  ) -> R {
    guard let first = entries.first else { return body([]) }
    return first.withUnsafeBytes { bytes in
      withPointers(to: Array(entries.dropFirst())) { rest in
        body(
          [UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self))]
            + rest)
      }
    }
  }
}
