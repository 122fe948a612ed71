// wlroots 0.15's protocol types over libwayland-server (LaminaWayland): the display, the
// globals clients bind (compositor, subcompositor, xdg-shell, seat, data device, viewporter,
// presentation, output, linux-dmabuf), the renderer interface laminad's buffer-only renderer
// fills in, and the pixman renderer it hands shm buffers to; laminad's own renderer draws. wlroots marks these headers unstable: the define says we know.
#ifndef LAMINA_CWLROOTS_SHIM_H
#define LAMINA_CWLROOTS_SHIM_H
#define WLR_USE_UNSTABLE 1
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/render/wlr_texture.h>
#include <wlr/render/pixman.h>
#include <wlr/render/allocator.h>
#include <wlr/render/interface.h>
#include <wlr/render/drm_format_set.h>
#include <wlr/render/dmabuf.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/interfaces/wlr_keyboard.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/interfaces/wlr_output.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_output.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_linux_dmabuf_v1.h>
#include <wlr/util/log.h>
#endif
