// SPDX-License-Identifier: MIT
//
// Items stored before owners were pinned: their owner row names a program by its key alone.
// For a program the user can change (a copy in ~/bin, a script), that let another content at
// the same path read them as their owner. At the first unlock of each collection after
// keychaind starts, such owners are pinned to their program's content now, once; from then on
// a changed program is asked, as it is for a grant. (The content they were stored with is not
// known: this trusts the program as it is at that first unlock.)

import KeychainAccess
import KeychainStore

extension AccessControl {
  /// Pins the owners of `collections` (unlocked) that name a changeable program without its
  /// content (see the top of this file); returns how many items' owners were pinned.
  @discardableResult
  func pinOwners(in collections: [String]) -> Int {
    let facts = resolver.facts
    var pinned = 0
    for collection in collections where collection != KeychainStore.sessionCollection {
      let first = state.withLock { $0.ownersPinned.insert(collection).inserted }
      guard first, let owners = try? store.owners(in: collection) else { continue }
      var pins: [String: String?] = [:]
      var changes: [ItemID: ItemOwner] = [:]
      for (id, owner) in owners where owner.pin == nil {
        let pin =
          pins[owner.key]
          ?? AppIdentity.pinnedFile(ofKey: owner.key, isSystemFile: facts.isSystemFile)
          .flatMap(facts.pin(of:))
        pins[owner.key] = pin
        if let pin {
          changes[ItemID(collection: collection, id: id)] = ItemOwner(key: owner.key, pin: pin)
        }
      }
      guard !changes.isEmpty else { continue }
      do {
        try store.setOwners(changes, in: collection)
        pinned += changes.count
        logger.notice(
          "access: \(changes.count) item(s) of \(collection) stored before owners were pinned are now tied to their program's present content"
        )
      } catch {
        logger.warning("access: cannot pin the owners of \(collection): \(error)")
      }
    }
    return pinned
  }
}
