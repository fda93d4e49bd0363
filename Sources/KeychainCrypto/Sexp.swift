// SPDX-License-Identifier: MIT
//
// libgcrypt's public-key calls take and give S-expressions. They are built here with
// gcry_sexp_build_array, so that numbers and byte strings go in as arguments (%m, %b) and never
// as text: a private key's numbers stay in libgcrypt's secure memory, and no caller's bytes can
// change the expression's structure.

import CKeychainGcrypt

/// One libgcrypt S-expression, released when freed.
final class Sexp {
  let handle: OpaquePointer

  /// An argument of `init(_:_:)`: a number (%m), a byte string (%b), or a small count (%u:
  /// in the format itself, digits would be read as a length prefix).
  enum Argument {
    case number(MPI)
    case bytes([UInt8])
    case count(UInt32)
  }

  init(owning handle: OpaquePointer) { self.handle = handle }

  /// Parses `text` in libgcrypt's canonical or advanced form ("(nbits 4:2048)"); for fixed
  /// texts only, never for ones with a caller's data in them.
  init(parsing text: String) throws {
    Gcrypt.ensureInitialized()
    var handle: gcry_sexp_t?
    let bytes = Array(text.utf8)
    try Gcrypt.check(gcry_sexp_new(&handle, bytes, bytes.count, 1))
    self.handle = handle!
  }

  /// Builds `format`, whose `%m`, `%b` and `%u` take `arguments` in order.
  init(_ format: String, _ arguments: [Argument] = []) throws {
    Gcrypt.ensureInitialized()
    // The byte strings end to end in secure memory, wiped when the call is done.
    let strings = SecureBytes(
      copying: arguments.flatMap { argument -> [UInt8] in
        if case .bytes(let bytes) = argument { bytes } else { [] }
      })
    // gcry_sexp_build_array reads each argument through a pointer to it: %m a gcry_mpi_t, %u
    // an unsigned int, %b an int length and then a pointer to the bytes (two entries). Each
    // value gets an 8-byte cell of its own. (The MPIs stay alive in `arguments`.)
    let cellCount = arguments.reduce(0) { count, argument in
      if case .bytes = argument { count + 2 } else { count + 1 }
    }
    let cells = UnsafeMutableRawPointer.allocate(byteCount: 8 * max(1, cellCount), alignment: 8)
    defer { cells.deallocate() }
    var slots: [UnsafeMutableRawPointer?] = []
    func cell<T>(_ value: T) {
      let cell = cells + 8 * slots.count
      cell.storeBytes(of: value, as: T.self)
      slots.append(cell)
    }
    var handle: gcry_sexp_t?
    var errorOffset = 0
    try strings.withUnsafeBytes { all in
      // An empty string still needs a pointer libgcrypt may read zero bytes from.
      var next = all.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
      for argument in arguments {
        switch argument {
        case .number(let mpi): cell(mpi.handle)
        case .count(let value): cell(value)
        case .bytes(let bytes):
          cell(Int32(bytes.count))
          cell(next)
          next += bytes.count
        }
      }
      try Gcrypt.check(gcry_sexp_build_array(&handle, &errorOffset, format, &slots))
    }
    self.handle = handle!
  }

  deinit { gcry_sexp_release(handle) }

  /// The sub-list that starts with `token`, anywhere inside.
  func find(_ token: String) -> Sexp? {
    gcry_sexp_find_token(handle, token, 0).map(Sexp.init(owning:))
  }

  /// The number after `token` (`(token value)`), unsigned.
  func number(_ token: String) throws -> MPI {
    guard let list = find(token),
      let value = gcry_sexp_nth_mpi(list.handle, 1, Int32(GCRYMPI_FMT_USG.rawValue))
    else { throw CryptoError.invalidInput("libgcrypt's answer has no number '\(token)'") }
    return MPI(owning: value)
  }

  /// The bytes after `token` (`(token value)`), in secure memory.
  func secretBytes(_ token: String) throws -> SecureBytes {
    guard let list = find(token) else {
      throw CryptoError.invalidInput("libgcrypt's answer has no '\(token)'")
    }
    var length = 0
    // `data` points into `list`'s own memory, not a copy: it is copied into secure memory
    // below, while `list` (a local of this scope) still holds the expression.
    guard let data = gcry_sexp_nth_data(list.handle, 1, &length) else {
      throw CryptoError.invalidInput("libgcrypt's '\(token)' has no data")
    }
    return SecureBytes(copying: UnsafeRawBufferPointer(start: data, count: length))
  }
}
