#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux

// A boot splash for the boot handoff's VM test (Tests/LaminaKMSTests/BootHandoffVMTests.swift):
// a known picture on the display before laminad starts, drawn the ways a real splash can be.
//   splash --fbdev        into the kernel's fbdev framebuffer (/dev/fb0, as psplash and the
//                         kernel's logo do), the VT put in graphics mode so the console's cursor
//                         does not draw over it; then exits. The kernel owns that framebuffer, so
//                         the picture outlives the program.
//   splash --kms [--exit] its own dumb buffer lit by a modeset (plymouth's way): it drops DRM
//                         master, prints "splash shown", and stays until a line (or EOF) comes on
//                         stdin, so that its framebuffer outlives the handover; with --exit it
//                         exits at once (on Linux before 6.8 the kernel then takes the framebuffer
//                         off the display, CRTC and all).
//   crtc                  each CRTC of /dev/dri/card0: "crtc ID fb FB mode WxH" or "crtc ID off".
//
// The picture: the left half SplashColors.left, the right half SplashColors.right (XRGB8888).
enum SplashColors {
    static let left: (UInt8, UInt8, UInt8) = (230, 120, 20)
    static let right: (UInt8, UInt8, UInt8) = (20, 160, 90)
}

/// A line on stdout at once (unbuffered: a script waits for it).
private func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

/// Fills `width × height` XRGB8888 pixels at `base` (rows `pitch` bytes apart) with the splash.
private func drawSplash(_ base: UnsafeMutableRawPointer, width: Int, height: Int, pitch: Int) {
    for y in 0..<height {
        let row = base + y * pitch
        for x in 0..<width {
            let c = x < width / 2 ? SplashColors.left : SplashColors.right
            row.storeBytes(of: UInt32(c.0) << 16 | UInt32(c.1) << 8 | UInt32(c.2), toByteOffset: x * 4, as: UInt32.self)
        }
    }
}

private func sysfs(_ name: String) -> String? {
    guard let f = fopen("/sys/class/graphics/fb0/" + name, "r") else { return nil }
    defer { fclose(f) }
    var buffer = [CChar](repeating: 0, count: 128)
    guard fgets(&buffer, 128, f) != nil else { return nil }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: "\n ")
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        return String(s)
    }
}

/// `splash --fbdev`. Returns the exit status.
func runFbdevSplash() -> Int32 {
    guard let size = sysfs("virtual_size"), let strideText = sysfs("stride"), let bppText = sysfs("bits_per_pixel") else {
        print("splash: no /sys/class/graphics/fb0 (no fbdev emulation)")
        return 1
    }
    let parts = size.split(separator: ",").compactMap { Int($0) }
    guard parts.count == 2, let pitch = Int(strideText), bppText == "32" else {
        print("splash: fb0 is \(size) at \(bppText) bits per pixel; only 32 is drawn")
        return 1
    }
    // The visible size is the mode's: fbdev's virtual size may be taller (panning).
    let modes = sysfs("modes") ?? ""
    let visible = modes.split(separator: ":").last.map { $0.split(separator: "x").compactMap { Int($0.prefix { $0.isNumber }) } } ?? []
    let width = visible.count == 2 ? visible[0] : parts[0]
    let height = visible.count == 2 ? visible[1] : parts[1]
    let tty = open("/dev/tty0", O_RDWR | O_CLOEXEC)
    if tty >= 0 {
        _ = CLinux_kd_set_graphics(tty, 1)
        close(tty)
    }
    let fd = open("/dev/fb0", O_RDWR | O_CLOEXEC)
    guard fd >= 0 else {
        print("splash: cannot open /dev/fb0 (errno \(errno))")
        return 1
    }
    defer { close(fd) }
    let length = pitch * height
    guard let map = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), map != MAP_FAILED else {
        print("splash: mmap of /dev/fb0 failed (errno \(errno))")
        return 1
    }
    drawSplash(map, width: width, height: height, pitch: pitch)
    // fbdev emulation copies written pages to the display's buffer from a worker (deferred
    // I/O): msync marks them all written now.
    _ = msync(map, length, MS_SYNC)
    munmap(map, length)
    print("splash drawn on /dev/fb0: \(width)x\(height), pitch \(pitch)")
    return 0
}

/// `splash --kms [--exit]`. Returns the exit status.
func runKMSSplash(exitAtOnce: Bool) -> Int32 {
    let fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC)
    guard fd >= 0 else { print("splash: cannot open /dev/dri/card0 (errno \(errno))"); return 1 }
    guard drmSetMaster(fd) == 0 else { print("splash: not DRM master (errno \(errno))"); return 1 }
    guard let resources = drmModeGetResources(fd) else { print("splash: no KMS resources"); return 1 }
    defer { drmModeFreeResources(resources) }
    var lit = false
    for i in 0..<Int(resources.pointee.count_connectors) where !lit {
        guard let connector = drmModeGetConnector(fd, resources.pointee.connectors[i]) else { continue }
        defer { drmModeFreeConnector(connector) }
        guard connector.pointee.connection == DRM_MODE_CONNECTED, connector.pointee.count_modes > 0, resources.pointee.count_crtcs > 0 else { continue }
        var mode = connector.pointee.modes[0]
        for m in 0..<Int(connector.pointee.count_modes) where connector.pointee.modes[m].type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 {
            mode = connector.pointee.modes[m]
            break
        }
        var crtc = resources.pointee.crtcs[0]
        if let encoder = drmModeGetEncoder(fd, connector.pointee.encoder_id) {
            if encoder.pointee.crtc_id != 0 { crtc = encoder.pointee.crtc_id }
            drmModeFreeEncoder(encoder)
        }
        let width = Int(mode.hdisplay), height = Int(mode.vdisplay)
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        guard drmModeCreateDumbBuffer(fd, UInt32(width), UInt32(height), 32, 0, &handle, &pitch, &size) == 0 else {
            print("splash: no dumb buffer"); return 1
        }
        var offset: UInt64 = 0
        guard drmModeMapDumbBuffer(fd, handle, &offset) == 0,
              let map = mmap(nil, Int(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(truncatingIfNeeded: offset)), map != MAP_FAILED else {
            print("splash: cannot map the dumb buffer"); return 1
        }
        drawSplash(map, width: width, height: height, pitch: Int(pitch))
        munmap(map, Int(size))
        var fb: UInt32 = 0
        var handles: (UInt32, UInt32, UInt32, UInt32) = (handle, 0, 0, 0)
        var pitches: (UInt32, UInt32, UInt32, UInt32) = (pitch, 0, 0, 0)
        var offsets: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        let xr24 = UInt32(UInt8(ascii: "X")) | UInt32(UInt8(ascii: "R")) << 8 | UInt32(UInt8(ascii: "2")) << 16 | UInt32(UInt8(ascii: "4")) << 24
        let added = withUnsafePointer(to: &handles) { h in withUnsafePointer(to: &pitches) { p in withUnsafePointer(to: &offsets) { o in
            drmModeAddFB2(fd, UInt32(width), UInt32(height), xr24, UnsafeRawPointer(h).assumingMemoryBound(to: UInt32.self),
                          UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self), UnsafeRawPointer(o).assumingMemoryBound(to: UInt32.self), &fb, 0)
        } } }
        guard added == 0 else { print("splash: AddFB2 failed (\(added))"); return 1 }
        var connectorID = connector.pointee.connector_id
        guard drmModeSetCrtc(fd, crtc, fb, 0, 0, &connectorID, 1, &mode) == 0 else { print("splash: SetCrtc failed (errno \(errno))"); return 1 }
        say("splash shown on CRTC \(crtc): framebuffer \(fb), \(width)x\(height)")
        lit = true
    }
    guard lit else { print("splash: no connected display"); return 1 }
    _ = drmDropMaster(fd)
    if exitAtOnce { return 0 }
    // Stays (its framebuffer with it) until told to go: a byte or EOF on stdin.
    var byte: UInt8 = 0
    _ = read(0, &byte, 1)
    return 0
}

/// `crtc`: what each CRTC of card0 shows. Returns the exit status.
func runCRTCList() -> Int32 {
    let fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC)
    guard fd >= 0, let resources = drmModeGetResources(fd) else { print("crtc: no /dev/dri/card0"); return 1 }
    defer { drmModeFreeResources(resources); close(fd) }
    for i in 0..<Int(resources.pointee.count_crtcs) {
        guard let c = drmModeGetCrtc(fd, resources.pointee.crtcs[i]) else { continue }
        defer { drmModeFreeCrtc(c) }
        if c.pointee.mode_valid != 0, c.pointee.buffer_id != 0 {
            print("crtc \(c.pointee.crtc_id) fb \(c.pointee.buffer_id) mode \(c.pointee.mode.hdisplay)x\(c.pointee.mode.vdisplay)")
        } else {
            print("crtc \(c.pointee.crtc_id) off")
        }
    }
    return 0
}
