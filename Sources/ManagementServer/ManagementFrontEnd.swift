// SPDX-License-Identifier: MIT
//
// keychaind's own interfaces, the ones keychainctl speaks: org.keychain_linux.Import (other
// keyrings' files and backups brought in), .Locking (locking by hand and the lock timers) and
// .Access (per-application access, its audit log and its learning period) and .Slots (the key
// slots of collections), served on the
// Secret Service's object as a front end of the daemon's core.

import KeychainDBus
import KeychainDaemonCore
import KeychainTPM

/// The Import, Locking and Access interfaces, for `SecretServiceDaemon.serve`.
public struct ManagementFrontEnd: FrontEnd {
  let core: DaemonCore
  let tpm2TCTI: String
  let fido2Device: String

  /// Also gives the core's prompts the TPM slots without a PIN, tried before a dialog.
  /// - Parameters:
  ///   - tpm2TCTI: where the TPM is, for TPM key slots (keychaind.conf's `tpm2-tcti`).
  ///   - fido2Device: the FIDO2 key for FIDO2 slots ("" for the first one plugged in).
  public init(core: DaemonCore, tpm2TCTI: String = TPM2.defaultTCTI, fido2Device: String = "") {
    self.core = core
    self.tpm2TCTI = tpm2TCTI
    self.fido2Device = fido2Device
    let slots = TPMSlots(
      tcti: tpm2TCTI, store: core.store, unlocker: core.unlocker, logger: core.logger)
    core.addDeviceUnlock { slots.openWithNothingTyped($0) }
  }

  public func serviceInterfaces() -> [any DBusInterface] {
    [
      ImportInterface(core: core), LockingInterface(core: core),
      AccessInterface(core: core),
      SlotsInterface(core: core, tpm2TCTI: tpm2TCTI, fido2Device: fido2Device),
    ]
  }
}
