// SPDX-License-Identifier: MIT
// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (Apple's function names are the API: code written for the Security framework calls them.)
//
// The `errSec…` result codes the seeds use, with Apple's numbers, and their messages.

import KeychainCore

/// No error.
public let errSecSuccess: OSStatus = KeychainStatus.success.code
/// The function or operation is not implemented.
public let errSecUnimplemented: OSStatus = KeychainStatus.unimplemented.code
/// The disk holding the keychain is full; nothing was written.
public let errSecDskFull: OSStatus = KeychainStatus.diskFull.code
/// One or more parameters passed to the function are not valid.
public let errSecParam: OSStatus = KeychainStatus.param.code
/// Memory could not be allocated.
public let errSecAllocate: OSStatus = KeychainStatus.allocate.code
/// The user canceled the operation (dismissed the unlock prompt).
public let errSecUserCanceled: OSStatus = KeychainStatus.userCanceled.code
/// No keychain is available: no Secret Service provider answered, or the store cannot open.
public let errSecNotAvailable: OSStatus = KeychainStatus.notAvailable.code
/// The keychain cannot be modified.
public let errSecReadOnly: OSStatus = KeychainStatus.readOnly.code
/// The password is not correct.
public let errSecAuthFailed: OSStatus = KeychainStatus.authFailed.code
/// The keychain does not exist.
public let errSecNoSuchKeychain: OSStatus = KeychainStatus.noSuchKeychain.code
/// An item with the same primary key already exists.
public let errSecDuplicateItem: OSStatus = KeychainStatus.duplicateItem.code
/// No item matches the query.
public let errSecItemNotFound: OSStatus = KeychainStatus.itemNotFound.code
/// The item is locked and the query does not allow asking the user.
public let errSecInteractionNotAllowed: OSStatus = KeychainStatus.interactionNotAllowed.code
/// Data could not be decoded.
public let errSecDecode: OSStatus = KeychainStatus.decode.code
/// The query names an access group the program is not in (on keychaind: any group but the
/// program's own).
public let errSecMissingEntitlement: OSStatus = KeychainStatus.missingEntitlement.code
/// A component (the bus, the provider) failed in an unexpected way.
public let errSecInternalComponent: OSStatus = KeychainStatus.internalComponent.code
/// A signature did not verify.
public let errSecVerifyFailed: OSStatus = KeychainStatus.verifyFailed.code

/// A human-readable message for `status` (Apple's wording); `reserved` must be nil.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?)
  -> CFString?
{
  KeychainStatus(status).message
}
