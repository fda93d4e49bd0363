// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Locking`: each collection's lock policy, and how the login
// collection was last unlocked. Other providers do not have it (UnknownMethod).

import Foundation
import KeychainDBus
import SecretServiceProtocol

extension SecretServiceClient {
  /// A collection's lock settings by keychaind.conf name (booleans and minutes): those it sets
  /// itself, and all of them as they apply.
  public struct LockSettings: Sendable {
    public var own: [String: DBusValue]
    public var effective: [String: DBusValue]
  }

  /// The lock policy of the collection at `path`.
  public func lockPolicy(of path: ObjectPath) async throws -> LockSettings {
    let (own, effective) = try await call(
      Self.service, SecretService.LockingMethods.getLockPolicy, path)
    return LockSettings(own: own, effective: effective)
  }

  /// Sets the settings in `set` on the collection at `path` and returns those in `reset` to
  /// keychaind.conf's; returns the settings the collection now sets itself.
  @discardableResult
  public func setLockPolicy(of path: ObjectPath, set: [String: DBusValue], reset: [String])
    async throws -> [String: DBusValue]
  {
    try await call(Self.service, SecretService.LockingMethods.setLockPolicy, path, set, reset)
  }

  /// How the login collection was last unlocked: the route, when, and the boot id then; nil
  /// if keychaind has not recorded one.
  public func lastLoginUnlock() async throws -> (route: String, time: Date, bootID: String)? {
    let (route, seconds, bootID) = try await call(
      Self.service, SecretService.LockingMethods.lastLoginUnlock)
    return route.isEmpty
      ? nil : (route, Date(timeIntervalSince1970: TimeInterval(seconds)), bootID)
  }
}
