#ifndef SCENES_CSQLITE_SHIM_H
#define SCENES_CSQLITE_SHIM_H

// SQLite's C API, for the benchmark that compares SceneStore with it.
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift
/// does not import.
static inline void (*scenes_sqlite_transient(void))(void *) {
    return SQLITE_TRANSIENT;
}

#endif
