// SPDX-License-Identifier: MIT
//
// Access control's side of the audit log: the chain's key from the first collection unlocked,
// its end kept in the store now and then, each call's records written (and journalled once
// per connection when routine), imports recorded item by item.

import Foundation
import KeychainAccess
import KeychainCrypto
import KeychainDBus
import KeychainStore

extension AccessControl {
  /// After `collections` were unlocked: the audit log's key is read from (or kept in) the
  /// first of them that can give it, and what was hashed before it is sealed.
  func collectionsUnlocked(_ collections: [String]) {
    guard let audit else { return }
    for collection in collections where collection != KeychainStore.sessionCollection {
      let known = state.withLock { $0.auditKey }
      do {
        let key = try store.auditKey(from: collection, known: known)
        guard known == nil else { continue }
        // The furthest anchor any open collection kept: the others may be older.
        let anchor = collections.compactMap { try? store.auditAnchor(in: $0) }
          .max { $0.seq < $1.seq }
        state.withLock {
          $0.auditKey = key
          $0.anchored = (anchor?.seq ?? 0, now())
        }
        audit.setKey(try HMACKey(key), anchor: anchor)
      } catch {
        logger.warning("audit log: no chain key from \(collection): \(error)")
      }
    }
  }

  /// How often, at most, the chain's end is kept in the store while records are written.
  static let anchorInterval: TimeInterval = 300

  /// Keeps the audit chain's end in the store (see `AuditChain.Anchor`), if it moved since it
  /// was last kept. Called when keychaind stops, and after records now and then.
  package func keepAnchor() {
    guard let audit, let anchor = audit.anchor,
      let key = state.withLock({ state -> SecureBytes? in
        guard state.anchored.seq != anchor.seq else { return nil }
        state.anchored = (anchor.seq, now())
        return state.auditKey
      })
    else { return }
    audit.sync()
    do {
      try store.keepAuditAnchor(anchor, auditKey: key)
    } catch {
      logger.warning("audit log: cannot keep its end in the store: \(error)")
    }
  }

  /// Decisions the journal shows once per connection (see `log`).
  static let routine: Set<AuditRecord.Decision> = [
    .owner, .grant, .allowedOnce, .allowedInSession, .wouldAsk,
  ]

  /// Writes `records` (one call's) to the audit log, and one line for them to the journal,
  /// except a routine allow (owner, grant) a connection had journalled before: the file has
  /// every record, the journal every decision (each line costs a write, on every read).
  /// Called once the call is answered, on the thread that answered it; the audit log queues
  /// the records and writes them in batches (see `AuditLog`).
  package func log(_ records: [AuditRecord]) {
    // `records[0]` where needed, not a copy of it made on every read.
    guard let audit, !records.isEmpty else { return }
    audit.append(records)
    if let desktop = desktop.withLock({ $0 }),
      let notice = notices.notice(after: records, now: now())
    {
      // Rare (a program refused again and again, or with no display): a task of its own.
      Task { await desktop(notice.message) }
    }
    let anchorDue = state.withLock { state in
      let now = now()
      guard state.auditKey != nil, now.timeIntervalSince(state.anchored.at) >= Self.anchorInterval
      else { return false }
      state.anchored.at = now
      return true
    }
    if anchorDue { Task.detached { [self] in await Blocking.run { self.keepAnchor() } } }
    // What needs no one's attention goes to the journal once per connection and decision:
    // a program reading its own items, by a grant, by an answer already given, or (in audit)
    // what protect would ask about. The audit log has every one.
    let routine = records.allSatisfy { Self.routine.contains($0.decision) }
    if routine {
      let sender = BusName(unchecked: records[0].sender)
      let repeated = state.withLock { state in
        // Looked up before anything is inserted: a repeat, the common case, changes nothing.
        if let known = state.journalled[sender], records.allSatisfy({ known.contains($0.decision) })
        {
          return true
        }
        state.journalled[sender, default: []].formUnion(records.map(\.decision))
        return false
      }
      if repeated { return }
    }
    let app = records[0].app
    let who = app.key.isEmpty ? app.display : app.key
    let pid = app.pid.map(String.init) ?? "?"
    let what = records.map { "\($0.op.rawValue) \($0.decision.rawValue) \($0.item ?? "-")" }
    logger.info("access by \(who) (pid \(pid)): \(what.joined(separator: "; "))")
  }

  /// Writes what an import did to the audit log, one record per item: as `caller`, who asked
  /// for it, or as keychaind's own import at an unlock.
  func logImport(_ items: ImportedItems, by caller: CallerApp?) {
    guard audit != nil else { return }
    let app = caller?.auditApp ?? Self.importApp
    let sender = caller?.sender.rawValue ?? ""
    func records(_ items: [ItemID], _ op: AuditRecord.Operation, _ decision: AuditRecord.Decision)
      -> [AuditRecord]
    {
      items.map {
        AuditRecord(
          op: op, decision: decision, app: app, sender: sender,
          item: Resolver.path(of: $0).rawValue)
      }
    }
    log(
      records(items.added, .create, .allowed) + records(items.updated, .write, .allowed)
        + records(items.kept, .write, .denied))
  }

  /// How the audit log names keychaind's own imports (gnome-keyring's, oo7's and KDE's files,
  /// read at each unlock).
  static let importApp = AuditRecord.App(
    AppIdentity(
      kind: .system, key: "keychaind:import", display: "keychaind's import of keyring files",
      verified: true), pid: nil)

  /// Makes every record written so far durable.
  package func flushAudit() {
    audit?.sync()
  }
}
