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

  /// The numbers of a PKCS #1 RSAPrivateKey, in its order.
  public init(
    modulus: [UInt8], publicExponent: [UInt8], privateExponent: SecureBytes, prime1: SecureBytes,
    prime2: SecureBytes, exponent1: SecureBytes, exponent2: SecureBytes, coefficient: SecureBytes
  ) {
    self.modulus = modulus
    self.publicExponent = publicExponent
    self.privateExponent = privateExponent
    self.prime1 = prime1
    self.prime2 = prime2
    self.exponent1 = exponent1
    self.exponent2 = exponent2
    self.coefficient = coefficient
  }
}

/// Generation and checks of P-256 and RSA keys.
public enum AsymmetricKeys {
  /// A new NIST P-256 key pair: the public point uncompressed (0x04 ‖ X ‖ Y, 65 bytes) and the
  /// private scalar (32 bytes).
  public static func generateP256() throws -> (publicPoint: [UInt8], privateScalar: SecureBytes) {
    let key = try generate("(genkey (ecc (curve nistp256)))")
    let point = try key.number("q").leftPaddedBytes(count: 65).copyBytes()
    return (point, try key.number("d").leftPaddedBytes(count: 32))
  }

  /// Whether `point` is an uncompressed point on P-256 and, with `scalar`, whether it is that
  /// scalar's public point.
  public static func isP256Key(point: [UInt8], scalar: SecureBytes? = nil) -> Bool {
    guard point.count == 65, point.first == 4, scalar.map({ $0.count == 32 }) ?? true else {
      return false
    }
    if let scalar {
      guard let key = try? AsymmetricKey.p256Private(point: point, scalar: scalar).sexp() else {
        return false
      }
      return gcry_pk_testkey(key.handle) == 0
    }
    guard let key = try? AsymmetricKey.p256Public(point: point).sexp() else { return false }
    var context: gcry_ctx_t?
    guard gcry_mpi_ec_new(&context, key.handle, nil) == 0, let context else { return false }
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
    // libgcrypt keeps p < q and u = p⁻¹ mod q; PKCS #1 wants qInv = q⁻¹ mod p, so its p is
    // libgcrypt's q and the coefficient is u as it is.
    let (n, e, d) = (try key.number("n"), try key.number("e"), try key.number("d"))
    let (p, q, u) = (try key.number("q"), try key.number("p"), try key.number("u"))
    func reduced(_ prime: MPI) throws -> SecureBytes {
      SecureBytes(copying: try MPI.crtExponent(d, prime).bytes())
    }
    return RSAPrivateNumbers(
      modulus: try n.bytes(), publicExponent: try e.bytes(),
      privateExponent: SecureBytes(copying: try d.bytes()),
      prime1: SecureBytes(copying: try p.bytes()), prime2: SecureBytes(copying: try q.bytes()),
      exponent1: try reduced(p), exponent2: try reduced(q),
      coefficient: SecureBytes(copying: try u.bytes()))
  }

  private static func generate(_ parameters: String) throws -> Sexp {
    let request = try Sexp(parsing: parameters)
    var key: gcry_sexp_t?
    try Gcrypt.check(gcry_pk_genkey(&key, request.handle))
    return Sexp(owning: key!)
  }
}

extension MPI {
  /// PKCS #1's CRT exponent for `prime`: d mod (prime − 1), in secure memory.
  static func crtExponent(_ d: MPI, _ prime: MPI) -> MPI {
    let minusOne = MPI(copying: prime)
    gcry_mpi_sub_ui(minusOne.handle, minusOne.handle, 1)
    let result = MPI(secureBits: gcry_mpi_get_nbits(prime.handle))
    gcry_mpi_mod(result.handle, d.handle, minusOne.handle)
    return result
  }
}
