import CDRM

/// One display mode of a connector (a `drmModeModeInfo`).
public struct DRMMode: Sendable, Equatable, CustomStringConvertible {
    /// The kernel's mode description, passed back as is to modesets.
    public var info: drmModeModeInfo
    /// Visible width in pixels.
    public var width: Int { Int(info.hdisplay) }
    /// Visible height in pixels.
    public var height: Int { Int(info.vdisplay) }
    /// True for the connector's preferred mode.
    public var isPreferred: Bool { info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0 }

    public init(_ info: drmModeModeInfo) { self.info = info }

    /// The refresh rate in Hz, from the pixel clock and the totals (more exact than `vrefresh`).
    public var refreshRate: Double {
        let htotal = Double(info.htotal), vtotal = Double(info.vtotal)
        guard htotal > 0, vtotal > 0, info.clock > 0 else { return info.vrefresh > 0 ? Double(info.vrefresh) : 60 }
        var hz = Double(info.clock) * 1000 / (htotal * vtotal)
        if info.flags & UInt32(DRM_MODE_FLAG_INTERLACE) != 0 { hz *= 2 }
        if info.flags & UInt32(DRM_MODE_FLAG_DBLSCAN) != 0 { hz /= 2 }
        return hz
    }

    /// The time between refreshes in seconds.
    public var refreshInterval: Double { 1 / refreshRate }

    /// "1280x800@60".
    public var description: String { "\(width)x\(height)@\(Int(refreshRate.rounded()))" }

    public static func == (a: DRMMode, b: DRMMode) -> Bool {
        withUnsafeBytes(of: a.info) { x in withUnsafeBytes(of: b.info) { y in x.elementsEqual(y) } }
    }
}

/// A mode asked for in the configuration: "1280x800" or "1280x800@60".
public struct ModeRequest: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// The refresh rate in Hz, or nil for the highest the connector offers at that size.
    public var refreshRate: Double?

    public init(width: Int, height: Int, refreshRate: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshRate = refreshRate
    }

    /// Parses "WIDTHxHEIGHT" or "WIDTHxHEIGHT@HZ"; nil when the text is neither.
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", maxSplits: 1)
        let size = parts[0].split(separator: "x")
        guard size.count == 2, let w = Int(size[0]), let h = Int(size[1]), w > 0, h > 0 else { return nil }
        width = w
        height = h
        if parts.count == 2 {
            guard let hz = Double(parts[1]), hz > 0 else { return nil }
            refreshRate = hz
        }
    }

    public var description: String {
        "\(width)x\(height)" + (refreshRate.map { "@\($0 == $0.rounded() ? String(Int($0)) : String($0))" } ?? "")
    }

    /// The connector's mode that fits this request best: the right size, with the refresh rate
    /// nearest the one asked for (or the highest), preferring the connector's preferred mode.
    public func best(of modes: [DRMMode]) -> DRMMode? {
        let sized = modes.filter { $0.width == width && $0.height == height }
        if let hz = refreshRate {
            return sized.min { abs($0.refreshRate - hz) < abs($1.refreshRate - hz) }
        }
        return sized.max { ($0.refreshRate, $0.isPreferred ? 1 : 0) < ($1.refreshRate, $1.isPreferred ? 1 : 0) }
    }
}
