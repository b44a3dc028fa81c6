#define _GNU_SOURCE
#include "CSceneSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

int scenestore_exchange(const char *a, const char *b) {
    // glibc declares renameat2 only under _GNU_SOURCE; the system call is
    // the same.
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 2 /* RENAME_EXCHANGE */);
}

int scenestore_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

static int scenestore_ofd_byte(int fd, short type, int64_t offset) {
    struct flock lock = { .l_type = type, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0 };
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int scenestore_ofd_lock_byte(int fd, int64_t offset, int exclusive) {
    return scenestore_ofd_byte(fd, exclusive ? F_WRLCK : F_RDLCK, offset);
}

int scenestore_ofd_unlock_byte(int fd, int64_t offset) {
    return scenestore_ofd_byte(fd, F_UNLCK, offset);
}

int scenestore_ofd_byte_is_locked(int fd, int64_t offset) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0 };
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}

static int stat_untimed(int dirfd, const char *path, int flags, struct stat *info) {
    struct statx extended;
    unsigned int mask = STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_UID | STATX_GID | STATX_INO | STATX_SIZE;
    if (statx(dirfd, path, flags, mask, &extended) != 0) {
        if (errno != ENOSYS) return -1;
        if (*path == 0) return fstat(dirfd, info);
        return (flags & AT_SYMLINK_NOFOLLOW) ? lstat(path, info) : stat(path, info);
    }
    memset(info, 0, sizeof *info);
    info->st_mode = extended.stx_mode;
    info->st_nlink = extended.stx_nlink;
    info->st_uid = extended.stx_uid;
    info->st_gid = extended.stx_gid;
    info->st_ino = extended.stx_ino;
    info->st_size = (off_t)extended.stx_size;
    info->st_dev = makedev(extended.stx_dev_major, extended.stx_dev_minor);
    info->st_rdev = makedev(extended.stx_rdev_major, extended.stx_rdev_minor);
    info->st_blksize = extended.stx_blksize;
    return 0;
}

int scenestore_fstat_untimed(int fd, struct stat *info) {
    return stat_untimed(fd, "", AT_EMPTY_PATH, info);
}

int scenestore_stat_untimed(const char *path, int follow, struct stat *info) {
    return stat_untimed(AT_FDCWD, path, follow ? 0 : AT_SYMLINK_NOFOLLOW, info);
}

int scenestore_open_to_read(int directory, const char *path) {
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = openat(directory, path, flags | O_NOATIME);
    if (fd == -1 && errno == EPERM) fd = openat(directory, path, flags);
    return fd;
}
