// libsystemd's service-manager protocol: sd_notify (READY=1, STOPPING=1, WATCHDOG=1) and
// sd_listen_fds (socket activation).
#include <systemd/sd-daemon.h>
