// SPDX-License-Identifier: MIT
//
// Any bytes, read as a keyring file someone else wrote: oo7's and libsecret's v1 format (its
// GVariant framing, and the unencrypted flavour's plaintext items, which need no key), and
// gnome-keyring's binary and textual formats. Each reader returns its contents or an error
// naming the damage, never crashes. No key is derived: the iteration count in a file is only
// checked against its cap.

import FuzzDriver
import KeychainImport

@_cdecl("LLVMFuzzerTestOneInput")
public func keyringFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let keyring = try? V1Keyring(parsing: bytes, file: "fuzz") {
    _ = keyring.openUnencrypted()
  }
  _ = try? BinaryKeyring(parsing: bytes, file: "fuzz")
  if TextualKeyring.looksLikeOne(bytes) { _ = try? TextualKeyring.parse(bytes, file: "fuzz") }
  return 0
}

// The entry point SwiftPM links (see FuzzDriver).
@_cdecl("KeyringFuzzer_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
  -> Int32
{
  runLibFuzzer(argc, argv) { data, size in
    keyringFuzzer(data ?? UnsafePointer(bitPattern: 1)!, size)
  }
}
