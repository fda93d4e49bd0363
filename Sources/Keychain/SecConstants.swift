// SPDX-License-Identifier: MIT
//
// The `kSec…` constants of the seeds, with Apple's raw strings: a dictionary built from them
// means the same on Linux as on Apple platforms, and persists the same way.

import Foundation

// MARK: Item classes

/// The key of the item class in a query.
public let kSecClass: CFString = "class"
/// A generic password: `kSecAttrService` and `kSecAttrAccount` tell items apart.
public let kSecClassGenericPassword: CFString = "genp"
/// An Internet password: server, account, protocol, port, path and more.
public let kSecClassInternetPassword: CFString = "inet"
/// A cryptographic key (`SecKey`).
public let kSecClassKey: CFString = "keys"
/// A certificate.
public let kSecClassCertificate: CFString = "cert"
/// An identity: a certificate with its private key.
public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

/// When the item may be read (accepted and stored; Linux has one lock state).
public let kSecAttrAccessible: CFString = "pdmn"
/// The access group of the item.
public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item is synchronized (stored as given).
public let kSecAttrSynchronizable: CFString = "sync"
/// When the item was created (set by the keychain).
public let kSecAttrCreationDate: CFString = "cdat"
/// When the item last changed (set by the keychain).
public let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description of the kind of item.
public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment.
public let kSecAttrComment: CFString = "icmt"
/// The item's creator code (a number).
public let kSecAttrCreator: CFString = "crtr"
/// The item's type code (a number).
public let kSecAttrType: CFString = "type"
/// The user-visible label; the Secret Service `Label`.
public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from users.
public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a placeholder without a valid password.
public let kSecAttrIsNegative: CFString = "nega"
/// The account name.
public let kSecAttrAccount: CFString = "acct"
/// The service a generic password belongs to.
public let kSecAttrService: CFString = "svce"
/// Application-defined data of a generic password.
public let kSecAttrGeneric: CFString = "gena"
/// The security domain (realm) of an Internet password.
public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The server of an Internet password.
public let kSecAttrServer: CFString = "srvr"
/// The protocol of an Internet password (a `kSecAttrProtocol…` value).
public let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme (a `kSecAttrAuthenticationType…` value).
public let kSecAttrAuthenticationType: CFString = "atyp"
/// The port of an Internet password.
public let kSecAttrPort: CFString = "port"
/// The path of an Internet password.
public let kSecAttrPath: CFString = "path"
/// Public, private or symmetric (a `kSecAttrKeyClass…` value).
public let kSecAttrKeyClass: CFString = "kcls"
/// A key's application label (by default, derived from its public key).
public let kSecAttrApplicationLabel: CFString = "klbl"
/// A key's application tag: your way to find it again.
public let kSecAttrApplicationTag: CFString = "atag"
/// The key algorithm (a `kSecAttrKeyType…` value).
public let kSecAttrKeyType: CFString = "type"
/// The key size in bits.
public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// The effective key size in bits.
public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Whether a generated key is stored in the keychain.
public let kSecAttrIsPermanent: CFString = "perm"
/// Whether the key can encrypt.
public let kSecAttrCanEncrypt: CFString = "encr"
/// Whether the key can decrypt.
public let kSecAttrCanDecrypt: CFString = "decr"
/// Whether the key can derive other keys.
public let kSecAttrCanDerive: CFString = "drve"
/// Whether the key can sign.
public let kSecAttrCanSign: CFString = "sign"
/// Whether the key can verify signatures.
public let kSecAttrCanVerify: CFString = "vrfy"
/// Whether the key can wrap other keys.
public let kSecAttrCanWrap: CFString = "wrap"
/// Whether the key can unwrap other keys.
public let kSecAttrCanUnwrap: CFString = "unwp"
/// The certificate type.
public let kSecAttrCertificateType: CFString = "ctyp"
/// The certificate issuer (DER).
public let kSecAttrIssuer: CFString = "issr"
/// The certificate serial number (DER).
public let kSecAttrSerialNumber: CFString = "slnr"
/// The certificate subject (DER).
public let kSecAttrSubject: CFString = "subj"

// MARK: Attribute values

/// Readable while the keychain is unlocked (the default).
public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock.
public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Readable while unlocked; never migrated.
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock; never migrated.
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Readable while unlocked, with a passcode set.
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// HTTP.
public let kSecAttrProtocolHTTP: CFString = "http"
/// HTTPS.
public let kSecAttrProtocolHTTPS: CFString = "htps"
/// FTP.
public let kSecAttrProtocolFTP: CFString = "ftp "
/// FTP over TLS.
public let kSecAttrProtocolFTPS: CFString = "ftps"
/// SSH.
public let kSecAttrProtocolSSH: CFString = "ssh "
/// IMAP.
public let kSecAttrProtocolIMAP: CFString = "imap"
/// IMAP over TLS.
public let kSecAttrProtocolIMAPS: CFString = "imps"
/// SMTP.
public let kSecAttrProtocolSMTP: CFString = "smtp"
/// POP3.
public let kSecAttrProtocolPOP3: CFString = "pop3"
/// POP3 over TLS.
public let kSecAttrProtocolPOP3S: CFString = "pops"
/// LDAP.
public let kSecAttrProtocolLDAP: CFString = "ldap"
/// SMB.
public let kSecAttrProtocolSMB: CFString = "smb "
/// The default authentication scheme.
public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"
/// HTTP Basic.
public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// HTTP Digest.
public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// An HTML form.
public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// NTLM.
public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// RSA keys.
public let kSecAttrKeyTypeRSA: CFString = "42"
/// Elliptic-curve keys (the same as `kSecAttrKeyTypeECSECPrimeRandom`).
public let kSecAttrKeyTypeEC: CFString = "73"
/// Elliptic-curve keys on a NIST prime curve (P-256 here).
public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// A public key.
public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key.
public let kSecAttrKeyClassSymmetric: CFString = "2"

// MARK: Search, return and value keys

/// How many matches to return: `kSecMatchLimitOne`, `kSecMatchLimitAll` or a count.
public let kSecMatchLimit: CFString = "m_Limit"
/// Return the first match only (the default).
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Return every match.
public let kSecMatchLimitAll: CFString = "m_LimitAll"
/// Compare string attributes without regard to case.
public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// Return the item's data (`Data`).
public let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes (`[String: Any]`).
public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference (`SecKey` for keys).
public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (`Data`).
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// The item's data: the password or key bytes.
public let kSecValueData: CFString = "v_Data"
/// An item reference, such as a `SecKey`.
public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference returned earlier.
public let kSecValuePersistentRef: CFString = "v_PersistentRef"
/// Accepted for source compatibility; Linux has one keychain model.
public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// Whether the keychain may ask the user to unlock: `kSecUseAuthenticationUIAllow`, `…Fail` or
/// `…Skip`.
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Ask the user when an item is locked (the default).
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Fail with `errSecInteractionNotAllowed` instead of asking.
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Leave locked items out of the results instead of asking.
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// Attributes for the private key of `SecKeyCreateRandomKey`.
public let kSecPrivateKeyAttrs: CFString = "private"
/// Attributes for the public key of `SecKeyCreateRandomKey`.
public let kSecPublicKeyAttrs: CFString = "public"
