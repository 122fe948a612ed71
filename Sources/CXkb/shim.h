// xkbcommon: keymaps compiled from RMLVO names (xkb-data's layouts) and the key state that
// turns evdev key codes into keysyms and text.
#include <xkbcommon/xkbcommon.h>
