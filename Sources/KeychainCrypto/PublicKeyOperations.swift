// SPDX-License-Identifier: MIT
//
// What the Keychain library's SecKey does with a key, done by libgcrypt: RSA PKCS #1 v1.5 and
// PSS signatures, ECDSA on P-256 (deterministic, RFC 6979), RSA PKCS #1 v1.5 and OAEP
// encryption, P-256 Diffie-Hellman, and the checks that a key given as numbers is a real one.
// Private numbers go into libgcrypt as secure MPIs, never as text.

import CKeychainGcrypt

/// A hash function for signatures, OAEP and key derivation.
public enum HashFunction: String, Sendable, CaseIterable {
  case sha1, sha256, sha384, sha512

  var algorithm: gcry_md_algos {
    switch self {
    case .sha1: GCRY_MD_SHA1
    case .sha256: GCRY_MD_SHA256
    case .sha384: GCRY_MD_SHA384
    case .sha512: GCRY_MD_SHA512
    }
  }

  /// The digest size in bytes.
  public var byteCount: Int { Int(gcry_md_get_algo_dlen(Int32(algorithm.rawValue))) }

  /// The digest of the concatenation of `parts`.
  public func hash(_ parts: [UInt8]...) -> [UInt8] {
    Gcrypt.ensureInitialized()
    var digest = [UInt8](repeating: 0, count: byteCount)
    let whole = parts.flatMap { $0 }
    gcry_md_hash_buffer(Int32(algorithm.rawValue), &digest, whole, whole.count)
    return digest
  }
}

/// How a signature is made.
public enum SignatureScheme: Sendable, Hashable {
  /// RSA, PKCS #1 v1.5.
  case pkcs1v15
  /// RSA-PSS with MGF1 over the same hash and a salt of this many bytes.
  case pss(saltLength: Int)
  /// ECDSA; the signature is r ‖ s, each as long as the curve's order.
  case ecdsa
}

/// How RSA encrypts.
public enum EncryptionScheme: Sendable, Hashable {
  case pkcs1v15
  /// OAEP with MGF1 over `HashFunction` and an empty label.
  case oaep(HashFunction)
}

/// An RSA or P-256 key, public or private, as the numbers of its external representation.
public enum AsymmetricKey: Sendable {
  case rsaPublic(modulus: [UInt8], exponent: [UInt8])
  case rsaPrivate(RSAPrivateNumbers)
  /// The uncompressed point 0x04 ‖ X ‖ Y.
  case p256Public(point: [UInt8])
  case p256Private(point: [UInt8], scalar: SecureBytes)

  /// The key as libgcrypt takes it. An RSA private key is given in libgcrypt's form (p < q,
  /// u = p⁻¹ mod q), whichever order PKCS #1's primes came in.
  func sexp() throws -> Sexp {
    switch self {
    case .rsaPublic(let modulus, let exponent):
      return try Sexp(
        "(public-key (rsa (n %m)(e %m)))",
        [.number(try MPI(unsigned: modulus)), .number(try MPI(unsigned: exponent))])
    case .rsaPrivate(let numbers):
      var (p, q) = (try MPI(secret: numbers.prime1), try MPI(secret: numbers.prime2))
      if gcry_mpi_cmp(p.handle, q.handle) > 0 { swap(&p, &q) }
      let u = MPI(secureBits: UInt32(numbers.modulus.count * 8))
      guard gcry_mpi_invm(u.handle, p.handle, q.handle) != 0 else {
        throw CryptoError.invalidInput("the RSA primes are not coprime")
      }
      return try Sexp(
        "(private-key (rsa (n %m)(e %m)(d %m)(p %m)(q %m)(u %m)))",
        [
          .number(try MPI(unsigned: numbers.modulus)),
          .number(try MPI(unsigned: numbers.publicExponent)),
          .number(try MPI(secret: numbers.privateExponent)), .number(p), .number(q), .number(u),
        ])
    case .p256Public(let point):
      return try Sexp("(public-key (ecc (curve nistp256)(q %b)))", [.bytes(point)])
    case .p256Private(let point, let scalar):
      return try Sexp(
        "(private-key (ecc (curve nistp256)(q %b)(d %m)))",
        [.bytes(point), .number(try MPI(secret: scalar))])
    }
  }

  /// Whether libgcrypt accepts the key. A private key must be consistent: for RSA n = p·q,
  /// e·d ≡ 1 and the CRT values of PKCS #1 agree; for P-256 the point is the scalar's.
  public var isConsistent: Bool {
    guard let key = try? sexp() else { return false }
    switch self {
    case .rsaPublic(let modulus, let exponent):
      let n = try? MPI(unsigned: modulus)
      let e = try? MPI(unsigned: exponent)
      guard let n, let e else { return false }
      return gcry_mpi_test_bit(n.handle, 0) != 0 && gcry_mpi_test_bit(e.handle, 0) != 0
        && gcry_mpi_cmp_ui(e.handle, 1) > 0 && gcry_pk_get_nbits(key.handle) >= 1024
    case .rsaPrivate(let numbers):
      return gcry_pk_testkey(key.handle) == 0 && (try? numbers.crtValuesAgree()) == true
    case .p256Public(let point): return AsymmetricKeys.isP256Key(point: point)
    case .p256Private: return gcry_pk_testkey(key.handle) == 0
    }
  }

  /// The key's size in bits (the modulus, or the curve).
  public var sizeInBits: Int {
    guard let key = try? sexp() else { return 0 }
    return Int(gcry_pk_get_nbits(key.handle))
  }

  /// The length of a signature or ciphertext: the RSA modulus's, in bytes (read from the
  /// numbers, not by building the key again).
  private var modulusByteCount: Int {
    switch self {
    case .rsaPublic(let modulus, _): modulus.drop { $0 == 0 }.count
    case .rsaPrivate(let numbers): numbers.modulus.drop { $0 == 0 }.count
    case .p256Public, .p256Private: 32
    }
  }

  /// Signs `digest`, the `hash` of the message.
  public func sign(digest: [UInt8], hash: HashFunction, scheme: SignatureScheme) throws
    -> [UInt8]
  {
    let key = try sexp()
    let data = try Self.signedData(digest: digest, hash: hash, scheme: scheme)
    var result: gcry_sexp_t?
    try Gcrypt.check(gcry_pk_sign(&result, data.handle, key.handle))
    let signature = Sexp(owning: result!)
    if scheme == .ecdsa {
      return try signature.number("r").leftPaddedBytes(count: 32).copyBytes()
        + signature.number("s").leftPaddedBytes(count: 32).copyBytes()
    }
    return try signature.number("s").leftPaddedBytes(count: modulusByteCount).copyBytes()
  }

  /// Whether `signature` is this key's over `digest`.
  public func verify(
    signature: [UInt8], digest: [UInt8], hash: HashFunction, scheme: SignatureScheme
  )
    -> Bool
  {
    guard let key = try? sexp(),
      let data = try? Self.signedData(digest: digest, hash: hash, scheme: scheme)
    else { return false }
    let value: Sexp?
    if scheme == .ecdsa {
      guard signature.count == 64 else { return false }
      value = try? Sexp(
        "(sig-val (ecdsa (r %b)(s %b)))",
        [.bytes(Array(signature.prefix(32))), .bytes(Array(signature.suffix(32)))])
    } else {
      value = try? Sexp("(sig-val (rsa (s %b)))", [.bytes(signature)])
    }
    guard let value else { return false }
    return gcry_pk_verify(value.handle, data.handle, key.handle) == 0
  }

  private static func signedData(
    digest: [UInt8], hash: HashFunction, scheme: SignatureScheme
  ) throws -> Sexp {
    guard digest.count == hash.byteCount else {
      throw CryptoError.invalidInput("a \(hash.rawValue) digest has \(hash.byteCount) bytes")
    }
    let name = hash.rawValue
    switch scheme {
    case .pkcs1v15:
      return try Sexp("(data (flags pkcs1)(hash \(name) %b))", [.bytes(digest)])
    case .pss(let saltLength):
      return try Sexp(
        "(data (flags pss)(salt-length %u)(hash \(name) %b))",
        [.count(UInt32(saltLength)), .bytes(digest)])
    case .ecdsa:
      // RFC 6979: k derived from the key and the digest, so no weak random k can leak the key.
      return try Sexp("(data (flags rfc6979)(hash \(name) %b))", [.bytes(digest)])
    }
  }

  /// Encrypts `plaintext` with an RSA key; the result is as long as the modulus.
  public func encrypt(_ plaintext: [UInt8], scheme: EncryptionScheme) throws -> [UInt8] {
    let key = try sexp()
    let size = modulusByteCount
    let data: Sexp
    switch scheme {
    case .pkcs1v15:
      guard plaintext.count <= size - 11 else {
        throw CryptoError.invalidInput("PKCS #1 v1.5 takes at most \(size - 11) bytes")
      }
      data = try Sexp("(data (flags pkcs1)(value %b))", [.bytes(plaintext)])
    case .oaep(let hash):
      let limit = size - 2 * hash.byteCount - 2
      guard plaintext.count <= limit else {
        throw CryptoError.invalidInput("OAEP with \(hash.rawValue) takes at most \(limit) bytes")
      }
      data = try Sexp(
        "(data (flags oaep)(hash-algo \(hash.rawValue))(value %b))", [.bytes(plaintext)])
    }
    var result: gcry_sexp_t?
    try Gcrypt.check(gcry_pk_encrypt(&result, data.handle, key.handle))
    return try Sexp(owning: result!).number("a").leftPaddedBytes(count: size).copyBytes()
  }

  /// Decrypts `ciphertext` with an RSA private key.
  public func decrypt(_ ciphertext: [UInt8], scheme: EncryptionScheme) throws -> SecureBytes {
    let key = try sexp()
    let flags =
      switch scheme {
      case .pkcs1v15: "(flags pkcs1)"
      case .oaep(let hash): "(flags oaep)(hash-algo \(hash.rawValue))"
      }
    let value = try Sexp("(enc-val \(flags)(rsa (a %b)))", [.bytes(ciphertext)])
    var result: gcry_sexp_t?
    try Gcrypt.check(gcry_pk_decrypt(&result, value.handle, key.handle))
    return try Sexp(owning: result!).secretBytes("value")
  }

  /// P-256 Diffie-Hellman: the X coordinate of this private key's scalar times `peerPoint`.
  public func sharedSecret(with peerPoint: [UInt8]) throws -> SecureBytes {
    guard case .p256Private(_, let scalar) = self else {
      throw CryptoError.invalidInput("key exchange needs a P-256 private key")
    }
    guard AsymmetricKeys.isP256Key(point: peerPoint) else {
      throw CryptoError.invalidInput("the other key is not a point on P-256")
    }
    let peer = try AsymmetricKey.p256Public(point: peerPoint).sexp()
    var context: gcry_ctx_t?
    try Gcrypt.check(gcry_mpi_ec_new(&context, peer.handle, nil))
    defer { gcry_ctx_release(context) }
    guard let q = gcry_mpi_ec_get_point("q", context, 1) else {
      throw CryptoError.invalidInput("the other key has no point")
    }
    let product = gcry_mpi_point_new(0)
    defer {
      gcry_mpi_point_release(q)
      gcry_mpi_point_release(product)
    }
    let secret = try MPI(secret: scalar)
    gcry_mpi_ec_mul(product, secret.handle, q, context)
    let x = MPI(secureBits: 256)
    guard gcry_mpi_ec_get_affine(x.handle, nil, product, context) == 0 else {
      throw CryptoError.invalidInput("the shared point is the point at infinity")
    }
    return try x.leftPaddedBytes(count: 32)
  }
}

extension RSAPrivateNumbers {
  /// Whether dP, dQ and qInv are d mod (p−1), d mod (q−1) and q⁻¹ mod p, as PKCS #1 defines
  /// them (libgcrypt recomputes its own and would not notice wrong ones).
  func crtValuesAgree() throws -> Bool {
    let (p, q, d) = (
      try MPI(secret: prime1), try MPI(secret: prime2), try MPI(secret: privateExponent)
    )
    // (Each MPI is a named local, so that it lives until the C call that reads its handle.)
    for (prime, stored) in [(p, exponent1), (q, exponent2)] {
      let (computed, expected) = (MPI.crtExponent(d, prime), try MPI(secret: stored))
      guard gcry_mpi_cmp(computed.handle, expected.handle) == 0 else { return false }
    }
    let scratch = MPI(secureBits: UInt32(modulus.count * 8))
    let inverse = try MPI(secret: coefficient)
    gcry_mpi_mulm(scratch.handle, q.handle, inverse.handle, p.handle)
    return gcry_mpi_cmp_ui(scratch.handle, 1) == 0
  }
}

extension MPI {
  /// A number from secret bytes, kept in secure memory.
  convenience init(secret: SecureBytes) throws {
    let made = try secret.withUnsafeBytes { try MPI(unsigned: $0, secure: true) }
    self.init(copying: made)
  }
}
