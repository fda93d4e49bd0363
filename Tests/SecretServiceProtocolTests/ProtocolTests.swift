// SPDX-License-Identifier: MIT

import KeychainCrypto
import KeychainDBus
import SecretServiceProtocol
import Testing

@Suite struct SecretPathTests {
  @Test(arguments: [
    ("/org/freedesktop/secrets", SecretPath.service),
    ("/org/freedesktop/secrets/collection/login", .collection("login")),
    ("/org/freedesktop/secrets/collection/login/42", .item(collection: "login", item: "42")),
    ("/org/freedesktop/secrets/aliases/default", .alias("default")),
    ("/org/freedesktop/secrets/aliases/default/7", .aliasItem(alias: "default", item: "7")),
    ("/org/freedesktop/secrets/session/s1", .session("s1")),
    ("/org/freedesktop/secrets/prompt/p9", .prompt("p9")),
  ])
  func pathsRoundTrip(text: String, expected: SecretPath) throws {
    let path = try ObjectPath(text)
    #expect(SecretPath(path) == expected)
    #expect(expected.objectPath == path)
  }

  @Test(arguments: [
    "/", "/org/freedesktop", "/org/freedesktop/secretsX", "/org/freedesktop/secrets/collection",
    "/org/freedesktop/secrets/collection/a/b/c", "/org/freedesktop/secrets/session",
    "/org/freedesktop/secrets/other/x", "/org/freedesktop/secrets/prompt/p/q",
  ])
  func foreignPathsAreNotOurs(text: String) throws {
    #expect(SecretPath(try ObjectPath(text)) == nil)
  }

  @Test func pathsMadeWithoutChecksParseAsTheirElements() {
    // Paths from the bus are valid; paths built in-process with `unchecked` may not be, and are
    // read by their non-empty elements.
    let cases: [(String, SecretPath?)] = [
      ("/org/freedesktop/secrets/", .service),
      ("/org/freedesktop/secrets//collection//login/", .collection("login")),
      (
        "/org/freedesktop/secrets/collection/l\u{F6}gin/7",
        .item(collection: "l\u{F6}gin", item: "7")
      ),
      ("/org/freedesktop/secret", nil),
      ("org/freedesktop/secrets/collection/login", nil),
      ("", nil),
    ]
    for (text, expected) in cases {
      #expect(SecretPath(ObjectPath(unchecked: text)) == expected, "\(text)")
    }
  }
}

@Suite struct SecretStructTests {
  @Test func secretsTravelAsOayays() throws {
    let secret = Secret(
      session: "/org/freedesktop/secrets/session/1", parameters: Array(repeating: 7, count: 16),
      value: [1, 2, 3], contentType: "text/plain; charset=utf8")
    #expect(Secret.dbusType.signature == "(oayays)")
    let batch: [ObjectPath: Secret] = ["/org/freedesktop/secrets/collection/login/1": secret]
    let call = Message.methodCall(
      destination: nil, path: "/", interface: nil, member: "GetSecrets",
      body: [secret.dbusValue, batch.dbusValue])
    let back = try WireFormat.demarshal(try WireFormat.marshal(call))
    #expect(back.signature == "(oayays)a{o(oayays)}")
    #expect(try Secret(dbusValue: back.body[0]) == secret)
    #expect(try [ObjectPath: Secret](dbusValue: back.body[1]) == batch)
    #expect(throws: DBusError.self) { try Secret(dbusValue: .structure([.string("x")])) }
    #expect(!"\(secret)".contains("[1, 2, 3]"))
  }
}

@Suite struct SessionNegotiationTests {
  @Test func plainPassesSecretsThroughAndWantsAString() throws {
    let (output, cipher) = try SessionNegotiation.open(algorithm: "plain", input: .string(""))
    #expect(output == .string(""))
    let (parameters, value) = try cipher.encrypt(SecureBytes(copying: Array("pw".utf8)))
    #expect(parameters.isEmpty && value == Array("pw".utf8))
    #expect(try cipher.decrypt(parameters: [], value: value).copyBytes() == Array("pw".utf8))
    let error = #expect(throws: DBusError.self) {
      try SessionNegotiation.open(algorithm: "plain", input: .bytes([]))
    }
    #expect(error?.name == .invalidArgs)
  }

  @Test func unknownAlgorithmsAreNotSupported() {
    for name in ["", "PLAIN", "dh-ietf2048-sha256-aes128-cbc-pkcs7", "external"] {
      do {
        _ = try SessionNegotiation.open(algorithm: name, input: .string(""))
        Issue.record("\(name) was accepted")
      } catch {
        #expect(error.name == .notSupported, "\(name)")
      }
    }
  }

  @Test func dhBothSidesAgreeAndSecretsRoundTrip() throws {
    let client = try SessionNegotiation.Client(.dhIETF1024)
    let (output, service) = try SessionNegotiation.open(
      algorithm: client.algorithm.rawValue, input: client.input)
    #expect(output.bytes?.count == 128)
    let clientCipher = try client.finish(output: output)
    for text in ["", "x", "exactly 16 bytes", String(repeating: "long ", count: 1000), "ünïcode ✓"]
    {
      let secret = SecureBytes(copying: Array(text.utf8))
      let sent = try clientCipher.encrypt(secret)
      #expect(sent.parameters.count == 16 && sent.value.count % 16 == 0 && !sent.value.isEmpty)
      #expect(try service.decrypt(parameters: sent.parameters, value: sent.value) == secret)
      let back = try service.encrypt(secret)
      #expect(try clientCipher.decrypt(parameters: back.parameters, value: back.value) == secret)
    }
  }

  @Test func eachSecretASessionSendsHasAFreshIV() throws {
    let client = try SessionNegotiation.Client(.dhIETF1024)
    let (_, service) = try SessionNegotiation.open(
      algorithm: client.algorithm.rawValue, input: client.input)
    let secret = SecureBytes(copying: Array("the same secret".utf8))
    let sent = try (0..<200).map { _ in try service.encrypt(secret) }
    #expect(Set(sent.map(\.parameters)).count == sent.count, "an IV came twice")
    #expect(Set(sent.map(\.value)).count == sent.count, "a ciphertext came twice")
    #expect(
      sent.allSatisfy {
        $0.parameters.count == 16 && $0.parameters != [UInt8](repeating: 0, count: 16)
      })
  }

  @Test func dhAcceptsShortClientKeysAsLibsecretSendsThem() throws {
    // About 1 key in 256 starts with a zero byte; libsecret then sends 127 bytes or fewer.
    var client = try SessionNegotiation.Client(.dhIETF1024)
    var tries = 0
    while client.input.bytes?.first != 0, tries < 5_000 {
      client = try SessionNegotiation.Client(.dhIETF1024)
      tries += 1
    }
    let full = try #require(client.input.bytes)
    try #require(full.first == 0, "no key with a leading zero in \(tries) tries")
    let minimal = Array(full.drop { $0 == 0 })
    let (output, service) = try SessionNegotiation.open(
      algorithm: "dh-ietf1024-sha256-aes128-cbc-pkcs7", input: .bytes(minimal))
    let sent = try client.finish(output: output).encrypt(SecureBytes(copying: [42]))
    #expect(try service.decrypt(parameters: sent.parameters, value: sent.value).copyBytes() == [42])
  }

  @Test func dhRefusesBadInputAsGnomeKeyringDoes() throws {
    let dh = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
    // An input of the wrong type is InvalidArgs; a key no agreement can use is Failed, each
    // worded as gnome-keyring words it.
    for (input, name): (DBusValue, ErrorName) in [
      (.string(""), .invalidArgs), (.uint32(2), .invalidArgs), (.bytes([]), .failed),
      (.bytes([1]), .failed), (.bytes(Array(repeating: 0xFF, count: 300)), .failed),
    ] {
      do {
        _ = try SessionNegotiation.open(algorithm: dh, input: input)
        Issue.record("accepted \(input.type)")
      } catch {
        #expect(error.name == name, "\(input.type): \(error)")
      }
    }
    let client = try SessionNegotiation.Client(.dhIETF1024)
    let (_, service) = try SessionNegotiation.open(algorithm: dh, input: client.input)
    for (iv, value) in [
      ([UInt8](), [UInt8](repeating: 0, count: 16)), (Array(repeating: 0, count: 16), []),
      (Array(repeating: 0, count: 16), Array(repeating: 0, count: 17)),
    ] {
      #expect(throws: DBusError.self) { try service.decrypt(parameters: iv, value: value) }
    }
  }
}
