// librsvg: how LaminaRaster parses SVG images and draws them with cairo at the scale shown.
#include <librsvg/rsvg.h>
