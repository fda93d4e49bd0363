// SPDX-License-Identifier: MIT
//
// One call's access decisions. `AccessFilter` makes it as the call comes in, with the caller's
// application, and keeps it on the request; every `StoreView` of the call asks it whether the
// caller may use an item and notes there what the call read, and the filter turns the notes
// and the call's changes into audit records once the call is answered.
//
// An item is decided once per call: its owner, the caller's grants and what the user allowed
// once are read the first time the call asks about it, and the answer is kept, so that "is it
// locked for this caller?", the read itself and its audit record agree and cost one decision
// (a GetSecret asked two or three times). The user's answer to a dialog the call waits for
// (`StoreView.askBeforeReading`) is the one thing that changes them within a call: `forget`
// drops what was kept for the items asked about.

import KeychainAccess
import KeychainStore
import Synchronization

package final class AccessDecision: Sendable {
  /// The application making the call.
  package let caller: CallerApp
  private let access: AccessControl
  private let store: KeychainStore
  private let state = Mutex(State())

  private struct State {
    var answers: [ItemID: AccessAnswer] = [:]
    var notes: [Note] = []
  }

  /// An access noted for the audit log: what was done, what was decided, to which object.
  struct Note {
    let operation: AuditRecord.Operation
    let decision: AuditRecord.Decision
    let path: String
  }

  init(caller: CallerApp, access: AccessControl, store: KeychainStore) {
    self.caller = caller
    self.access = access
    self.store = store
  }

  /// Whether the rules are enforced (`protect`): otherwise they are only recorded.
  package var enforces: Bool { access.enforces }

  /// What the rules say of the caller and `item`, decided once in this call.
  package func answer(_ item: ItemID) -> AccessAnswer {
    if let kept = state.withLock({ $0.answers[item] }) { return kept }
    let answer = access.answer(for: caller, item: item, in: store)
    state.withLock { $0.answers[item] = answer }
    return answer
  }

  /// Whether the caller may use `item` now (its collection being unlocked): always outside
  /// `protect`.
  package func allows(_ item: ItemID) -> Bool {
    guard access.enforces else { return true }
    if case .allow = answer(item) { return true }
    return false
  }

  /// Forgets the answers kept for `items`: the user was just asked about them.
  func forget(_ items: some Sequence<ItemID>) {
    state.withLock { state in
      for item in items { state.answers[item] = nil }
    }
  }

  /// Notes an access to the object at `path` for the audit log.
  func note(
    _ operation: AuditRecord.Operation, _ decision: AuditRecord.Decision, _ path: String
  ) {
    state.withLock { $0.notes.append(Note(operation: operation, decision: decision, path: path)) }
  }

  /// The accesses noted so far, in the order they were.
  var notes: [Note] { state.withLock { $0.notes } }
}
