// Mesa's generic buffer manager: scan-out buffers and the window surfaces EGL draws into on
// EGL_PLATFORM_GBM_KHR.
#include <gbm.h>
