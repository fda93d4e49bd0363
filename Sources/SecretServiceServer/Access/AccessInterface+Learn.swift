// SPDX-License-Identifier: MIT
//
// `keychainctl access learn`: the reads the audit log saw in `audit` mode that `protect` would
// have asked about become grants, so that switching to `protect` brings no storm of dialogs.
// Only identities that can be remembered are learnt, and only items that still exist and are
// not already theirs.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainStore
import SecretServiceProtocol

extension AccessInterface {
  func learn(_ request: MethodRequest, password: Secret, dryRun: Bool) async throws -> [String] {
    let view = StoreView(request, state: state)
    guard let audit = state.access.audit else {
      throw DBusError(.failed, "there is no audit log to learn from: access-control is off")
    }
    state.access.flushAudit()
    var wanted: [(app: String, kind: String, item: ItemID, path: String)] = []
    var seen = Set<String>()
    for (_, text) in audit.files() {
      for line in text.split(separator: "\n") {
        guard let record = AuditChain.record(line), record.op == .read,
          record.decision == .wouldAsk, !record.app.key.isEmpty,
          record.app.kind != AppIdentity.Kind.unknown.rawValue, let path = record.item,
          let parsed = SecretPath(ObjectPath(unchecked: path)),
          let item = try view.itemID(at: parsed), seen.insert(record.app.key + " " + path).inserted
        else { continue }
        wanted.append((record.app.key, record.app.kind, item, path))
      }
    }
    // Items gone, locked, or already the reader's own or granted are left out.
    let learnt = wanted.filter { entry in
      guard !view.isLocked(entry.item.collection),
        (try? view.metadata({ try $0.exists(entry.item) })) == true
      else { return false }
      let owner = try? view.metadata { try $0.owner(of: entry.item) }
      let grants = (try? view.metadata { try $0.grants(for: entry.app, on: entry.item) }) ?? []
      return owner != entry.app && grants.isEmpty
    }
    let lines = learnt.map { "\($0.app) \($0.path)" }
    guard !dryRun, !learnt.isEmpty else { return lines }
    let secret = try state.sessions.password(in: password, caller: request.caller)
    try await checkPassword(secret, for: Set(learnt.map(\.item.collection)), view)
    for entry in learnt {
      // A user-kind program's grant is pinned to its content now.
      let pin = try? state.access.applicationKey(entry.app).pin
      let grant = AccessGrant(
        app: entry.app, pin: pin ?? nil, collection: entry.item.collection, item: entry.item.id,
        source: "learn")
      _ = try await view.write { try $0.addGrant(grant) }
      view.note(.grant, .allowed, entry.item)
    }
    state.logger.notice("access: learnt \(learnt.count) grant(s) from the audit log")
    return lines
  }
}
