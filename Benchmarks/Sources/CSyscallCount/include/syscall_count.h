#ifndef SCENESTORE_SYSCALL_COUNT_H
#define SCENESTORE_SYSCALL_COUNT_H

/// Whether the process's system-call counters are open: 0 when they are,
/// else the errno of the step that failed (ENOENT: no tracefs mounted, so
/// no id for the raw_syscalls:sys_enter tracepoint).
int scenestore_syscall_count_status(void);

/// The system calls other than futex that every thread of this process has
/// entered since it started (the counters open before main, on the only
/// thread, and every thread created since inherits them), or -1 when the
/// counters are not open. Reading it is one system call, counted.
long long scenestore_syscall_count(void);

/// The futex calls (threads waiting for and waking one another) that every
/// thread of this process has entered since it started, or -1. Reading it
/// is one system call, counted by the other counter.
long long scenestore_futex_count(void);

#endif
