// SPDX-License-Identifier: MIT

import Foundation
import KeychainCrypto
import KeychainStore
import KeychainTesting
import Synchronization

/// A store in a fresh temporary directory, with cheap KDF parameters and a clock the test moves.
final class StoreFixture: Sendable {
  let temporary: TemporaryDirectory
  let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
  var directory: String { temporary.path + "/store" }

  init() throws { temporary = try TemporaryDirectory(prefix: "store-test") }

  func open() throws -> KeychainStore {
    try KeychainStore(directory: directory, kdf: .testing) { [self] in clock.withLock { $0 } }
  }

  func advance(seconds: TimeInterval) { clock.withLock { $0 += seconds } }

  /// Every byte of every file in the store's directory.
  func allFileBytes() throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
      out[name] = Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
    }
    return out
  }
}

func secure(_ text: String) -> SecureBytes { SecureBytes(copying: Array(text.utf8)) }

extension Array where Element == UInt8 {
  func contains(_ needle: [UInt8]) -> Bool {
    guard needle.count <= count else { return false }
    return (0...(count - needle.count)).contains {
      self[$0..<($0 + needle.count)].elementsEqual(needle)
    }
  }
}
