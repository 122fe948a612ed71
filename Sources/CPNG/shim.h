// libpng's simplified API (png_image_*), which reads and writes whole RGBA images without
// setjmp error handling: errors come back as a return value and a message in the struct.
#include <png.h>
