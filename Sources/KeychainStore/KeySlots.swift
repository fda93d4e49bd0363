// SPDX-License-Identifier: MIT
//
// Key slots: the ways to open a collection. Every slot wraps the same data key on its own, as
// LUKS's key slots wrap a volume key, so adding or removing one touches no item and a slot
// never helps against another. The password is slot 0 and keeps the collection row's own
// columns (the format every release has read); the others live in `key_slot`.
//
// The other kinds hold a random secret of their own: a recovery key (32 random bytes shown
// once, written as 64 letters in 8 groups), or a secret sealed to the TPM. Being random, it
// needs no slow KDF: the slot's wrapping key is HKDF-SHA256 of it with the slot's own salt,
// bound to the kind and the collection.

import Foundation
import KeychainCrypto

/// One way to open a collection, as `keychainctl slot list` shows it.
public struct KeySlot: Equatable, Sendable {
  /// What a slot is opened with.
  public enum Kind: String, Sendable, CaseIterable {
    /// The collection's password: slot 0, present in every collection.
    case password
    /// A random key shown once when the slot was made.
    case recovery
    /// A random secret sealed to this machine's TPM (see `SealedSlot`).
    case tpm2
    /// The hmac-secret a FIDO2 key derives from its credential and a salt (`SealedSlot`
    /// keeps both).
    case fido2
    /// Both a TPM and a FIDO2 key, together: the slot's secret is made of both secrets, so
    /// neither opens it alone (a policy of `tpm2 AND fido2`).
    case tpm2AndFIDO2 = "tpm2+fido2"

    /// Whether the slot opens the collection by itself, or only with another device too.
    public var opensAlone: Bool { self != .tpm2AndFIDO2 }
  }

  /// The password slot's id; other slots count from 1.
  public static let passwordID: Int64 = 0

  public var id: Int64
  public var kind: Kind
  public var label: String
  public var created: Date
  /// When the slot last opened the collection; nil when it never did, or for the password,
  /// whose uses are not written down (it opens the collection at every login).
  public var lastUsed: Date?
  /// What else opening it takes, as the slot's maker recorded it (`pin,pcrs=7+14`); nil
  /// when nothing.
  public var policy: String?

  public init(
    id: Int64, kind: Kind, label: String, created: Date, lastUsed: Date?, policy: String? = nil
  ) {
    self.id = id
    self.kind = kind
    self.label = label
    self.created = created
    self.lastUsed = lastUsed
    self.policy = policy
  }
}

/// A slot whose secret is kept by a device: what the device needs to give it back (the TPM's
/// sealed object; a FIDO2 key's salt and credential), and what else that takes.
public struct SealedSlot: Sendable, Equatable {
  public var id: Int64
  public var kind: KeySlot.Kind
  public var sealed: [UInt8]
  public var policy: String?
}

/// What opens a collection, or proves that the person asking for a change of slots may make it.
public enum KeyProof: Sendable {
  case password(SecureBytes)
  case recoveryKey(RecoveryKey)
  /// The secret a device gave back for sealed slot `slot` (the TPM's).
  case sealedSecret(slot: Int64, SecureBytes)

  /// The slot kind this proof opens; nil for a sealed slot's, whose kind its row says.
  public var kind: KeySlot.Kind? {
    switch self {
    case .password: .password
    case .recoveryKey: .recovery
    case .sealedSecret: nil
    }
  }
}

/// A recovery key: 32 random bytes, written as 64 letters of an alphabet that types the same
/// on most keyboard layouts (the "modhex" of YubiKeys and systemd-cryptenroll), in 8 groups of
/// 8 joined by dashes.
public struct RecoveryKey: Sendable, Equatable {
  /// The key's bytes.
  public static let byteCount = 32
  /// The letters, for the values 0 to 15.
  static let alphabet = Array("cbdefghijklnrtuv".utf8)
  static let groupLength = 8

  let bytes: SecureBytes

  init(bytes: SecureBytes) {
    precondition(bytes.count == Self.byteCount)
    self.bytes = bytes
  }

  /// A new key from libgcrypt's long-term random generator.
  public static func generate() -> RecoveryKey {
    RecoveryKey(bytes: SecureBytes.random(count: byteCount, level: .longTerm))
  }

  /// Reads a key as a person types it: upper or lower case, with or without the dashes,
  /// spaces or a final newline. Anything else is `StoreError.invalid`, which says what a
  /// recovery key looks like and never repeats what was typed.
  public init(parsing text: SecureBytes) throws {
    var letters = 0
    var invalid = false
    let bytes = SecureBytes(count: Self.byteCount) { out in
      out.initializeMemory(as: UInt8.self, repeating: 0)
      text.withUnsafeBytes { typed in
        for byte in typed {
          if byte == UInt8(ascii: "-") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\t")
          {
            continue
          }
          let lower = byte | 0x20
          guard let value = Self.alphabet.firstIndex(of: lower), letters < 2 * Self.byteCount
          else {
            invalid = true
            letters += 1
            continue
          }
          out[letters / 2] |= UInt8(value) << (letters % 2 == 0 ? 4 : 0)
          letters += 1
        }
      }
    }
    guard !invalid, letters == 2 * Self.byteCount else {
      throw StoreError.invalid(
        "a recovery key is 64 letters from \(String(decoding: Self.alphabet, as: UTF8.self)), "
          + "in 8 groups of 8; what was given is not one")
    }
    self.bytes = bytes
  }

  /// The key as a person copies it: `cbdefghi-jklnrtuv-…`, 71 characters, in secure memory.
  public var text: SecureBytes {
    let groups = 2 * Self.byteCount / Self.groupLength
    return SecureBytes(count: 2 * Self.byteCount + groups - 1) { out in
      bytes.withUnsafeBytes { key in
        var position = 0
        for byte in key {
          for nibble in [byte >> 4, byte & 0x0F] {
            out[position] = Self.alphabet[Int(nibble)]
            position += 1
            if position % (Self.groupLength + 1) == Self.groupLength, position < out.count {
              out[position] = UInt8(ascii: "-")
              position += 1
            }
          }
        }
      }
    }
  }
}
