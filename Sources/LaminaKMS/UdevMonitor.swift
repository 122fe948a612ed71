#if canImport(Glibc)
import Glibc
#endif
import CUdev

/// A udev monitor for DRM uevents: a display plugged in or out shows up as a change event with
/// HOTPLUG=1 on the card. Where no udev daemon runs (a kiosk initramfs, the test VM) it listens
/// to the kernel's uevents directly.
public final class UdevMonitor {
    private let udev: OpaquePointer
    private let monitor: OpaquePointer
    /// Readable when an event is waiting.
    public let fd: Int32

    /// The corresponding C functions are `udev_monitor_new_from_netlink` and
    /// `udev_monitor_enable_receiving`.
    public init() throws(DRMError) {
        guard let udev = udev_new() else { throw DRMError("udev_new", errno: errno) }
        let source = access("/run/udev/control", F_OK) == 0 ? "udev" : "kernel"
        guard let monitor = udev_monitor_new_from_netlink(udev, source) else {
            let e = errno
            udev_unref(udev)
            throw DRMError("udev_monitor_new_from_netlink(\(source))", errno: e)
        }
        self.udev = udev
        self.monitor = monitor
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "drm", nil)
        let r = udev_monitor_enable_receiving(monitor)
        fd = udev_monitor_get_fd(monitor)
        if r < 0 {
            udev_monitor_unref(monitor)
            udev_unref(udev)
            throw DRMError.returned("udev_monitor_enable_receiving(\(source))", r)
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// The device nodes of the cards that reported a hotplug (or a synthetic change) since the last call.
    /// The corresponding C function is `udev_monitor_receive_device`.
    public func hotplugDevices() -> [String] {
        var nodes: [String] = []
        while let device = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(device) }
            // HOTPLUG=1 from the driver, or a synthetic change event (`udevadm trigger`, or
            // `echo change > /sys/class/drm/card0/uevent` after forcing a connector's status),
            // which asks for the same re-probe.
            let hotplug = udev_device_get_property_value(device, "HOTPLUG").map { String(cString: $0) == "1" } ?? false
            let synthetic = udev_device_get_property_value(device, "SYNTH_UUID") != nil
            guard hotplug || synthetic else { continue }
            // The kernel source carries DEVNAME (dri/card0) rather than a devnode.
            if let node = udev_device_get_devnode(device) {
                nodes.append(String(cString: node))
            } else if let name = udev_device_get_property_value(device, "DEVNAME") {
                nodes.append("/dev/" + String(cString: name))
            }
        }
        return nodes
    }
}
