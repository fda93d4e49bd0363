/* SPDX-License-Identifier: MIT */
/* libdbus-1 as seen from Swift. Nothing else: the iterator API needs no C help. */
#include <dbus/dbus.h>
