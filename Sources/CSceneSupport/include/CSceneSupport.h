#ifndef SCENESTORE_CSCENESUPPORT_H
#define SCENESTORE_CSCENESUPPORT_H

// Linux calls that Swift's Glibc module does not import (they need
// _GNU_SOURCE, or Swift cannot call them): one C target for them, so the
// libinotifytools module stays the watcher's alone.

/// Swaps two names of one directory atomically: `renameat2` with
/// `RENAME_EXCHANGE` (Linux 3.15; ext4, xfs, btrfs, tmpfs). -1 with errno
/// ENOENT when either is missing, EINVAL where the file system cannot.
int scenestore_exchange(const char *a, const char *b);

/// Names the calling thread (15 bytes at most), as `/proc/self/task/*/comm`
/// shows it.
int scenestore_name_this_thread(const char *name);

#endif
