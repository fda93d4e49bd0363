// SPDX-License-Identifier: MIT
//
// Any bytes, read as a query dictionary (kSec keys, or any key, with values of any of the
// types a caller may pass): every parser entry point returns a query or an OSStatus, never
// crashes.

import Foundation
import FuzzDriver
import KeychainCore

private let keys: [String] = [
  QueryParser.Key.itemClass, QueryParser.Key.returnData, QueryParser.Key.returnAttributes,
  QueryParser.Key.returnRef, QueryParser.Key.returnPersistentRef, QueryParser.Key.matchLimit,
  QueryParser.Key.matchCaseInsensitive, QueryParser.Key.valueData, QueryParser.Key.valueRef,
  QueryParser.Key.valuePersistentRef, QueryParser.Key.useDataProtectionKeychain,
  QueryParser.Key.useAuthenticationUI, "acct", "svce", "srvr", "ptcl", "port", "path", "labl",
  "desc", "icmt", "crtr", "type", "gena", "atag", "agrp", "pdmn", "sync", "cdat", "mdat",
  "genp", "inet", "keys", "cert", "idnt", "m_LimitOne", "m_LimitAll", "", "x",
]

/// Reads values off the input; past its end, zeros.
private struct Reader {
  var bytes: ArraySlice<UInt8>
  mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }
  mutating func take(_ count: Int) -> [UInt8] {
    let taken = bytes.prefix(count)
    bytes = bytes.dropFirst(count)
    return Array(taken)
  }
  mutating func value(depth: Int = 0) -> Any {
    switch byte() % 9 {
    case 0: return String(decoding: take(Int(byte() % 24)), as: UTF8.self)
    case 1: return keys[Int(byte()) % keys.count]
    case 2: return Data(take(Int(byte() % 40)))
    case 3: return byte() & 1 == 1
    case 4: return Int(Int8(bitPattern: byte())) * Int(byte())
    case 5: return Date(timeIntervalSince1970: Double(byte()) * 1e7)
    case 6: return depth > 2 ? 0 : (0..<Int(byte() % 4)).map { _ in value(depth: depth + 1) }
    case 7: return depth > 2 ? [:] : dictionary(depth: depth + 1)
    default: return Double(byte()) / 3
    }
  }
  mutating func dictionary(depth: Int = 0) -> [String: Any] {
    var result: [String: Any] = [:]
    for _ in 0..<Int(byte() % 8) {
      let key =
        byte() < 220 ? keys[Int(byte()) % keys.count] : String(decoding: take(4), as: UTF8.self)
      result[key] = value(depth: depth)
    }
    return result
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func queryFuzzer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  var reader = Reader(bytes: Array(UnsafeBufferPointer(start: data, count: size))[...])
  let query = reader.dictionary()
  let changes = reader.dictionary()
  _ = try? QueryParser.add(query)
  _ = try? QueryParser.search(query)
  _ = try? QueryParser.delete(query)
  _ = try? QueryParser.update(query, changes: changes)
  return 0
}

// The entry point SwiftPM links (see FuzzDriver).
@_cdecl("QueryFuzzer_main")
func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
  -> Int32
{
  runLibFuzzer(argc, argv) { data, size in queryFuzzer(data ?? UnsafePointer(bitPattern: 1)!, size)
  }
}
