// SPDX-License-Identifier: MIT
//
// Why a gnome-keyring file was not imported. Every message names the file and, for damage, the
// byte offset or line where reading stopped; none ever holds a secret or a password.

/// A keyring file that cannot be imported as it is, and why.
public enum KeyringFileError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file is damaged or not what it claims to be: `position` is "byte N" or "line N".
  case malformed(file: String, position: String, reason: String)
  /// The password does not open it (gnome-keyring's own check: the MD5 of the decrypted content).
  case wrongPassword(file: String)
  /// A keyring of a format this importer does not read (oo7's version 1, say).
  case unsupported(file: String, reason: String)
  /// Over the importer's limits (64 MiB per file, 100,000 items).
  case tooLarge(file: String, reason: String)
  /// The file could not be read: a system error, a symbolic link, not a regular file.
  case unreadable(file: String, reason: String)

  public var description: String {
    switch self {
    case .malformed(let file, let position, let reason):
      return "\(file) is damaged at \(position): \(reason)"
    case .wrongPassword(let file): return "\(file): the password does not open it"
    case .unsupported(let file, let reason): return "\(file) is not supported: \(reason)"
    case .tooLarge(let file, let reason): return "\(file) is too large: \(reason)"
    case .unreadable(let file, let reason): return "\(file) cannot be read: \(reason)"
    }
  }
}

/// The importer's bounds, checked before anything is allocated from a count in a file.
public enum KeyringLimits {
  /// The largest keyring file read.
  public static let maxFileBytes = 64 << 20
  /// The most items one keyring may hold.
  public static let maxItems = 100_000
  /// The most attributes one item may hold.
  public static let maxAttributes = 4_096
}
