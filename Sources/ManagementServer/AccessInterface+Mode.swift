// SPDX-License-Identifier: MIT
//
// `keychainctl access mode`: the mode in force, keychaind.conf's and the kept one, and
// changing it. Raising it needs nothing; lowering it needs the password of every collection,
// because a program of the user could otherwise turn protection off (see `AccessModeKeeper`).

import KeychainAccess
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

extension AccessInterface {
  func mode(_ request: MethodRequest) async throws -> (String, String, String) {
    let kept = try StoreView(request, core: core).metadata { try $0.keptAccessMode() }
    let access = core.access
    return (access.mode.rawValue, access.configuredMode.rawValue, kept?.rawValue ?? "")
  }

  func setMode(_ request: MethodRequest, mode name: String, password: Secret) async throws
    -> (String, Bool)
  {
    guard let mode = AccessMode(rawValue: name) else {
      let modes = AccessMode.allCases.map(\.rawValue).joined(separator: ", ")
      throw DBusError(.invalidArgs, "'\(name)' is no access-control mode: one of \(modes)")
    }
    let access = core.access
    let view = StoreView(request, core: core)
    if mode < access.mode {
      let secret = try core.sessions.password(in: password, caller: request.caller)
      let collections = try view.collections().map(\.name).filter {
        $0 != KeychainStore.sessionCollection
      }
      guard !collections.isEmpty else {
        throw DBusError(.accessDenied, "there is no keyring whose password could allow it")
      }
      // Every collection: each keeps a sealed copy of the mode, which must be lowered too.
      try await checkPassword(secret, for: Set(collections), view)
    }
    // From off there is no audit log to record in: it starts with keychaind.
    let restart = access.mode == .off && mode != .off
    if !restart { try await view.write { _ in try access.setMode(mode) } }
    if restart { try await view.write { try $0.keepAccessMode(mode) } }
    let saved = try access.saveConfiguredMode(mode)
    core.logger.notice("access: mode \(mode.rawValue) set by keychainctl")
    return (saved, restart)
  }
}
