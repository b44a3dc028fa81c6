#ifndef SCENESTORE_CSCENESUPPORT_H
#define SCENESTORE_CSCENESUPPORT_H

#include <stdint.h>

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

/// Takes one byte of the file open as `fd`, at `offset`, with an open file
/// description lock (`F_OFD_SETLK`), without waiting: exclusive
/// (`F_WRLCK`, `fd` open for writing) or shared (`F_RDLCK`). 0, or -1 with
/// errno EAGAIN when another description holds a conflicting one. The
/// kernel drops it when the last descriptor of that description closes,
/// or its process dies.
int scenestore_ofd_lock_byte(int fd, int64_t offset, int exclusive);

/// Lets go of that byte on `fd`'s open file description, whoever else
/// shares it (a child between its fork and its exec does, until the exec
/// closes its copy).
int scenestore_ofd_unlock_byte(int fd, int64_t offset);

/// Whether another open file description holds a lock on that byte that
/// an exclusive one would conflict with (`F_OFD_GETLK`), without taking
/// it: 1 held, 0 free, -1 with errno.
int scenestore_ofd_byte_is_locked(int fd, int64_t offset);

/// `fstat` without the file's times: type and mode, inode, device, links,
/// owner and size; the times are left zero. Asking for a file's change
/// time marks it as seen (multigrain timestamps, Linux 6.13+), so the
/// next write to it must record a distinct, fine-grained time: a dirty
/// inode that the next `fdatasync` writes too, an extra I/O. `statx`
/// with a mask that leaves the times out does not mark it. Falls back
/// to `fstat` where there is no `statx` (ENOSYS).
struct stat;
int scenestore_fstat_untimed(int fd, struct stat *info);

/// The same for the file at `path`: `stat`, or `lstat` unless `follow`.
int scenestore_stat_untimed(const char *path, int follow, struct stat *info);

/// Opens `path` to read, never following a symbolic link, not blocking,
/// closed on exec, and without updating its access time (`O_NOATIME`)
/// where the caller may ask that (it owns the file: otherwise EPERM, and
/// it opens it as usual). An access time updated after each write is a
/// dirty inode that the writer's next `fdatasync` writes too.
/// `path` is relative to `directory` (`AT_FDCWD`: the working directory).
int scenestore_open_to_read(int directory, const char *path);

#endif
