// SPDX-License-Identifier: MIT
//
// Who has which wallet open. `open` gives a caller a handle; every later call names it with
// the application id it opened with, and is answered only for that handle, application id and
// bus connection together (kwalletd5 checks the application id alone, a string anyone can
// send). Opening the same wallet again with the same id on the same connection gives the same
// handle back, since QtKeychain and Chromium open on every job and never close. A connection's
// handles go when it leaves the bus, and every handle of a collection goes when it locks.

import KeychainDBus
import KeychainDaemonCore
import Synchronization

/// One open wallet: what a handle stands for.
struct KWalletSession: Sendable, Hashable {
  let handle: Int32
  /// The name the caller opened it by (what its signals name).
  let wallet: String
  /// The collection behind it.
  let collection: String
  let appid: String
  let owner: BusName
}

/// The open handles, the transaction ids of `openAsync`, and folders created empty.
final class KWalletSessions: Sendable {
  private struct State {
    var sessions: [Int32: KWalletSession] = [:]
    var nextTransaction: Int32 = 1
    /// Folders `createFolder` made that hold no entry yet, per collection. A folder is an
    /// attribute of its entries, so an empty one exists only here (as in KDE's bridge) until
    /// an entry is written into it or keychaind restarts. Every wallet starts with kwalletd's
    /// own two (`standardFolders`), which clients such as `kwallet-query -l` expect.
    var emptyFolders: [String: Set<String>] = [:]
  }

  /// The folders kwalletd makes in every new wallet.
  static let standardFolders: Set<String> = ["Passwords", "Form Data"]

  private let state = Mutex(State())

  /// The handle of `wallet` (`collection`) for `appid` on `owner`: the one it has, or a new one.
  func open(wallet: String, collection: String, appid: String, owner: BusName) -> Int32 {
    state.withLock { state in
      if let existing = state.sessions.values.first(where: {
        $0.wallet == wallet && $0.collection == collection && $0.appid == appid
          && $0.owner == owner
      }) {
        return existing.handle
      }
      // Random, as kwalletd5's: a handle is not guessable from another.
      var handle: Int32
      repeat { handle = Int32.random(in: 1...Int32.max) } while state.sessions[handle] != nil
      state.sessions[handle] = KWalletSession(
        handle: handle, wallet: wallet, collection: collection, appid: appid, owner: owner)
      return handle
    }
  }

  /// The session `handle` stands for, if `appid` on `owner` opened it.
  func session(_ handle: Int32, appid: String, owner: BusName) -> KWalletSession? {
    state.withLock { state in
      state.sessions[handle].flatMap { $0.appid == appid && $0.owner == owner ? $0 : nil }
    }
  }

  /// The session `handle` stands for, whoever opened it.
  func session(_ handle: Int32) -> KWalletSession? {
    state.withLock { $0.sessions[handle] }
  }

  /// Every session, or those on `collection`.
  func sessions(on collection: String? = nil) -> [KWalletSession] {
    state.withLock { state in
      state.sessions.values.filter { collection == nil || $0.collection == collection }
        .sorted { $0.handle < $1.handle }
    }
  }

  /// Forgets the sessions for which `drop` holds, and returns them.
  @discardableResult
  func remove(where drop: (KWalletSession) -> Bool) -> [KWalletSession] {
    state.withLock { state in
      let dropped = state.sessions.values.filter(drop)
      for session in dropped { state.sessions[session.handle] = nil }
      return dropped.sorted { $0.handle < $1.handle }
    }
  }

  /// Whether any session is left.
  var isEmpty: Bool { state.withLock { $0.sessions.isEmpty } }

  /// A new transaction id for `openAsync`.
  func nextTransaction() -> Int32 {
    state.withLock { state in
      defer {
        state.nextTransaction = state.nextTransaction == .max ? 1 : state.nextTransaction + 1
      }
      return state.nextTransaction
    }
  }

  // MARK: Empty folders

  /// The empty folders `createFolder` made in `collection`.
  func emptyFolders(in collection: String) -> Set<String> {
    state.withLock { $0.emptyFolders[collection] ?? Self.standardFolders }
  }

  /// Notes an empty folder; false if it was already noted.
  func addEmptyFolder(_ folder: String, in collection: String) -> Bool {
    state.withLock {
      $0.emptyFolders[collection, default: Self.standardFolders].insert(folder).inserted
    }
  }

  /// Forgets an empty folder (it was removed, or an entry now gives it); true if it was noted.
  @discardableResult
  func removeEmptyFolder(_ folder: String, in collection: String) -> Bool {
    state.withLock {
      $0.emptyFolders[collection, default: Self.standardFolders].remove(folder) != nil
    }
  }

  /// Forgets the empty folders of a deleted collection.
  func forgetFolders(of collection: String) {
    state.withLock { $0.emptyFolders[collection] = nil }
  }
}
