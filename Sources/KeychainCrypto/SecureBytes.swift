// SPDX-License-Identifier: MIT

import CKeychainGcrypt

#if canImport(Glibc)
  import Glibc
#endif

/// Memory from the secure pool (or locked, undumpable pages), wiped when freed.
private final class SecureStorage: @unchecked Sendable {
  // Invariant: the bytes are written by one owner only: SecureBytes once, in its initializer,
  // and read-only afterwards; SecureScratch, which is not copyable and not Sendable.
  // `pointer` belongs to this object: allocated in init, wiped and freed in deinit, so it is
  // valid while a SecureBytes or SecureScratch holds the storage, and they lend it out only
  // for the duration of a `withUnsafe…` call.
  let pointer: UnsafeMutableRawPointer?
  let count: Int
  /// True when the bytes live in libgcrypt's pool, false for a mapping of our own.
  let inPool: Bool

  init(count: Int) {
    Gcrypt.ensureInitialized()
    self.count = count
    guard count > 0 else {
      pointer = nil
      inPool = false
      return
    }
    if let memory = gcry_malloc_secure(count) {
      pointer = memory
      inPool = true
      return
    }
    // Larger than what is left of the pool (a big secret): private pages, locked in RAM when
    // RLIMIT_MEMLOCK allows, never in a core dump, wiped before they are returned.
    let memory = mmap(nil, count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let memory, memory != MAP_FAILED else {
      fatalError("cannot allocate \(count) bytes for a secret")
    }
    _ = mlock(memory, count)
    _ = madvise(memory, count, MADV_DONTDUMP)
    pointer = memory
    inPool = false
  }

  deinit {
    guard let pointer else { return }
    explicit_bzero(pointer, count)
    if inPool {
      gcry_free(pointer)
    } else {
      munlock(pointer, count)
      munmap(pointer, count)
    }
  }
}

/// Key or secret bytes in libgcrypt's locked secure-memory pool, wiped when freed.
///
/// A buffer too large for the pool (the pool is `Gcrypt.secureMemoryBytes`; secrets may be up
/// to 16 MiB) gets its own pages instead, locked where the memory limit allows and excluded
/// from core dumps, and is wiped the same way.
///
/// Immutable once made, so copies share one buffer safely. Equality is constant-time, and the
/// description never shows the bytes. Reading them out (`withUnsafeBytes`, `copyBytes`) is the
/// caller's responsibility: a Swift array copy is not wiped.
public struct SecureBytes: Sendable, Equatable, CustomStringConvertible {
  private let storage: SecureStorage
  /// Where these bytes start in `storage`: a slice shares its parent's buffer.
  private let offset: Int
  /// The number of bytes.
  public let count: Int

  /// `count` bytes filled by `initializer`, which must write all of them.
  public init(
    count: Int, initializer: (UnsafeMutableRawBufferPointer) throws -> Void
  ) rethrows {
    storage = SecureStorage(count: count)
    offset = 0
    self.count = count
    try initializer(UnsafeMutableRawBufferPointer(start: storage.pointer, count: count))
  }

  private init(storage: SecureStorage, offset: Int, count: Int) {
    self.storage = storage
    self.offset = offset
    self.count = count
  }

  /// The bytes in `range`, sharing this buffer rather than copying it (the secret inside a
  /// decrypted record): the whole buffer stays locked and is wiped when the last part goes.
  public func slice(_ range: Range<Int>) -> SecureBytes {
    precondition(range.lowerBound >= 0 && range.upperBound <= count, "slice out of bounds")
    return SecureBytes(storage: storage, offset: offset + range.lowerBound, count: range.count)
  }

  /// A copy of `bytes` in secure memory. The caller should wipe its own copy if it can.
  public init<Bytes: Collection<UInt8>>(copying bytes: Bytes) {
    self.init(count: bytes.count) { buffer in
      // One memcpy for contiguous bytes (arrays, Data, buffer slices): a 10 MiB secret was
      // copied byte by byte through the generic path, two thirds of a GetSecret's time.
      let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
        if let base = source.baseAddress, !source.isEmpty {
          buffer.baseAddress!.copyMemory(from: base, byteCount: source.count)
        }
      }
      if copied == nil { _ = buffer.initializeMemory(as: UInt8.self, from: bytes) }
    }
  }

  /// How much effort the random generator spends, libgcrypt's two levels for key material.
  public enum RandomLevel: Sendable {
    /// For session keys and nonces (`GCRY_STRONG_RANDOM`).
    case strong
    /// For long-term keys (`GCRY_VERY_STRONG_RANDOM`): far more expensive, so only for keys
    /// that are made rarely and live long, such as a collection's data key.
    case longTerm
  }

  /// `count` random bytes from libgcrypt's generator.
  public static func random(count: Int, level: RandomLevel = .strong) -> SecureBytes {
    let quality = level == .strong ? GCRY_STRONG_RANDOM : GCRY_VERY_STRONG_RANDOM
    return SecureBytes(count: count) { buffer in
      if let base = buffer.baseAddress { gcry_randomize(base, count, quality) }
    }
  }

  /// Lends the bytes for the duration of `body`.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(UnsafeRawBufferPointer(start: storage.pointer.map { $0 + offset }, count: count))
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

/// A mutable buffer in secure memory, for assembling a secret piece by piece (a password read
/// from a pipe). Not copyable: it has one owner and is wiped when that owner lets it go.
public struct SecureScratch: ~Copyable {
  private let storage: SecureStorage

  /// `capacity` zero bytes.
  public init(capacity: Int) {
    storage = SecureStorage(count: capacity)
    if let pointer = storage.pointer { explicit_bzero(pointer, capacity) }
  }

  /// The size of the buffer.
  public var capacity: Int { storage.count }

  /// Lends the bytes for reading and writing for the duration of `body`.
  public func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R)
    rethrows -> R
  {
    try body(UnsafeMutableRawBufferPointer(start: storage.pointer, count: storage.count))
  }

  /// A copy of the first `count` bytes as `SecureBytes`.
  public func prefix(_ count: Int) -> SecureBytes {
    precondition(count <= capacity)
    return SecureBytes(count: count) { out in
      if count > 0 { out.baseAddress!.copyMemory(from: storage.pointer!, byteCount: count) }
    }
  }

  /// Zeroes the bytes from `offset` to the end.
  public func wipe(from offset: Int = 0) {
    guard let pointer = storage.pointer, offset < storage.count else { return }
    explicit_bzero(pointer + offset, storage.count - offset)
  }
}
