// EGL 1.5 core plus the extension enums and function-pointer typedefs Lamina names
// (EGL_PLATFORM_SURFACELESS_MESA, EGL_PLATFORM_DEVICE_EXT, EGL_PLATFORM_GBM_KHR,
// PFNEGLQUERYDEVICESEXTPROC). Extension prototypes are deliberately not declared (eglext.h
// declares them whenever EGL_EGLEXT_PROTOTYPES is defined, whatever its value): libglvnd does
// not export them, so they are looked up with eglGetProcAddress after the extension string
// says they exist.
#undef EGL_EGLEXT_PROTOTYPES
#include <EGL/egl.h>
#include <EGL/eglext.h>
