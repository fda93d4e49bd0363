// SPDX-License-Identifier: MIT
//
// keychaind's `org.keychain_linux.Locking` on the service object: each collection's own lock
// policy (`keychainctl lock-policy`), over keychaind.conf's defaults, and how the login
// collection was last unlocked (`keychainctl doctor`). Settings go by keychaind.conf's names:
// switches as booleans, timers as minutes.

import Foundation
import KeychainDBus
import KeychainStore
import SecretServiceProtocol

struct LockingInterface: DBusInterface {
  let state: ServiceState
  var store: KeychainStore { state.store }

  static let description = InterfaceDescription(
    SecretService.lockingInterface,
    methods: [
      // The settings the collection sets itself, and all of them as they apply.
      MethodDescription(
        "GetLockPolicy", inputs: [.init("collection", .objectPath)],
        outputs: [
          .init("own", .dictionary(key: .string, value: .variant)),
          .init("effective", .dictionary(key: .string, value: .variant)),
        ]),
      // Sets the settings in `set`, returns those named in `reset` to the defaults.
      MethodDescription(
        "SetLockPolicy",
        inputs: [
          .init("collection", .objectPath),
          .init("set", .dictionary(key: .string, value: .variant)),
          .init("reset", .array(.string)),
        ],
        outputs: [.init("own", .dictionary(key: .string, value: .variant))]),
      // Route ("" if none was recorded), Unix time, and the boot id at that time.
      MethodDescription(
        "LastLoginUnlock",
        outputs: [.init("route", .string), .init("time", .int64), .init("boot_id", .string)]),
    ])
  var interfaceDescription: InterfaceDescription { Self.description }

  func call(_ request: MethodRequest) async throws -> [DBusValue] {
    let store = store
    if request.member == "LastLoginUnlock" {
      guard let record = try store.lastLoginUnlock() else {
        return [.string(""), .int64(0), .string("")]
      }
      return [
        .string(record.route), .int64(Int64(record.time.timeIntervalSince1970)),
        .string(record.bootID),
      ]
    }
    let collection = try Resolver.namedCollection(try request.argument(0), in: store)
    var own = try store.lockPolicy(of: collection)
    if request.member == "SetLockPolicy" {
      let changes: [String: DBusValue] = try request.argument(1)
      let reset: [String] = try request.argument(2)
      var settings = own.settings
      for name in reset {
        guard LockPolicy.settingNames.contains(name) else { throw Self.unknown(name) }
        settings[name] = nil
      }
      for (name, value) in changes { settings[name] = try Self.setting(name, value) }
      own.settings = settings
      try await Blocking.run { [own] in
        try store.setLockPolicy(own, of: collection)
      }
      state.logger.info("lock policy of \(collection): \(Self.describe(own))")
      return [Self.values(own)]
    }
    return [Self.values(own), Self.values(own.over(state.lockDefaults))]
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

  private static func values(_ policy: LockPolicy) -> DBusValue {
    var values: [String: DBusValue] = [:]
    for (name, value) in policy.settings {
      values[name] =
        LockPolicy.switchNames.contains(name)
        ? .boolean(value != 0) : .uint32(UInt32(clamping: value))
    }
    return values.dbusValue
  }

  static func describe(_ policy: LockPolicy) -> String {
    let settings = policy.settings.sorted { $0.key < $1.key }
    guard !settings.isEmpty else { return "keychaind.conf's" }
    return settings.map { "\($0.key) = \($0.value)" }.joined(separator: ", ")
  }
}
