// SPDX-License-Identifier: MIT
//
// Calls a handler that returns nothing 1,000 times with a four-field struct, through the
// miscompiled shape and through keychaind's workaround, and counts the calls in which the handler
// saw another `session` than was sent. Exit 0: every call of both was right; exit 1: the
// miscompile is there (the workaround's line says whether it still holds).

import Dispatching

#if canImport(Glibc)
  import Glibc
#endif

/// The Secret Service's `(oayays)` secret, as keychaind's `Secret` is.
struct Secret: Wire {
  var session: String
  var parameters: [UInt8]
  var bytes: [UInt8]
  var contentType: String

  init(session: String, parameters: [UInt8], bytes: [UInt8], contentType: String) {
    self.session = session
    self.parameters = parameters
    self.bytes = bytes
    self.contentType = contentType
  }

  var value: Value {
    .structure([.string(session), .bytes(parameters), .bytes(bytes), .string(contentType)])
  }

  init(value: Value) throws {
    guard case .structure(let fields) = value, fields.count == 4,
      case .string(let session) = fields[0], case .bytes(let parameters) = fields[1],
      case .bytes(let bytes) = fields[2], case .string(let contentType) = fields[3]
    else { throw WrongShape() }
    self.init(session: session, parameters: parameters, bytes: bytes, contentType: contentType)
  }
}

/// A session path long enough to live on the heap, unknown to the optimiser.
let expected = "/org/freedesktop/secrets/session/s" + String(Int.random(in: 100...999))

final class Item: Sendable {
  static let setSecret = Takes<Secret>.ReturnsNothing("SetSecret")
  static let setSecretVoid = Takes<Secret>.ReturnsNothing("SetSecretVoid")
  static let methods = MethodTable<Item> { table in
    table.on(setSecret, Item.setSecret)
    table.on(setSecretVoid, returningVoid: Item.setSecret)
  }

  @inline(never)
  func setSecret(_ secret: Secret) async throws {
    await Task.yield()
    guard secret.session == expected else { throw WrongShape() }
  }
}

/// How many of 1,000 calls of `method` handed the handler a broken secret.
func brokenCalls(_ method: String) async -> Int {
  var wrong = 0
  for _ in 0..<1000 {
    let secret = Secret(
      session: expected, parameters: [1, 2], bytes: Array("secret".utf8),
      contentType: "text/plain")
    do {
      _ = try await Item.methods.dispatch(Item(), method, [secret.value])
    } catch {
      wrong += 1
    }
  }
  return wrong
}

let packed = await brokenCalls("SetSecret")
let void = await brokenCalls("SetSecretVoid")
for (shape, wrong) in [("empty result pack", packed), ("Void result (the workaround)", void)] {
  if wrong == 0 {
    print("  \(shape): correct, 1000 calls of 1000")
  } else {
    print("  \(shape): MISCOMPILED, the handler saw a broken session in \(wrong) calls of 1000")
  }
}
exit(packed == 0 && void == 0 ? 0 : 1)
