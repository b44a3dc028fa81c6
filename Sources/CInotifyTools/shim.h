#ifndef SCENESTORE_CINOTIFYTOOLS_SHIM_H
#define SCENESTORE_CINOTIFYTOOLS_SHIM_H

// inotifytools.h only forward-declares struct inotify_event.
#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>

/// The flexible array member `name[]` is not imported into Swift.
static inline const char *scenestore_inotify_event_name(const struct inotify_event *event) {
    return event->name;
}

#endif
