// SPDX-License-Identifier: MIT
//
// A caller whose arrival keychaind has not handled yet is placed by its unique name: one
// numbered after keychaind's own connected after keychaind started (and arrived by now); any
// other is taken for older than keychaind, as before.

import KeychainDBus
import Testing

@testable import KeychainDaemonCore

@Suite struct ArrivalOrderTests {
  @Test(arguments: [
    (":1.12", ":1.7", true), (":1.7", ":1.12", false), (":1.7", ":1.7", false),
    (":2.1", ":1.900", true), (":1.100", ":1.99", true), ("org.example.Name", ":1.1", false),
    (":1.x", ":1.1", false), (":1.3", "org.example.Own", false),
  ])
  func uniqueNamesAreOrderedAsTheBusNumbersThem(peer: String, own: String, after: Bool) {
    #expect(
      AccessControl.connected(BusName(unchecked: peer), after: BusName(unchecked: own)) == after)
  }
}
