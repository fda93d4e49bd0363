// SPDX-License-Identifier: MIT
//
// libgcrypt's one-time initialisation and its error codes. Every raw gcry_* call of the module
// checks its result through `check`, so no error code is ever ignored.

import CKeychainGcrypt
import CKeychainGcryptShim

/// A cryptographic failure, typed so that callers can tell a wrong key from a broken file.
public enum CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The authentication tag did not verify: wrong key, wrong associated data, or tampering.
  case authenticationFailed
  /// CBC padding was malformed after decryption (wrong key or corrupted data).
  case badPadding
  /// An argument had the wrong size or value; the text says which, never with secret bytes.
  case invalidInput(String)
  /// libgcrypt reported an error (its code and message).
  case library(code: UInt32, message: String)

  public var description: String {
    switch self {
    case .authenticationFailed: "authentication failed"
    case .badPadding: "bad padding"
    case .invalidInput(let what): "invalid input: \(what)"
    case .library(let code, let message): "libgcrypt error \(code): \(message)"
    }
  }
}

/// libgcrypt's state for this process.
public enum Gcrypt {
  /// The outcome of initialisation, for the caller to log.
  public struct Status: Sendable {
    /// The library's version string.
    public let version: String
    /// False when the secure-memory pool could not be locked in RAM (`ulimit -l` too low):
    /// keys still live in the pool, but the kernel may swap it out.
    public let secureMemoryLocked: Bool
  }

  /// Secure-memory pool size: room for every key and secret a daemon holds at once.
  public static let secureMemoryBytes: UInt32 = 1 << 20

  private static let status: Result<Status, CryptoError> = {
    // Set to libgcrypt's own static version string, valid for the life of the process.
    var version: UnsafePointer<CChar>?
    let rc = keychain_gcrypt_init("1.10.0", secureMemoryBytes, &version)
    guard rc >= 0, let version else {
      return .failure(.library(code: 0, message: "libgcrypt 1.10.0 or later is required"))
    }
    return .success(Status(version: String(cString: version), secureMemoryLocked: rc == 0))
  }()

  /// Initialises libgcrypt once per process (later calls return the first result).
  /// Throws `CryptoError` when the library is too old.
  @discardableResult
  public static func initialize() throws -> Status {
    try status.get()
  }

  /// Turns a gcry_error_t into a thrown error.
  static func check(_ rc: gcry_error_t) throws {
    guard rc != 0 else { return }
    if rc & 0xFFFF == UInt32(GPG_ERR_CHECKSUM.rawValue) { throw CryptoError.authenticationFailed }
    throw CryptoError.library(code: rc & 0xFFFF, message: String(cString: gcry_strerror(rc)))
  }

  static func ensureInitialized() {
    // Initialisation can only fail on a library older than the package requires, which the
    // build's pkg-config check already rules out.
    _ = try? initialize()
  }
}

/// Bytes a cryptographic function can read in place: `[UInt8]`, `ArraySlice<UInt8>`,
/// `SecureBytes`. (Foundation's `ContiguousBytes`, without Foundation.)
public protocol ByteInput {
  /// Lends the bytes for the duration of `body`.
  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension Array: ByteInput where Element == UInt8 {}
extension ArraySlice: ByteInput where Element == UInt8 {}
extension UnsafeRawBufferPointer: ByteInput {
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try body(self)
  }
}
