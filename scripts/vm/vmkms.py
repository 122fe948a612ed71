#!/usr/bin/env python3
"""Boot a throw-away QEMU guest with a real KMS device and run a command in it.

The guest is Debian's kernel (fetched once into a cache, unpacked, not installed), a small
busybox initramfs, and the host's root file system mounted read-only over 9p with a tmpfs
overlay, so host-built binaries run unchanged. It uses TCG (never KVM: see
shared/vm-kms.md) and boots the uncompressed vmlinux through qboot.

The guest command talks to the host over the serial console, one request per line:

  VMKMS_SHOT NAME [HEAD]       screendump of the display device (head HEAD, default 0) to
                               OUT/NAME.ppm; the host then writes a newline to the console
  VMKMS_RESIZE HEAD W H        RFB SetDesktopSize on the VNC server tied to HEAD (hotplug of a
                               virtio-gpu head; needs --vnc-head HEAD); then a newline
  VMKMS_QMP COMMAND [JSON]     runs a QMP command with JSON arguments (input-send-event with
                               --input: key presses, tablet moves and clicks); then a newline
  VMKMS_FILE NAME BASE64       a file from the guest (its bytes in base64, on one line), written
                               to OUT/NAME (the guest's writes stay in its tmpfs otherwise)
  VMKMS_BOOTED                 printed by /init once it is ready to run the command; the host
                               answers with the guest's speed factor (below)
  VMKMS_CALIBRATE SECONDS      how long the command's first request to laminad took (a Swift
                               process started, one round trip); the host answers with the
                               speed factor, raised where that was slower than the boot said
  VMKMS_BURST NAME MAX [MS]    starts screendumps of head 0 one after another, one every MS
                               milliseconds (default 50; each holds qemu's lock, so back to back
                               they starve a TCG guest), until VMKMS_BURST_END or MAX of them (no
                               answer: the guest goes on at once). Each is sampled on a 16x10 grid (cell
                               centres) into a line of OUT/NAME.jsonl, {"i", "t" (host seconds),
                               "px": [[r, g, b], …] row by row}; every 200th is kept whole as
                               OUT/NAME-I.ppm
  VMKMS_BURST_END              stops the burst
  VMKMS_EXIT=N                 printed by /init when the command ends

Speed: the guest's boot (qemu started → VMKMS_BOOTED) is timed against REFERENCE_BOOT_SECONDS,
the boot on the machine the tests' waits were written for, and its first request to laminad
(VMKMS_CALIBRATE) against REFERENCE_REQUEST_SECONDS. The larger ratio (never below 1, at most
MAX_FACTOR), times LAMINA_VM_SLOWDOWN if set, is the speed factor: --timeout counts from the
boot, multiplied by it, and the command sees it as $LAMINA_VM_FACTOR (then as the answer to
VMKMS_CALIBRATE) to scale its own waits.
LAMINA_VM_SLOW=N runs qemu only 1/N of the time (stopped and continued every 0.1 s, as cpulimit
does), a guest N times slower, to try the tests as a slow machine would run them.

Usage:
  vmkms.py prepare                         fetch the kernel and build the initramfs (cached)
  vmkms.py run --script FILE --out DIR [--device virtio|bochs|vga|vkms] [--outputs N]
               [--vnc-head H] [--input] [--systemd] [--timeout S]   (S at the reference speed)

With --systemd the guest boots the host's systemd as PID 1 (udev, the journal, seatd and
units as on a machine) and runs the script as vmkms-script.service, on the serial console;
the guest powers off when it ends. Without it the script runs in a chroot from /init.

Exit status: the guest command's, 124 on timeout, 77 when qemu cannot run at all here (with
the reason on stderr), 1 on a harness error. Only the Python standard library is used.
"""

import argparse
import base64
import fcntl
import glob
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tarfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("LAMINA_VM_CACHE", os.path.join(REPO, ".cache", "vm"))
SKIP = 77

# The guest's boot (qemu started → /init ready to run the command) on the machine the tests'
# waits were written for: this project's 2-core machine with little else running boots in
# 3.2–4.1 s (2026-11-27); the reference is a little under its quickest.
REFERENCE_BOOT_SECONDS = 3.0
# The guest command's first `laminactl stats` there (a Swift process started from the host's
# files over 9p, one round trip); estimated from runs here: 1.1-2.0 s at boot factors 2-2.5.
# A busy host can slow this far more than the boot (5.5 s at a boot factor of 3; among other
# builds, 4-7 s a call at a boot factor of 4).
REFERENCE_REQUEST_SECONDS = 0.8
# A guest this many times slower still gets an end: a hung one must not run for ever.
MAX_FACTOR = 12.0
# The boot's own limit, before there is a factor (at the reference speed, times the knobs).
BOOT_LIMIT_SECONDS = 60.0

MODULES = [
    "virtio_ring", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio", "virtio_pci",
    "9pnet", "9pnet_virtio", "netfs", "fscache", "9p", "overlay",
    "drm", "drm_kms_helper", "drm_shmem_helper", "virtio_dma_buf", "virtio-gpu",
    "ttm", "drm_ttm_helper", "drm_vram_helper", "bochs",
    # Input: QEMU's virtio keyboard and tablet, /dev/input/event*, and uinput for made-up devices.
    "virtio_input", "evdev", "uinput",
    # Video: vivid, the kernel's virtual camera, whose buffers export as dma-bufs (the
    # zero-copy video path is tested with them).
    "mc", "videodev", "videobuf2-common", "videobuf2-v4l2", "videobuf2-memops", "videobuf2-vmalloc",
    "videobuf2-dma-contig", "v4l2-dv-timings", "v4l2-tpg", "rc-core", "cec", "vivid",
]

INIT = r"""#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod /modules/$m.ko 2>/dev/null; done
mkdir -p /host /newroot /rw
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /host || echo "VMKMS_ERROR 9p mount failed"
mount -t tmpfs tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot || echo "VMKMS_ERROR overlay failed"
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
mount -t tmpfs tmpfs /newroot/run
# /tmp stays the overlay (writable, and showing the host's /tmp): a checkout or build there,
# as in CI's fresh clones, must be visible to the guest.
mkdir -p /newroot/dev/pts /newroot/dev/shm /newroot/run/user/0
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
chmod 700 /newroot/run/user/0
# Mesa's shader cache, shared by the guests: a cold laminad start compiles its shaders through
# LLVM under TCG (~9 s of a start on an idle machine); a warm one loads them, and the same code runs either way.
# The host's folder holds packs of cache entries (tar files): the guest unpacks them into its
# own cache (a tmpfs of its own, as fast as on a machine, not over the host's cache, which is
# for the host's CPU and slow to walk over 9p) and, when the command ends, keep.sh packs what
# Mesa added into a new one (one file over 9p, written under a temporary name; vmkms.py merges
# the packs on the host).
if grep -q vmshadercache /newroot/proc/cmdline; then
    c=/newroot/run/vmkms-shader m=/newroot/root/.cache/mesa_shader_cache
    mkdir -p $c/share $m
    if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 shadercache $c/share && mount -t tmpfs tmpfs $m; then
        for p in $c/share/*.tar; do [ ! -f "$p" ] || tar -xf "$p" -C $m 2>/dev/null; done
        touch $c/since
        cat >$c/keep.sh <<'EOT'
c=/run/vmkms-shader
cd /root/.cache/mesa_shader_cache 2>/dev/null || exit 0
find . -type f -newer $c/since ! -name index ! -name '*.tmp' >$c/new
[ -s $c/new ] || exit 0
n=$(cat /proc/sys/kernel/random/uuid)
tar -cf "$c/share/.$n.part" -T $c/new && mv "$c/share/.$n.part" "$c/share/$n.tar"
EOT
    else
        echo "VMKMS_WARNING the shared shader cache did not mount: shaders are compiled cold"
    fi
fi
# --device vkms: the kernel's virtual KMS driver, built for this kernel by the host (Debian's
# kernel does not ship it), with its overlay planes.
vkms=$(sed -n 's/.*vmvkms=\([^ ]*\).*/\1/p' /newroot/proc/cmdline)
if [ -n "$vkms" ]; then insmod "/newroot$vkms" enable_overlay=1 || echo "VMKMS_ERROR vkms did not load"; fi
i=0
while [ ! -e /newroot/dev/dri/card0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
script=$(sed -n 's/.*vmscript=\([^ ]*\).*/\1/p' /newroot/proc/cmdline)
# The host timed the boot up to here: it answers with how much slower than the reference this
# guest runs, and the command's waits scale by it.
echo "VMKMS_BOOTED"
read factor
if grep -q vmsystemd /newroot/proc/cmdline; then
    # --systemd: boot the host's systemd as PID 1 (a real boot, with udev, the journal and
    # services as on a machine); vmkms.target runs the script on the serial console and
    # powers off after it.
    # The host may be a container: its marker would make the guest's systemd think it is one
    # too (a console getty, the kernel command line ignored).
    rm -f /newroot/.dockerenv /newroot/run/.containerenv
    mkdir -p /newroot/etc/systemd/system /newroot/etc/systemd/system.conf.d
    # systemd-tmpfiles-setup empties /tmp at boot (D /tmp), which here is the host's /tmp seen
    # through the overlay, where a checkout or build may be; and walking it over 9p takes a minute.
    ln -sf /dev/null /newroot/etc/systemd/system/systemd-tmpfiles-setup.service
    ln -sf /dev/null /newroot/etc/systemd/system/systemd-tmpfiles-clean.timer
    printf '[Manager]\nShowStatus=no\n' >/newroot/etc/systemd/system.conf.d/vmkms.conf
    ln -sf vmkms.target /newroot/etc/systemd/system/default.target
    cat >/newroot/etc/systemd/system/vmkms.target <<EOT
[Unit]
Description=vmkms guest script
Requires=basic.target
Wants=vmkms-script.service
After=basic.target vmkms-script.service
AllowIsolate=yes
EOT
    cat >/newroot/etc/systemd/system/vmkms-script.service <<EOT
[Unit]
Description=vmkms guest script
[Service]
Type=exec
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root XDG_RUNTIME_DIR=/run/user/0 TERM=dumb LAMINA_VM_FACTOR=${factor:-1}
ExecStart=/bin/sh -c '/bin/sh "\$\$0"; r=\$\$?; [ ! -f /run/vmkms-shader/keep.sh ] || /bin/sh /run/vmkms-shader/keep.sh; echo "VMKMS_EXIT=\$\$r"' $script
StandardInput=tty-force
StandardOutput=tty
TTYPath=/dev/ttyS0
TTYReset=no
TTYVHangup=no
TimeoutStartSec=infinity
SuccessAction=poweroff-immediate
FailureAction=poweroff-immediate
EOT
    exec switch_root /newroot /lib/systemd/systemd
fi
chroot /newroot /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root XDG_RUNTIME_DIR=/run/user/0 TERM=dumb LAMINA_VM_FACTOR="${factor:-1}" /bin/sh "$script" </dev/console
r=$?
[ ! -f /newroot/run/vmkms-shader/keep.sh ] || chroot /newroot /bin/sh /run/vmkms-shader/keep.sh
echo "VMKMS_EXIT=$r"
poweroff -f
"""


class HarnessError(Exception):
    pass


class Unavailable(Exception):
    """qemu cannot run here, or the kernel cannot be had: the tests skip with this reason."""


def log(msg):
    print(f"vmkms: {msg}", file=sys.stderr, flush=True)


# MARK: kernel and initramfs

def kernel_package():
    out = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True)
    m = re.search(r"Depends:\s*(linux-image-\S+)", out.stdout)
    if not m:
        raise Unavailable("apt-cache cannot resolve linux-image-amd64 (run apt-get update?): " + out.stderr.strip())
    return m.group(1)


def fetch_kernel():
    """Returns (vmlinux path, modules dir), downloading and unpacking Debian's kernel once.
    Holds a lock on the cache meanwhile: two harnesses started together on an empty cache
    must not unpack over each other."""
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "kernel.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _fetch_kernel_locked()


def _fetch_kernel_locked():
    stamp = os.path.join(CACHE, "kernel.json")
    if os.path.exists(stamp):
        info = json.load(open(stamp))
        if os.path.exists(info["vmlinux"]) and os.path.isdir(info["modules"]):
            return info["vmlinux"], info["modules"]
    package = kernel_package()
    debs = glob.glob(os.path.join(CACHE, package + "_*.deb"))
    if not debs:
        log(f"downloading {package}")
        r = subprocess.run(["apt-get", "download", package], cwd=CACHE, capture_output=True, text=True)
        debs = glob.glob(os.path.join(CACHE, package + "_*.deb"))
        if r.returncode != 0 or not debs:
            raise Unavailable(f"apt-get download {package} failed: {r.stderr.strip()[-300:]}")
    root = os.path.join(CACHE, "kernel")
    shutil.rmtree(root, ignore_errors=True)
    subprocess.run(["dpkg", "-x", debs[0], root], check=True)
    vmlinuz = glob.glob(os.path.join(root, "boot", "vmlinuz-*"))
    if not vmlinuz:
        raise HarnessError(f"{debs[0]} has no /boot/vmlinuz-*")
    data = open(vmlinuz[0], "rb").read()
    start = data.find(b"\xfd7zXZ\x00")
    if start < 0:
        raise HarnessError("no xz stream in " + vmlinuz[0])
    elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[start:])
    if not elf.startswith(b"\x7fELF"):
        raise HarnessError("the xz stream in the bzImage is not an ELF vmlinux")
    vmlinux = os.path.join(CACHE, "vmlinux")
    open(vmlinux, "wb").write(elf)
    modules = glob.glob(os.path.join(root, "lib", "modules", "*"))[0]
    json.dump({"package": package, "vmlinux": vmlinux, "modules": modules}, open(stamp, "w"))
    return vmlinux, modules


def cpio_newc(entries):
    """entries: (name, mode, data bytes or None for a directory)."""
    out = io.BytesIO()
    ino = 1

    def pad(n):
        out.write(b"\0" * ((4 - n % 4) % 4))

    for name, mode, data in entries + [("TRAILER!!!", 0, b"")]:
        body = data or b""
        fields = [ino, mode, 0, 0, 1 if data is not None else 2, 0, len(body), 0, 0, 0, 0, len(name) + 1, 0]
        header = b"070701" + b"".join(b"%08X" % f for f in fields)
        out.write(header + name.encode() + b"\0")
        pad(len(header) + len(name) + 1)
        out.write(body)
        pad(len(body))
        ino += 1
    return out.getvalue()


def build_initramfs(modules_dir):
    ko = {}
    for path in glob.glob(os.path.join(modules_dir, "kernel", "**", "*.ko"), recursive=True):
        ko[os.path.basename(path)[:-3].replace("-", "_")] = path
    busybox = shutil.which("busybox") or "/bin/busybox"
    if not os.path.exists(busybox):
        raise Unavailable("busybox is not installed (apt-get install busybox-static)")
    key = hashlib.sha256((INIT + modules_dir + " ".join(MODULES)).encode() + open(busybox, "rb").read()).hexdigest()[:16]
    target = os.path.join(CACHE, f"initramfs-{key}.cpio.gz")
    if os.path.exists(target):
        return target
    entries = [(d, 0o40755, None) for d in ["bin", "dev", "proc", "sys", "modules", "host", "newroot", "rw", "tmp"]]
    entries.append(("bin/busybox", 0o100755, open(busybox, "rb").read()))
    entries.append(("init", 0o100755, INIT.encode()))
    order = []
    for name in MODULES:
        path = ko.get(name.replace("-", "_"))
        if path is None:
            continue  # built into this kernel
        entries.append((f"modules/{name}.ko", 0o100644, open(path, "rb").read()))
        order.append(name)
    entries.append(("modules.order", 0o100644, ("\n".join(order) + "\n").encode()))
    tmp = f"{target}.{os.getpid()}.tmp"
    with gzip.open(tmp, "wb", compresslevel=1) as f:
        f.write(cpio_newc(entries))
    os.replace(tmp, target)
    return target


# What the test build of vkms adds to Linux 6.1's (bump the version when it changes: the built
# module is cached under it).
VKMS_PATCH_VERSION = "damage1"


def patch_vkms(path):
    """vkms in Linux 6.1 has no FB_DAMAGE_CLIPS property (nor does 6.1's virtio-gpu, and debugfs
    lists no plane's clips), so nothing shows the damage a compositor sends. The test build adds
    the property to vkms's planes and logs, on each plane update, the clips the kernel parsed from
    the commit's blob (`vkms: plane N damage clip X1,Y1-X2,Y2` in the kernel log); composition
    is unchanged (vkms still composes whole frames)."""
    text = open(path).read()
    update = "\tif (!new_state->crtc || !fb)\n\t\treturn;\n"
    init = "\tdrm_plane_helper_add(&plane->base, funcs);\n"
    if update not in text or init not in text:
        raise HarnessError(f"{path} is not the vkms_plane.c the test patch knows (Linux 6.1)")
    text = text.replace(update, update + """
\t{
\t\tstruct drm_mode_rect *clips = drm_plane_get_damage_clips(new_state);
\t\tunsigned int i, n = drm_plane_get_damage_clips_count(new_state);

\t\tfor (i = 0; i < n; i++)
\t\t\tpr_info("vkms: plane %u damage clip %d,%d-%d,%d\\n", plane->base.id,
\t\t\t\tclips[i].x1, clips[i].y1, clips[i].x2, clips[i].y2);
\t}
""", 1)
    text = text.replace(init, init + "\tdrm_plane_enable_fb_damage_clips(&plane->base);\n", 1)
    open(path, "w").write(text)


def build_vkms():
    """Returns the path of vkms.ko for the guest's kernel, built once: Debian's kernel is built
    without CONFIG_DRM_VKMS, so the driver comes from Debian's linux-source package of the same
    version, compiled out of tree against the matching linux-headers package (installed here
    with apt-get, as root), with `patch_vkms`. vkms offers overlay planes (enable_overlay=1),
    which the virtual GPUs lack."""
    os.makedirs(CACHE, exist_ok=True)
    with open(os.path.join(CACHE, "vkms.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_vkms_locked()


def _build_vkms_locked():
    package = kernel_package()
    abi = package[len("linux-image-"):]
    target = os.path.join(CACHE, f"vkms-{abi}-{VKMS_PATCH_VERSION}.ko")
    if os.path.exists(target):
        return target
    fetch_kernel()
    image = glob.glob(os.path.join(CACHE, package + "_*.deb"))
    version = os.path.basename(image[0]).split("_")[1] if image else None
    headers = f"/usr/src/linux-headers-{abi}"
    if not os.path.exists(os.path.join(headers, "Makefile")):
        log(f"installing linux-headers-{abi} (to build vkms)")
        r = subprocess.run(["apt-get", "install", "-y", "-q", f"linux-headers-{abi}"], capture_output=True, text=True,
                           env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
        if r.returncode != 0:
            raise Unavailable(f"apt-get install linux-headers-{abi} failed (vkms needs it): {r.stderr.strip()[-300:]}")
    series = ".".join(abi.split(".")[:2])  # 6.1
    work = os.path.join(CACHE, "vkms-build")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        # The source of exactly the guest kernel's version: the archive keeps older versions of
        # linux-source after a newer one lands, and the kernel image may lag behind it.
        wanted = f"linux-source-{series}" + (f"={version}" if version else "")
        log(f"downloading {wanted} (for vkms)")
        r = subprocess.run(["apt-get", "download", wanted], cwd=work, capture_output=True, text=True)
        debs = glob.glob(os.path.join(work, f"linux-source-{series}_*.deb"))
        if r.returncode != 0 or not debs:
            raise Unavailable(f"apt-get download linux-source-{series} failed: {r.stderr.strip()[-300:]}")
        source_version = os.path.basename(debs[0]).split("_")[1]
        if version and source_version != version:
            raise Unavailable(f"linux-source-{series} is {source_version} but the guest kernel is {version}: vkms would not load")
        subprocess.run(["dpkg", "-x", debs[0], os.path.join(work, "deb")], check=True)
        tarball = glob.glob(os.path.join(work, "deb", "usr", "src", f"linux-source-{series}.tar.*"))[0]
        member = f"linux-source-{series}/drivers/gpu/drm/vkms"
        subprocess.run(["tar", "-xf", tarball, "-C", work, member], check=True)
        source = os.path.join(work, member)
        patch_vkms(os.path.join(source, "vkms_plane.c"))
        r = subprocess.run(["make", "-C", headers, f"M={source}", "CONFIG_DRM_VKMS=m", "modules"],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(source, "vkms.ko")):
            raise HarnessError(f"building vkms failed: {(r.stdout + r.stderr)[-1500:]}")
        shutil.copy(os.path.join(source, "vkms.ko"), target + ".tmp")
        os.replace(target + ".tmp", target)
        log(f"built {target}")
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def prepare():
    if shutil.which("qemu-system-x86_64") is None:
        raise Unavailable("qemu-system-x86_64 is not installed (scripts/vm/deps.sh installs qemu-system-x86)")
    if not os.path.exists("/usr/share/qemu/qboot.rom"):
        raise Unavailable("/usr/share/qemu/qboot.rom is missing (qemu-system-x86 installs it)")
    vmlinux, modules = fetch_kernel()
    # Test suites boot guests side by side: in a fresh checkout the first ones build the
    # initramfs at the same time, into the same cache file.
    with open(os.path.join(CACHE, "initramfs.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return vmlinux, build_initramfs(modules)


# MARK: the shared shader cache

# Packs of Mesa cache entries the guests wrote (`INIT`'s keep.sh), merged into one beyond this
# many; a merged pack over SHADER_PACK_BYTES is dropped (the next guests start cold again).
SHADER_PACKS_MERGED = 8
SHADER_PACK_BYTES = 64 << 20


def shader_cache_folder():
    """The folder the guests share Mesa's shader cache through, its packs merged when there are
    more than SHADER_PACKS_MERGED; None under LAMINA_VM_SHADER_CACHE=0 (every guest cold)."""
    if os.environ.get("LAMINA_VM_SHADER_CACHE", "1") == "0":
        return None
    folder = os.path.join(CACHE, "mesa-shader-cache")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(CACHE, "mesa-shader-cache.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merge_shader_packs(folder)
    return folder


def merge_shader_packs(folder, most=SHADER_PACKS_MERGED, limit=SHADER_PACK_BYTES):
    """Folds the packs in `folder` into one when there are more than `most`: each entry once
    (entries are named by their key, so two packs' copies are the same bytes). A pack that
    cannot be read is left out; a merged pack over `limit` bytes is not kept. A pack left half
    written (a guest stopped while keep.sh wrote it) goes after an hour."""
    for f in os.listdir(folder):
        path = os.path.join(folder, f)
        if f.endswith(".part") and time.time() - os.path.getmtime(path) > 3600:
            os.unlink(path)
    packs = sorted(f for f in os.listdir(folder) if f.endswith(".tar"))
    if len(packs) <= most:
        return
    merged_name = f"merged-{os.getpid()}-{time.time_ns()}"
    tmp = os.path.join(folder, f".{merged_name}.part")
    seen, size = set(), 0
    with tarfile.open(tmp, "w") as out:
        for name in packs:
            try:
                with tarfile.open(os.path.join(folder, name)) as pack:
                    for member in pack:
                        if not member.isfile() or member.name in seen:
                            continue
                        seen.add(member.name)
                        size += member.size
                        out.addfile(member, pack.extractfile(member))
            except (OSError, tarfile.TarError) as e:
                log(f"shader cache: pack {name} left out: {e}")
    if size <= limit:
        os.replace(tmp, os.path.join(folder, merged_name + ".tar"))
    else:
        os.unlink(tmp)
        log(f"shader cache: {size} bytes of entries, over {limit}: starting again")
    for name in packs:
        os.unlink(os.path.join(folder, name))


# MARK: speed

def speed_factor(boot_seconds, slowdown=1.0, request_seconds=None):
    """How many times slower than the reference machine the guest runs: the slower of its boot
    and (once measured) its first request to laminad, each against the reference; never below
    1 (a quick guest does not shorten anything), at most MAX_FACTOR, then times
    LAMINA_VM_SLOWDOWN (`slowdown`), which a person sets knowingly."""
    ratios = [1.0, boot_seconds / REFERENCE_BOOT_SECONDS]
    if request_seconds is not None:
        ratios.append(request_seconds / REFERENCE_REQUEST_SECONDS)
    return min(MAX_FACTOR, max(ratios)) * slowdown


def knob(name, environ):
    """The number in the environment variable `name` (1 when unset): a multiplier ≥ 1."""
    text = environ.get(name, "").strip()
    if not text:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value >= 1 or value == float("inf"):
        raise HarnessError(f"{name}={text!r}: expected a number ≥ 1")
    return value


class TimedOut(Exception):
    """The guest (or qemu, asked over QMP or RFB) did not finish before the deadline."""


class Throttle:
    """LAMINA_VM_SLOW=N: qemu runs 1/N of each 0.1 s and is stopped (SIGSTOP) for the rest,
    as cpulimit does, so the guest sees a machine N times slower (its clock keeps real time)."""
    PERIOD = 0.1

    def __init__(self, pid, slow):
        self.pid, self.slow = pid, slow
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _signal(self, sig):
        try:
            os.kill(self.pid, sig)
        except ProcessLookupError:
            self.done.set()

    def _run(self):
        running = self.PERIOD / self.slow
        while not self.done.wait(running):
            self._signal(signal.SIGSTOP)
            self.done.wait(self.PERIOD - running)
            self._signal(signal.SIGCONT)

    def stop(self):
        self.done.set()
        self.thread.join()
        self._signal(signal.SIGCONT)


# MARK: QMP and RFB

def seconds_left(deadline):
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimedOut("the deadline passed")
    return left


class QMP:
    """QMP commands; each must be answered before `deadline` (which run() moves once the
    guest's speed is known)."""

    def __init__(self, path, deadline):
        self.deadline = deadline
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise HarnessError("QMP socket never came up")
                time.sleep(0.05)
        self.buf = b""
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            self.sock.settimeout(seconds_left(self.deadline))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimedOut("QMP did not answer")
            if not chunk:
                raise HarnessError("QMP closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        msg = {"execute": command}
        if arguments:
            msg["arguments"] = arguments
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise HarnessError(f"QMP {command}: {reply['error']}")


def rfb_set_desktop_size(path, width, height, deadline):
    """A minimal RFB 3.8 client: no authentication, SetEncodings(ExtendedDesktopSize),
    SetDesktopSize, then QEMU's answer to it (an ExtendedDesktopSize rectangle with x = 1 and
    the status in y: 0 or 4, "forwarded", once it handed the size to the display)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def recv(n):
        data = b""
        while len(data) < n:
            s.settimeout(seconds_left(deadline))
            try:
                chunk = s.recv(n - len(data))
            except socket.timeout:
                raise TimedOut("the RFB server did not answer")
            if not chunk:
                raise HarnessError("RFB server closed")
            data += chunk
        return data

    s.settimeout(seconds_left(deadline))
    s.connect(path)
    recv(12)
    s.sendall(b"RFB 003.008\n")
    count = recv(1)[0]
    types = recv(count)
    if 1 not in types:
        raise HarnessError(f"RFB server offers no 'None' security ({list(types)})")
    s.sendall(b"\x01")
    if struct.unpack(">I", recv(4))[0] != 0:
        raise HarnessError("RFB security handshake failed")
    s.sendall(b"\x01")  # ClientInit, shared
    w, h = struct.unpack(">HH", recv(4))
    recv(16)
    recv(struct.unpack(">I", recv(4))[0])
    encodings = [0, -223, -308]  # raw, DesktopSize, ExtendedDesktopSize
    s.sendall(struct.pack(">BBH", 2, 0, len(encodings)) + b"".join(struct.pack(">i", e) for e in encodings))
    s.sendall(struct.pack(">BBHHBB", 251, 0, width, height, 1, 0) + struct.pack(">IHHHHI", 0, 0, 0, width, height, 0))
    # No FramebufferUpdateRequest was sent, so updates carry only size rectangles.
    while True:
        kind = recv(1)[0]
        if kind == 2:  # Bell
            continue
        if kind == 3:  # ServerCutText
            recv(3)
            recv(struct.unpack(">I", recv(4))[0])
            continue
        if kind != 0:
            raise HarnessError(f"unexpected RFB message {kind} while waiting for the SetDesktopSize answer")
        recv(1)
        for _ in range(struct.unpack(">H", recv(2))[0]):
            x, y, _, _, encoding = struct.unpack(">HHHHi", recv(12))
            if encoding == -308:
                recv(16 * recv(4)[0])
                if x == 1:
                    s.close()
                    if y not in (0, 4):
                        raise HarnessError(f"QEMU refused SetDesktopSize {width}x{height} (status {y})")
                    return w, h
            elif encoding != -223:
                raise HarnessError(f"unexpected RFB rectangle encoding {encoding} while waiting for the SetDesktopSize answer")


# MARK: running

BURST_GRID = (16, 10)


def burst_sample(path):
    """The pixels of a P6 screendump at the centres of a BURST_GRID of cells, row by row."""
    with open(path, "rb") as f:
        data = f.read()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i:i + 1].isspace():
            i += 1
        start = i
        while not data[i:i + 1].isspace():
            i += 1
        fields.append(data[start:i])
    i += 1
    w, h = int(fields[1]), int(fields[2])
    cols, rows = BURST_GRID
    px = []
    for r in range(rows):
        y = (2 * r + 1) * h // (2 * rows)
        for c in range(cols):
            x = (2 * c + 1) * w // (2 * cols)
            o = i + (y * w + x) * 3
            px.append(list(data[o:o + 3]))
    return px


def run(args):
    vmlinux, initramfs = prepare()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    script = os.path.abspath(args.script)
    qmp_path = os.path.join(out, "qmp.sock")
    vnc_path = os.path.join(out, "vnc.sock")
    for p in (qmp_path, vnc_path):
        if os.path.exists(p):
            os.unlink(p)
    devices = {
        "virtio": f"virtio-gpu-pci,id=gpu0,max_outputs={args.outputs}",
        "bochs": "bochs-display,id=gpu0",
        "vga": "VGA,id=gpu0",
        "vkms": None,  # no display device: the guest loads vkms, the kernel's virtual KMS driver
    }
    vkms = build_vkms() if args.device == "vkms" else None
    shader_cache = shader_cache_folder()
    cmd = [
        "qemu-system-x86_64", "-accel", "tcg,thread=multi", "-cpu", "max", "-machine", "q35",
        "-smp", "2", "-m", "1024", "-bios", "/usr/share/qemu/qboot.rom",
        "-kernel", vmlinux, "-initrd", initramfs,
        "-append", f"console=ttyS0 loglevel=4 panic=-1 vmscript={script}" + (f" vmvkms={vkms}" if vkms else "")
        + (" vmshadercache" if shader_cache else "")
        + (" vmsystemd systemd.unit=vmkms.target systemd.show_status=0 systemd.firstboot=0" if args.systemd else ""),
        "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        *(["-virtfs", f"local,path={shader_cache},mount_tag=shadercache,security_model=none,multidevs=remap"] if shader_cache else []),
        "-vga", "none", *(["-device", devices[args.device]] if devices[args.device] else []),
        "-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
        "-qmp", f"unix:{qmp_path},server=on,wait=off",
    ]
    if args.vnc_head is not None:
        cmd += ["-vnc", f"unix:{vnc_path},display=gpu0,head={args.vnc_head}"]
    if args.input:
        cmd += ["-device", "virtio-keyboard-pci", "-device", "virtio-tablet-pci"]
    slowdown = knob("LAMINA_VM_SLOWDOWN", os.environ)
    slow = knob("LAMINA_VM_SLOW", os.environ)
    started = time.monotonic()
    # Until the boot is timed, only its own limit (a slow guest's boot is slow too).
    deadline = started + BOOT_LIMIT_SECONDS * slowdown * slow
    factor = None
    try:
        qemu = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        raise Unavailable(f"cannot start qemu-system-x86_64: {e}")
    throttle = Throttle(qemu.pid, slow) if slow > 1 else None
    if throttle:
        log(f"LAMINA_VM_SLOW={slow:g}: qemu runs 1/{slow:g} of the time")
    serial_log = open(os.path.join(out, "serial.log"), "wb")
    # The same lines, each after the seconds since qemu started: where a test's time goes.
    timed_log = open(os.path.join(out, "serial-timed.log"), "w")
    qmp = None
    pending = b""
    exit_code = None

    def answer(text=b"\n"):
        qemu.stdin.write(text)
        qemu.stdin.flush()

    burst = None  # (name, limit, count, file) while a VMKMS_BURST runs
    burst_interval, burst_next = 0.05, 0.0

    def burst_shot():
        nonlocal burst, burst_next
        burst_next = time.monotonic() + burst_interval
        name, limit, count, f = burst
        path = os.path.join(out, name + ".tmp.ppm")
        qmp.execute("screendump", filename=path, device="gpu0", head=0)
        f.write(json.dumps({"i": count, "t": round(time.monotonic() - started, 4), "px": burst_sample(path)}) + "\n")
        if count % 200 == 0:
            os.replace(path, os.path.join(out, f"{name}-{count}.ppm"))
        count += 1
        burst = (name, limit, count, f)
        if count >= limit:
            end_burst()

    def end_burst():
        nonlocal burst
        if burst is None:
            return
        name, _, count, f = burst
        f.close()
        tmp = os.path.join(out, name + ".tmp.ppm")
        if os.path.exists(tmp):
            os.unlink(tmp)
        log(f"{time.monotonic() - started:.1f} s: burst {name} ended after {count} screendumps")
        burst = None

    try:
        qmp = QMP(qmp_path, deadline)
        while exit_code is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimedOut("the guest did not finish")
            wait = max(0, min(left, burst_next - time.monotonic())) if burst else min(left, 1)
            ready, _, _ = select.select([qemu.stdout], [], [], wait)
            if burst and time.monotonic() >= burst_next:
                burst_shot()
            if not ready:
                if burst:
                    continue
                if qemu.poll() is not None:
                    break
                continue
            chunk = os.read(qemu.stdout.fileno(), 65536)
            if not chunk:
                break
            serial_log.write(chunk)
            serial_log.flush()
            if args.echo:
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                line = raw.decode(errors="replace").strip()
                timed_log.write(f"{time.monotonic() - started:7.1f} {line}\n")
                if line.startswith("qemu-system-x86_64:") and "Could not" in line:
                    raise Unavailable(line)
                if factor is None and line.endswith("VMKMS_BOOTED"):
                    booted = time.monotonic()
                    boot = booted - started
                    factor = speed_factor(boot, slowdown)
                    deadline = booted + args.timeout * factor
                    qmp.deadline = deadline
                    log(f"booted in {boot:.1f} s (reference {REFERENCE_BOOT_SECONDS:g} s"
                        + (f", LAMINA_VM_SLOWDOWN={slowdown:g}" if slowdown != 1 else "")
                        + f"): speed factor {factor:.2f}, the command gets {args.timeout * factor:.0f} s")
                    answer(f"{factor:.2f}\n".encode())
                m = re.search(r"VMKMS_CALIBRATE ([0-9.]+)$", line)
                if m and factor is not None and "echo" not in line:
                    request = float(m.group(1))
                    factor = max(factor, speed_factor(boot, slowdown, request))
                    deadline = booted + args.timeout * factor
                    qmp.deadline = deadline
                    log(f"first request to laminad took {request:.1f} s (reference {REFERENCE_REQUEST_SECONDS:g} s): "
                        f"speed factor {factor:.2f}, the command gets {args.timeout * factor:.0f} s from the boot")
                    answer(f"{factor:.2f}\n".encode())
                m = re.search(r"VMKMS_SHOT (\S+)(?: (\d+))?", line)
                if m and "echo" not in line:
                    name, head = m.group(1), int(m.group(2) or 0)
                    qmp.execute("screendump", filename=os.path.join(out, name + ".ppm"), device="gpu0", head=head)
                    log(f"{time.monotonic() - started:.1f} s: screendump {name} (head {head})")
                    answer()
                m = re.search(r"VMKMS_BURST ([A-Za-z0-9._-]+) (\d+)(?: (\d+))?$", line)
                if m and "echo" not in line:
                    end_burst()
                    burst = (m.group(1), int(m.group(2)), 0, open(os.path.join(out, m.group(1) + ".jsonl"), "w"))
                    burst_interval, burst_next = int(m.group(3) or 50) / 1000, 0.0
                    log(f"{time.monotonic() - started:.1f} s: burst {m.group(1)} started")
                if line.endswith("VMKMS_BURST_END") and "echo" not in line:
                    end_burst()
                m = re.search(r"VMKMS_RESIZE (\d+) (\d+) (\d+)", line)
                if m and "echo" not in line:
                    w, h = int(m.group(2)), int(m.group(3))
                    rfb_set_desktop_size(vnc_path, w, h, deadline)
                    log(f"{time.monotonic() - started:.1f} s: SetDesktopSize {w}x{h} on head {m.group(1)}")
                    answer()
                m = re.search(r"VMKMS_QMP (\S+)(?: (.*))?$", line)
                if m and "echo" not in line:
                    arguments = json.loads(m.group(2)) if m.group(2) else {}
                    qmp.execute(m.group(1), **arguments)
                    log(f"{time.monotonic() - started:.1f} s: QMP {m.group(1)}")
                    answer()
                m = re.search(r"VMKMS_FILE ([A-Za-z0-9._-]+) ([A-Za-z0-9+/=]*)$", line)
                if m and "echo" not in line:
                    with open(os.path.join(out, m.group(1)), "wb") as f:
                        f.write(base64.b64decode(m.group(2)))
                    log(f"{time.monotonic() - started:.1f} s: file {m.group(1)} from the guest")
                m = re.search(r"VMKMS_EXIT=(\d+)", line)
                if m:
                    exit_code = int(m.group(1))
        end_burst()
        if exit_code is None:
            raise HarnessError("the guest stopped without reporting an exit status (see serial.log)")
        log(f"guest exited {exit_code} after {time.monotonic() - started:.1f} s")
        return exit_code
    except TimedOut as e:
        where = "while booting" if factor is None else f"(speed factor {factor:.2f})"
        log(f"timed out {where} after {time.monotonic() - started:.1f} s: {e}")
        return 124
    finally:
        if throttle:
            throttle.stop()
        if qemu.poll() is None:
            try:
                # A guest that reported its exit powers off (slowly, if it is slow); any other is killed.
                qemu.wait(timeout=5 * (factor or 1) if exit_code is not None else 0)
            except subprocess.TimeoutExpired:
                qemu.kill()
                qemu.wait()
        serial_log.close()
        timed_log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare")
    r = sub.add_parser("run")
    r.add_argument("--script", required=True, help="shell script the guest runs (a host path)")
    r.add_argument("--out", required=True, help="folder for screendumps and serial.log")
    r.add_argument("--device", choices=["virtio", "bochs", "vga", "vkms"], default="virtio",
                   help="vkms: the kernel's virtual KMS driver with overlay planes, no screendumps")
    r.add_argument("--outputs", type=int, default=1, help="virtio-gpu max_outputs")
    r.add_argument("--vnc-head", type=int, help="tie a VNC server to this head (for VMKMS_RESIZE)")
    r.add_argument("--input", action="store_true", help="add QEMU's virtio keyboard and tablet")
    r.add_argument("--systemd", action="store_true",
                   help="boot systemd as PID 1; the script runs as a service (vmkms-script.service)")
    r.add_argument("--timeout", type=float, default=90,
                   help="seconds for the command at the reference speed, from the boot (scaled by the speed factor)")
    r.add_argument("--echo", action="store_true", help="copy the serial console to stdout")
    args = parser.parse_args()
    try:
        if args.command == "prepare":
            vmlinux, initramfs = prepare()
            print(json.dumps({"vmlinux": vmlinux, "initramfs": initramfs}))
            return 0
        return run(args)
    except Unavailable as e:
        print(f"vmkms: unavailable: {e}", file=sys.stderr)
        return SKIP
    except HarnessError as e:
        print(f"vmkms: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
