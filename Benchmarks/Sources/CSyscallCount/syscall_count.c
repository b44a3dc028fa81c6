// Counts the system calls of the whole process with perf counters on the
// raw_syscalls:sys_enter tracepoint. package-benchmark 1.38 does not count
// system calls on Linux (its `syscalls` metric is unsupported there;
// `readSyscalls` and `writeSyscalls` count only the read and write
// families, from /proc/self/io), so the benchmarks count them here.
//
// Two counters, split by a tracepoint filter on the call's number: futex
// calls, the threads handing work to one another, whose number depends on
// which thread was already awake; and every other call, which repeats
// exactly from run to run.
//
// The counters are opened by a constructor, before main, while the main
// thread is the only one, with `inherit` set: every thread the process
// creates later counts into them, and reading one descriptor sums them
// all. Opened later, they would need a descriptor per thread, and the
// reads of those would themselves add a count that depends on the thread
// that reads.
#define _GNU_SOURCE
#include "syscall_count.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int others = -1;
static int futexes = -1;
static int status = ENOENT;

/// The tracepoint's id, from tracefs (its usual mount point or debugfs's).
static long long tracepoint_id(void) {
    static const char *const paths[] = {
        "/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
        "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        char text[32] = {0};
        ssize_t got = read(fd, text, sizeof text - 1);
        close(fd);
        if (got > 0) return strtoll(text, NULL, 10);
    }
    return -1;
}

/// A counter of this thread and the threads it creates, any CPU, counting
/// the calls `filter` selects; -1 with `status` set when it cannot open.
static int open_counter(long long id, const char *filter) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = (uint64_t)id;
    attr.inherit = 1;
    attr.disabled = 1;
    long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        status = errno;
        return -1;
    }
    if (ioctl((int)fd, PERF_EVENT_IOC_SET_FILTER, filter) != 0 || ioctl((int)fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        status = errno;
        close((int)fd);
        return -1;
    }
    return (int)fd;
}

__attribute__((constructor)) static void open_counters(void) {
    long long id = tracepoint_id();
    if (id < 0) return;
    char filter[32];
    snprintf(filter, sizeof filter, "id != %d", (int)SYS_futex);
    others = open_counter(id, filter);
    snprintf(filter, sizeof filter, "id == %d", (int)SYS_futex);
    futexes = open_counter(id, filter);
    if (others >= 0 && futexes >= 0) status = 0;
}

int scenestore_syscall_count_status(void) {
    return status;
}

static long long read_counter(int fd) {
    if (status != 0) return -1;
    uint64_t value = 0;
    if (read(fd, &value, sizeof value) != (ssize_t)sizeof value) return -1;
    return (long long)value;
}

long long scenestore_syscall_count(void) {
    return read_counter(others);
}

long long scenestore_futex_count(void) {
    return read_counter(futexes);
}
