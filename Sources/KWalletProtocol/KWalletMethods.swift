// SPDX-License-Identifier: MIT
//
// `org.kde.KWallet`'s methods with their Swift types. Failure is in band (-1, false, an empty
// value): no method declares an error of its own. Arguments: a wallet's name, `wId` (a window
// to parent a dialog to), `appid` (the application's self-declared name), a `handle` from
// `open`, a folder and a key.

import KeychainDBus

extension KWallet {
  public enum Methods {
    private static let wallet = KWallet.interface

    public static let isEnabled = NoArguments.Returns<Bool>(
      wallet, "isEnabled", [], [""], errors: [])
    public static let open = Takes<String, Int64, String>.Returns<Int32>(
      wallet, "open", ["wallet", "wId", "appid"], [""], errors: [])
    public static let openPath = Takes<String, Int64, String>.Returns<Int32>(
      wallet, "openPath", ["path", "wId", "appid"], [""], errors: [])
    public static let openAsync = Takes<String, Int64, String, Bool>.Returns<Int32>(
      wallet, "openAsync", ["wallet", "wId", "appid", "handleSession"], [""], errors: [])
    public static let openPathAsync = Takes<String, Int64, String, Bool>.Returns<Int32>(
      wallet, "openPathAsync", ["path", "wId", "appid", "handleSession"], [""], errors: [])
    /// `close(s wallet, b force)`.
    public static let closeWallet = Takes<String, Bool>.Returns<Int32>(
      wallet, "close", ["wallet", "force"], [""], errors: [])
    /// `close(i handle, b force, s appid)`.
    public static let closeHandle = Takes<Int32, Bool, String>.Returns<Int32>(
      wallet, "close", ["handle", "force", "appid"], [""], errors: [])
    /// Sent without waiting for a reply (kwalletd5 marks it NoReply).
    public static let sync = Takes<Int32, String>.ReturnsNothing(
      wallet, "sync", ["handle", "appid"], [], errors: [])
    public static let deleteWallet = Takes<String>.Returns<Int32>(
      wallet, "deleteWallet", ["wallet"], [""], errors: [])
    /// `isOpen(s wallet)`.
    public static let isOpenWallet = Takes<String>.Returns<Bool>(
      wallet, "isOpen", ["wallet"], [""], errors: [])
    /// `isOpen(i handle)`.
    public static let isOpenHandle = Takes<Int32>.Returns<Bool>(
      wallet, "isOpen", ["handle"], [""], errors: [])
    public static let users = Takes<String>.Returns<[String]>(
      wallet, "users", ["wallet"], [""], errors: [])
    public static let changePassword = Takes<String, Int64, String>.ReturnsNothing(
      wallet, "changePassword", ["wallet", "wId", "appid"], [], errors: [])
    public static let wallets = NoArguments.Returns<[String]>(
      wallet, "wallets", [], [""], errors: [])

    public static let folderList = Takes<Int32, String>.Returns<[String]>(
      wallet, "folderList", ["handle", "appid"], [""], errors: [])
    public static let hasFolder = folderQuery("hasFolder", Bool.self)
    public static let createFolder = folderQuery("createFolder", Bool.self)
    public static let removeFolder = folderQuery("removeFolder", Bool.self)
    public static let entryList = folderQuery("entryList", [String].self)

    public static let readEntry = entryQuery("readEntry", [UInt8].self)
    public static let readMap = entryQuery("readMap", [UInt8].self)
    public static let readPassword = entryQuery("readPassword", String.self)
    /// Deprecated: `key` is a wildcard pattern.
    public static let readEntryList = entryQuery("readEntryList", [String: DBusValue].self)
    public static let entriesList = folderQuery("entriesList", [String: DBusValue].self)
    /// Deprecated: `key` is a wildcard pattern.
    public static let readMapList = entryQuery("readMapList", [String: DBusValue].self)
    public static let mapList = folderQuery("mapList", [String: DBusValue].self)
    /// Deprecated: `key` is a wildcard pattern.
    public static let readPasswordList = entryQuery("readPasswordList", [String: DBusValue].self)
    public static let passwordList = folderQuery("passwordList", [String: DBusValue].self)

    public static let renameEntry = Takes<Int32, String, String, String, String>.Returns<Int32>(
      wallet, "renameEntry", ["handle", "folder", "oldName", "newName", "appid"], [""],
      errors: [])
    /// `writeEntry(i, s folder, s key, ay value, i entryType, s appid)`.
    public static let writeEntryTyped = Takes<Int32, String, String, [UInt8], Int32, String>
      .Returns<Int32>(
        wallet, "writeEntry", ["handle", "folder", "key", "value", "entryType", "appid"], [""],
        errors: [])
    /// `writeEntry(i, s folder, s key, ay value, s appid)`: a stream.
    public static let writeEntry = Takes<Int32, String, String, [UInt8], String>.Returns<Int32>(
      wallet, "writeEntry", ["handle", "folder", "key", "value", "appid"], [""], errors: [])
    public static let writeMap = Takes<Int32, String, String, [UInt8], String>.Returns<Int32>(
      wallet, "writeMap", ["handle", "folder", "key", "value", "appid"], [""], errors: [])
    public static let writePassword = Takes<Int32, String, String, String, String>.Returns<Int32>(
      wallet, "writePassword", ["handle", "folder", "key", "value", "appid"], [""], errors: [])
    public static let hasEntry = entryQuery("hasEntry", Bool.self)
    public static let entryType = entryQuery("entryType", Int32.self)
    public static let removeEntry = entryQuery("removeEntry", Int32.self)

    public static let disconnectApplication = Takes<String, String>.Returns<Bool>(
      wallet, "disconnectApplication", ["wallet", "application"], [""], errors: [])
    public static let reconfigure = NoArguments.ReturnsNothing(
      wallet, "reconfigure", [], [], errors: [])
    public static let folderDoesNotExist = Takes<String, String>.Returns<Bool>(
      wallet, "folderDoesNotExist", ["wallet", "folder"], [""], errors: [])
    public static let keyDoesNotExist = Takes<String, String, String>.Returns<Bool>(
      wallet, "keyDoesNotExist", ["wallet", "folder", "key"], [""], errors: [])
    public static let closeAllWallets = NoArguments.ReturnsNothing(
      wallet, "closeAllWallets", [], [], errors: [])
    public static let networkWallet = NoArguments.Returns<String>(
      wallet, "networkWallet", [], [""], errors: [])
    public static let localWallet = NoArguments.Returns<String>(
      wallet, "localWallet", [], [""], errors: [])
    /// KF5's kwallet-pam opens a wallet with a key derived from the login password; sent
    /// without waiting for a reply.
    public static let pamOpen = Takes<String, [UInt8], Int32>.ReturnsNothing(
      wallet, "pamOpen", ["wallet", "passwordHash", "sessionTimeout"], [], errors: [])

    /// A method of `(handle, folder, appid)`.
    private static func folderQuery<Result: DBusRepresentable>(
      _ name: MemberName, _: Result.Type
    ) -> Takes<Int32, String, String>.Returns<Result> {
      .init(wallet, name, ["handle", "folder", "appid"], [""], errors: [])
    }

    /// A method of `(handle, folder, key, appid)`.
    private static func entryQuery<Result: DBusRepresentable>(
      _ name: MemberName, _: Result.Type
    ) -> Takes<Int32, String, String, String>.Returns<Result> {
      .init(wallet, name, ["handle", "folder", "key", "appid"], [""], errors: [])
    }
  }
}
