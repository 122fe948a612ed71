// OpenGL ES 3.0 core entry points (libGLESv2 exports the ES 3 API too).
#include <GLES3/gl3.h>
