/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE /* struct ucred */
#include "keychain_process.h"
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <time.h>

int keychain_disable_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

int keychain_spawn(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                   char *const argv[], char *const envp[]) {
    posix_spawnattr_t attributes;
    int rc = posix_spawnattr_init(&attributes);
    if (rc != 0) return rc;
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    /* Neither can have a disposition to reset, and some C libraries reject them. */
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    rc = posix_spawnattr_setsigmask(&attributes, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    /* ETXTBSY: another process still holds the program open for writing. That is brief when it
     * is a child that a thread of ours forked while the program was being written (a test
     * writing a scripted pinentry) or a package manager replacing it; wait a little and try
     * again, as Go's os/exec does (golang/go#22315). */
    for (int attempt = 1; rc == 0; attempt++) {
        rc = posix_spawnp(pid, file, actions, &attributes, argv, envp);
        if (rc != ETXTBSY || attempt == 20) break;
        struct timespec pause = {0, 5000000L * attempt};
        nanosleep(&pause, NULL);
        rc = 0;
    }
    posix_spawnattr_destroy(&attributes);
    return rc;
}

void keychain_tune_allocator(void) {
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
    mallopt(M_ARENA_MAX, 2);
}

int keychain_release_memory(void) {
    return malloc_trim(0);
}

/* Whether the loader wrote into the object's read-only segments (text relocations): then
 * those pages are no longer the file's, and must stay. */
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_DYNAMIC) continue;
        for (const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + header->p_vaddr);
             entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static int release_segments(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    size_t *released = context;
    /* The vDSO is the kernel's, not a file. */
    if (info->dlpi_name && strstr(info->dlpi_name, "linux-vdso")) return 0;
    if (has_text_relocations(info)) return 0;
    long page = sysconf(_SC_PAGESIZE);
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W)) continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr) & ~(uintptr_t)(page - 1);
        uintptr_t end = info->dlpi_addr + header->p_vaddr + header->p_memsz;
        end = (end + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
        if (end > start && madvise((void *)start, end - start, MADV_DONTNEED) == 0) {
            *released += end - start;
        }
    }
    return 0;
}

size_t keychain_release_startup_pages(void) {
    size_t released = 0;
    dl_iterate_phdr(release_segments, &released);
    return released;
}

int keychain_peer_credentials(int fd, pid_t *pid, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}


/* A bus daemon of keychaind's (its private session bus, a share's bus), started by a thread that then only waits for it:
 * the parent-death signal is tied to the thread that forked, so that thread must live as long
 * as the process. */
struct bound_child {
    const char *path;
    char *const *argv;
    int output;
    pid_t pid;
    pthread_mutex_t lock;
    pthread_cond_t started;
};

static void *run_bound_child(void *context) {
    struct bound_child *child = context;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Only async-signal-safe calls from here to exec. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        /* A group of its own: a Ctrl-C at the terminal is for the parent, which stops cleanly
         * and then ends this child. */
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        for (int number = 1; number < NSIG; number++) {
            if (number != SIGKILL && number != SIGSTOP) signal(number, SIG_DFL);
        }
        sigprocmask(SIG_SETMASK, &none, NULL);
        dup2(child->output, 1);
        if (child->output != 1) close(child->output);
        execv(child->path, child->argv);
        _exit(127);
    }
    pthread_mutex_lock(&child->lock);
    child->pid = pid;
    pthread_cond_signal(&child->started);
    /* From here on the record is the caller's to free. */
    pthread_mutex_unlock(&child->lock);
    if (pid > 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    }
    return NULL;
}

int keychain_spawn_bound(pid_t *pid, const char *path, char *const argv[], int output) {
    /* One record per child (keychaind starts a bus per share, maybe two at once): the thread
     * stops touching it once it has signalled the pid, and this caller frees it after. */
    struct bound_child *child = calloc(1, sizeof *child);
    if (child == NULL) return ENOMEM;
    *child = (struct bound_child){.path = path, .argv = argv, .output = output, .pid = 0};
    pthread_mutex_init(&child->lock, NULL);
    pthread_cond_init(&child->started, NULL);
    pthread_t thread;
    pthread_mutex_lock(&child->lock);
    int rc = pthread_create(&thread, NULL, run_bound_child, child);
    if (rc == 0) {
        pthread_detach(thread);
        while (child->pid == 0) pthread_cond_wait(&child->started, &child->lock);
    }
    pthread_mutex_unlock(&child->lock);
    pid_t started = child->pid;
    pthread_cond_destroy(&child->started);
    pthread_mutex_destroy(&child->lock);
    free(child);
    if (rc != 0) return rc;
    if (started < 0) return EAGAIN;
    *pid = started;
    return 0;
}

int keychain_memory_file(const char *name, const unsigned char *bytes, size_t length) {
    int fd = memfd_create(name, MFD_ALLOW_SEALING);
    if (fd < 0) return -errno;
    size_t written = 0;
    while (written < length) {
        ssize_t n = write(fd, bytes + written, length - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int error = n < 0 ? errno : EIO;
            close(fd);
            return -error;
        }
        written += (size_t)n;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0 ||
        lseek(fd, 0, SEEK_SET) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}
