// OpenGL ES 3.0 core entry points (libGLESv2 exports the ES 3 API too), and the extension
// enums (GL_TEXTURE_EXTERNAL_OES); extension functions are looked up with eglGetProcAddress,
// so their prototypes stay undeclared (GL_GLEXT_PROTOTYPES is not defined).
#include <GLES3/gl3.h>
#include <GLES2/gl2ext.h>
