// SPDX-License-Identifier: MIT
//
// keychaind and keychainctl are one program: installed once, with keychainctl a link to it, the
// Swift runtime and Foundation they are statically linked with are on disk once rather than
// twice (issue 41: 197 MiB installed). The name it is run by picks the command line; any name
// that does not start with "keychainctl" is the daemon's.

import keychainctl
import keychaind

let invokedAs = CommandLine.arguments.first?.split(separator: "/").last ?? ""
if invokedAs.hasPrefix("keychainctl") {
  await KeychainctlProgram.main()
} else {
  await KeychaindProgram.main()
}
