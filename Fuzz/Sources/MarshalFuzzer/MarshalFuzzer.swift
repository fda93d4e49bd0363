// SPDX-License-Identifier: MIT
//
// Any bytes: what libdbus accepts as a message must decode without a crash, re-encode, and
// decode again to the same message (the encoder may refuse only what it documents: limits).

import FuzzDriver
import KeychainDBus

@_cdecl("LLVMFuzzerTestOneInput")
public func marshalFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let message = try? WireFormat.demarshal(bytes) else { return 0 }
  let again: [UInt8]
  do {
    again = try WireFormat.marshal(message)
  } catch {
    return 0  // refused by name (a limit, a header the encoder does not send): not a crash
  }
  guard let back = try? WireFormat.demarshal(again) else {
    fatalError("our own encoding of a valid message does not parse")
  }
  // Compared as bytes: a NaN double is not == to itself, but its bits must come back.
  guard let third = try? WireFormat.marshal(back) else {
    fatalError("a message we decoded from our own encoding cannot be encoded again")
  }
  precondition(third == again, "the message changed on the way through")
  return 0
}

// The entry point SwiftPM links (see FuzzDriver).
@_cdecl("MarshalFuzzer_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
  -> Int32
{
  runLibFuzzer(argc, argv) { data, size in
    marshalFuzzer(data ?? UnsafePointer(bitPattern: 1)!, size)
  }
}
