// SPDX-License-Identifier: MIT
//
// The Secret Service's signals, declared once with their Swift types (see `Emits`): the daemon
// describes and sends them from these, and clients subscribe and read them through them.

import KeychainDBus

extension SecretService {
  /// `org.freedesktop.Secret.Service`'s signals.
  public enum ServiceSignals {
    public static let collectionCreated = Emits<ObjectPath>(
      serviceInterface, "CollectionCreated", ["collection"])
    public static let collectionDeleted = Emits<ObjectPath>(
      serviceInterface, "CollectionDeleted", ["collection"])
    public static let collectionChanged = Emits<ObjectPath>(
      serviceInterface, "CollectionChanged", ["collection"])
  }

  /// `org.freedesktop.Secret.Collection`'s signals.
  public enum CollectionSignals {
    public static let itemCreated = Emits<ObjectPath>(collectionInterface, "ItemCreated", ["item"])
    public static let itemDeleted = Emits<ObjectPath>(collectionInterface, "ItemDeleted", ["item"])
    public static let itemChanged = Emits<ObjectPath>(collectionInterface, "ItemChanged", ["item"])
  }

  /// `org.freedesktop.Secret.Prompt`'s one signal: the prompt is over; its result is `ao` for
  /// an unlock, `o` for a creation.
  public enum PromptSignals {
    public static let completed = Emits<Bool, DBusValue>(
      promptInterface, "Completed", ["dismissed", "result"])
  }

  /// keychaind's `org.keychain_linux.Import`: while ImportGnomeKeyring runs, the file being
  /// read and how far into its items.
  public enum ImportSignals {
    public static let progress = Emits<String, UInt32, UInt32, UInt32, UInt32>(
      importInterface, "Progress", ["file", "file_index", "files", "items_done", "items"])
  }
}
