#!/usr/bin/env python3
"""Hands laminad's renderer a dma-buf made by CUDA, as a GPU video decoder's buffer would come.

On an NVIDIA machine without a DRM device (no /dev/dri: no GBM, and the driver's EGL will not
export a texture), CUDA can still export device memory as a dma-buf (cuMemGetHandleForAddressRange,
Linux 5.12+). This script writes lamina-gpu-check's test picture (`pattern`) into device memory,
exports it, and runs `lamina-gpu-check import` on the descriptor (inherited), once described as
linear (DRM_FORMAT_MOD_LINEAR) and once with no modifier. Only libcuda.so.1 is needed (ctypes).

Usage: gpu-cuda-dmabuf.py PATH/TO/lamina-gpu-check
Exit status: the worst of the imports' (0 passed, 77 skipped or refused, 1 failed); 77 when CUDA
cannot export here.
"""
import ctypes
import os
import subprocess
import sys

PITCH = 256
SIZE = 2 << 20  # one large page: the exported range must be page-aligned
CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD = 1


def main():
    if len(sys.argv) != 2:
        print("usage: gpu-cuda-dmabuf.py PATH/TO/lamina-gpu-check", file=sys.stderr)
        return 2
    tool = sys.argv[1]
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        print(f"cuda dmabuf: skipped: no libcuda.so.1 ({e})")
        return 77

    def check(result, call):
        if result != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(result, ctypes.byref(name))
            raise RuntimeError(f"{call}: {name.value.decode() if name.value else result}")

    made = subprocess.run([tool, "pattern", str(PITCH)], capture_output=True)
    if made.returncode != 0 or not made.stdout:
        print(f"cuda dmabuf: FAILED: {tool} pattern {PITCH} gave no picture (status {made.returncode})")
        return 1
    pattern = made.stdout
    device, context, memory = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
    try:
        check(cuda.cuInit(0), "cuInit")
        check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
        check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        check(cuda.cuMemAlloc_v2(ctypes.byref(memory), ctypes.c_size_t(SIZE)), "cuMemAlloc")
        check(cuda.cuMemsetD8_v2(memory, ctypes.c_ubyte(0), ctypes.c_size_t(SIZE)), "cuMemsetD8")
        check(cuda.cuMemcpyHtoD_v2(memory, ctypes.c_char_p(pattern), ctypes.c_size_t(len(pattern))), "cuMemcpyHtoD")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
    except RuntimeError as e:
        print(f"cuda dmabuf: skipped: {e}")
        return 77

    statuses = []
    for modifier, label in (("0", "linear modifier"), ("none", "no modifier")):
        fd = ctypes.c_int(-1)
        try:
            check(cuda.cuMemGetHandleForAddressRange(ctypes.byref(fd), memory, ctypes.c_size_t(SIZE),
                                                     CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, ctypes.c_ulonglong(0)),
                  "cuMemGetHandleForAddressRange(DMA_BUF_FD)")
        except RuntimeError as e:
            print(f"cuda dmabuf: skipped: {e}")
            statuses.append(77)
            break
        producer = f"CUDA device memory exported by cuMemGetHandleForAddressRange ({label})"
        status = subprocess.run([tool, "import", str(fd.value), str(PITCH), "0", modifier, producer],
                                pass_fds=[fd.value]).returncode
        os.close(fd.value)
        statuses.append(status)
    # Failed if any import failed, passed if any passed, else nothing could be imported.
    if any(s not in (0, 77) for s in statuses):
        return 1
    return 0 if 0 in statuses else 77


if __name__ == "__main__":
    sys.exit(main())
