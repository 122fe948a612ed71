// libdrm's public headers: the DRM ioctl wrappers (xf86drm.h), the KMS objects and atomic
// requests (xf86drmMode.h) and the pixel format codes (drm_fourcc.h). The fourcc and modifier
// macros are function-like, so Swift does not import them; LaminaKMS spells the codes it uses.
#include <stdint.h>
#include <xf86drm.h>
#include <xf86drmMode.h>
#include <drm_fourcc.h>
