// SPDX-License-Identifier: MIT
//
// The library in-process on the bus backend, against keychaind on a private bus: what a locked
// item does to a search under each `kSecUseAuthenticationUI` setting. Nested in the serialized
// KeychainAPITests because the backend is per process.

import Foundation
import Keychain
import KeychainTesting
import Testing

extension KeychainAPITests {
  @Suite struct OnTheBus {
    /// Locks the login collection with gdbus, as another client would.
    private func lockLogin(_ daemon: DaemonProcess) throws {
      let locked = try daemon.run(
        "gdbus",
        [
          "call", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
          "/org/freedesktop/secrets", "--method", "org.freedesktop.Secret.Service.Lock",
          "['/org/freedesktop/secrets/collection/login']",
        ])
      #expect(locked.status == 0, "\(locked.stderr)")
    }

    @Test func lockedItemsFollowKSecUseAuthenticationUI() async throws {
      let pinentry = try ScriptedPinentry(answers: [.pin("test password")])
      let daemon = try await DaemonProcess(pinentry: pinentry.program)
      KeychainBackend.use(.secretService(address: daemon.bus.address))
      defer { KeychainAPITests.useEmbeddedStore() }

      let item: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bus-ui",
        kSecAttrAccount as String: "alice",
      ]
      var add = item
      add[kSecValueData as String] = Data("s3cret".utf8)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      try lockLogin(daemon)

      var search = item
      search[kSecReturnData as String] = true
      var result: CFTypeRef?
      search[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
      #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecInteractionNotAllowed)
      search[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
      #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecItemNotFound)
      #expect(pinentry.runs == 0, "neither setting may ask")

      // Allowed (the default), the provider's prompt asks once and the item comes back.
      search.removeValue(forKey: kSecUseAuthenticationUI as String)
      #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess)
      #expect(result as? Data == Data("s3cret".utf8))
      #expect(pinentry.log.filter { $0 == "GETPIN" }.count == 1, "\(pinentry.log)")

      // Locked again with nobody to answer (the script is used up), asking is the user
      // cancelling.
      try lockLogin(daemon)
      #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecUserCanceled)
      #expect(daemon.isRunning)
      _ = daemon.terminate()
    }
  }
}
