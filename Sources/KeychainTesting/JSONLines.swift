// SPDX-License-Identifier: MIT
//
// Reading a file of JSON lines that another process is still appending to (keychaind's audit
// log, a stand-in service's notes): a line counts once its newline is there, so a read that
// lands between two writes never sees half a record.

import Foundation

/// The complete lines of the file at `path` as JSON objects; none when it does not exist yet.
/// A complete line that is not a JSON object is a test failure, thrown.
public func jsonLines(at path: String) throws -> [[String: Any]] {
  guard let data = FileManager.default.contents(atPath: path),
    let end = data.lastIndex(of: UInt8(ascii: "\n"))
  else { return [] }
  return try data[..<end].split(separator: UInt8(ascii: "\n")).map { line in
    guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
      throw TestingError("not a JSON object: \(String(decoding: line, as: UTF8.self))")
    }
    return object
  }
}
