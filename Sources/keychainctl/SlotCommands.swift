// SPDX-License-Identifier: MIT
//
// keychainctl slot: the ways to open a collection. Its password is slot 0; a recovery key, made
// here and shown once, is another. Every change is proved by a slot that opens the collection.

import ArgumentParser
import Foundation
import KeychainCrypto
import KeychainDBus
import SecretServiceClient
import SecretServiceProtocol

#if canImport(Glibc)
  import Glibc
#endif

struct SlotCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "slot",
    abstract: "List, add, remove and test the key slots that open a collection (keychaind only).",
    discussion: """
      Every collection opens with its password (slot 0). A recovery key is a second way in: \
      64 letters shown once, which unlock the collection (`keychainctl unlock --recovery`) or \
      set a new password when the old one is lost (`keychainctl passwd --recovery`). A TPM \
      slot opens it on this machine only, with or without a PIN, optionally only while the \
      PCRs named hold today's values (`keychainctl unlock --tpm2`). A FIDO2 slot opens it with \
      a FIDO2 key that supports hmac-secret, touched, and its PIN if it has one \
      (`keychainctl unlock --fido2`). A tpm2+fido2 slot needs both together (`keychainctl \
      unlock --tpm2 --fido2`); every other slot opens alone. Adding or removing a slot needs \
      the password or a recovery key of the collection.
      """,
    subcommands: [ListSlots.self, Add.self, Remove.self, Test.self])

  /// The collection a slot command works on: the one named, else the default one.
  struct Target: ParsableArguments {
    @Option(help: "The collection's object path or label (default: the default collection).")
    var collection: String?

    func path(_ client: SecretServiceClient) async throws -> ObjectPath {
      if let collection { return try await collectionPath(client, collection) }
      guard let path = try await client.readAlias("default") else {
        complain("keychainctl: there is no default collection; name one with --collection")
        throw Exit.failure
      }
      return path
    }
  }

  /// How a change of slots is proved.
  struct Proof: ParsableArguments {
    @Flag(help: "Prove it with a recovery key of the collection instead of its password.")
    var withRecoveryKey = false

    /// The password or recovery key, typed at the terminal or one line of standard input.
    func read() throws -> SecretServiceClient.SlotProof {
      let prompt = withRecoveryKey ? "Recovery key: " : "Keyring password: "
      guard let line = SecretInput.line(prompt: prompt) else {
        throw ValidationError(
          "changing key slots needs the collection's "
            + (withRecoveryKey ? "recovery key" : "password") + "; none was given")
      }
      let secret = SecureBytes(copying: line)
      return withRecoveryKey ? .recoveryKey(secret) : .password(secret)
    }
  }

  struct ListSlots: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list", abstract: "Show a collection's key slots; works while it is locked.")
    @OptionGroup var target: Target
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
      let client = try await connectedClient()
      let slots = try await sayingWhy {
        try await client.keySlots(of: try await target.path(client))
      }
      if json {
        return try printJSON(
          slots.map { slot -> [String: Any] in
            var entry: [String: Any] = [
              "id": slot.id, "kind": slot.kind, "label": slot.label, "created": slot.created,
            ]
            if let lastUsed = slot.lastUsed { entry["lastUsed"] = lastUsed }
            if let policy = slot.policy { entry["policy"] = policy }
            return entry
          })
      }
      for slot in slots {
        let created = Self.date(slot.created)
        let used =
          slot.kind == "password"
          ? "" : ", last used " + (slot.lastUsed.map(Self.date) ?? "never")
        let label = slot.label.isEmpty ? "" : " “\(slot.label)”"
        let policy =
          (slot.policy.map { " (\($0))" } ?? "") + (slot.kind.contains("+") ? ", both needed" : "")
        print("\(slot.id)  \(slot.kind)\(policy)\(label), made \(created)\(used)")
      }
    }

    private static func date(_ seconds: Int64) -> String {
      Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }
  }

  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Add a recovery key, a TPM slot or a FIDO2 key to a collection.",
      discussion: """
        recovery: the key is printed alone on standard output, this once; what to do with it \
        goes to standard error. Keep it on paper or in a password manager of its own: it opens \
        the collection without the password. tpm2: a secret sealed to this machine's TPM \
        (keychaind.conf's tpm2-tcti says where it is); with --with-pin, the TPM gives it back \
        only with the PIN (typed twice, or the line after the password on standard input), \
        and locks out guessing; with --pcrs, only while those PCRs hold today's values. fido2: \
        a credential on the FIDO2 key plugged in (touch it twice); with --with-pin, the key's \
        own PIN, asked at every unlock. tpm2+fido2: both, needed together; --with-pin and \
        --pcrs are the TPM's, --with-fido2-pin the key's.
        """)
    @Argument(help: "The kind of slot: recovery, tpm2, fido2 or tpm2+fido2.") var kind: String
    @OptionGroup var target: Target
    @Option(help: "A label that says where the key is kept.") var label = ""
    @OptionGroup var proof: Proof
    @Flag(help: "tpm2: ask for a new PIN, which opening will need; fido2: the key's PIN.")
    var withPin = false
    @Option(help: "tpm2: SHA-256 PCRs to bind to, such as 7 or 7,14.") var pcrs: String?
    @Flag(help: "tpm2+fido2: the FIDO2 key's PIN.") var withFido2Pin = false
    @Flag(
      help:
        "recovery: also show the key as a QR code on standard error (the default when that is a terminal)."
    ) var qr = false

    func validate() throws {
      guard ["recovery", "tpm2", "fido2", "tpm2+fido2"].contains(kind) else {
        throw ValidationError("'\(kind)': a slot is recovery, tpm2, fido2 or tpm2+fido2")
      }
      guard kind != "recovery" || !withPin else {
        throw ValidationError("--with-pin is for tpm2 and fido2 slots")
      }
      guard kind.hasPrefix("tpm2") || pcrs == nil else {
        throw ValidationError("--pcrs is for tpm2 slots")
      }
      guard kind == "recovery" || !qr else {
        throw ValidationError("--qr is for recovery slots")
      }
      guard kind == "tpm2+fido2" || !withFido2Pin else {
        throw ValidationError("--with-fido2-pin is for tpm2+fido2 slots")
      }
      _ = try pcrList()
    }

    private func pcrList() throws -> [UInt32] {
      guard let pcrs else { return [] }
      let numbers = pcrs.split(separator: ",").map {
        UInt32($0.trimmingCharacters(in: .whitespaces))
      }
      guard !numbers.isEmpty, numbers.allSatisfy({ $0.map { $0 < 24 } ?? false }) else {
        throw ValidationError("'\(pcrs)': PCRs are numbers from 0 to 23, comma-separated")
      }
      return numbers.compactMap { $0 }
    }

    func run() async throws {
      let client = try await connectedClient()
      let path = try await target.path(client)
      let given = try proof.read()
      if kind == "tpm2" {
        let pin = withPin ? try SecretInput.newPassword(prompt: "New TPM PIN: ") : []
        let slot = try await sayingWhy {
          try await client.addTPM2Slot(
            to: path, proof: given, label: label, pin: SecureBytes(copying: pin),
            pcrs: try pcrList())
        }
        return print("slot \(slot) added: this machine's TPM opens \(path.rawValue)")
      }
      if kind == "tpm2+fido2" {
        let tpmPIN = withPin ? try SecretInput.newPassword(prompt: "New TPM PIN: ") : []
        let keyPIN = withFido2Pin ? SecretInput.line(prompt: "FIDO2 key PIN: ") ?? [] : []
        complain("Touch the FIDO2 key when it blinks (twice).")
        let slot = try await sayingWhy {
          try await client.addTPM2AndFIDO2Slot(
            to: path, proof: given, label: label, tpmPIN: SecureBytes(copying: tpmPIN),
            pcrs: try pcrList(), fido2PIN: SecureBytes(copying: keyPIN))
        }
        return print(
          "slot \(slot) added: this machine's TPM and this FIDO2 key open \(path.rawValue) together"
        )
      }
      if kind == "fido2" {
        let pin = withPin ? SecretInput.line(prompt: "FIDO2 key PIN: ") ?? [] : []
        complain("Touch the FIDO2 key when it blinks (twice).")
        let slot = try await sayingWhy {
          try await client.addFIDO2Slot(
            to: path, proof: given, label: label, pin: SecureBytes(copying: pin))
        }
        return print("slot \(slot) added: this FIDO2 key opens \(path.rawValue)")
      }
      let (slot, key) = try await sayingWhy {
        try await client.addRecoverySlot(to: path, proof: given, label: label)
      }
      complain(
        """
        Recovery key for \(path.rawValue) (slot \(slot)). It is shown this once: write it down \
        and keep it apart from this computer. `keychainctl unlock --recovery` opens the \
        collection with it; `keychainctl passwd --recovery` sets a new password with it.
        """)
      if qr || isatty(STDERR_FILENO) != 0 {
        if let code = RecoveryKeyQR.render(key) {
          complain(code)
        } else if qr {
          complain("keychainctl: no QR code: libqrencode (libqrencode4) is not installed")
        }
      }
      FileHandle.standardOutput.write(Data(key.copyBytes() + [UInt8(ascii: "\n")]))
    }
  }

  struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Remove a key slot (not the password's) from a collection.")
    @Argument(help: "The slot's number, as `slot list` shows it.") var slot: Int64
    @OptionGroup var target: Target
    @OptionGroup var proof: Proof

    func run() async throws {
      let client = try await connectedClient()
      let path = try await target.path(client)
      let given = try proof.read()
      try await sayingWhy { try await client.removeSlot(slot, of: path, proof: given) }
      print("slot \(slot) removed")
    }
  }

  struct Test: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check that a password, recovery key or TPM slot opens, changing nothing.",
      discussion: "For a TPM slot, give its PIN, or an empty line for one without.")
    @Argument(help: "The slot's number, as `slot list` shows it.") var slot: Int64
    @OptionGroup var target: Target

    func run() async throws {
      let client = try await connectedClient()
      let path = try await target.path(client)
      let kind = try await client.keySlots(of: path).first { $0.id == slot }?.kind
      let prompt =
        switch kind {
        case "password": "Keyring password: "
        case "tpm2": "TPM PIN (empty for none): "
        case "fido2": "FIDO2 key PIN (empty for none): "
        case "tpm2+fido2": "TPM PIN (empty for none): "
        default: "Recovery key: "
        }
      let device = kind == "tpm2" || kind == "fido2"
      guard let line = SecretInput.line(prompt: prompt) ?? (device ? [] : nil) else {
        throw ValidationError("nothing was given to test")
      }
      // A tpm2+fido2 slot's two PINs go as one secret, a NUL between them.
      let secret =
        kind == "tpm2+fido2"
        ? line + [0] + (SecretInput.line(prompt: "FIDO2 key PIN (empty for none): ") ?? []) : line
      try await sayingWhy {
        try await client.testSlot(slot, of: path, secret: SecureBytes(copying: secret))
      }
      print("slot \(slot) opens \(path.rawValue)")
    }
  }
}

/// Runs `body`; a provider's refusal becomes its reason on one line and exit status 1.
@discardableResult
func sayingWhy<T>(_ body: () async throws -> T) async throws -> T {
  do {
    return try await body()
  } catch let error as DBusError where error.name == .gnomeDenied {
    complain("keychainctl: the password is not correct")
    throw Exit.failure
  } catch let error as DBusError
    where [.accessDenied, .invalidArgs, .noSuchObject, .failed, .limitsExceeded, .isLocked]
    .contains(error.name)
  {
    complain("keychainctl: \(error.message)")
    throw Exit.failure
  }
}
