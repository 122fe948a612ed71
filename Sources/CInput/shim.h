// libinput: keyboards, pointers and touchscreens from /dev/input/event*, found and hotplugged
// through udev, opened through the compositor's callbacks (libseat or open(2)).
#include <libinput.h>
