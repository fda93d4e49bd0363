// SPDX-License-Identifier: MIT
//
// The one way a collection is opened, or made, with a password, whatever asked: a prompt's
// dialog, gnome-keyring's master-password calls, `keychaind --unlock`, PAM through the control
// socket, a key slot (and KWallet's `open` and the access dialog to come). Each route opens the
// collection here, here the login collection's route is remembered for `keychainctl doctor`,
// and here the password hook runs (keychaind imports gnome-keyring's keyrings with it); what
// clients must hear of it is its outcome's `events`, published through `DaemonCore.publish`.
//
// Everything here blocks (key derivation takes a third of a second): call it off the
// connection's thread.

import KeychainCrypto
import KeychainStore
import Logging
import Synchronization

/// Opens collections with passwords (see the top of this file).
public struct Unlocker: Sendable {
  let store: KeychainStore
  let hook: PasswordHook?
  let logger: Logger
  /// Ways to open a collection with nothing typed, which front ends add (a TPM slot without a
  /// PIN): a prompt tries them before it shows a password dialog.
  package let devices = DeviceUnlocks()

  /// What an unlock did.
  public struct Outcome: Sendable {
    /// Whether the collection was locked before.
    public var wasLocked: Bool
    /// Whether the login collection was created with the password (`openLogin`).
    public var created = false
    /// What the password hook did with the password.
    public var hooked = PasswordHookEffects()

    package init(wasLocked: Bool, created: Bool = false) {
      self.wasLocked = wasLocked
      self.created = created
    }

    /// What clients must hear of this unlock (or creation) of `collection`, for
    /// `StoreView.record`: a new collection, or a change if it was locked; and what the hook
    /// did. One mapping for every route.
    package func events(of collection: String) -> [StoreEvent] {
      guard !created else { return [.collectionCreated(collection)] + StoreEvent.hooked(hooked) }
      return StoreEvent.unlocked(
        [collection], changed: wasLocked ? [collection] : [], hooked: hooked)
    }
  }

  /// Opens `collection` with `password`: a wrong one throws `StoreError.wrongPassword` and
  /// changes nothing. The password is checked even when the collection is unlocked already
  /// (a wrong password is never answered OK). For login, `route` is remembered. With
  /// `runningHook`, the password hook then runs with the password.
  package func unlock(
    _ collection: String, with password: SecureBytes, route: String, runningHook: Bool = true
  ) throws -> Outcome {
    let wasLocked = store.isLocked(collection)
    try store.unlock(collection, password: password)
    if collection == KeychainStore.loginCollection { remember(route) }
    var outcome = Outcome(wasLocked: wasLocked)
    if runningHook, let hook { outcome.hooked = hook(password) }
    return outcome
  }

  /// Creates a collection labelled `label` (named by `alias` too, unless empty) with
  /// `password`, then runs the password hook with it as an unlock does: the one way a
  /// collection is made with a password (CreateCollection's dialog, gnome-keyring's
  /// CreateWithMasterPassword). Returns its name.
  package func create(label: String, alias: String, password: SecureBytes) throws -> (
    name: String, outcome: Outcome
  ) {
    let name = try Collections.create(label: label, alias: alias, password: password, in: store)
    var outcome = Outcome(wasLocked: false, created: true)
    if let hook { outcome.hooked = hook(password) }
    return (name, outcome)
  }

  /// Opens `collection` with a slot other than its password (a recovery key): a wrong key
  /// throws and changes nothing. No password hook runs, as there is no password to give it.
  package func unlock(_ collection: String, with proof: KeyProof, route: String) throws
    -> Outcome
  {
    let wasLocked = store.isLocked(collection)
    try store.unlock(collection, with: proof)
    if collection == KeychainStore.loginCollection { remember(route) }
    return Outcome(wasLocked: wasLocked)
  }

  /// Whether the store has a login collection yet (`openLogin` creates it otherwise).
  public func hasLogin() throws -> Bool {
    try store.hasCollection(KeychainStore.loginCollection)
  }

  /// Opens the login collection with `password`, or creates it with that password (as
  /// gnome-keyring's login unlock does), points `default` at it if no alias does, runs the
  /// password hook, and opens a default collection by another name that the same password
  /// opens: `keychaind --unlock` and PAM's login unlock.
  public func openLogin(with password: SecureBytes, route: String) throws -> Outcome {
    let login = KeychainStore.loginCollection
    var outcome: Outcome
    if try store.hasCollection(login) {
      outcome = try unlock(login, with: password, route: route, runningHook: false)
      if outcome.wasLocked { logger.info("unlocked the login collection") }
    } else {
      try store.createCollection(name: login, label: "Login", password: password)
      logger.info("created the login collection")
      remember(route)
      outcome = Outcome(wasLocked: false, created: true)
    }
    if try store.alias("default") == nil {
      try store.setAlias("default", to: login)
    }
    if let hook { outcome.hooked = hook(password) }
    // A default keyring made by another name (a first store before any login made `login`)
    // opens too when its password is the login password: else its dialog comes back at every
    // login.
    if let other = try store.alias("default"), other != login, store.isLocked(other),
      (try? store.unlock(other, password: password)) != nil
    {
      logger.info("unlocked the default collection \(other) with the login password too")
      outcome.hooked.unlockedCollections.append(other)
    }
    return outcome
  }

  /// Remembers how the login collection was opened. Not remembering it (a full disk) fails
  /// nothing: it only leaves `keychainctl doctor` with less to say.
  private func remember(_ route: String) {
    do {
      try store.recordLoginUnlock(route: route)
    } catch {
      logger.warning("could not note how the login collection was unlocked: \(error)")
    }
  }
}

/// Ways to open a collection with nothing typed (see `Unlocker.devices`). After a login with no
/// password (a fingerprint, a smart card), PAM had nothing to unlock the keyring with: the
/// first program that needs it then gets it through one of these instead of a dialog.
package final class DeviceUnlocks: Sendable {
  /// Opens a collection (blocking) and says how, or returns nil when it cannot.
  package typealias Attempt = @Sendable (String) -> Unlocker.Outcome?

  private let attempts = Mutex<[Attempt]>([])

  package func add(_ attempt: @escaping Attempt) { attempts.withLock { $0.append(attempt) } }

  /// The first attempt's outcome that opened `collection`, or nil.
  package func open(_ collection: String) -> Unlocker.Outcome? {
    for attempt in attempts.withLock({ $0 }) {
      if let outcome = attempt(collection) { return outcome }
    }
    return nil
  }
}
