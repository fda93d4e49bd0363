// SPDX-License-Identifier: MIT

import CKeychainGcrypt

#if canImport(Glibc)
  import Glibc
#endif

/// Key or secret bytes in libgcrypt's locked secure-memory pool, wiped when freed.
///
/// Immutable once made, so copies share one buffer safely. Equality is constant-time, and the
/// description never shows the bytes. Reading them out (`withUnsafeBytes`, `copyBytes`) is the
/// caller's responsibility: a Swift array copy is not wiped.
public struct SecureBytes: Sendable, Equatable, CustomStringConvertible {
  private final class Storage: @unchecked Sendable {
    // Invariant: written only inside `init`'s initializer closure, read-only afterwards.
    let pointer: UnsafeMutableRawPointer?
    let count: Int

    init(count: Int) {
      Gcrypt.ensureInitialized()
      self.count = count
      // An empty buffer needs no memory; a failed secure allocation is a crash, never a
      // silent fall back to ordinary memory.
      guard count > 0 else {
        pointer = nil
        return
      }
      guard let memory = gcry_malloc_secure(count) else {
        fatalError("secure memory pool exhausted (\(count) bytes requested)")
      }
      pointer = memory
    }

    deinit {
      if let pointer {
        explicit_bzero(pointer, count)
        gcry_free(pointer)
      }
    }
  }

  private let storage: Storage

  /// `count` bytes filled by `initializer`, which must write all of them.
  public init(
    count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void
  ) rethrows {
    storage = Storage(count: count)
    try initializer(UnsafeMutableRawBufferPointer(start: storage.pointer, count: count))
  }

  /// A copy of `bytes` in secure memory. The caller should wipe its own copy if it can.
  public init<Bytes: Collection<UInt8>>(copying bytes: Bytes) {
    self.init(count: bytes.count) { buffer in
      _ = buffer.initializeMemory(as: UInt8.self, from: bytes)
    }
  }

  /// `count` bytes from libgcrypt's strong random generator.
  public static func random(count: Int) -> SecureBytes {
    SecureBytes(count: count) { buffer in
      if let base = buffer.baseAddress { gcry_randomize(base, count, GCRY_VERY_STRONG_RANDOM) }
    }
  }

  /// The number of bytes.
  public var count: Int { storage.count }

  /// Lends the bytes for the duration of `body`.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: storage.pointer, count: storage.count))
  }

  /// The bytes as an ordinary array, for handing to code outside the secure pool.
  public func copyBytes() -> [UInt8] {
    withUnsafeBytes { Array($0) }
  }

  /// Constant-time comparison: the time taken does not depend on where the bytes differ.
  public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBytes { a in
      rhs.withUnsafeBytes { b in
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
      }
    }
  }

  public var description: String { "SecureBytes(\(count) bytes, redacted)" }
}
