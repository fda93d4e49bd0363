// SPDX-License-Identifier: MIT
//
// The wildcard patterns of KWallet's deprecated list methods (`readPasswordList(h, folder,
// "*@*", appid)`), matched as kwalletd5 matches them (Qt's QRegExp in Wildcard mode, whole
// key): `*` any run of characters, `?` one character, `[…]` one of a set, with ranges and a
// leading `!` or `^` to negate; every other character, `/` included, stands for itself.

/// A KWallet key pattern.
public struct WildcardPattern: Sendable {
  private enum Token {
    case literal(Character)
    case any
    case one
    case set([ClosedRange<Character>], negated: Bool)
  }

  private let tokens: [Token]

  /// The pattern `text`; an unclosed `[` stands for itself.
  public init(_ text: String) {
    var tokens: [Token] = []
    let characters = Array(text)
    var index = 0
    while index < characters.count {
      let c = characters[index]
      index += 1
      switch c {
      case "*": tokens.append(.any)
      case "?": tokens.append(.one)
      case "[":
        guard let (set, next) = Self.set(characters, from: index) else {
          tokens.append(.literal(c))
          continue
        }
        tokens.append(set)
        index = next
      default: tokens.append(.literal(c))
      }
    }
    self.tokens = tokens
  }

  /// The set starting after a `[` at `start`, and the index after its `]`.
  private static func set(_ characters: [Character], from start: Int) -> (Token, Int)? {
    var index = start
    var negated = false
    if index < characters.count, characters[index] == "!" || characters[index] == "^" {
      negated = true
      index += 1
    }
    var ranges: [ClosedRange<Character>] = []
    var first = true
    while index < characters.count {
      let c = characters[index]
      if c == "]" && !first { return (.set(ranges, negated: negated), index + 1) }
      first = false
      if index + 2 < characters.count, characters[index + 1] == "-", characters[index + 2] != "]" {
        let upper = characters[index + 2]
        if c <= upper { ranges.append(c...upper) }
        index += 3
      } else {
        ranges.append(c...c)
        index += 1
      }
    }
    return nil
  }

  /// Whether the whole of `key` matches.
  public func matches(_ key: String) -> Bool {
    let characters = Array(key)
    // Iterative matching with one backtrack point per `*`, linear in practice.
    var (t, k) = (0, 0)
    var star: (token: Int, key: Int)?
    while k < characters.count {
      if t < tokens.count, case .any = tokens[t] {
        star = (t, k)
        t += 1
      } else if t < tokens.count, Self.accepts(tokens[t], characters[k]) {
        t += 1
        k += 1
      } else if let last = star {
        t = last.token + 1
        k = last.key + 1
        star = (last.token, last.key + 1)
      } else {
        return false
      }
    }
    while t < tokens.count, case .any = tokens[t] { t += 1 }
    return t == tokens.count
  }

  private static func accepts(_ token: Token, _ c: Character) -> Bool {
    switch token {
    case .literal(let expected): c == expected
    case .one: true
    case .any: false
    case .set(let ranges, let negated): ranges.contains { $0.contains(c) } != negated
    }
  }
}
