// SPDX-License-Identifier: MIT
//
// The cryptography on the daemon's paths: sealing and opening an item (AES-256-GCM), the index
// digest of one attribute (HMAC-SHA256), a DH session's key agreement (1024-bit
// MODP, both halves) and its AES-128-CBC secret transfer, and the password KDF that bounds
// cold start (Argon2id at the recommended cost).

import Benchmark
import KeychainCrypto

let key = SecureBytes.random(count: 32)
let secret = Array("correct horse battery staple".utf8)
let sealed = try! AESGCM.seal(secret, key: key)

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
}
