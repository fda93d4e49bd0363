// SPDX-License-Identifier: MIT

import CKeychainGcrypt

/// One libgcrypt multi-precision integer, released (and wiped if secure) when freed.
final class MPI {
  let handle: OpaquePointer

  init(unsigned bytes: UnsafeRawBufferPointer, secure: Bool = false) throws {
    Gcrypt.ensureInitialized()
    var handle: OpaquePointer?
    var scanned = 0
    try Gcrypt.check(
      gcry_mpi_scan(&handle, GCRYMPI_FMT_USG, bytes.baseAddress, bytes.count, &scanned))
    self.handle = handle!
    // Moves the value into the secure pool (libgcrypt wipes the old limbs).
    if secure { gcry_mpi_set_flag(self.handle, GCRYMPI_FLAG_SECURE) }
  }

  convenience init(unsigned bytes: [UInt8]) throws {
    self.init(copying: try bytes.withUnsafeBytes { try MPI(unsigned: $0) })
  }

  init(copying other: MPI) { handle = gcry_mpi_copy(other.handle) }

  /// Takes ownership of a handle libgcrypt returned.
  init(owning handle: OpaquePointer) { self.handle = handle }

  init(secureBits: UInt32) {
    Gcrypt.ensureInitialized()
    handle = gcry_mpi_snew(secureBits)
  }

  deinit { gcry_mpi_release(handle) }

  /// The value as exactly `count` unsigned big-endian bytes, left-padded with zeros.
  func leftPaddedBytes(count: Int) throws -> SecureBytes {
    let length = (Int(gcry_mpi_get_nbits(handle)) + 7) / 8
    guard length <= count else {
      throw CryptoError.invalidInput("value does not fit in \(count) bytes")
    }
    return try SecureBytes(count: count) { out in
      out.initializeMemory(as: UInt8.self, repeating: 0)
      guard length > 0 else { return }
      var written = 0
      let start = out.baseAddress! + (count - length)
      try Gcrypt.check(gcry_mpi_print(GCRYMPI_FMT_USG, start, length, &written, handle))
    }
  }

  /// The value as unsigned big-endian bytes, as short as it is (at least one byte).
  func bytes() throws -> [UInt8] {
    let length = max(1, (Int(gcry_mpi_get_nbits(handle)) + 7) / 8)
    return try leftPaddedBytes(count: length).copyBytes()
  }
}
