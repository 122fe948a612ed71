// cairo's image surfaces, paths and strokes: how LaminaRaster draws shape layers on the CPU.
#include <cairo.h>
