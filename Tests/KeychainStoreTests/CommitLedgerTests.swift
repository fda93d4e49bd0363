// SPDX-License-Identifier: MIT
//
// The ledger of acknowledged writes beside the database (`CommitLedger`): every durable
// transaction is recorded before it returns, a checkpoint records what keychain.db holds, a
// store behind its ledger is refused with nothing changed, and a missing or torn ledger is
// started again rather than trusted. The real binary's cases (a deleted or cut log after a
// crash) are in LostWriteTests.

import Dispatch
import Foundation
import GRDB
import KeychainCrypto
import Testing

@testable import KeychainStore

@Suite struct CommitLedgerTests {
  private func ledger(_ fixture: StoreFixture) -> CommitLedger.Record? {
    if case .valid(let record) = CommitLedger.read(in: fixture.directory) { return record }
    return nil
  }

  private func databaseCount(_ store: KeychainStore) throws -> Int64 {
    try store.persistent.read { try Schema.commitCount($0) }
  }

  @Test func everyDurableTransactionIsRecordedBeforeItReturns() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    let start = try #require(ledger(fixture))
    #expect(start.acknowledged == (try databaseCount(store)))
    for index in 1...3 {
      _ = try store.createItem(
        in: "login", label: "x", attributes: ["n": String(index)], secret: secure("s"),
        replace: false)
      // Read from the file, as the next start would: one more transaction each time.
      #expect(ledger(fixture)?.acknowledged == start.acknowledged + Int64(index))
    }
    // A change that fails commits nothing, and is not counted.
    #expect(throws: StoreError.self) { try store.deleteCollection("nope") }
    #expect(ledger(fixture)?.acknowledged == start.acknowledged + 3)
    #expect(try databaseCount(store) == start.acknowledged + 3)
  }

  @Test func aCheckpointRecordsWhatTheDatabaseFileHolds() throws {
    let fixture = try StoreFixture()
    let store = try fixture.open()
    try store.createCollection(name: "login", label: "Login", password: secure("pw"))
    _ = try store.createItem(
      in: "login", label: "x", attributes: ["a": "b"], secret: secure("s"), replace: false)
    try store.checkpoint()
    let record = try #require(ledger(fixture))
    #expect(record.checkpointed == record.acknowledged)
    var info = stat()
    #expect(stat(fixture.directory + "/keychain.db-wal", &info) == 0 && info.st_size == 0)
  }

  @Test func aStoreBehindItsLedgerIsRefusedAndLeftAsItWas() throws {
    let fixture = try StoreFixture()
    let count: Int64
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "Login", password: secure("pw"))
      count = try databaseCount(store)
      try store.close()
    }
    // What a ledger says when the log that held the last five changes is gone.
    let ledgerPath = fixture.directory + "/" + CommitLedger.fileName
    try Data(
      CommitLedger.encode(.init(acknowledged: count + 5, checkpointed: count))
    ).write(to: URL(fileURLWithPath: ledgerPath))
    let before = try fixture.allFileBytes()
    #expect {
      try fixture.open()
    } throws: { error in
      guard case StoreError.damaged(let path, let problem, let remedy) = error else {
        return false
      }
      return path.hasSuffix("keychain.db-wal") && problem.contains("the last 5 acknowledged")
        && remedy.contains("delete \(ledgerPath)")
    }
    #expect(try fixture.allFileBytes() == before)
    // keychainctl check says the same.
    let report = StoreCheck.run(directory: fixture.directory)
    #expect(!report.isHealthy)
  }

  @Test func aMissingOrTornLedgerIsStartedAgainNotTrusted() throws {
    let fixture = try StoreFixture()
    do {
      let store = try fixture.open()
      try store.createCollection(name: "login", label: "Login", password: secure("pw"))
      try store.close()
    }
    let path = fixture.directory + "/" + CommitLedger.fileName
    // A store from before the ledger, or one whose user removed it to accept an older copy.
    #expect(unlink(path) == 0)
    var store = try fixture.open()
    let count = try databaseCount(store)
    #expect(ledger(fixture) == .init(acknowledged: count, checkpointed: count))
    try store.close()
    // A torn write (a power cut in the middle of one): nothing can be concluded from it.
    var bytes = try #require(FileManager.default.contents(atPath: path))
    bytes[40] ^= 0x01
    try bytes.write(to: URL(fileURLWithPath: path))
    #expect(CommitLedger.read(in: fixture.directory) == .unreadable)
    store = try fixture.open()
    #expect(ledger(fixture) == .init(acknowledged: count, checkpointed: count))
    try store.close()
  }

  @Test func theRecordIsFixedSizeTextWithACheck() throws {
    let record = CommitLedger.Record(acknowledged: 1_234, checkpointed: 1_200)
    let bytes = CommitLedger.encode(record)
    #expect(bytes.count == CommitLedger.recordSize)
    #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("keychaind commit ledger 1\n"))
    #expect(CommitLedger.decode(bytes) == record)
    for offset in [0, 30, 50, 80] {
      var torn = bytes
      torn[offset] ^= 0x04
      #expect(CommitLedger.decode(torn) == nil, "offset \(offset)")
    }
    #expect(CommitLedger.encode(.init(acknowledged: .max, checkpointed: 0)).count == 128)
  }

  /// A checkpoint comes after a quiet moment, or at the latest a second after the oldest write
  /// it has not copied, however steadily writes keep coming.
  @Test func aCheckpointIsNeverMoreThanASecondBehind() {
    let start = DispatchTime(uptimeNanoseconds: 1_000_000_000)
    #expect(
      CheckpointSchedule.due(now: start, oldestPending: start) == start + .milliseconds(200))
    let later = start + .milliseconds(900)
    #expect(CheckpointSchedule.due(now: later, oldestPending: start) == start + .seconds(1))
  }
}
