// SPDX-License-Identifier: MIT
//
// keychaind's own interfaces, the ones keychainctl speaks: org.keychain_linux.Import (other
// keyrings' files and backups brought in), .Locking (locking by hand and the lock timers) and
// .Access (per-application access, its audit log and its learning period) and .Slots (the key
// slots of collections), served on the
// Secret Service's object as a front end of the daemon's core.

import KeychainDBus
import KeychainTPM
import SecretServiceServer

/// The Import, Locking and Access interfaces, for `SecretServiceDaemon.serve`.
public struct ManagementFrontEnd: FrontEnd {
  let state: ServiceState
  let tpm2TCTI: String

  /// - Parameter tpm2TCTI: where the TPM is, for TPM key slots (keychaind.conf's `tpm2-tcti`).
  public init(core: DaemonCore, tpm2TCTI: String = TPM2.defaultTCTI) {
    state = core.state
    self.tpm2TCTI = tpm2TCTI
  }

  public func serviceInterfaces() -> [any DBusInterface] {
    [
      ImportInterface(state: state), LockingInterface(state: state),
      AccessInterface(state: state), SlotsInterface(state: state, tpm2TCTI: tpm2TCTI),
    ]
  }
}
