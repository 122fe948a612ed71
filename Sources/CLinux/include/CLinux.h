#pragma once
// Linux headers that Glibc's Swift module does not bring in (epoll, timerfd, signalfd), and
// shims for the calls that need _GNU_SOURCE, which is defined for this target in Package.swift.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/eventfd.h>
#include <sys/vfs.h>       // statfs: is the session journal in memory (tmpfs)?
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>

/// accept4(2): glibc declares it only under _GNU_SOURCE, which Swift's Glibc module is not
/// built with.
int CLinux_accept4(int fd, int flags);

/// SO_PEERCRED: `struct ucred` is also _GNU_SOURCE-only. Returns 0 and fills the outputs, or -1.
int CLinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// SO_PEERGROUPS: the peer's supplementary groups (Linux 4.13+), up to `max`. Returns their
/// count, or -1 (errno set; ERANGE when there are more than `max`).
int CLinux_peer_groups(int fd, gid_t *groups, int max);

/// sendmsg(2) of `len` bytes with `nfds` descriptors as one SCM_RIGHTS message (MSG_NOSIGNAL).
/// The CMSG_* macros are not callable from Swift. Returns bytes sent or -1 (errno set).
long CLinux_send_with_fds(int fd, const void *buf, unsigned long len, const int *fds, int nfds);

/// recvmsg(2) of up to `len` bytes; descriptors that came with them (SCM_RIGHTS, received
/// close-on-exec) go to `fds` (room for `maxfds`), their count to `*nfds`. `*truncated` is set
/// when the kernel had more descriptors than fit (it closed those). Returns bytes or -1.
long CLinux_recv_with_fds(int fd, void *buf, unsigned long len, int *fds, int maxfds, int *nfds, int *truncated);

/// memfd_create(2) with MFD_CLOEXEC | MFD_ALLOW_SEALING.
int CLinux_memfd_create(const char *name);

/// Seals a memfd against shrinking, growing and further sealing. Returns 0 or -1.
int CLinux_memfd_seal(int fd);

/// Whether the descriptor is sealed against shrinking: 1 yes, 0 no, -1 not sealable (errno).
int CLinux_is_sealed_against_shrinking(int fd);

// MARK: The C library's heap (malloc.h is not in Glibc's Swift module)

/// malloc_trim(0): gives the free pages of every malloc arena back to the kernel, from anywhere
/// in the heap (not only its top). Returns 1 when memory was released, else 0.
int CLinux_heap_trim(void);

/// mallinfo2(): bytes malloc holds from the kernel (arenas and mmapped blocks) to `*held`, and
/// bytes of them in use to `*in_use`.
void CLinux_heap_usage(unsigned long *held, unsigned long *in_use);

// MARK: Virtual terminals (linux/vt.h, linux/kd.h): the ioctls are variadic in C, and
// SIGRTMIN is a function-like macro, so Swift reaches them through these shims.

/// SIGRTMIN: the first real-time signal glibc leaves to programs.
int CLinux_sigrtmin(void);

/// VT_GETSTATE: the active VT's number (1…), or -1 (errno set).
int CLinux_vt_active(int fd);

/// VT_ACTIVATE then VT_WAITACTIVE: switches to VT `n` and waits until it shows. 0 or -1.
int CLinux_vt_activate(int fd, int n);

/// VT_SETMODE VT_PROCESS: the kernel asks this process (signal `relsig`) before switching
/// away and tells it (`acqsig`) when switched back. 0 or -1.
int CLinux_vt_set_process_mode(int fd, int relsig, int acqsig);

/// VT_SETMODE VT_AUTO: the kernel switches without asking. 0 or -1.
int CLinux_vt_set_auto_mode(int fd);

/// VT_RELDISP: 1 allows a pending switch away, 0 refuses it, 2 (VT_ACKACQ) acknowledges a
/// switch back. 0 or -1.
int CLinux_vt_reldisp(int fd, int value);

/// KDSETMODE: 1 KD_GRAPHICS (the console stops drawing), 0 KD_TEXT. 0 or -1.
int CLinux_kd_set_graphics(int fd, int graphics);

/// KDGETMODE: 1 graphics, 0 text, or -1 (errno set).
int CLinux_kd_is_graphics(int fd);

/// KDGKBMODE: the console keyboard's mode (K_RAW, K_XLATE, K_MEDIUMRAW, K_UNICODE, K_OFF), or -1.
int CLinux_kd_keyboard_mode(int fd);

/// KDSKBMODE: sets the console keyboard's mode. 0 or -1.
int CLinux_kd_set_keyboard_mode(int fd, int mode);

/// K_OFF: the console ignores the keyboard (a compositor reads it through evdev).
int CLinux_kd_keyboard_off(void);

/// K_UNICODE: the console's usual keyboard mode.
int CLinux_kd_keyboard_unicode(void);

/// VT_ACTIVATE without waiting: asks the kernel to switch to VT `n`. 0 or -1.
int CLinux_vt_switch(int fd, int n);

// MARK: uinput (linux/uinput.h): a virtual input device made by a test tool (lamina-uinput).
// The ioctls are variadic and struct input_event's time field differs by architecture, so
// Swift reaches them through these shims. The event codes (EV_ABS, ABS_MT_SLOT, BTN_TOUCH…)
// are plain macros from linux/input-event-codes.h.
#include <linux/input-event-codes.h>

/// UI_SET_EVBIT `type`, then UI_SET_KEYBIT or UI_SET_ABSBIT `code` for EV_KEY or EV_ABS. 0 or -1.
int CLinux_uinput_enable(int fd, int type, int code);

/// UI_SET_PROPBIT (INPUT_PROP_DIRECT for a touchscreen). 0 or -1.
int CLinux_uinput_set_property(int fd, int property);

/// UI_ABS_SETUP: the axis `code` runs minimum…maximum, `resolution` units per mm. 0 or -1.
int CLinux_uinput_setup_axis(int fd, int code, int minimum, int maximum, int resolution);

/// UI_DEV_SETUP (a virtual bus device named `name`) then UI_DEV_CREATE. 0 or -1.
int CLinux_uinput_create(int fd, const char *name, int vendor, int product);

/// UI_DEV_DESTROY: the device goes (udev reports it removed). 0 or -1.
int CLinux_uinput_destroy(int fd);

/// Writes one struct input_event. 0 or -1.
int CLinux_uinput_emit(int fd, int type, int code, int value);

// MARK: Signals as readable bytes

/// Installs a handler for each of `signals` that writes the signal's number (one byte) to a
/// non-blocking close-on-exec pipe, and returns the pipe's read end (or -1, errno set). For
/// programs that cannot block a signal in every thread first, as signalfd needs (a Swift
/// program's runtime has started threads by then): a handler may only call async-signal-safe
/// functions, so it lives in C with the pipe's write end in a static. Call once per process.
int CLinux_signal_pipe(const int *signals, int count);

// MARK: HDMI-CEC (linux/cec.h): the adapter's ioctls are variadic and take structs with
// fixed arrays, so Swift reaches them through these shims, with plain values and buffers.
#include <linux/cec.h>

/// CEC_ADAP_G_CAPS: the driver's and the adapter's names (`driver`, `name`: 32 bytes each,
/// NUL-terminated) and its capabilities (CEC_CAP_*). 0 or -1 (errno set).
int CLinux_cec_caps(int fd, char *driver, char *name, unsigned *capabilities);

/// CEC_ADAP_G_PHYS_ADDR: the physical address (0xffff: none, no sink connected). 0 or -1.
int CLinux_cec_physical_address(int fd, unsigned short *address);

/// CEC_ADAP_G_LOG_ADDRS: the logical addresses claimed (up to CEC_MAX_LOG_ADDRS) to
/// `addresses`. Their count (0: none claimed, the adapter is unconfigured), or -1.
int CLinux_cec_logical_addresses(int fd, unsigned char *addresses);

/// CEC_ADAP_S_LOG_ADDRS: asks for one logical address of `type` (CEC_LOG_ADDR_TYPE_*), as a
/// device whose primary type is `primary` (CEC_OP_PRIM_DEVTYPE_*) and types `all`
/// (CEC_OP_ALL_DEVTYPE_*), CEC 1.4, without a vendor id, named `osd_name` (at most 14 bytes).
/// On a descriptor opened O_NONBLOCK it returns at once and the kernel claims the address in
/// the background (once the physical address is valid). 0 or -1 (EBUSY: already configured).
int CLinux_cec_claim(int fd, unsigned char type, unsigned char primary, unsigned char all, const char *osd_name);

/// CEC_S_MODE: the descriptor's initiator and follower modes (CEC_MODE_*). 0 or -1.
int CLinux_cec_set_mode(int fd, unsigned mode);

/// CEC_TRANSMIT of `length` bytes (1…16). With `reply` non-zero the kernel waits up to
/// `timeout_ms` for that opcode from the destination. On an O_NONBLOCK descriptor it returns
/// once queued; the outcome (and any reply) comes later from CEC_RECEIVE with the same
/// sequence number, stored in `*sequence`. 0 or -1.
int CLinux_cec_transmit(int fd, const unsigned char *bytes, int length, unsigned char reply, unsigned timeout_ms, unsigned *sequence);

/// CEC_RECEIVE without waiting: a message for this descriptor (`*sequence` 0), or a transmit's
/// outcome (its sequence, `tx_status`, and a reply's bytes where one was asked for). `bytes`
/// has room for 16. Returns the length, or -1 (EAGAIN: nothing queued).
int CLinux_cec_receive(int fd, unsigned char *bytes, unsigned *sequence, unsigned *tx_status, unsigned *rx_status);

/// CEC_DQEVENT: the next event's kind (CEC_EVENT_STATE_CHANGE, CEC_EVENT_LOST_MSGS, …); for a
/// state change the new physical address and logical address mask. The kind, or -1 (EAGAIN).
int CLinux_cec_event(int fd, unsigned short *physical_address, unsigned short *logical_mask);
