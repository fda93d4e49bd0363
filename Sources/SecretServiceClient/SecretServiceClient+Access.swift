// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Access`, for `keychainctl access` and `keychainctl audit`.

import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// This process's identity as keychaind resolves it: key, kind and display name.
  public func accessIdentity() async throws -> (key: String, kind: String, display: String) {
    try await call(Self.service, SecretService.AccessMethods.identify)
  }

  /// The mode, grants and owners of the unlocked collections.
  public func accessListing() async throws -> AccessListing {
    let json: String = try await call(Self.service, SecretService.AccessMethods.list)
    return try JSONDecoder().decode(AccessListing.self, from: Data(json.utf8))
  }

  /// Grants `app` read access to `objects` (items or collections); `password` must open each
  /// collection involved. Returns how many grants were made.
  public func allowAccess(app: String, objects: [ObjectPath], password: SecureBytes) async throws
    -> UInt32
  {
    try await call(
      Self.service, SecretService.AccessMethods.allow, app, objects,
      try secretValue(password, contentType: "text/plain"))
  }

  /// Lets systemd unit `unit` get `item`'s secret as its credential `credential` through
  /// keychaind's credentials socket; `password` must open the item's collection.
  @discardableResult
  public func allowCredential(
    unit: String, credential: String, item: ObjectPath, password: SecureBytes
  ) async throws -> UInt32 {
    try await call(
      Self.service, SecretService.AccessMethods.allowCredential, unit, credential, item,
      try secretValue(password, contentType: "text/plain"))
  }

  /// Says that this client runs the executable at `path` with what it reads next
  /// (`keychainctl exec`), for keychaind's audit log.
  public func runsCommand(_ path: String) async throws {
    try await call(Self.service, SecretService.AccessMethods.runsCommand, path)
  }

  /// Removes `app`'s grants on `objects`; returns how many.
  public func revokeAccess(app: String, objects: [ObjectPath]) async throws -> UInt32 {
    try await call(Self.service, SecretService.AccessMethods.revoke, app, objects)
  }

  /// The grants the audit log's `would-ask` reads call for (`APP ITEM_PATH` each), made unless
  /// `dryRun`.
  public func learnAccess(password: SecureBytes, dryRun: Bool) async throws -> [String] {
    try await call(
      Self.service, SecretService.AccessMethods.learn,
      try secretValue(password, contentType: "text/plain"), dryRun)
  }

  /// Whether the audit log's chain is intact, its first problem, and how many records checked.
  public func verifyAudit() async throws -> (intact: Bool, problem: String, records: UInt64) {
    try await call(Self.service, SecretService.AccessMethods.verifyAudit)
  }

  /// Has keychaind write what it holds for the audit log to its file (see
  /// `AccessMethods.flushAudit`).
  public func flushAudit() async throws {
    try await call(Self.service, SecretService.AccessMethods.flushAudit)
  }

  /// The access-control mode in force, the one keychaind.conf asks for, and the one kept in
  /// the keyring (empty when none).
  public func accessMode() async throws -> (mode: String, configured: String, kept: String) {
    try await call(Self.service, SecretService.AccessMethods.mode)
  }

  /// Puts `mode` in force and keeps it; `password` opens every collection (lowering needs it).
  /// Returns the file written and whether keychaind must restart for it.
  public func setAccessMode(_ mode: String, password: SecureBytes?) async throws -> (
    savedIn: String, restart: Bool
  ) {
    try await call(
      Self.service, SecretService.AccessMethods.setMode, mode,
      try secretValue(password ?? SecureBytes(copying: []), contentType: "text/plain"))
  }
}

extension SecretServiceClient {
  /// Starts a learning period of `seconds`; returns its start and end.
  public func startLearning(seconds: UInt64) async throws -> (start: Date, end: Date) {
    let (start, end) = try await call(
      Self.service, SecretService.AccessMethods.startLearning, seconds)
    return (
      Date(timeIntervalSince1970: TimeInterval(start)),
      Date(timeIntervalSince1970: TimeInterval(end))
    )
  }

  /// The learning period, or nil when there is none.
  public func learningPeriod() async throws -> (start: Date, end: Date)? {
    let (start, end) = try await call(Self.service, SecretService.AccessMethods.learning)
    guard start != 0 || end != 0 else { return nil }
    return (
      Date(timeIntervalSince1970: TimeInterval(start)),
      Date(timeIntervalSince1970: TimeInterval(end))
    )
  }

  /// Grants what the learning period saw (but not to the applications in `except`), ends it
  /// and turns `protect` on; returns the grants (`APP ITEM_PATH` each) and the file the mode
  /// was kept in.
  public func applyLearning(password: SecureBytes, except: [String] = []) async throws -> (
    grants: [String], savedIn: String
  ) {
    try await call(
      Self.service, SecretService.AccessMethods.applyLearning,
      try secretValue(password, contentType: "text/plain"), except)
  }

  /// Ends the learning period without granting; returns whether there was one.
  public func discardLearning() async throws -> Bool {
    try await call(Self.service, SecretService.AccessMethods.discardLearning)
  }
}

extension SecretServiceClient {
  /// Makes `app` a member of the named group `group` in `collections` (the default collection
  /// when empty); `password` must open each. Returns how many memberships were made.
  public func addToGroup(
    app: String, group: String, collections: [ObjectPath], password: SecureBytes
  ) async throws -> UInt32 {
    try await call(
      Self.service, SecretService.AccessMethods.groupAdd, app, group, collections,
      try secretValue(password, contentType: "text/plain"))
  }

  /// Ends `app`'s membership of `group` in `collections` (every unlocked one when empty).
  public func removeFromGroup(app: String, group: String, collections: [ObjectPath])
    async throws -> UInt32
  {
    try await call(Self.service, SecretService.AccessMethods.groupRemove, app, group, collections)
  }

  /// The access group that owns `item`; nil for an item from before access control.
  public func accessGroup(of item: ObjectPath) async throws -> String? {
    let group: String = try await call(Self.service, SecretService.AccessMethods.groupOf, item)
    return group.isEmpty ? nil : group
  }
}
