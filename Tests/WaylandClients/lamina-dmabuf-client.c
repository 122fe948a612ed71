/*
 * A Wayland app whose window is a dma-buf (zwp_linux_dmabuf_v1), for AppDMABufVMTests.
 *
 * Its buffers are dumb buffers of the kernel's virtual GEM device (vgem, /dev/dri/cardN whose
 * driver is "vgem"), exported as dma-bufs: no GPU and no authentication with laminad's display
 * device are needed. XRGB8888, linear, filled from the CPU:
 *   picture A: left half red, right half blue;  picture B: left half green, right half white.
 * It commits A; on SIGUSR1 it commits B. It prints, one line each, flushed:
 *   "formats N"                 the XRGB8888 modifiers laminad offered (N > 0)
 *   "memfd refused"             (with --memfd first) a memory file passed as a dma-buf was refused
 *   "shown A" / "shown B"       a frame callback came after the commit of A / B
 *   "shown A again"             after a commit attaching nothing (A stays, not taken again)
 *   "released A"                laminad released buffer A (after B replaced it)
 * Usage: lamina-dmabuf-client [--memfd] WIDTH HEIGHT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <poll.h>
#include <xf86drm.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#include "linux-dmabuf-unstable-v1-client-protocol.h"

#define XRGB8888 0x34325258u

static struct wl_compositor *compositor;
static struct xdg_wm_base *wm_base;
static struct zwp_linux_dmabuf_v1 *dmabuf;
static int xrgb_modifiers;
static int configured, running = 1;
static volatile sig_atomic_t switch_wanted;
static struct wl_buffer *buffers[2];
static int shown = -1;

static void fail(const char *what) {
	printf("error %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

static void dmabuf_format(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format) {}
static void dmabuf_modifier(void *data, struct zwp_linux_dmabuf_v1 *d, uint32_t format, uint32_t hi, uint32_t lo) {
	if (format == XRGB8888) xrgb_modifiers++;
}
static const struct zwp_linux_dmabuf_v1_listener dmabuf_listener = { dmabuf_format, dmabuf_modifier };

static void ping(void *data, struct xdg_wm_base *b, uint32_t serial) { xdg_wm_base_pong(b, serial); }
static const struct xdg_wm_base_listener wm_listener = { ping };

static void global(void *data, struct wl_registry *r, uint32_t name, const char *iface, uint32_t version) {
	if (!strcmp(iface, "wl_compositor")) compositor = wl_registry_bind(r, name, &wl_compositor_interface, 4);
	else if (!strcmp(iface, "xdg_wm_base")) {
		wm_base = wl_registry_bind(r, name, &xdg_wm_base_interface, 1);
		xdg_wm_base_add_listener(wm_base, &wm_listener, NULL);
	} else if (!strcmp(iface, "zwp_linux_dmabuf_v1") && version >= 3) {
		dmabuf = wl_registry_bind(r, name, &zwp_linux_dmabuf_v1_interface, 3);
		zwp_linux_dmabuf_v1_add_listener(dmabuf, &dmabuf_listener, NULL);
	}
}
static void global_remove(void *data, struct wl_registry *r, uint32_t name) {}
static const struct wl_registry_listener registry_listener = { global, global_remove };

static void surface_configure(void *data, struct xdg_surface *s, uint32_t serial) {
	xdg_surface_ack_configure(s, serial);
	configured = 1;
}
static const struct xdg_surface_listener surface_listener = { surface_configure };
static void top_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states) {}
static void top_close(void *data, struct xdg_toplevel *t) { running = 0; }
static const struct xdg_toplevel_listener top_listener = { top_configure, top_close };

static void released(void *data, struct wl_buffer *b) {
	if (b == buffers[0] && shown == 1) { printf("released A\n"); fflush(stdout); }
}
static const struct wl_buffer_listener buffer_listener = { released };

static struct wl_surface *surface;
static const struct wl_callback_listener frame_listener;

/* After A is first shown, one commit that attaches nothing (only a frame callback): laminad
 * must keep showing A without taking it again ("shown A again"). */
static void frame_done(void *data, struct wl_callback *cb, uint32_t time) {
	int which = (int)(intptr_t)data;
	if (which == 2) printf("shown A again\n");
	else printf("shown %c\n", 'A' + which);
	fflush(stdout);
	wl_callback_destroy(cb);
	if (which == 0) {
		struct wl_callback *again = wl_surface_frame(surface);
		wl_callback_add_listener(again, &frame_listener, (void *)(intptr_t)2);
		wl_surface_commit(surface);
	}
}
static const struct wl_callback_listener frame_listener = { frame_done };

/* The vgem device's primary node, or -1. */
static int open_vgem(void) {
	for (int i = 0; i < 8; i++) {
		char path[32];
		snprintf(path, sizeof path, "/dev/dri/card%d", i);
		int fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0) continue;
		drmVersionPtr v = drmGetVersion(fd);
		int vgem = v && !strcmp(v->name, "vgem");
		drmFreeVersion(v);
		if (vgem) return fd;
		close(fd);
	}
	return -1;
}

/* A dumb buffer as a dma-buf, filled with `left` and `right` halves (0xRRGGBB). */
static int make_picture(int dev, int w, int h, uint32_t left, uint32_t right, uint32_t *pitch) {
	struct drm_mode_create_dumb create = { .width = w, .height = h, .bpp = 32 };
	if (drmIoctl(dev, DRM_IOCTL_MODE_CREATE_DUMB, &create)) fail("DRM_IOCTL_MODE_CREATE_DUMB");
	int fd;
	if (drmPrimeHandleToFD(dev, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd)) fail("drmPrimeHandleToFD");
	struct drm_mode_map_dumb map = { .handle = create.handle };
	if (drmIoctl(dev, DRM_IOCTL_MODE_MAP_DUMB, &map)) fail("DRM_IOCTL_MODE_MAP_DUMB");
	uint8_t *p = mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, dev, map.offset);
	if (p == MAP_FAILED) fail("mmap");
	for (int y = 0; y < h; y++) {
		uint32_t *row = (uint32_t *)(p + y * create.pitch);
		for (int x = 0; x < w; x++) row[x] = 0xff000000u | (x < w / 2 ? left : right);
	}
	munmap(p, create.size);
	*pitch = create.pitch;
	return fd;
}

static void created(void *data, struct zwp_linux_buffer_params_v1 *p, struct wl_buffer *b) {
	*(int *)data = 1;
}
static void create_failed(void *data, struct zwp_linux_buffer_params_v1 *p) { *(int *)data = -1; }
static const struct zwp_linux_buffer_params_v1_listener params_listener = { created, create_failed };

static void on_usr1(int sig) { switch_wanted = 1; }

int main(int argc, char **argv) {
	int memfd_first = argc > 1 && !strcmp(argv[1], "--memfd");
	if (argc < 3 + memfd_first) { fprintf(stderr, "usage: %s [--memfd] WIDTH HEIGHT\n", argv[0]); return 2; }
	int w = atoi(argv[1 + memfd_first]), h = atoi(argv[2 + memfd_first]);
	signal(SIGUSR1, on_usr1);
	struct wl_display *display = wl_display_connect(NULL);
	if (!display) fail("wl_display_connect");
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, NULL);
	wl_display_roundtrip(display);
	wl_display_roundtrip(display);
	if (!compositor || !wm_base) { printf("error no wl_compositor or xdg_wm_base\n"); return 1; }
	if (!dmabuf) { printf("no zwp_linux_dmabuf_v1\n"); fflush(stdout); return 3; }
	printf("formats %d\n", xrgb_modifiers);
	fflush(stdout);
	int dev = open_vgem();
	if (dev < 0) { printf("error no vgem device\n"); return 1; }

	if (memfd_first) {
		/* A memory file is no dma-buf: laminad must refuse it (the params' failed event). */
		int m = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
		if (m < 0 || ftruncate(m, (off_t)w * h * 4)) fail("memfd");
		struct zwp_linux_buffer_params_v1 *p = zwp_linux_dmabuf_v1_create_params(dmabuf);
		int result = 0;
		zwp_linux_buffer_params_v1_add_listener(p, &params_listener, &result);
		zwp_linux_buffer_params_v1_add(p, m, 0, 0, w * 4, 0, 0);
		zwp_linux_buffer_params_v1_create(p, w, h, XRGB8888, 0);
		while (result == 0 && wl_display_dispatch(display) >= 0) {}
		printf(result < 0 ? "memfd refused\n" : "memfd accepted\n");
		fflush(stdout);
		zwp_linux_buffer_params_v1_destroy(p);
		close(m);
	}

	uint32_t colours[2][2] = { { 0xff0000, 0x0000ff }, { 0x00ff00, 0xffffff } };
	for (int i = 0; i < 2; i++) {
		uint32_t pitch;
		int fd = make_picture(dev, w, h, colours[i][0], colours[i][1], &pitch);
		struct zwp_linux_buffer_params_v1 *p = zwp_linux_dmabuf_v1_create_params(dmabuf);
		/* Linear (modifier 0): the layout of a dumb buffer. */
		zwp_linux_buffer_params_v1_add(p, fd, 0, 0, pitch, 0, 0);
		buffers[i] = zwp_linux_buffer_params_v1_create_immed(p, w, h, XRGB8888, 0);
		zwp_linux_buffer_params_v1_destroy(p);
		wl_buffer_add_listener(buffers[i], &buffer_listener, NULL);
		close(fd);
	}

	surface = wl_compositor_create_surface(compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(wm_base, surface);
	xdg_surface_add_listener(xs, &surface_listener, NULL);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
	xdg_toplevel_add_listener(top, &top_listener, NULL);
	xdg_toplevel_set_app_id(top, "lamina-dmabuf-client");
	wl_surface_commit(surface);
	while (!configured && wl_display_dispatch(display) >= 0) {}

	for (int next = 0; running; ) {
		if (next < 2 && (next == 0 || switch_wanted)) {
			wl_surface_attach(surface, buffers[next], 0, 0);
			wl_surface_damage(surface, 0, 0, w, h);
			struct wl_callback *cb = wl_surface_frame(surface);
			wl_callback_add_listener(cb, &frame_listener, (void *)(intptr_t)next);
			wl_surface_commit(surface);
			shown = next++;
		}
		wl_display_flush(display);
		struct pollfd pfd = { wl_display_get_fd(display), POLLIN, 0 };
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR) break;
		if ((pfd.revents & POLLIN) && wl_display_dispatch(display) < 0) break;
		if (pfd.revents & (POLLHUP | POLLERR)) break;
	}
	return 0;
}
