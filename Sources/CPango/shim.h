// Pango laid out and drawn through cairo (fontconfig picks the fonts, HarfBuzz shapes them):
// how LaminaRaster draws text layers on the CPU. cairo's own declarations come from CCairo.
#include <cairo.h>
#include <pango/pangocairo.h>
// fontconfig: the font files clients register (FontconfigRegistry) join its application fonts.
#include <fontconfig/fontconfig.h>
