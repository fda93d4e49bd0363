/* SPDX-License-Identifier: MIT */
/* A SQLite VFS for tests that sees every sync: it records each one, and can keep a copy of
 * each file as it was at its last sync, which is what a power cut would leave on disk.
 *
 * Loaded into the real keychaind with LD_PRELOAD, it installs itself as SQLite's default VFS
 * when KEYCHAIN_FAULT_VFS_LOG or KEYCHAIN_FAULT_VFS_SHADOW is set:
 *   KEYCHAIN_FAULT_VFS_LOG=FILE     appends "sync NAME" (the file's base name) for every xSync
 *                                   that succeeded, and "write NAME" for every xWrite;
 *   KEYCHAIN_FAULT_VFS_SHADOW=DIR   after every sync, copies the whole file to DIR/NAME, so
 *                                   that DIR holds exactly what had reached the disk;
 *   KEYCHAIN_FAULT_VFS_QUOTA=FILE   while FILE holds a number, a write that would make the files
 *                                   of the database's directory larger than that many bytes in
 *                                   all fails with SQLITE_FULL, as on a full disk (writes within
 *                                   a file's present size still succeed).
 * Everything else is passed to the system's VFS unchanged. Never linked into a product. */
#ifndef KEYCHAIN_FAULT_VFS_H
#define KEYCHAIN_FAULT_VFS_H

/* Installs the VFS as the default, with the given log file, shadow directory and quota file
 * (any may be NULL). Returns SQLITE_OK or an SQLite error code. Called by the library's constructor from
 * the environment; callable directly in a test process. */
int keychain_fault_vfs_install(const char *log_path, const char *shadow_dir, const char *quota_path);

#endif
