#ifndef SCENESTORE_CINOTIFYTOOLS_SHIM_H
#define SCENESTORE_CINOTIFYTOOLS_SHIM_H

// inotifytools.h only forward-declares struct inotify_event.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

/// The flexible array member `name[]` is not imported into Swift.
static inline const char *scenestore_inotify_event_name(const struct inotify_event *event) {
    return event->name;
}

/// Names the calling thread (15 bytes at most), as `/proc/self/task/*/comm`
/// shows it: pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc
/// module does not define.
#include <sys/prctl.h>
static inline int scenestore_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

/// Swaps two names of one directory atomically: `renameat2` with
/// `RENAME_EXCHANGE` (Linux 3.15; ext4, xfs, btrfs, tmpfs). -1 with errno
/// ENOENT when either is missing, EINVAL where the file system cannot.
/// glibc declares renameat2 only under _GNU_SOURCE.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
static inline int scenestore_exchange(const char *a, const char *b) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
}

#endif
