// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Locking` on the service object: each collection's own lock
// policy (`keychainctl lock-policy`), over keychaind.conf's defaults, and how the login
// collection was last unlocked (`keychainctl doctor`). Settings go by keychaind.conf's names:
// switches as booleans, timers as minutes.

import Foundation
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

struct LockingInterface: DBusInterface {
  let core: DaemonCore

  typealias Methods = SecretService.LockingMethods

  static let table = InterfaceTable<LockingInterface>(SecretService.Interfaces.locking) { table in
    table.on(Methods.getLockPolicy, getLockPolicy)
    table.on(Methods.setLockPolicy, setLockPolicy)
    table.on(Methods.lastLoginUnlock, lastLoginUnlock)
  }

  /// Route ("" if none was recorded), Unix time, and the boot id at that time.
  func lastLoginUnlock(_ request: MethodRequest) async throws -> (String, Int64, String) {
    guard let record = try StoreView(request, core: core).metadata({ try $0.lastLoginUnlock() })
    else { return ("", 0, "") }
    return (record.route, Int64(record.time.timeIntervalSince1970), record.bootID)
  }

  /// The settings the collection sets itself, and all of them as they apply.
  func getLockPolicy(_ request: MethodRequest, collection path: ObjectPath) async throws
    -> ([String: DBusValue], [String: DBusValue])
  {
    let view = StoreView(request, core: core)
    let collection = try view.namedCollection(path)
    let own = try view.metadata { try $0.lockPolicy(of: collection) }
    return (Self.values(own), Self.values(own.over(core.locks.defaults)))
  }

  /// Sets the settings in `changes`, returns those named in `reset` to the defaults.
  func setLockPolicy(
    _ request: MethodRequest, collection path: ObjectPath, set changes: [String: DBusValue],
    reset: [String]
  ) async throws -> [String: DBusValue] {
    let view = StoreView(request, core: core)
    let collection = try view.namedCollection(path)
    var own = try view.metadata { try $0.lockPolicy(of: collection) }
    var settings = own.settings
    for name in reset {
      guard LockPolicy.settingNames.contains(name) else { throw Self.unknown(name) }
      settings[name] = nil
    }
    for (name, value) in changes { settings[name] = try Self.setting(name, value) }
    own.settings = settings
    try await view.write { [own] in try $0.setLockPolicy(own, of: collection) }
    core.locks.policiesChanged()
    core.logger.info("lock policy of \(collection): \(Self.describe(own))")
    return Self.values(own)
  }

  private static func unknown(_ name: String) -> DBusError {
    DBusError(
      .invalidArgs,
      "unknown lock setting '\(name)'; known: \(LockPolicy.settingNames.joined(separator: ", "))")
  }

  /// A setting's value from the wire: a boolean for a switch, a whole number of minutes for a
  /// timer.
  private static func setting(_ name: String, _ value: DBusValue) throws(DBusError) -> Int {
    if LockPolicy.switchNames.contains(name) {
      guard case .boolean(let flag) = value else {
        throw DBusError(.invalidArgs, "\(name) is a boolean")
      }
      return flag ? 1 : 0
    }
    guard LockPolicy.timerNames.contains(name) else { throw unknown(name) }
    switch value {
    case .uint32(let minutes): return Int(minutes)
    case .int32(let minutes) where minutes >= 0: return Int(minutes)
    default: throw DBusError(.invalidArgs, "\(name) is a number of minutes (u)")
    }
  }

  private static func values(_ policy: LockPolicy) -> [String: DBusValue] {
    var values: [String: DBusValue] = [:]
    for (name, value) in policy.settings {
      values[name] =
        LockPolicy.switchNames.contains(name)
        ? .boolean(value != 0) : .uint32(UInt32(clamping: value))
    }
    return values
  }

  static func describe(_ policy: LockPolicy) -> String {
    let settings = policy.settings.sorted { $0.key < $1.key }
    guard !settings.isEmpty else { return "keychaind.conf's" }
    return settings.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
  }
}
