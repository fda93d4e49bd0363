// SPDX-License-Identifier: MIT
//
// Our DH session against an independent implementation: Python SecretStorage's own
// `secretstorage.dhcrypto.Session` and its AES-CBC code path (python3-cryptography).

import KeychainCrypto
import KeychainDBus
import KeychainTesting
import SecretServiceProtocol
import Testing

/// Runs SecretStorage's client side with a given private key and our public key, then either
/// encrypts `plaintext` or decrypts `iv`+`ciphertext`; prints hex lines.
private let script = """
  import sys
  from secretstorage.dhcrypto import Session, DH_PRIME_1024, int_to_bytes
  from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
  s = Session()
  s.my_private_key = int(sys.argv[1], 16)
  s.my_public_key = pow(2, s.my_private_key, DH_PRIME_1024)
  s.set_server_public_key(int(sys.argv[2], 16))
  print(int_to_bytes(s.my_public_key).hex())
  if sys.argv[3] == 'encrypt':
      data = bytes.fromhex(sys.argv[4]); pad = 16 - len(data) % 16; data += bytes([pad]) * pad
      iv = bytes(range(16))
      e = Cipher(algorithms.AES(s.aes_key), modes.CBC(iv)).encryptor()
      print(iv.hex()); print((e.update(data) + e.finalize()).hex())
  else:
      d = Cipher(algorithms.AES(s.aes_key), modes.CBC(bytes.fromhex(sys.argv[4]))).decryptor()
      out = d.update(bytes.fromhex(sys.argv[5])) + d.finalize()
      print(out[:-out[-1]].hex())
  """

private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
private func unhex(_ text: Substring) -> [UInt8] {
  let chars = Array(text.utf8)
  return stride(from: 0, to: chars.count, by: 2).map {
    UInt8(String(decoding: chars[$0...$0 + 1], as: UTF8.self), radix: 16)!
  }
}

@Suite struct SecretStorageInteropTests {
  @Test func ourServiceAndSecretStorageAgreeInBothDirections() throws {
    let clientPrivate = hex(Random.bytes(count: 128))
    let service = try DiffieHellman()
    let message = Array("correct horse battery staple ✓".utf8)

    let encrypted = try runCommand(
      "/usr/bin/python3",
      ["-c", script, clientPrivate, hex(service.publicKey), "encrypt", hex(message)])
    try #require(encrypted.status == 0, "\(encrypted.stderr)")
    let lines = encrypted.stdout.split(separator: "\n")
    let (_, cipher) = try SessionNegotiation.open(
      algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: .bytes(unhex(lines[0])),
      keyPair: service)
    #expect(
      try cipher.decrypt(parameters: unhex(lines[1]), value: unhex(lines[2])).copyBytes() == message
    )

    let reply = try cipher.encrypt(SecureBytes(copying: message))
    let decrypted = try runCommand(
      "/usr/bin/python3",
      [
        "-c", script, clientPrivate, hex(service.publicKey), "decrypt", hex(reply.parameters),
        hex(reply.value),
      ])
    try #require(decrypted.status == 0, "\(decrypted.stderr)")
    #expect(decrypted.stdout.split(separator: "\n").last.map(unhex) == message)
  }
}
