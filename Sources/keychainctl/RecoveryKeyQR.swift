// SPDX-License-Identifier: MIT
//
// A new recovery key as a QR code in the terminal, for a phone's camera or a printed page
// (libqrencode through CKeychainQR). Drawn with half blocks, two rows of modules a line, in
// black on white whatever the terminal's own colours, inside the quiet zone scanners need.

import CKeychainQR
import KeychainCrypto

enum RecoveryKeyQR {
  /// `text` drawn as a QR code; nil when libqrencode is not installed. The drawing is the key
  /// itself, in another form: it goes to the terminal only, as the key does.
  static func render(_ text: SecureBytes) -> String? {
    var modules = [UInt8](repeating: 0, count: 177 * 177)  // version 40, the largest
    defer {
      modules.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
    let terminated = SecureBytes(count: text.count + 1) { out in
      text.withUnsafeBytes { out.copyMemory(from: $0) }
      out[text.count] = 0
    }
    let width = terminated.withUnsafeBytes { bytes in
      keychain_qr_encode(
        bytes.baseAddress?.assumingMemoryBound(to: CChar.self), &modules, modules.count)
    }
    guard width > 0 else { return nil }
    let quiet = 2
    let size = Int(width) + 2 * quiet
    func dark(_ row: Int, _ column: Int) -> Bool {
      let (r, c) = (row - quiet, column - quiet)
      guard r >= 0, c >= 0, r < width, c < width else { return false }
      return modules[r * Int(width) + c] == 1
    }
    var lines: [String] = []
    for row in stride(from: 0, to: size, by: 2) {
      var line = "\u{1B}[30;47m"
      for column in 0..<size {
        switch (dark(row, column), dark(row + 1, column)) {
        case (true, true): line += "█"
        case (true, false): line += "▀"
        case (false, true): line += "▄"
        case (false, false): line += " "
        }
      }
      lines.append(line + "\u{1B}[0m")
    }
    return lines.joined(separator: "\n")
  }
}
