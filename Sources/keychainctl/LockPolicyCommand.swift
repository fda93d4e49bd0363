// SPDX-License-Identifier: MIT
//
// keychainctl lock-policy: when one collection locks by itself, over keychaind.conf's
// defaults. Kept by keychaind in the store, so it lasts across restarts.

import ArgumentParser
import Foundation
import KeychainDBus
import KeychainStore
import SecretServiceClient

struct LockPolicyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "lock-policy",
    abstract: "Show or set when a collection locks by itself (keychaind only).",
    discussion: """
      Settings, as in keychaind.conf: lock-on-screen-lock, lock-before-sleep, lock-at-logout \
      (true or false) and lock-after-idle, lock-after-unused (minutes, 0 for never). A \
      setting given as NAME=default follows keychaind.conf again. Without settings, shows \
      each setting's value and where it comes from. Examples: `keychainctl lock-policy Work \
      lock-after-unused=5`; `keychainctl lock-policy login lock-on-screen-lock=default`.
      """)

  @Argument(help: "The collection's object path or label.") var collection: String
  @Argument(help: "NAME=VALUE settings to change.") var settings: [String] = []
  @Flag(help: "Print JSON.") var json = false

  /// The settings to change: values to set, and names to return to keychaind.conf's.
  func changes() throws -> (set: [String: DBusValue], reset: [String]) {
    var (set, reset) = ([String: DBusValue](), [String]())
    for setting in settings {
      let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
      guard parts.count == 2, LockPolicy.settingNames.contains(parts[0])
      else {
        throw ValidationError(
          "'\(setting)': expected NAME=VALUE with NAME one of \(LockPolicy.settingNames.joined(separator: ", "))"
        )
      }
      let (name, text) = (parts[0], parts[1].lowercased())
      let isSwitch = LockPolicy.switchNames.contains(name)
      if text == "default" {
        reset.append(name)
      } else if let value = LockPolicy.value(of: name, from: text),
        let minutes = UInt32(exactly: value)
      {
        set[name] = isSwitch ? .boolean(value != 0) : .uint32(minutes)
      } else {
        throw ValidationError(
          isSwitch
            ? "\(name) is true, false or default" : "\(name) is a number of minutes, or default")
      }
    }
    return (set, reset)
  }

  func validate() throws { _ = try changes() }

  func run() async throws {
    let client = try await connectedClient()
    let path = try await collectionPath(client, collection)
    let (set, reset) = try changes()
    if !set.isEmpty || !reset.isEmpty {
      try await client.setLockPolicy(of: path, set: set, reset: reset)
    }
    let policy = try await client.lockPolicy(of: path)
    func text(_ value: DBusValue?) -> String {
      switch value {
      case .boolean(let flag)?: String(flag)
      case .uint32(let minutes)?: minutes == 0 ? "never" : "\(minutes) min"
      default: "?"
      }
    }
    let names = LockPolicy.settingNames
    if json {
      try printJSON(
        names.reduce(into: [String: Any]()) { object, name in
          let value: Any =
            switch policy.effective[name] {
            case .boolean(let flag)?: flag
            case .uint32(let minutes)?: Int(minutes)
            default: NSNull()
            }
          object[name] = ["value": value, "own": policy.own[name] != nil]
        })
      return
    }
    for name in names {
      let origin = policy.own[name] != nil ? "this collection" : "keychaind.conf"
      print(
        name.padding(toLength: 22, withPad: " ", startingAt: 0)
          + text(policy.effective[name]).padding(toLength: 8, withPad: " ", startingAt: 0)
          + "(\(origin))")
    }
  }
}
