/* SPDX-License-Identifier: MIT */
/* See include/keychain_fault_vfs.h. Every method forwards to the system VFS; xWrite and xSync
 * also report, and xSync copies the synced file to the shadow directory. */
#include "keychain_fault_vfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static char *log_path;
static char *shadow_dir;
static char *quota_path;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    sqlite3_file base;
    const char *name; /* the base name, inside `path` */
    char path[PATH_MAX];
    sqlite3_file *real; /* lives right after this struct */
} FaultFile;

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void report(const char *what, const char *name) {
    if (!log_path) return;
    pthread_mutex_lock(&report_lock);
    FILE *log = fopen(log_path, "ae");
    if (log) {
        fprintf(log, "%s %s\n", what, name);
        fclose(log);
    }
    pthread_mutex_unlock(&report_lock);
}

/* Copies the file's current content (through SQLite's own handle, so it is what the process
 * wrote) to the shadow directory, replacing the previous copy in one rename. */
static int shadow_copy(FaultFile *file) {
    if (!shadow_dir) return SQLITE_OK;
    sqlite3_int64 size = 0;
    int rc = file->real->pMethods->xFileSize(file->real, &size);
    if (rc != SQLITE_OK) return rc;
    char *bytes = malloc(size > 0 ? (size_t)size : 1);
    if (!bytes) return SQLITE_NOMEM;
    if (size > 0) rc = file->real->pMethods->xRead(file->real, bytes, (int)size, 0);
    char target[PATH_MAX], temporary[PATH_MAX];
    snprintf(target, sizeof target, "%s/%s", shadow_dir, file->name);
    snprintf(temporary, sizeof temporary, "%s/.%s.tmp", shadow_dir, file->name);
    if (rc == SQLITE_OK) {
        int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0 || write(fd, bytes, (size_t)size) != size || close(fd) != 0 ||
            rename(temporary, target) != 0)
            rc = SQLITE_IOERR;
    }
    free(bytes);
    return rc;
}

static int fault_close(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    int rc = file->real->pMethods->xClose(file->real);
    file->real->pMethods = NULL;
    return rc;
}
static int fault_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xRead(file->real, buffer, amount, offset);
}
/* The quota in force (-1: none), read from the quota file on every check so a test can change it. */
static long long current_quota(void) {
    if (!quota_path) return -1;
    FILE *in = fopen(quota_path, "re");
    if (!in) return -1;
    long long quota = -1;
    if (fscanf(in, "%lld", &quota) != 1) quota = -1;
    fclose(in);
    return quota;
}

/* The bytes of every regular file in the directory of `path`. */
static long long directory_bytes(const char *path) {
    char directory[PATH_MAX];
    snprintf(directory, sizeof directory, "%s", path);
    char *slash = strrchr(directory, '/');
    if (!slash) return 0;
    *slash = 0;
    DIR *listing = opendir(directory);
    if (!listing) return 0;
    long long total = 0;
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        struct stat info;
        if (fstatat(dirfd(listing), entry->d_name, &info, 0) == 0 && S_ISREG(info.st_mode))
            total += info.st_size;
    }
    closedir(listing);
    return total;
}

static int fault_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *file = (FaultFile *)f;
    long long quota = current_quota();
    if (quota >= 0) {
        sqlite3_int64 size = 0;
        file->real->pMethods->xFileSize(file->real, &size);
        long long growth = offset + amount - size;
        if (growth > 0 && directory_bytes(file->path) + growth > quota) return SQLITE_FULL;
    }
    int rc = file->real->pMethods->xWrite(file->real, buffer, amount, offset);
    if (rc == SQLITE_OK) report("write", file->name);
    return rc;
}
static int fault_truncate(sqlite3_file *f, sqlite3_int64 size) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xTruncate(file->real, size);
}
static int fault_sync(sqlite3_file *f, int flags) {
    FaultFile *file = (FaultFile *)f;
    int rc = file->real->pMethods->xSync(file->real, flags);
    if (rc == SQLITE_OK) rc = shadow_copy(file);
    if (rc == SQLITE_OK) report("sync", file->name);
    return rc;
}
static int fault_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileSize(file->real, size);
}
static int fault_lock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xLock(file->real, level);
}
static int fault_unlock(sqlite3_file *f, int level) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xUnlock(file->real, level);
}
static int fault_check_reserved_lock(sqlite3_file *f, int *out) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xCheckReservedLock(file->real, out);
}
static int fault_file_control(sqlite3_file *f, int op, void *argument) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}
static int fault_sector_size(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xSectorSize(file->real);
}
static int fault_device_characteristics(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}
/* The shared-memory index is rebuilt from the WAL after a crash: passed through, never kept. */
static int fault_shm_map(sqlite3_file *f, int page, int size, int extend, void volatile **out) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmMap(file->real, page, size, extend, out);
}
static int fault_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmLock(file->real, offset, n, flags);
}
static void fault_shm_barrier(sqlite3_file *f) {
    FaultFile *file = (FaultFile *)f;
    file->real->pMethods->xShmBarrier(file->real);
}
static int fault_shm_unmap(sqlite3_file *f, int delete_flag) {
    FaultFile *file = (FaultFile *)f;
    return file->real->pMethods->xShmUnmap(file->real, delete_flag);
}

/* Version 2: no memory-mapped reads, so that every read and write goes through the methods. */
static const sqlite3_io_methods fault_methods = {
    2,
    fault_close,
    fault_read,
    fault_write,
    fault_truncate,
    fault_sync,
    fault_file_size,
    fault_lock,
    fault_unlock,
    fault_check_reserved_lock,
    fault_file_control,
    fault_sector_size,
    fault_device_characteristics,
    fault_shm_map,
    fault_shm_lock,
    fault_shm_barrier,
    fault_shm_unmap,
    NULL,
    NULL,
};

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *file = (FaultFile *)f;
    if (!name) return real_vfs->xOpen(real_vfs, name, f, flags, out_flags); /* temporary */
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    snprintf(file->path, sizeof file->path, "%s", name);
    file->name = base_name(file->path);
    int rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
    file->base.pMethods = file->real->pMethods ? &fault_methods : NULL;
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    int rc = real_vfs->xDelete(real_vfs, name, sync_dir);
    /* A deleted file (a WAL after its last checkpoint) has no content left to lose. */
    if (rc == SQLITE_OK && shadow_dir) {
        char target[PATH_MAX];
        snprintf(target, sizeof target, "%s/%s", shadow_dir, base_name(name));
        unlink(target);
    }
    return rc;
}
static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}
static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}
static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xDlOpen(real_vfs, name);
}
static void fault_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    real_vfs->xDlError(real_vfs, size, out);
}
static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, handle, symbol);
}
static void fault_dl_close(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    real_vfs->xDlClose(real_vfs, handle);
}
static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xRandomness(real_vfs, size, out);
}
static int fault_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return real_vfs->xSleep(real_vfs, microseconds);
}
static int fault_current_time(sqlite3_vfs *vfs, double *out) {
    (void)vfs;
    return real_vfs->xCurrentTime(real_vfs, out);
}
static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}
static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}

int keychain_fault_vfs_install(const char *log, const char *shadow, const char *quota) {
    if (real_vfs) return SQLITE_MISUSE;
    real_vfs = sqlite3_vfs_find(NULL);
    if (!real_vfs) return SQLITE_ERROR;
    log_path = log ? strdup(log) : NULL;
    shadow_dir = shadow ? strdup(shadow) : NULL;
    quota_path = quota ? strdup(quota) : NULL;
    fault_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(FaultFile) + real_vfs->szOsFile,
        .mxPathname = real_vfs->mxPathname,
        .zName = "keychain-fault",
        .xOpen = fault_open,
        .xDelete = fault_delete,
        .xAccess = fault_access,
        .xFullPathname = fault_full_pathname,
        .xDlOpen = fault_dl_open,
        .xDlError = fault_dl_error,
        .xDlSym = fault_dl_sym,
        .xDlClose = fault_dl_close,
        .xRandomness = fault_randomness,
        .xSleep = fault_sleep,
        .xCurrentTime = fault_current_time,
        .xGetLastError = fault_get_last_error,
        .xCurrentTimeInt64 = fault_current_time_int64,
    };
    return sqlite3_vfs_register(&fault_vfs, 1);
}

__attribute__((constructor)) static void install_from_environment(void) {
    const char *log = getenv("KEYCHAIN_FAULT_VFS_LOG");
    const char *shadow = getenv("KEYCHAIN_FAULT_VFS_SHADOW");
    const char *quota = getenv("KEYCHAIN_FAULT_VFS_QUOTA");
    if (log || shadow || quota) keychain_fault_vfs_install(log, shadow, quota);
}
