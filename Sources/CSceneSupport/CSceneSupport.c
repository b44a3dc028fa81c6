#define _GNU_SOURCE
#include "CSceneSupport.h"

#include <fcntl.h>
#include <sys/prctl.h>
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

static struct flock scenestore_whole_file_write_lock(void) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0, .l_pid = 0 };
    return lock;
}

int scenestore_ofd_try_lock(int fd) {
    struct flock lock = scenestore_whole_file_write_lock();
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int scenestore_ofd_unlock(int fd) {
    struct flock lock = scenestore_whole_file_write_lock();
    lock.l_type = F_UNLCK;
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int scenestore_ofd_is_locked(int fd) {
    struct flock lock = scenestore_whole_file_write_lock();
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}
