// SPDX-License-Identifier: MIT
//
// Reads that come without an Unlock of their own (Seahorse's GetSecret, every KWallet read):
// in `protect`, the items the caller may not read yet are asked about before the read, in the
// same dialog an Unlock brings up, while the call waits for its reply (one dialog per call).
// Otherwise a keyring manager would show every password empty, and a KWallet client an empty
// wallet, with nothing on screen to say why. With no display to ask on, the read is refused as
// before and recorded as such, never as a denial nobody made.

import KeychainAccess
import KeychainStore

extension StoreView {
  /// Asks about the items of `items` the caller may not read yet (see the top of this file);
  /// returns once the user answered, or at once when there is nothing to ask or nobody to ask.
  package func askBeforeReading(_ items: [ItemID]) async {
    guard core.access.enforces, let caller, caller.hasDisplay else { return }
    let refused = items.filter { !isLocked($0.collection) && isLocked($0) }
    guard !refused.isEmpty else { return }
    // Each gets one record, here: a recent denial's (`mayAsk`), or the dialog's answer (or
    // that none could be shown); the read that follows notes no second refusal.
    request.context.modify(AskedBeforeReading()) { $0.items.formUnion(refused) }
    let pending = refused.filter { mayAsk(about: $0) }
    guard !pending.isEmpty else { return }
    _ = await core.prompter.run(
      .unlock(
        collections: [], objects: [], access: AccessAsk(caller: caller, items: pending)))
    // The user's answer changed what the rules say of them.
    decision?.forget(pending)
  }

  /// Whether `askBeforeReading` asked about `item` in this call (its answer is recorded).
  func wasAskedBeforeReading(_ item: ItemID) -> Bool {
    request.context.value(AskedBeforeReading.self)?.items.contains(item) == true
  }

  /// Notes the refusal of reading `items` the caller still may not read (after
  /// `askBeforeReading`): as no display when nobody could be asked.
  package func noteRefusedReads(_ items: [ItemID]) {
    guard core.access.enforces, let caller else { return }
    let refused = items.filter {
      !isLocked($0.collection) && isLocked($0) && !wasAskedBeforeReading($0)
    }
    guard !refused.isEmpty else { return }
    let decision: AuditRecord.Decision = caller.hasDisplay ? .denied : .noDisplay
    for item in refused { note(.read, decision, item) }
  }
}

/// The items a call asked about before reading them (see `askBeforeReading`).
struct AskedBeforeReading: Sendable {
  package var items: Set<ItemID> = []
}
