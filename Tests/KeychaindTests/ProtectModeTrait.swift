// SPDX-License-Identifier: MIT
//
// The suite also runs with every daemon in `access-control = protect`
// (`KEYCHAIN_TEST_ACCESS_CONTROL=protect make test`, a step of CI): each test that reads only
// what its own program stored must pass unchanged there. A test that reads what another
// program stored (secret-tool reading keychainctl's item, a script dumping imported items)
// would bring up the access dialog, with nobody to answer it; it says so with this trait and
// runs in the other modes.

import Foundation
import Testing

extension Trait where Self == ConditionTrait {
  /// The test reads items another program stored: not run with the suite in `protect`.
  static var readsAnotherProgramsItems: Self {
    .disabled(
      if: ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"] == "protect",
      "it reads what another program stored, which protect asks the user about")
  }
}

extension Trait where Self == ConditionTrait {
  /// The test creates keyrings with a password of its own choosing (gnome-keyring's
  /// CreateWithMasterPassword, `keychainctl create`): `protect` asks the user about that, and
  /// with no display refuses it. Not run with the suite in `protect`; `AccessWritePathTests`
  /// checks the question itself.
  static var createsKeyringsProtectAsksAbout: Self {
    .disabled(
      if: ProcessInfo.processInfo.environment["KEYCHAIN_TEST_ACCESS_CONTROL"] == "protect",
      "it creates keyrings with a password of its own, which protect asks the user about")
  }
}
