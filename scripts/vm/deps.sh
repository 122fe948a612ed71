#!/bin/sh
# Debian packages the KMS backend builds against and the VM tests boot with.
# Run as root (CI does); `apt-get update` first where the lists are stale.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends \
    libdrm-dev libgbm-dev libudev-dev libsystemd-dev libinput-dev libxkbcommon-dev xkb-data \
    libegl-dev libegl-mesa0 libgles-dev libgl1-mesa-dri \
    qemu-system-x86 busybox-static seatd udev
# The vkms guest (overlay planes): vmkms.py builds vkms.ko out of tree from Debian's
# linux-source with the guest kernel's linux-headers (which it installs: their version follows
# the kernel it fetches); these are the tools that build needs.
apt-get install -y -q --no-install-recommends make gcc xz-utils
