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

    /// Access groups on keychaind in protect: this program's group is its identity, another
    /// group is errSecMissingEntitlement, and another program's items are not found at all.
    @Test func accessGroupsFollowTheProgramInProtect() async throws {
      let daemon = try await DaemonProcess(configuration: "access-control = protect\n")
      KeychainBackend.use(.secretService(address: daemon.bus.address))
      defer { KeychainAPITests.useEmbeddedStore() }
      // This test program, as keychaind identifies it: a program the user can change.
      let own =
        "exe:" + (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))

      func add(_ account: String, group: String?) -> OSStatus {
        var item: [String: Any] = [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "groups",
          kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8),
        ]
        if let group { item[kSecAttrAccessGroup as String] = group }
        return SecItemAdd(item as CFDictionary, nil)
      }
      func read(_ account: String, group: String? = nil) -> (OSStatus, Data?) {
        var query: [String: Any] = [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "groups",
          kSecAttrAccount as String: account, kSecReturnData as String: true,
        ]
        if let group { query[kSecAttrAccessGroup as String] = group }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
      }

      #expect(add("mine", group: nil) == errSecSuccess)
      #expect(read("mine") == (errSecSuccess, Data("mine".utf8)))
      #expect(add("grouped", group: own) == errSecSuccess)
      #expect(read("grouped", group: own) == (errSecSuccess, Data("grouped".utf8)))
      #expect(add("shared", group: "group:shared") == errSecMissingEntitlement)
      #expect(add("theirs", group: "exe:/usr/bin/secret-tool") == errSecMissingEntitlement)
      #expect(read("mine", group: "group:shared").0 == errSecMissingEntitlement)

      // secret-tool stores the same kind of item: another program's, so not found here, with no
      // dialog (the daemon has no pinentry; asking would be the user cancelling).
      let stored = try daemon.run(
        "secret-tool",
        [
          "store", "--label=theirs", "xdg:schema", "org.freedesktop.Secret.Generic", "service",
          "groups", "account", "theirs",
        ], stdin: Array("theirs".utf8))
      #expect(stored.status == 0, "\(stored.stderr)")
      #expect(read("theirs").0 == errSecItemNotFound)
      try sharedGroups(daemon, own: own, add: { add($0, group: $1) }, read: { read($0, group: $1) })
      _ = daemon.terminate()
    }

    /// A named group, `group:shared`. Naming it is
    /// errSecMissingEntitlement until the user adds this program to it; then its items are
    /// stored and found there, and another program reads them once it is a member too.
    private func sharedGroups(
      _ daemon: DaemonProcess, own: String, add: (String, String?) -> OSStatus,
      read: (String, String?) -> (OSStatus, Data?)
    ) throws {
      let me = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
      let secretTool = "via:exe:/usr/bin/secret-tool@exe:\(me)"
      func keychainctl(_ arguments: [String], password: Bool = false) throws -> CommandResult {
        try daemon.run(
          Binaries.keychainctl, arguments + (password ? ["--password-stdin"] : []),
          stdin: Array((password ? "test password\n" : "").utf8))
      }
      func lookup() throws -> String {
        try daemon.run("secret-tool", ["lookup", "service", "groups", "account", "shared"]).stdout
      }
      // secret-tool cannot name the group either.
      let foreign = try daemon.run(
        "secret-tool", ["store", "--label=x", "keychain:agrp", "group:shared", "k", "v"],
        stdin: Array("x".utf8))
      #expect(foreign.status != 0)
      #expect(foreign.stderr.contains("not in the access group group:shared"), "\(foreign.stderr)")
      let refused = try keychainctl(["access", "group", "add", "shared", "--app", own])
      #expect(refused.stderr.contains("needs your keyring password"), "\(refused.stderr)")

      let joined = try keychainctl(
        ["access", "group", "add", "shared", "--app", own], password: true)
      #expect(joined.stdout == "1 membership(s) made\n", "\(joined.stderr)")
      #expect(add("shared", "group:shared") == errSecSuccess)
      #expect(read("shared", "group:shared") == (errSecSuccess, Data("shared".utf8)))
      // A query naming the group finds only its items; the item shows the group it is in.
      #expect(read("mine", "group:shared").0 == errSecItemNotFound)
      var result: CFTypeRef?
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "groups",
        kSecAttrAccount as String: "shared", kSecReturnAttributes as String: true,
      ]
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      let attributes = result as? [String: Any]
      #expect(attributes?[kSecAttrAccessGroup as String] as? String == "group:shared")

      // Another program is not a member: the item is locked for it (no display, no dialog).
      #expect(try lookup().isEmpty)
      let listed = try keychainctl(["access", "list"]).stdout
      #expect(listed.contains("every item of “Login” in group:shared"), "\(listed)")
      #expect(
        try keychainctl(
          ["access", "group", "add", "shared", "--app", secretTool, "login"], password: true
        ).status == 0)
      #expect(try lookup() == "shared")
      let left = try keychainctl(["access", "group", "remove", "shared", "--app", secretTool])
      #expect(left.stdout == "1 membership(s) ended\n", "\(left.stderr)")
      #expect(try lookup().isEmpty, "a membership ended still reads")
    }
  }
}
