// SPDX-License-Identifier: MIT
//
// How many times a big secret is materialised on its way out of keychaind: the counter
// (KeychainCopyCounter, loaded with LD_PRELOAD) logs every allocation and copy at least as
// large as the secret while one GetSecret is answered. The bound is the path's design, counted
// buffer by buffer below; a change that adds a copy fails here, not in a benchmark.

import KeychainCrypto
import KeychainDBus
import KeychainTesting
import SecretServiceClient
import SecretServiceProtocol
import Testing

@Suite struct BigSecretCopyTests {
  static let size = 8 << 20

  @Test(arguments: [false, true])
  func aBigSecretIsMadeABoundedNumberOfTimes(encrypted: Bool) async throws {
    let counter = try CopyCounter(minimum: Self.size)
    let daemon = try await DaemonProcess(password: "pw", environment: counter.environment)
    let client = try await SecretServiceClient.connect(to: daemon.bus.address)
    let secret = (0..<Self.size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let item = try await client.createItem(
      label: "big", attributes: ["big": "1"], secret: SecureBytes(copying: secret))
    var read: [UInt8] = []
    let counts: CopyCounter.Counts
    if encrypted {  // the client's session is the DH one
      counts = try await counter.during { read = try await client.secret(of: item).copyBytes() }
    } else {
      let plain = try await daemon.bus.connect()
      let session = try await plain.callSecretService(
        "/org/freedesktop/secrets", SecretService.serviceInterface,
        SecretService.ServiceMethods.openSession.name,
        [.string("plain"), .variant(.string(""))])[1]
      counts = try await counter.during {
        let reply = try await plain.callSecretService(
          item, SecretService.itemInterface, SecretService.ItemMethods.getSecret.name, [session])
        read = try Secret(dbusValue: reply[0]).value
      }
    }
    #expect(read == secret)
    // Buffers the secret's size, measured: SQLite's for the sealed record, the decrypted record
    // (secure memory), the value for the session (a copy under plain, the AES-CBC output,
    // encrypted straight from the record, under DH), and libdbus's reply, which it grows once
    // more for the field after the value (a realloc, which moves no bytes). Copies: the plain
    // value, and the value into the reply.
    #expect(counts.allocations <= 5, "\(counts)")
    #expect(counts.copies <= (encrypted ? 1 : 2), "\(counts)")
  }
}
