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
    case secret(SecureBytes)
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

  /// Builds `format`, whose `%m` and `%b` take `arguments` in order.
  init(_ format: String, _ arguments: [Argument] = []) throws {
    Gcrypt.ensureInitialized()
    // %m reads a gcry_mpi_t through its slot, %u an unsigned int; %b an int, then a pointer,
    // through two slots. Bytes are copied into secure memory for the call and wiped with it.
    var numbers: [OpaquePointer?] = []
    var counts: [UInt32] = []
    var lengths: [Int32] = []
    var buffers: [SecureBytes] = []
    for argument in arguments {
      switch argument {
      case .number(let mpi): numbers.append(mpi.handle)
      case .bytes(let bytes):
        lengths.append(Int32(bytes.count))
        buffers.append(SecureBytes(copying: bytes))
      case .secret(let bytes):
        lengths.append(Int32(bytes.count))
        buffers.append(bytes)
      case .count(let value): counts.append(value)
      }
    }
    let numberSlots = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: max(1, numbers.count))
    let countSlots = UnsafeMutablePointer<UInt32>.allocate(capacity: max(1, counts.count))
    let lengthSlots = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, lengths.count))
    let pointerSlots = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(
      capacity: max(1, buffers.count))
    defer {
      numberSlots.deallocate()
      countSlots.deallocate()
      lengthSlots.deallocate()
      pointerSlots.deallocate()
    }
    numberSlots.initialize(from: numbers, count: numbers.count)
    countSlots.initialize(from: counts, count: counts.count)
    lengthSlots.initialize(from: lengths, count: lengths.count)
    var handle: gcry_sexp_t?
    var offset = 0
    try Self.lending(buffers[...]) { pointers in
      pointerSlots.initialize(from: pointers, count: pointers.count)
      var slots: [UnsafeMutableRawPointer?] = []
      var (nextNumber, nextCount, nextBuffer) = (0, 0, 0)
      for argument in arguments {
        switch argument {
        case .number:
          slots.append(UnsafeMutableRawPointer(numberSlots + nextNumber))
          nextNumber += 1
        case .count:
          slots.append(UnsafeMutableRawPointer(countSlots + nextCount))
          nextCount += 1
        case .bytes, .secret:
          slots.append(UnsafeMutableRawPointer(lengthSlots + nextBuffer))
          slots.append(UnsafeMutableRawPointer(pointerSlots + nextBuffer))
          nextBuffer += 1
        }
      }
      try Gcrypt.check(gcry_sexp_build_array(&handle, &offset, format, &slots))
    }
    self.handle = handle!
  }

  /// Calls `body` with the base addresses of `buffers`, all alive at once.
  private static func lending(
    _ buffers: ArraySlice<SecureBytes>, _ body: ([UnsafeRawPointer?]) throws -> Void,
    _ lent: [UnsafeRawPointer?] = []
  ) throws {
    guard let first = buffers.first else { return try body(lent) }
    try first.withUnsafeBytes { bytes in
      // An empty buffer still needs a pointer libgcrypt may read zero bytes from.
      let pointer = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)
      try lending(buffers.dropFirst(), body, lent + [pointer])
    }
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
    guard let data = gcry_sexp_nth_data(list.handle, 1, &length) else {
      throw CryptoError.invalidInput("libgcrypt's '\(token)' has no data")
    }
    return SecureBytes(copying: UnsafeRawBufferPointer(start: data, count: length))
  }
}
