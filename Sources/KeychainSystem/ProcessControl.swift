// SPDX-License-Identifier: MIT
//
// The process-wide calls a daemon that holds secrets makes, over the C wrappers in
// CKeychainProcess (prctl is variadic, and spawned children need their signal state reset,
// which Swift cannot do between fork and exec): this is the one module that imports them.

import CKeychainProcess
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Process-wide settings, children and peers.
public enum ProcessControl {
  /// No core dumps and no ptrace by same-user processes (PR_SET_DUMPABLE 0); false if refused.
  @discardableResult
  public static func disableDumps() -> Bool { keychain_disable_dumps() == 0 }

  /// Keeps buffers of up to 32 MiB on the heap, so a burst of large reads reuses its pages
  /// (see `releaseMemory`).
  public static func tuneAllocator() { keychain_tune_allocator() }

  /// Hands the heap's free pages back to the system (malloc_trim).
  @discardableResult
  public static func releaseMemory() -> Bool { keychain_release_memory() != 0 }

  /// Drops start-up's code and the loader's relocation pages from the resident set; returns
  /// how many bytes it let go.
  public static func releaseStartupPages() -> Int { Int(keychain_release_startup_pages()) }

  /// The pid and uid of the process at the other end of a Unix socket (SO_PEERCRED).
  public static func peerCredentials(of socket: FileDescriptor) -> (pid: pid_t, uid: uid_t)? {
    var (pid, uid): (pid_t, uid_t) = (0, 0)
    guard keychain_peer_credentials(socket.rawValue, &pid, &uid) == 0 else { return nil }
    return (pid, uid)
  }

  /// Starts `file` (a path, or a name looked up on PATH) with `arguments` (the first is its
  /// name) and `environment` ("NAME=value"), with every signal at its default disposition and
  /// none blocked, whatever this process set; `actions` set up its descriptors. Returns its
  /// pid, or the errno that kept it from starting.
  public static func spawn(
    _ file: String, _ arguments: [String], environment: [String],
    actions: UnsafePointer<posix_spawn_file_actions_t>? = nil
  ) -> Result<pid_t, Errno> {
    var argv = arguments.map { strdup($0) } + [nil]
    var envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let rc = keychain_spawn(&pid, file, actions, &argv, &envp)
    return rc == 0 ? .success(pid) : .failure(Errno(rawValue: rc))
  }

  /// Starts `path` with `arguments` and its standard output on `output`, bound to this process:
  /// it gets SIGTERM when this process ends (PR_SET_PDEATHSIG, from a thread that lives as long
  /// as the process), and is reaped when it exits.
  public static func spawnBound(_ path: String, _ arguments: [String], output: FileDescriptor)
    -> Result<pid_t, Errno>
  {
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let rc = keychain_spawn_bound(&pid, path, &argv, output.rawValue)
    return rc == 0 ? .success(pid) : .failure(Errno(rawValue: rc))
  }
}
