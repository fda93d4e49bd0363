// SPDX-License-Identifier: MIT
//
// The cryptography on the daemon's paths: sealing and opening an item (AES-256-GCM), the index
// digest of one attribute (HMAC-SHA256), a DH session's key agreement (1024-bit
// MODP, both halves) and its AES-128-CBC secret transfer, and the password KDF that bounds
// cold start (Argon2id at the recommended cost). And the Keychain library's SecKey work:
// P-256 ECDSA and ECDH, RSA-2048 signatures.

import Benchmark
import KeychainCrypto

let key = SecureBytes.random(count: 32)
let secret = Array("correct horse battery staple".utf8)
let sealed = try! AESGCM.seal(secret, key: key)
let p256 = try! AsymmetricKeys.generateP256()
let ecKey = AsymmetricKey.p256Private(point: p256.publicPoint, scalar: p256.privateScalar)
let rsaNumbers = try! AsymmetricKeys.generateRSA(bits: 2048)
let rsaKey = AsymmetricKey.rsaPrivate(rsaNumbers)
let digest = HashFunction.sha256.hash(secret)
// Made once here: setup inside a benchmark's closure would be timed with every sample.
let ecSignature = try! ecKey.sign(digest: digest, hash: .sha256, scheme: .ecdsa)
let ecPeer = try! AsymmetricKeys.generateP256().publicPoint
let rsaSignature = try! rsaKey.sign(digest: digest, hash: .sha256, scheme: .pkcs1v15)

// A function: the thresholds type is not Sendable, so it cannot be a global constant.
func thresholds() -> [BenchmarkMetric: BenchmarkThresholds] {
  [
    .wallClock: .init(relative: [.p50: 25.0]),
    .throughput: .init(relative: [.p50: 25.0]),
    .mallocCountTotal: .init(relative: [.p50: 5.0]),
  ]
}

let benchmarks: @Sendable () -> Void = {
  let quick = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(2),
    maxIterations: 100_000, thresholds: thresholds())

  Benchmark("AES-256-GCM seal, 28 bytes", configuration: quick) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try AESGCM.seal(secret, key: key)) }
  }
  Benchmark("AES-256-GCM open, 28 bytes", configuration: quick) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try AESGCM.open(sealed, key: key)) }
  }
  Benchmark("HMAC-SHA256 index digest", configuration: quick) { benchmark in
    let message = Array("service\0example.org".utf8)
    for _ in benchmark.scaledIterations {
      blackHole(try HMACSHA256.authenticationCode(key: key, message: message))
    }
  }
  Benchmark("DH session key agreement (both halves)", configuration: quick) { benchmark in
    let peer = try DiffieHellman()
    for _ in benchmark.scaledIterations {
      let ours = try DiffieHellman()
      blackHole(try ours.sharedSecret(peerPublicKey: peer.publicKey))
    }
  }
  Benchmark("AES-128-CBC secret transfer, 28 bytes", configuration: quick) { benchmark in
    let sessionKey = SecureBytes.random(count: 16)
    let iv = Random.bytes(count: 16)
    for _ in benchmark.scaledIterations {
      blackHole(try AESCBC.encrypt(secret, key: sessionKey, iv: iv))
    }
  }
  Benchmark(
    "Argon2id t=3 m=64MiB p=4 (unlock)",
    configuration: .init(
      metrics: [.wallClock, .peakMemoryResident], maxDuration: .seconds(5), maxIterations: 10,
      thresholds: [.wallClock: .init(relative: [.p50: 25.0])])
  ) { benchmark in
    let password = SecureBytes(copying: Array("benchmark password".utf8))
    for _ in benchmark.scaledIterations {
      blackHole(
        try KeyDerivation.argon2id(
          password: password, salt: Array(repeating: 7, count: 16), parameters: .recommended))
    }
  }
  Benchmark("P-256 ECDSA sign (RFC 6979)", configuration: quick) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try ecKey.sign(digest: digest, hash: .sha256, scheme: .ecdsa))
    }
  }
  Benchmark("P-256 ECDSA verify", configuration: quick) { benchmark in
    let publicKey = AsymmetricKey.p256Public(point: p256.publicPoint)
    for _ in benchmark.scaledIterations {
      blackHole(
        publicKey.verify(signature: ecSignature, digest: digest, hash: .sha256, scheme: .ecdsa))
    }
  }
  Benchmark("P-256 ECDH", configuration: quick) { benchmark in
    for _ in benchmark.scaledIterations { blackHole(try ecKey.sharedSecret(with: ecPeer)) }
  }
  Benchmark("RSA-2048 PKCS #1 v1.5 sign", configuration: quick) { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try rsaKey.sign(digest: digest, hash: .sha256, scheme: .pkcs1v15))
    }
  }
  Benchmark("RSA-2048 PKCS #1 v1.5 verify", configuration: quick) { benchmark in
    let publicKey = AsymmetricKey.rsaPublic(
      modulus: rsaNumbers.modulus, exponent: rsaNumbers.publicExponent)
    for _ in benchmark.scaledIterations {
      blackHole(
        publicKey.verify(
          signature: rsaSignature, digest: digest, hash: .sha256, scheme: .pkcs1v15))
    }
  }
}
