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
