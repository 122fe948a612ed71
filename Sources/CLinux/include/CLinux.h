#pragma once
// Linux headers that Glibc's Swift module does not bring in (epoll, timerfd, signalfd), and
// shims for the calls that need _GNU_SOURCE, which is defined for this target in Package.swift.
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/types.h>

/// accept4(2): glibc declares it only under _GNU_SOURCE, which Swift's Glibc module is not
/// built with.
int CLinux_accept4(int fd, int flags);

/// SO_PEERCRED: `struct ucred` is also _GNU_SOURCE-only. Returns 0 and fills the outputs, or -1.
int CLinux_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);
