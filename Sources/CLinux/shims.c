#include "CLinux.h"
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

int CLinux_accept4(int fd, int flags) {
    return accept4(fd, NULL, NULL, flags);
}

int CLinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int CLinux_peer_groups(int fd, gid_t *groups, int max) {
    socklen_t len = (socklen_t)(max * (int)sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) != 0) return -1;
    return (int)(len / sizeof(gid_t));
}

#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>

long CLinux_send_with_fds(int fd, const void *buf, unsigned long len, const int *fds, int nfds) {
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    char control[CMSG_SPACE(sizeof(int) * 253)];
    if (nfds > 253) { errno = EINVAL; return -1; }
    if (nfds > 0) {
        memset(control, 0, sizeof control);
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

long CLinux_recv_with_fds(int fd, void *buf, unsigned long len, int *fds, int maxfds, int *nfds, int *truncated) {
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    struct msghdr msg;
    memset(&msg, 0, sizeof msg);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    char control[CMSG_SPACE(sizeof(int) * 253)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    *nfds = 0;
    *truncated = 0;
    long n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    if (msg.msg_flags & MSG_CTRUNC) *truncated = 1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        const int *received = (const int *)CMSG_DATA(c);
        for (int i = 0; i < count; i++) {
            if (*nfds < maxfds) fds[(*nfds)++] = received[i];
            else { close(received[i]); *truncated = 1; }
        }
    }
    return n;
}

int CLinux_memfd_create(const char *name) {
    return memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

int CLinux_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
}

int CLinux_is_sealed_against_shrinking(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) return -1;
    return (seals & F_SEAL_SHRINK) ? 1 : 0;
}

#include <signal.h>
#include <sys/ioctl.h>
#include <linux/vt.h>
#include <linux/kd.h>

int CLinux_sigrtmin(void) { return SIGRTMIN; }

int CLinux_vt_active(int fd) {
    struct vt_stat state;
    if (ioctl(fd, VT_GETSTATE, &state) < 0) return -1;
    return state.v_active;
}

int CLinux_vt_activate(int fd, int n) {
    if (ioctl(fd, VT_ACTIVATE, n) < 0) return -1;
    return ioctl(fd, VT_WAITACTIVE, n);
}

int CLinux_vt_set_process_mode(int fd, int relsig, int acqsig) {
    struct vt_mode mode = { .mode = VT_PROCESS, .waitv = 0, .relsig = (short)relsig, .acqsig = (short)acqsig, .frsig = 0 };
    return ioctl(fd, VT_SETMODE, &mode);
}

int CLinux_vt_set_auto_mode(int fd) {
    struct vt_mode mode = { .mode = VT_AUTO };
    return ioctl(fd, VT_SETMODE, &mode);
}

int CLinux_vt_reldisp(int fd, int value) { return ioctl(fd, VT_RELDISP, value); }

int CLinux_kd_set_graphics(int fd, int graphics) {
    return ioctl(fd, KDSETMODE, graphics ? KD_GRAPHICS : KD_TEXT);
}

int CLinux_kd_is_graphics(int fd) {
    int mode = 0;
    if (ioctl(fd, KDGETMODE, &mode) < 0) return -1;
    return mode == KD_GRAPHICS ? 1 : 0;
}

int CLinux_kd_keyboard_mode(int fd) {
    int mode = 0;
    if (ioctl(fd, KDGKBMODE, &mode) < 0) return -1;
    return mode;
}

int CLinux_kd_set_keyboard_mode(int fd, int mode) {
    return ioctl(fd, KDSKBMODE, mode);
}

int CLinux_kd_keyboard_off(void) { return K_OFF; }

int CLinux_kd_keyboard_unicode(void) { return K_UNICODE; }

int CLinux_vt_switch(int fd, int n) {
    return ioctl(fd, VT_ACTIVATE, n);
}

#include <linux/uinput.h>
#include <string.h>
#include <unistd.h>

int CLinux_uinput_enable(int fd, int type, int code) {
    if (ioctl(fd, UI_SET_EVBIT, type) < 0) return -1;
    if (type == EV_KEY) return ioctl(fd, UI_SET_KEYBIT, code);
    if (type == EV_ABS) return ioctl(fd, UI_SET_ABSBIT, code);
    return 0;
}

int CLinux_uinput_set_property(int fd, int property) { return ioctl(fd, UI_SET_PROPBIT, property); }

int CLinux_uinput_setup_axis(int fd, int code, int minimum, int maximum, int resolution) {
    struct uinput_abs_setup axis;
    memset(&axis, 0, sizeof axis);
    axis.code = (unsigned short)code;
    axis.absinfo.minimum = minimum;
    axis.absinfo.maximum = maximum;
    axis.absinfo.resolution = resolution;
    return ioctl(fd, UI_ABS_SETUP, &axis);
}

int CLinux_uinput_create(int fd, const char *name, int vendor, int product) {
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = (unsigned short)vendor;
    setup.id.product = (unsigned short)product;
    strncpy(setup.name, name, UINPUT_MAX_NAME_SIZE - 1);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) return -1;
    return ioctl(fd, UI_DEV_CREATE);
}

int CLinux_uinput_destroy(int fd) { return ioctl(fd, UI_DEV_DESTROY); }

int CLinux_uinput_emit(int fd, int type, int code, int value) {
    struct input_event event;
    memset(&event, 0, sizeof event);
    event.type = (unsigned short)type;
    event.code = (unsigned short)code;
    event.value = value;
    return write(fd, &event, sizeof event) == (ssize_t)sizeof event ? 0 : -1;
}

static int CLinux_signal_pipe_write = -1;

static void CLinux_signal_pipe_handler(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    // A full pipe already says the signal came; the byte may be dropped.
    (void)!write(CLinux_signal_pipe_write, &byte, 1);
    errno = saved;
}

int CLinux_signal_pipe(const int *signals, int count) {
    int fds[2];
    if (CLinux_signal_pipe_write >= 0) { errno = EBUSY; return -1; }
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    CLinux_signal_pipe_write = fds[1];
    for (int i = 0; i < count; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = CLinux_signal_pipe_handler;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(signals[i], &sa, NULL) != 0) return -1;
    }
    return fds[0];
}

#include <malloc.h>

int CLinux_heap_trim(void) {
    return malloc_trim(0);
}

void CLinux_heap_usage(unsigned long *held, unsigned long *in_use) {
    struct mallinfo2 info = mallinfo2();
    *held = info.arena + info.hblkhd;
    *in_use = info.uordblks + info.hblkhd;
}

#include <linux/cec.h>

int CLinux_cec_caps(int fd, char *driver, char *name, unsigned *capabilities) {
    struct cec_caps caps;
    memset(&caps, 0, sizeof caps);
    if (ioctl(fd, CEC_ADAP_G_CAPS, &caps) < 0) return -1;
    memcpy(driver, caps.driver, sizeof caps.driver);
    driver[sizeof caps.driver - 1] = 0;
    memcpy(name, caps.name, sizeof caps.name);
    name[sizeof caps.name - 1] = 0;
    *capabilities = caps.capabilities;
    return 0;
}

int CLinux_cec_physical_address(int fd, unsigned short *address) {
    __u16 pa = CEC_PHYS_ADDR_INVALID;
    if (ioctl(fd, CEC_ADAP_G_PHYS_ADDR, &pa) < 0) return -1;
    *address = pa;
    return 0;
}

int CLinux_cec_logical_addresses(int fd, unsigned char *addresses) {
    struct cec_log_addrs la;
    memset(&la, 0, sizeof la);
    if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &la) < 0) return -1;
    int n = 0;
    for (int i = 0; i < la.num_log_addrs && i < CEC_MAX_LOG_ADDRS; i++) {
        if (la.log_addr[i] != CEC_LOG_ADDR_INVALID) addresses[n++] = la.log_addr[i];
    }
    return n;
}

int CLinux_cec_claim(int fd, unsigned char type, unsigned char primary, unsigned char all, const char *osd_name) {
    struct cec_log_addrs la;
    memset(&la, 0, sizeof la);
    la.cec_version = CEC_OP_CEC_VERSION_1_4;
    la.vendor_id = CEC_VENDOR_ID_NONE;
    la.num_log_addrs = 1;
    la.log_addr_type[0] = type;
    la.primary_device_type[0] = primary;
    la.all_device_types[0] = all;
    strncpy(la.osd_name, osd_name, sizeof la.osd_name - 1);
    return ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &la);
}

int CLinux_cec_set_mode(int fd, unsigned mode) {
    __u32 m = mode;
    return ioctl(fd, CEC_S_MODE, &m);
}

int CLinux_cec_transmit(int fd, const unsigned char *bytes, int length, unsigned char reply, unsigned timeout_ms, unsigned *sequence) {
    struct cec_msg msg;
    if (length < 1 || length > CEC_MAX_MSG_SIZE) { errno = EINVAL; return -1; }
    memset(&msg, 0, sizeof msg);
    memcpy(msg.msg, bytes, length);
    msg.len = length;
    msg.reply = reply;
    msg.timeout = reply ? timeout_ms : 0;
    if (ioctl(fd, CEC_TRANSMIT, &msg) < 0) return -1;
    *sequence = msg.sequence;
    return 0;
}

int CLinux_cec_receive(int fd, unsigned char *bytes, unsigned *sequence, unsigned *tx_status, unsigned *rx_status) {
    struct cec_msg msg;
    memset(&msg, 0, sizeof msg);
    if (ioctl(fd, CEC_RECEIVE, &msg) < 0) return -1;
    int length = msg.len > CEC_MAX_MSG_SIZE ? CEC_MAX_MSG_SIZE : (int)msg.len;
    memcpy(bytes, msg.msg, length);
    *sequence = msg.sequence;
    *tx_status = msg.tx_status;
    *rx_status = msg.rx_status;
    return length;
}

int CLinux_cec_event(int fd, unsigned short *physical_address, unsigned short *logical_mask) {
    struct cec_event ev;
    memset(&ev, 0, sizeof ev);
    if (ioctl(fd, CEC_DQEVENT, &ev) < 0) return -1;
    if (ev.event == CEC_EVENT_STATE_CHANGE) {
        *physical_address = ev.state_change.phys_addr;
        *logical_mask = ev.state_change.log_addr_mask;
    }
    return (int)ev.event;
}
