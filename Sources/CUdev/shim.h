// libudev: the monitor that reports DRM hotplug uevents (HOTPLUG=1 on card0).
#include <libudev.h>
