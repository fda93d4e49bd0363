// SPDX-License-Identifier: MIT
//
// Key pairs for the Keychain library's `SecKey`: generated and checked by libgcrypt, handed out
// as the numbers Apple's external representations are made of (ANSI X9.63 for P-256, PKCS #1
// for RSA; the encodings themselves are the Keychain module's job).

import CKeychainGcrypt

/// The numbers of an RSA private key in PKCS #1 order, unsigned big-endian.
public struct RSAPrivateNumbers: Sendable {
  public var modulus: [UInt8]
  public var publicExponent: [UInt8]
  public var privateExponent: SecureBytes
  public var prime1: SecureBytes
  public var prime2: SecureBytes
  public var exponent1: SecureBytes
  public var exponent2: SecureBytes
  public var coefficient: SecureBytes
}

/// Generation and checks of P-256 and RSA keys.
public enum AsymmetricKeys {
  /// A new NIST P-256 key pair: the public point uncompressed (0x04 ‖ X ‖ Y, 65 bytes) and the
  /// private scalar (32 bytes).
  public static func generateP256() throws -> (publicPoint: [UInt8], privateScalar: SecureBytes) {
    let key = try generate("(genkey (ecc (curve nistp256)))")
    defer { gcry_sexp_release(key) }
    let point = try number(key, "q").leftPaddedBytes(count: 65).copyBytes()
    return (point, try number(key, "d").leftPaddedBytes(count: 32))
  }

  /// Whether `point` is an uncompressed point on P-256 and, with `scalar`, whether it is that
  /// scalar's public point.
  public static func isP256Key(point: [UInt8], scalar: SecureBytes? = nil) -> Bool {
    guard point.count == 65, point.first == 4, scalar.map({ $0.count == 32 }) ?? true else {
      return false
    }
    Gcrypt.ensureInitialized()
    var text = "(\(scalar == nil ? "public" : "private")-key (ecc (curve nistp256) (q #"
    text += hex(point) + "#)"
    if let scalar { text += " (d #" + scalar.withUnsafeBytes { hex(Array($0)) } + "#)" }
    text += "))"
    guard let key = try? parse(text) else { return false }
    defer { gcry_sexp_release(key) }
    if scalar != nil { return gcry_pk_testkey(key) == 0 }
    var context: gcry_ctx_t?
    guard gcry_mpi_ec_new(&context, key, nil) == 0, let context else { return false }
    defer { gcry_ctx_release(context) }
    guard let q = gcry_mpi_ec_get_point("q", context, 1) else { return false }
    defer { gcry_mpi_point_release(q) }
    return gcry_mpi_ec_curve_point(q, context) != 0
  }

  /// A new RSA key of `bits` bits with e = 65537.
  public static func generateRSA(bits: Int) throws -> RSAPrivateNumbers {
    guard [1024, 2048, 3072, 4096].contains(bits) else {
      throw CryptoError.invalidInput("RSA keys are 1024, 2048, 3072 or 4096 bits")
    }
    let digits = String(bits)
    let key = try generate("(genkey (rsa (nbits \(digits.count):\(digits))))")
    defer { gcry_sexp_release(key) }
    // libgcrypt keeps p < q and u = p⁻¹ mod q; PKCS #1 wants qInv = q⁻¹ mod p, so its p is
    // libgcrypt's q and the coefficient is u as it is.
    let (n, e, d) = (try number(key, "n"), try number(key, "e"), try number(key, "d"))
    let (p, q, u) = (try number(key, "q"), try number(key, "p"), try number(key, "u"))
    func reduced(_ prime: MPI) throws -> SecureBytes {
      let minusOne = MPI(copying: prime)
      gcry_mpi_sub_ui(minusOne.handle, minusOne.handle, 1)
      let result = MPI(secureBits: UInt32(bits))
      gcry_mpi_mod(result.handle, d.handle, minusOne.handle)
      return SecureBytes(copying: try result.bytes())
    }
    return RSAPrivateNumbers(
      modulus: try n.bytes(), publicExponent: try e.bytes(),
      privateExponent: SecureBytes(copying: try d.bytes()),
      prime1: SecureBytes(copying: try p.bytes()), prime2: SecureBytes(copying: try q.bytes()),
      exponent1: try reduced(p), exponent2: try reduced(q),
      coefficient: SecureBytes(copying: try u.bytes()))
  }

  private static func generate(_ parameters: String) throws -> OpaquePointer {
    Gcrypt.ensureInitialized()
    let request = try parse(parameters)
    defer { gcry_sexp_release(request) }
    var key: gcry_sexp_t?
    try Gcrypt.check(gcry_pk_genkey(&key, request))
    return key!
  }

  private static func parse(_ text: String) throws -> OpaquePointer {
    var sexp: gcry_sexp_t?
    let bytes = Array(text.utf8)
    try Gcrypt.check(gcry_sexp_new(&sexp, bytes, bytes.count, 1))
    return sexp!
  }

  /// The number named `token` anywhere in `sexp`.
  private static func number(_ sexp: OpaquePointer, _ token: String) throws -> MPI {
    guard let list = gcry_sexp_find_token(sexp, token, 0) else {
      throw CryptoError.invalidInput("libgcrypt's key has no '\(token)'")
    }
    defer { gcry_sexp_release(list) }
    guard let value = gcry_sexp_nth_mpi(list, 1, Int32(GCRYMPI_FMT_USG.rawValue)) else {
      throw CryptoError.invalidInput("libgcrypt's '\(token)' is not a number")
    }
    return MPI(owning: value)
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
    return String(decoding: out, as: UTF8.self)
  }
}
