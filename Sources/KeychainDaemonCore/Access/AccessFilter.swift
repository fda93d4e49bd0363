// SPDX-License-Identifier: MIT
//
// Around every call, with access control on: before it, the call's `AccessDecision` is put on
// the request, with the caller's application (resolved on a connection's first call, then from
// memory); once it is answered, what the call read (noted there by `StoreView`) and changed (its
// recorded `StoreEvent`s) goes to the audit log as one record per item, and what an
// unidentified program created is kept as its connection's own. A call that failed is recorded
// too: a refusal is what the log is most often read for.

import KeychainAccess
import KeychainDBus
import KeychainStore

package struct AccessFilter: CallFilter {
  let core: DaemonCore

  package init(core: DaemonCore) { self.core = core }

  package nonisolated(nonsending) func filter(_ request: MethodRequest, next: CallFilterNext)
    async throws -> [DBusValue]
  {
    let access = core.access
    guard access.isOn else { return try await next(request) }
    let caller = await access.caller(of: request)
    let decision = AccessDecision(caller: caller, access: access, store: core.store)
    request.context.modify(decision) { _ in }
    defer {
      if !caller.identity.isRememberable {
        let events = request.context.value([StoreEvent].self) ?? []
        for case .itemCreated(let item) in events { access.created(item, by: caller) }
      }
      // The records are made before the reply, so that each says what was decided when the
      // call was answered, and handed to the log once the caller has its answer: the log
      // queues them for its next batch, and the journal's line is a write the caller need not
      // wait for. On the same thread, so no thread is woken for them.
      let records = records(of: request, decision)
      request.whenAnswered { access.log(records) }
    }
    return try await next(request)
  }

  /// The call's accesses as audit records, reads first, then changes in the order made.
  private func records(of request: MethodRequest, _ decision: AccessDecision) -> [AuditRecord] {
    let caller = decision.caller
    let app = caller.auditApp
    let sender = caller.sender.rawValue
    var records = decision.notes.map {
      AuditRecord(op: $0.operation, decision: $0.decision, app: app, sender: sender, item: $0.path)
    }
    for event in request.context.value([StoreEvent].self) ?? [] {
      let change: (AuditRecord.Operation, ItemID)
      switch event {
      case .itemCreated(let item): change = (.create, item)
      case .itemReplaced(let item), .itemChanged(let item, _): change = (.write, item)
      case .itemDeleted(let item, _): change = (.delete, item)
      default: continue
      }
      records.append(
        AuditRecord(
          op: change.0, decision: why(change.0, change.1, decision), app: app, sender: sender,
          item: Resolver.path(of: change.1).rawValue))
    }
    return records
  }

  /// Why a change was let through: the caller owns the item, holds a grant, or (`audit`, or an
  /// item deleted and so without an owner now) nothing was decided.
  private func why(
    _ operation: AuditRecord.Operation, _ item: ItemID, _ decision: AccessDecision
  ) -> AuditRecord.Decision {
    let caller = decision.caller
    if operation == .create {
      // A share's clients store for the user: the item has no owner (`StoreView.creator`).
      return caller.identity.isRememberable && caller.share == nil ? .owner : .allowed
    }
    if operation == .delete { return .allowed }
    guard case .allow(let why) = decision.answer(item) else {
      return decision.enforces ? .allowed : .wouldAsk
    }
    return why
  }
}
