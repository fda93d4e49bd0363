// SPDX-License-Identifier: MIT
//
// Each interface of the Secret Service and of keychaind's extensions, declared whole (see
// `Interface`): its methods, properties and signals in the order introspection lists them.
// The daemon's handler tables are checked against these, so that a declared member with no
// handler stops the daemon where the table is built.

import KeychainDBus

extension SecretService {
  /// The interfaces, whole.
  public enum Interfaces {
    public static let service = Interface(
      serviceInterface,
      methods: [
        ServiceMethods.openSession, ServiceMethods.createCollection, ServiceMethods.searchItems,
        ServiceMethods.unlock, ServiceMethods.lock, ServiceMethods.getSecrets,
        ServiceMethods.readAlias, ServiceMethods.setAlias, ServiceMethods.lockService,
        ServiceMethods.changeLock,
      ],
      properties: [ServiceProperty.collections],
      signals: [
        ServiceSignals.collectionCreated, ServiceSignals.collectionDeleted,
        ServiceSignals.collectionChanged,
      ])

    public static let collection = Interface(
      collectionInterface,
      methods: [
        CollectionMethods.delete, CollectionMethods.searchItems, CollectionMethods.createItem,
      ],
      properties: [
        CollectionProperty.items, CollectionProperty.label, CollectionProperty.locked,
        CollectionProperty.created, CollectionProperty.modified,
      ],
      signals: [
        CollectionSignals.itemCreated, CollectionSignals.itemDeleted,
        CollectionSignals.itemChanged,
      ])

    public static let item = Interface(
      itemInterface, methods: [ItemMethods.delete, ItemMethods.getSecret, ItemMethods.setSecret],
      properties: [
        ItemProperty.locked, ItemProperty.attributes, ItemProperty.label, ItemProperty.type,
        ItemProperty.created, ItemProperty.modified,
      ])

    public static let session = Interface(sessionInterface, methods: [SessionMethods.close])

    public static let prompt = Interface(
      promptInterface, methods: [PromptMethods.prompt, PromptMethods.dismiss],
      signals: [PromptSignals.completed])

    public static let gnomeKeyring = Interface(
      gnomeInternalInterface,
      methods: [
        GnomeKeyringMethods.changeWithMasterPassword, GnomeKeyringMethods.changeWithPrompt,
        GnomeKeyringMethods.createWithMasterPassword, GnomeKeyringMethods.unlockWithMasterPassword,
      ])

    public static let importer = Interface(
      importInterface,
      methods: [
        ImportMethods.importGnomeKeyring, ImportMethods.importOO7, ImportMethods.importKWallet,
        ImportMethods.importBackup,
      ],
      signals: [ImportSignals.progress])

    public static let locking = Interface(
      lockingInterface,
      methods: [
        LockingMethods.getLockPolicy, LockingMethods.setLockPolicy, LockingMethods.lastLoginUnlock,
      ])

    public static let access = Interface(
      accessInterface,
      methods: [
        AccessMethods.identify, AccessMethods.list, AccessMethods.allow,
        AccessMethods.allowCredential, AccessMethods.revoke, AccessMethods.runsCommand,
        AccessMethods.learn, AccessMethods.startLearning, AccessMethods.learning,
        AccessMethods.applyLearning, AccessMethods.discardLearning, AccessMethods.groupAdd,
        AccessMethods.groupRemove, AccessMethods.groupOf, AccessMethods.verifyAudit,
        AccessMethods.flushAudit, AccessMethods.mode, AccessMethods.setMode,
      ])

    public static let slots = Interface(
      slotsInterface,
      methods: [
        SlotMethods.list, SlotMethods.addRecovery, SlotMethods.addTPM2, SlotMethods.addFIDO2,
        SlotMethods.remove, SlotMethods.test, SlotMethods.unlockWithRecoveryKey,
        SlotMethods.unlockWithTPM2, SlotMethods.unlockWithFIDO2, SlotMethods.addTPM2AndFIDO2,
        SlotMethods.unlockWithTPM2AndFIDO2, SlotMethods.resetPassword,
      ])

    public static let shares = Interface(
      sharesInterface, methods: [ShareMethods.create, ShareMethods.list, ShareMethods.revoke])

    /// The Flatpak secret portal's backend.
    public static let portal = Interface(
      PortalMethods.interface, methods: [PortalMethods.retrieveSecret],
      properties: [PortalMethods.version])
  }
}
