#if canImport(Glibc)
import Glibc
#endif
import CDRM
import LaminaCompositor

/// An open DRM card (`/dev/dri/cardN`), closed when released. Closing it also gives up DRM
/// master, so the next compositor (or the console) can take the display.
public final class DRMDevice {
    /// The device file, such as "/dev/dri/card0".
    public let path: String
    /// The open descriptor (non-blocking, close-on-exec); page-flip events are read from it.
    public let fd: Int32
    /// True when the kernel accepted the atomic client capability.
    public private(set) var supportsAtomic = false
    /// True when framebuffers can carry format modifiers (DRM_CAP_ADDFB2_MODIFIERS).
    public let supportsModifiers: Bool
    /// The kernel driver's name ("virtio_gpu", "bochs-drm").
    public let driverName: String

    /// The seat the card was opened through, and its number for the card there.
    private let seat: (session: SeatSession, id: Int32)?

    /// Opens `path` for modesetting and enables universal planes.
    /// The corresponding C functions are `open` and `drmSetClientCap`.
    public convenience init(path: String) throws(DRMError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw DRMError("open \(path)", errno: errno) }
        try self.init(descriptor: fd, path: path, seat: nil)
    }

    /// Opens `path` through a seat manager (libseat), which makes it DRM master for this
    /// process without root.
    public convenience init(path: String, seat: SeatSession) throws(DRMError) {
        let (fd, id) = try seat.openDevice(path)
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        do { try self.init(descriptor: fd, path: path, seat: (seat, id)) } catch {
            seat.closeDevice(id)
            throw error
        }
    }

    private init(descriptor fd: Int32, path: String, seat: (session: SeatSession, id: Int32)?) throws(DRMError) {
        self.path = path
        self.seat = seat
        self.fd = fd
        if let version = drmGetVersion(fd) {
            driverName = version.pointee.name.map { String(cString: $0) } ?? "unknown"
            drmFreeVersion(version)
        } else {
            driverName = "unknown"
        }
        var value: UInt64 = 0
        supportsModifiers = drmGetCap(fd, UInt64(DRM_CAP_ADDFB2_MODIFIERS), &value) == 0 && value != 0
        // Without universal planes the primary plane is hidden and atomic cannot be used.
        if drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_UNIVERSAL_PLANES), 1) != 0 {
            let e = errno
            close(fd)
            throw DRMError("drmSetClientCap(UNIVERSAL_PLANES) on \(path)", errno: e)
        }
    }

    deinit {
        seat?.session.closeDevice(seat!.id)
        close(fd)
    }

    /// True when the card came from a seat manager (libseat) rather than a direct open.
    public var isFromSeat: Bool { seat != nil }

    /// Turns on atomic modesetting for this descriptor. Returns false where the driver refuses.
    /// The corresponding C function is `drmSetClientCap(DRM_CLIENT_CAP_ATOMIC)`.
    @discardableResult
    public func enableAtomic() -> Bool {
        supportsAtomic = drmSetClientCap(fd, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
        return supportsAtomic
    }

    /// True while this descriptor is DRM master. The corresponding C function is `drmIsMaster`.
    public var isMaster: Bool { drmIsMaster(fd) != 0 }

    /// Becomes DRM master, unless it already is (the first opener of a card is made master by
    /// the kernel). Fails with EBUSY (root) or EACCES when another process holds the display.
    /// The corresponding C function is `drmSetMaster`.
    public func becomeMaster() throws(DRMError) {
        if isMaster { return }
        try drmCheck("drmSetMaster on \(path)", drmSetMaster(fd))
    }

    /// Gives DRM master up (a VT switch, or before handing the display to another program).
    /// The corresponding C function is `drmDropMaster`.
    public func dropMaster() throws(DRMError) {
        try drmCheck("drmDropMaster on \(path)", drmDropMaster(fd))
    }

    /// The card files under /dev/dri, in numeric order ("/dev/dri/card0", …).
    public static func cardPaths(directory: String = "/dev/dri") -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { p in
                String(decoding: p.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("card"), let n = Int(name.dropFirst(4)) { numbers.append(n) }
        }
        return numbers.sorted().map { "\(directory)/card\($0)" }
    }

    // MARK: Objects

    /// A snapshot of the card's connectors, CRTCs and planes.
    /// The corresponding C functions are `drmModeGetResources`, `drmModeGetConnector`,
    /// `drmModeGetEncoder` and `drmModeGetPlaneResources`.
    public func resources() throws(DRMError) -> DRMResources {
        guard let res = drmModeGetResources(fd) else { throw DRMError("drmModeGetResources on \(path)", errno: errno) }
        defer { drmModeFreeResources(res) }
        let crtcIDs = Array(UnsafeBufferPointer(start: res.pointee.crtcs, count: Int(res.pointee.count_crtcs)))
        var connectors: [DRMConnector] = []
        for i in 0..<Int(res.pointee.count_connectors) {
            if let c = connector(res.pointee.connectors[i], crtcIDs: crtcIDs) { connectors.append(c) }
        }
        var planes: [DRMPlane] = []
        if let planeRes = drmModeGetPlaneResources(fd) {
            defer { drmModeFreePlaneResources(planeRes) }
            for i in 0..<Int(planeRes.pointee.count_planes) {
                if let p = plane(planeRes.pointee.planes[i], crtcIDs: crtcIDs) { planes.append(p) }
            }
        }
        return DRMResources(connectors: connectors, crtcs: crtcIDs, planes: planes)
    }

    /// Re-reads one connector (after a hotplug event). The corresponding C function is `drmModeGetConnector`.
    public func connector(_ id: UInt32, crtcIDs: [UInt32]) -> DRMConnector? {
        guard let c = drmModeGetConnector(fd, id) else { return nil }
        defer { drmModeFreeConnector(c) }
        let typeName = drmModeGetConnectorTypeName(c.pointee.connector_type).map { String(cString: $0) } ?? "Unknown"
        let modes = (0..<Int(c.pointee.count_modes)).map { DRMMode(c.pointee.modes[$0]) }
        var possible: UInt32 = 0
        var current: UInt32?
        for e in 0..<Int(c.pointee.count_encoders) {
            guard let enc = drmModeGetEncoder(fd, c.pointee.encoders[e]) else { continue }
            possible |= enc.pointee.possible_crtcs
            if enc.pointee.encoder_id == c.pointee.encoder_id, enc.pointee.crtc_id != 0 { current = enc.pointee.crtc_id }
            drmModeFreeEncoder(enc)
        }
        let properties = self.properties(of: id, type: UInt32(DRM_MODE_OBJECT_CONNECTOR))
        return DRMConnector(
            id: id, name: "\(typeName)-\(c.pointee.connector_type_id)",
            isConnected: c.pointee.connection == DRM_MODE_CONNECTED, modes: modes,
            possibleCRTCs: crtcIDs.enumerated().filter { possible & (1 << UInt32($0.offset)) != 0 }.map(\.element),
            currentCRTC: current, properties: properties)
    }

    private func plane(_ id: UInt32, crtcIDs: [UInt32]) -> DRMPlane? {
        guard let p = drmModeGetPlane(fd, id) else { return nil }
        defer { drmModeFreePlane(p) }
        let formats = Array(UnsafeBufferPointer(start: p.pointee.formats, count: Int(p.pointee.count_formats)))
        let properties = self.properties(of: id, type: UInt32(DRM_MODE_OBJECT_PLANE))
        let type = properties.values["type"].flatMap { DRMPlane.Kind(rawValue: $0) } ?? .overlay
        let mask = p.pointee.possible_crtcs
        return DRMPlane(id: id, kind: type, formats: formats,
                        possibleCRTCs: crtcIDs.enumerated().filter { mask & (1 << UInt32($0.offset)) != 0 }.map(\.element),
                        properties: properties)
    }

    /// The properties of a KMS object, by name.
    /// The corresponding C functions are `drmModeObjectGetProperties` and `drmModeGetProperty`.
    public func properties(of object: UInt32, type: UInt32) -> DRMProperties {
        var result = DRMProperties()
        guard let props = drmModeObjectGetProperties(fd, object, type) else { return result }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            let name = withUnsafeBytes(of: prop.pointee.name) { p in String(decoding: p.prefix { $0 != 0 }, as: UTF8.self) }
            result.ids[name] = prop.pointee.prop_id
            result.values[name] = props.pointee.prop_values[i]
            drmModeFreeProperty(prop)
        }
        return result
    }
}

/// A KMS object's properties: ids to set them by, and values when read.
public struct DRMProperties: Sendable, Equatable {
    public var ids: [String: UInt32] = [:]
    public var values: [String: UInt64] = [:]
    public init() {}

    /// The id of property `name`, or an error naming the object that lacks it.
    func id(_ name: String, on object: String) throws(DRMError) -> UInt32 {
        guard let id = ids[name] else { throw DRMError("the \(name) property of \(object) (the driver does not expose it)", errno: ENOENT) }
        return id
    }
}

/// One connector: a plug a display can be attached to.
public struct DRMConnector: Sendable, Equatable {
    public var id: UInt32
    /// The name users configure outputs by: "Virtual-1", "HDMI-A-1".
    public var name: String
    public var isConnected: Bool
    public var modes: [DRMMode]
    /// The CRTCs its encoders can drive.
    public var possibleCRTCs: [UInt32]
    /// The CRTC driving it now (set by the console or an earlier compositor), if any.
    public var currentCRTC: UInt32?
    public var properties: DRMProperties

    /// The connector's preferred mode, else its first.
    public var preferredMode: DRMMode? { modes.first(where: \.isPreferred) ?? modes.first }
}

/// One plane: a layer of scan-out a CRTC blends.
public struct DRMPlane: Sendable, Equatable {
    /// The plane's "type" property (DRM_PLANE_TYPE_*).
    public enum Kind: UInt64, Sendable {
        case overlay = 0, primary = 1, cursor = 2
    }
    public var id: UInt32
    public var kind: Kind
    /// The fourcc pixel formats it scans out.
    public var formats: [UInt32]
    public var possibleCRTCs: [UInt32]
    public var properties: DRMProperties
}

/// The card's KMS objects at one moment.
public struct DRMResources: Sendable, Equatable {
    public var connectors: [DRMConnector]
    public var crtcs: [UInt32]
    public var planes: [DRMPlane]

    /// The connected connectors, in the kernel's order.
    public var connected: [DRMConnector] { connectors.filter { $0.isConnected && !$0.modes.isEmpty } }

    /// The primary plane that can feed `crtc` with `format`.
    public func primaryPlane(for crtc: UInt32, format: UInt32) -> DRMPlane? {
        planes.first { $0.kind == .primary && $0.possibleCRTCs.contains(crtc) && $0.formats.contains(format) }
    }
}

/// The pixel formats Lamina scans out (drm_fourcc.h's macros are function-like, so Swift does
/// not import them).
public enum DRMFormat {
    static func fourcc(_ s: StaticString) -> UInt32 {
        let b = UnsafeBufferPointer(start: s.utf8Start, count: 4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }
    /// DRM_FORMAT_XRGB8888 ('XR24'): what every KMS driver scans out.
    public static let xrgb8888 = fourcc("XR24")
    /// DRM_FORMAT_ARGB8888 ('AR24'), premultiplied: what cursor planes scan out.
    public static let argb8888 = fourcc("AR24")
    /// DRM_FORMAT_MOD_INVALID: "no explicit modifier".
    public static let invalidModifier = DRMFourCC.invalidModifier
}
