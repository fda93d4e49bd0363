// SPDX-License-Identifier: MIT
//
// KDE's KWallet API over the same store, at the three depths: entries written through it are
// Secret Service items mapped as KDE's bridge maps them, handles belong to the caller that
// opened them, a lock closes them, failures are in band, and changes made through either API
// raise KWallet's signals.

import KWalletProtocol
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

extension ServiceFixture {
  static let kwalletPath: ObjectPath = "/modules/kwalletd5"

  /// Calls a KWallet method on /modules/kwalletd5 as `client` (or `caller`).
  func kwallet<each Input: DBusRepresentable, each Output: DBusRepresentable>(
    _ method: Takes<repeat each Input>.Returns<repeat each Output>, _ arguments: repeat each Input,
    from caller: Caller? = nil
  ) async throws -> (repeat each Output) {
    let body = try await call(
      Self.kwalletPath, KWallet.interface, method.name, method.arguments(repeat each arguments),
      from: caller)
    return try method.decodeResults(body)
  }

  /// Opens `kdewallet` (keychaind's default collection) as `appid`.
  func openKDEWallet(_ appid: String = "app", from caller: Caller? = nil) async throws -> Int32 {
    try await kwallet(KWallet.Methods.open, "kdewallet", 0, appid, from: caller)
  }
}

@Suite struct KWalletTests {
  typealias Methods = KWallet.Methods

  @Test(arguments: ServiceFixture.Depth.allCases)
  func entriesAreSecretServiceItems(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    #expect(try await fixture.kwallet(Methods.isEnabled) == true)
    #expect(try await fixture.kwallet(Methods.networkWallet) == "kdewallet")
    // One keyring, one wallet: the default collection by the default wallet's name only.
    #expect(try await fixture.kwallet(Methods.wallets) == ["kdewallet"])
    let handle = try await fixture.openKDEWallet()
    #expect(handle > 0)
    // The same caller and application opening again gets the same handle.
    #expect(try await fixture.openKDEWallet() == handle)

    // Every wallet has kwalletd's two folders, as a new one of kwalletd's does.
    #expect(
      try await fixture.kwallet(Methods.folderList, handle, "app") == ["Form Data", "Passwords"])
    #expect(try await fixture.kwallet(Methods.createFolder, handle, "Passwords", "app") == false)
    #expect(try await fixture.kwallet(Methods.removeFolder, handle, "Form Data", "app") == true)
    #expect(try await fixture.kwallet(Methods.createFolder, handle, "Mine", "app") == true)
    #expect(try await fixture.kwallet(Methods.removeFolder, handle, "Mine", "app") == true)
    #expect(
      try await fixture.kwallet(
        Methods.writePassword, handle, "Passwords", "github", "hünter2", "app")
        == 0)
    let map = ["psk": "s3cret", "ssid": "home"]
    #expect(
      try await fixture.kwallet(
        Methods.writeMap, handle, "Network Management", "{uuid};wifi", QDataStream.encode(map),
        "app") == 0)
    let bytes: [UInt8] = [0, 0xFF, 1, 0x80, 0]
    #expect(
      try await fixture.kwallet(Methods.writeEntry, handle, "Passwords", "blob", bytes, "app") == 0)

    #expect(
      try await fixture.kwallet(Methods.readPassword, handle, "Passwords", "github", "app")
        == "hünter2")
    #expect(
      try await fixture.kwallet(Methods.readEntry, handle, "Passwords", "blob", "app") == bytes)
    #expect(
      try await fixture.kwallet(Methods.readMap, handle, "Network Management", "{uuid};wifi", "app")
        == QDataStream.encode(map))
    // readEntry gives a password in Qt's form, as kwalletd5 stores it.
    #expect(
      try await fixture.kwallet(Methods.readEntry, handle, "Passwords", "github", "app")
        == QDataStream.encode("hünter2"))
    #expect(try await fixture.kwallet(Methods.entryType, handle, "Passwords", "github", "app") == 1)
    #expect(try await fixture.kwallet(Methods.entryType, handle, "Passwords", "blob", "app") == 2)
    #expect(
      try await fixture.kwallet(
        Methods.entryType, handle, "Network Management", "{uuid};wifi", "app")
        == 3)
    #expect(try await fixture.kwallet(Methods.entryType, handle, "Passwords", "none", "app") == 0)
    #expect(
      try await fixture.kwallet(Methods.folderList, handle, "app")
        == ["Network Management", "Passwords"])  // Form Data was removed above
    #expect(
      try await fixture.kwallet(Methods.entryList, handle, "Passwords", "app") == [
        "blob", "github",
      ])
    #expect(
      try await fixture.kwallet(Methods.passwordList, handle, "Passwords", "app")
        == ["github": .string("hünter2")])
    #expect(
      try await fixture.kwallet(Methods.entriesList, handle, "Passwords", "app")
        == ["github": .bytes(QDataStream.encode("hünter2")), "blob": .bytes(bytes)])
    #expect(
      try await fixture.kwallet(Methods.readPasswordList, handle, "Passwords", "g?t*", "app")
        == ["github": .string("hünter2")])
    #expect(
      try await fixture.kwallet(Methods.readPasswordList, handle, "Passwords", "*@*", "app") == [:])

    // Through the Secret Service: the bridge's attributes, label and secret forms.
    let session = try await fixture.openSession()
    for (key, type, secret) in [
      ("github", "plaintext", Array("hünter2".utf8)),
      ("blob", "base64", Array("AP8BgAA=".utf8)),
    ] {
      let attributes = ["server": "Passwords", "user": key]
      let found = try await fixture.call(
        ServiceFixture.service, SecretService.serviceInterface, "SearchItems",
        [attributes.dbusValue])
      let paths = try [ObjectPath](dbusValue: found[0])
      #expect(paths.count == 1, "\(key)")
      guard let path = paths.first else { continue }
      let stored = try await fixture.call(
        path, .properties, "Get",
        [.string(SecretService.itemInterface.rawValue), .string("Attributes")])
      #expect(
        try [String: String](dbusValue: DBusValue(dbusValue: stored[0]))
          == attributes.merging(["type": type, "xdg:schema": "org.qt.keychain"]) { $1 })
      let label = try await fixture.call(
        path, .properties, "Get", [.string(SecretService.itemInterface.rawValue), .string("Label")])
      #expect(label[0] == .variant(.string("Passwords/\(key)")))
      let reply = try await fixture.call(
        path, SecretService.itemInterface, "GetSecret", [.objectPath(session)])
      #expect(try Secret(dbusValue: reply[0]).value == secret)
    }
  }

  @Test(arguments: ServiceFixture.Depth.allCases)
  func failuresAreInBand(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let handle = try await fixture.openKDEWallet()
    #expect(try await fixture.kwallet(Methods.writePassword, handle, "F", "k", "v", "app") == 0)
    // removeEntry: kwalletd5's codes.
    #expect(try await fixture.kwallet(Methods.removeEntry, handle, "nofolder", "k", "app") == 0)
    #expect(try await fixture.kwallet(Methods.removeEntry, handle, "F", "nokey", "app") == -3)
    #expect(try await fixture.kwallet(Methods.removeEntry, handle + 1, "F", "k", "app") == -1)
    // renameEntry keeps the item, and refuses to overwrite.
    #expect(try await fixture.kwallet(Methods.renameEntry, handle, "F", "k", "k2", "app") == 0)
    #expect(try await fixture.kwallet(Methods.renameEntry, handle, "F", "k", "k3", "app") == -1)
    #expect(try await fixture.kwallet(Methods.readPassword, handle, "F", "k2", "app") == "v")
    #expect(try await fixture.kwallet(Methods.writePassword, handle, "F", "k3", "w", "app") == 0)
    #expect(try await fixture.kwallet(Methods.renameEntry, handle, "F", "k2", "k3", "app") == -1)
    // A kind that cannot be stored, a map not in Qt's form.
    #expect(
      try await fixture.kwallet(Methods.writeEntryTyped, handle, "F", "x", [1], 0, "app") == -1)
    #expect(try await fixture.kwallet(Methods.writeMap, handle, "F", "x", [1, 2], "app") == -1)
    // One key, one entry: a password written over a stream replaces it.
    #expect(try await fixture.kwallet(Methods.writeEntry, handle, "F", "k3", [9], "app") == 0)
    #expect(try await fixture.kwallet(Methods.entryType, handle, "F", "k3", "app") == 2)
    #expect(try await fixture.kwallet(Methods.entryList, handle, "F", "app") == ["k2", "k3"])
    // Unknown wallets and paths.
    #expect(try await fixture.kwallet(Methods.openPath, "/tmp/x.kwl", 0, "app") == -1)
    #expect(try await fixture.kwallet(Methods.folderDoesNotExist, "nowallet", "F") == true)
    #expect(try await fixture.kwallet(Methods.folderDoesNotExist, "kdewallet", "F") == false)
    #expect(try await fixture.kwallet(Methods.keyDoesNotExist, "kdewallet", "F", "k2") == false)
    #expect(try await fixture.kwallet(Methods.keyDoesNotExist, "kdewallet", "F", "zz") == true)
    // Without a dialog program, a wallet that does not exist cannot be made.
    #expect(try await fixture.openKDEWallet() > 0)
    #expect(try await fixture.kwallet(Methods.open, "other", 0, "app") == -1)
    #expect(try await fixture.kwallet(Methods.deleteWallet, "kdewallet") == -1)
    #expect(try await fixture.kwallet(Methods.removeFolder, handle, "F", "app") == true)
    #expect(try await fixture.kwallet(Methods.hasFolder, handle, "F", "app") == false)
    #expect(try await fixture.kwallet(Methods.removeFolder, handle, "F", "app") == false)
  }

  /// Listings come from remembered names (see KWalletNameCache): a change made through the
  /// Secret Service shows in the next one.
  @Test(arguments: ServiceFixture.Depth.allCases)
  func listingsFollowChangesMadeThroughTheSecretService(_ depth: ServiceFixture.Depth)
    async throws
  {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let handle = try await fixture.openKDEWallet()
    #expect(try await fixture.kwallet(Methods.writePassword, handle, "F", "old", "v", "app") == 0)
    #expect(try await fixture.kwallet(Methods.entryList, handle, "F", "app") == ["old"])
    let found = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "SearchItems",
      [["server": "F", "user": "old"].dbusValue])
    let path = try #require(try [ObjectPath](dbusValue: found[0]).first)
    let renamed = ["server": "G", "user": "new", "type": "map", "xdg:schema": "org.qt.keychain"]
    _ = try await fixture.call(
      path, .properties, "Set",
      [
        .string(SecretService.itemInterface.rawValue), .string("Attributes"),
        .variant(renamed.dbusValue),
      ])
    await fixture.settle()
    #expect(try await fixture.kwallet(Methods.entryList, handle, "F", "app") == [])
    #expect(
      try await fixture.kwallet(Methods.folderList, handle, "app") == [
        "Form Data", "G", "Passwords",
      ])
    #expect(try await fixture.kwallet(Methods.entryList, handle, "G", "app") == ["new"])
    #expect(try await fixture.kwallet(Methods.entryType, handle, "G", "new", "app") == 3)
    _ = try await fixture.call(path, SecretService.itemInterface, "Delete")
    await fixture.settle()
    #expect(
      try await fixture.kwallet(Methods.folderList, handle, "app") == ["Form Data", "Passwords"])
  }

  @Test(arguments: ServiceFixture.Depth.allCases)
  func handlesBelongToTheirCaller(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let handle = try await fixture.openKDEWallet()
    #expect(try await fixture.kwallet(Methods.writePassword, handle, "F", "k", "v", "app") == 0)
    let other = try await fixture.newCaller()
    // Another connection, or another application id, cannot use the handle.
    #expect(
      try await fixture.kwallet(Methods.readPassword, handle, "F", "k", "app", from: other) == "")
    #expect(
      try await fixture.kwallet(Methods.writePassword, handle, "F", "k", "x", "app", from: other)
        == -1)
    #expect(try await fixture.kwallet(Methods.readPassword, handle, "F", "k", "other") == "")
    #expect(try await fixture.kwallet(Methods.closeHandle, handle, false, "app", from: other) == 1)
    // Its own handle works, and goes when it leaves the bus.
    let theirs = try await fixture.openKDEWallet(from: other)
    #expect(theirs != handle)
    #expect(try await fixture.kwallet(Methods.users, "kdewallet") == ["app"])
    #expect(
      try await fixture.kwallet(Methods.readPassword, theirs, "F", "k", "app", from: other) == "v")
    await fixture.leave(other)
    await fixture.settle()
    try await waitUntil { try await fixture.kwallet(Methods.isOpenHandle, theirs) == false }
    #expect(try await fixture.kwallet(Methods.isOpenHandle, handle) == true)
    #expect(try await fixture.kwallet(Methods.closeHandle, handle, false, "app") == 0)
    #expect(try await fixture.kwallet(Methods.isOpenHandle, handle) == false)
    #expect(try await fixture.kwallet(Methods.closeHandle, handle, false, "app") == -1)
  }

  @Test(arguments: ServiceFixture.Depth.allCases)
  func aLockClosesEveryHandle(_ depth: ServiceFixture.Depth) async throws {
    let fixture = try await ServiceFixture(depth, kwallet: true)
    let handle = try await fixture.openKDEWallet()
    #expect(try await fixture.kwallet(Methods.isOpenWallet, "kdewallet") == true)
    _ = try await fixture.call(
      ServiceFixture.service, SecretService.serviceInterface, "Lock",
      [[ServiceFixture.login].dbusValue])
    await fixture.settle()
    #expect(try await fixture.kwallet(Methods.isOpenHandle, handle) == false)
    #expect(try await fixture.kwallet(Methods.isOpenWallet, "kdewallet") == false)
    #expect(try await fixture.kwallet(Methods.readPassword, handle, "F", "k", "app") == "")
    // While locked, names are "may exist".
    #expect(try await fixture.kwallet(Methods.folderDoesNotExist, "kdewallet", "F") == false)
    // Without a dialog program, opening the locked wallet fails in band.
    #expect(try await fixture.openKDEWallet() == -1)
    try await fixture.unlockLogin()
    let again = try await fixture.openKDEWallet()
    #expect(again > 0)
    // close(wallet, force) locks it.
    #expect(try await fixture.kwallet(Methods.closeWallet, "kdewallet", false) == 1)
    #expect(try await fixture.kwallet(Methods.closeWallet, "kdewallet", true) == 0)
    await fixture.settle()
    #expect(try await fixture.kwallet(Methods.isOpenWallet, "kdewallet") == false)
    #expect(try await fixture.kwallet(Methods.closeWallet, "kdewallet", true) == -1)
  }

  /// Polls `condition` (a bound of 10 s, not a speed check): a departure reaches the daemon
  /// through the bus.
  private func waitUntil(_ condition: () async throws -> Bool) async throws {
    for _ in 0..<500 {
      if try await condition() { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("the condition never held")
  }
}
