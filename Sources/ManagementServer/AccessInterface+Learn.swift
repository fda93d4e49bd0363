// SPDX-License-Identifier: MIT
//
// `keychainctl access learn`: the reads the audit log saw in `audit` mode that `protect` would
// have asked about become grants, so that switching to `protect` brings no storm of dialogs.
// Only identities that can be remembered are learnt, only items that still exist and are not
// already theirs, and only from a log whose chain is intact: a line added by hand must not
// become a grant. With a learning period (`learn --for`), only its reads count; `learn
// --apply` grants them and turns `protect` on.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainDaemonCore
import KeychainStore
import SecretServiceProtocol

extension AccessInterface {
  /// One grant learning would make.
  struct Learnt {
    var app: String
    var item: ItemID
    var path: String
    var line: String { "\(app) \(path)" }
  }

  func learn(_ request: MethodRequest, password: Secret, dryRun: Bool) async throws -> [String] {
    let view = StoreView(request, core: core)
    let learnt = try learnable(view)
    if !dryRun, !learnt.isEmpty { try await grant(learnt, password, view) }
    return learnt.map(\.line)
  }

  func startLearning(_ request: MethodRequest, seconds: UInt64) async throws -> (Int64, Int64) {
    let directory = try auditDirectory()
    guard core.access.mode == .audit else {
      throw DBusError(
        .failed,
        "learning happens in access-control = audit, and keychaind is in \(core.access.mode.rawValue)"
      )
    }
    guard (1...LearningPeriod.longest).contains(seconds) else {
      throw DBusError(.invalidArgs, "a learning period lasts from a second to a year")
    }
    let period = LearningPeriod(seconds: seconds)
    do {
      try period.save(in: directory)
    } catch {
      throw DBusError(.ioError, "cannot keep the learning period in \(directory): \(error)")
    }
    core.logger.notice("access: learning for \(seconds) s")
    return (Int64(period.start), Int64(period.end))
  }

  func learning(_ request: MethodRequest) async throws -> (Int64, Int64) {
    guard let directory = core.access.audit?.directory,
      let period = LearningPeriod.load(from: directory)
    else { return (0, 0) }
    return (Int64(period.start), Int64(period.end))
  }

  func applyLearning(_ request: MethodRequest, password: Secret, except: [String])
    async throws -> ([String], String)
  {
    let view = StoreView(request, core: core)
    let directory = try auditDirectory()
    let left = Set(try except.map { try core.access.applicationKey($0).key })
    let learnt = try learnable(view).filter { !left.contains($0.app) }
    if !learnt.isEmpty { try await grant(learnt, password, view) }
    let savedIn: String
    do {
      savedIn = try core.access.enforce()
    } catch let error as DBusError {
      throw error
    } catch {
      throw DBusError(
        .ioError,
        "protect is on until keychaind stops, but keychaind.conf was not changed: \(error)")
    }
    _ = try? LearningPeriod.discard(in: directory)
    view.note(.mode, .allowed, SecretPath.base)
    return (learnt.map(\.line), savedIn)
  }

  func discardLearning(_ request: MethodRequest) async throws -> Bool {
    do {
      return try LearningPeriod.discard(in: try auditDirectory())
    } catch let error as DBusError {
      throw error
    } catch {
      throw DBusError(.ioError, "cannot end the learning period: \(error)")
    }
  }

  // MARK: Helpers

  /// The audit log learning reads, or the error that there is none.
  private func auditLog() throws(DBusError) -> AuditLog {
    guard let audit = core.access.audit else {
      throw DBusError(.failed, "there is no audit log to learn from: access-control is off")
    }
    return audit
  }

  private func auditDirectory() throws(DBusError) -> String { try auditLog().directory }

  /// The grants the audit log's `would-ask` reads (in the learning period, if there is one)
  /// call for, once each.
  private func learnable(_ view: StoreView) throws -> [Learnt] {
    let audit = try auditLog()
    guard let verdict = audit.verify() else {
      throw DBusError(
        .isLocked, "the audit log's key is in the store: unlock a collection first")
    }
    if let problem = verdict.problem {
      throw DBusError(
        .failed,
        "the audit log was changed (\(problem)), so it cannot say which programs read what; "
          + "`\(KeychainctlCommand.auditVerify)` shows it")
    }
    let period = LearningPeriod.load(from: audit.directory)
    var wanted: [Learnt] = []
    var seen = Set<String>()
    for (_, text) in audit.files() {
      for line in text.split(separator: "\n") {
        guard let record = AuditChain.record(line), record.op == .read,
          record.decision == .wouldAsk, period?.covers(record.date) ?? true,
          !record.app.key.isEmpty, record.app.kind != AppIdentity.Kind.unknown.rawValue,
          let path = record.item, let parsed = SecretPath(ObjectPath(unchecked: path)),
          let item = try view.itemID(at: parsed), seen.insert(record.app.key + " " + path).inserted
        else { continue }
        wanted.append(Learnt(app: record.app.key, item: item, path: path))
      }
    }
    // Items gone, locked, or already the reader's own or granted are left out.
    return wanted.filter { entry in
      guard !view.isLocked(entry.item.collection),
        (try? view.metadata({ try $0.exists(entry.item) })) == true
      else { return false }
      let owner = (try? view.metadata { try $0.owner(of: entry.item) })??.key
      let grants = (try? view.metadata { try $0.grants(for: entry.app, on: entry.item) }) ?? []
      return owner != entry.app && grants.isEmpty
    }
  }

  /// Makes `learnt`'s grants, once `password` opens every collection they are in.
  private func grant(_ learnt: [Learnt], _ password: Secret, _ view: StoreView) async throws {
    let secret = try core.sessions.password(in: password, caller: view.request.caller)
    try await checkPassword(secret, for: Set(learnt.map(\.item.collection)), view)
    for entry in learnt {
      // A user-kind program's grant is pinned to its content now.
      let pin = try? core.access.applicationKey(entry.app).pin
      let grant = AccessGrant(
        app: entry.app, pin: pin ?? nil, collection: entry.item.collection, item: entry.item.id,
        source: "learn")
      _ = try await view.write { try $0.addGrant(grant) }
      view.note(.grant, .allowed, entry.item)
    }
    core.logger.notice("access: learnt \(learnt.count) grant(s) from the audit log")
  }
}
