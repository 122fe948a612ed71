import LaminaCore

/// A display mode: the panel's size in pixels (before the output's transform) and its refresh.
public struct OutputMode: Hashable, Sendable, CustomStringConvertible {
    public var width: UInt32
    public var height: UInt32
    /// Refreshes per second; 0 where nothing paces the output (headless) or, in a request, for
    /// "any" (the highest the output offers at that size).
    public var refresh: Double

    public init(width: UInt32, height: UInt32, refresh: Double = 0) {
        self.width = width
        self.height = height
        self.refresh = refresh
    }

    /// "1280x720", "1280x720@60" or "1920x1080@59.94": the refresh to two decimals, as
    /// `init(parsing:)` takes it back (a mode request picks the nearest refresh).
    public var description: String {
        guard refresh > 0 else { return "\(width)x\(height)" }
        let hundredths = (refresh * 100).rounded()
        let hz = Int(exactly: hundredths / 100).map(String.init) ?? String(hundredths / 100)
        return "\(width)x\(height)@\(hz)"
    }

    /// Parses "WIDTHxHEIGHT" or "WIDTHxHEIGHT@HZ" (`laminactl output NAME mode …`); nil when the
    /// text is neither. Sizes are not checked here: laminad says which it takes.
    public init?(parsing text: String) {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        let size = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let w = UInt32(size[0]), let h = UInt32(size[1]) else { return nil }
        var hz = 0.0
        if parts.count == 2 {
            guard let r = Double(parts[1]), r.isFinite, r > 0 else { return nil }
            hz = r
        }
        self.init(width: w, height: h, refresh: hz)
    }
}

/// What an `output` request changes on the output it names (protocol 1.7).
public enum OutputChange: Hashable, Sendable {
    /// Nothing: the request lists the outputs.
    case none
    /// Switches the output to a mode (`laminactl output NAME mode WxH[@HZ]`).
    case mode(OutputMode)
    /// Turns the picture on the panel: one of `OutputState.transform`'s names
    /// (`laminactl output NAME transform 90`).
    case transform(String)
    /// Pixels per point (`laminactl output NAME scale 2`).
    case scale(Double)
    /// Moves the output's top-left corner in the desktop, in points
    /// (`laminactl output NAME position X Y`).
    case position(x: Int32, y: Int32)
    /// Lights an output left dark (`laminactl output NAME enable`), or takes one out of the
    /// desktop and leaves it dark (`disable`).
    case enabled(Bool)
    /// Sets the panel's backlight, in percent of its range (0 to 100; 0 is the dimmest lit
    /// level, never off). An empty name sets every output that has a backlight
    /// (`laminactl display brightness [OUTPUT] PERCENT`).
    case brightness(Double)

    public var opcode: UInt8 {
        switch self {
        case .none: 0
        case .mode: 1
        case .transform: 2
        case .scale: 3
        case .position: 4
        case .enabled(let on): on ? 5 : 6
        case .brightness: 7
        }
    }

    /// The change as laminactl's words say it ("mode 800x600", "transform 90").
    public var description: String {
        switch self {
        case .none: "nothing"
        case .mode(let m): "mode \(m)"
        case .transform(let t): "transform \(t)"
        case .scale(let s): "scale \(s)"
        case let .position(x, y): "position \(x) \(y)"
        case .enabled(let on): on ? "enable" : "disable"
        case .brightness(let p): "brightness \(p)"
        }
    }
}

/// One output as the `output` request's reply lists it.
public struct OutputState: Hashable, Sendable {
    /// The connector's name ("Virtual-1", "HDMI-A-1"); "headless" on the headless backend.
    public var name: String
    /// Its rectangle in the desktop, in points.
    public var frame: Rect
    /// Pixels per point.
    public var scale: Double
    /// "normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180" or "flipped-270".
    public var transform: String
    /// The mode it shows now.
    public var mode: OutputMode
    /// The modes it can show (the connector's, on KMS; the current one on headless, which
    /// takes any size).
    public var modes: [OutputMode]
    /// False while blanked.
    public var isOn: Bool

    public init(name: String, frame: Rect, scale: Double = 1, transform: String = "normal", mode: OutputMode,
                modes: [OutputMode] = [], isOn: Bool = true) {
        self.name = name
        self.frame = frame
        self.scale = scale
        self.transform = transform
        self.mode = mode
        self.modes = modes
        self.isOn = isOn
    }
}

/// The display as a `display-changed` message tells it (message 0x8C, protocol 1.7): the
/// desktop's size and where each output shows it.
public struct DisplayLayout: Hashable, Sendable {
    public struct Output: Hashable, Sendable {
        public var name: String
        /// Its rectangle in the desktop, in points.
        public var frame: Rect
        public var scale: Double
        /// As in `OutputState.transform`.
        public var transform: String
        /// Refreshes per second; 0 where nothing paces it (headless).
        public var refresh: Double

        public init(name: String, frame: Rect, scale: Double = 1, transform: String = "normal", refresh: Double = 0) {
            self.name = name
            self.frame = frame
            self.scale = scale
            self.transform = transform
            self.refresh = refresh
        }
    }

    /// The desktop's size in points (the welcome's display size).
    public var width: UInt32
    public var height: UInt32
    public var outputs: [Output]

    public init(width: UInt32, height: UInt32, outputs: [Output]) {
        self.width = width
        self.height = height
        self.outputs = outputs
    }
}

extension ByteWriter {
    mutating func outputRequest(name: String, _ change: OutputChange) {
        string(name)
        u8(change.opcode)
        switch change {
        case .none, .enabled: break
        case .mode(let m): outputMode(m)
        case .transform(let t): string(t)
        case .scale(let s), .brightness(let s): f64(s)
        case let .position(x, y): i32(x); i32(y)
        }
    }

    mutating func outputMode(_ m: OutputMode) {
        u32(m.width); u32(m.height); f64(m.refresh)
    }

    mutating func rect(_ r: Rect) {
        f64(r.minX); f64(r.minY); f64(r.width); f64(r.height)
    }

    mutating func outputStates(backend: String, _ outputs: [OutputState]) {
        string(backend)
        u32(UInt32(outputs.count))
        for o in outputs {
            string(o.name)
            rect(o.frame)
            f64(o.scale)
            string(o.transform)
            outputMode(o.mode)
            bool(o.isOn)
            u32(UInt32(o.modes.count))
            for m in o.modes { outputMode(m) }
        }
    }

    mutating func displayLayout(_ d: DisplayLayout) {
        u32(d.width); u32(d.height)
        u32(UInt32(d.outputs.count))
        for o in d.outputs {
            string(o.name)
            rect(o.frame)
            f64(o.scale)
            string(o.transform)
            f64(o.refresh)
        }
    }
}

extension ByteReader {
    mutating func outputRequest() throws(DecodeError) -> Request {
        let name = try string("output name", limit: 256)
        let op = try u8("output change")
        switch op {
        case 0: return .output(name: name, .none)
        case 1: return .output(name: name, .mode(try outputMode("output mode")))
        case 2: return .output(name: name, .transform(try string("output transform", limit: 32)))
        case 3: return .output(name: name, .scale(try f64("output scale")))
        case 4: return .output(name: name, .position(x: try i32("output position x"), y: try i32("output position y")))
        case 5: return .output(name: name, .enabled(true))
        case 6: return .output(name: name, .enabled(false))
        case 7:
            let percent = try f64("output brightness")
            guard percent.isFinite, (0...100).contains(percent) else {
                throw DecodeError.invalid(field: "output brightness", reason: "\(percent) is not a percentage from 0 to 100")
            }
            return .output(name: name, .brightness(percent))
        default:
            throw DecodeError.invalid(field: "output change", reason: "unknown change \(op) (0 none, 1 mode, 2 transform, 3 scale, 4 position, 5 enable, 6 disable, 7 brightness)")
        }
    }

    mutating func outputMode(_ field: String) throws(DecodeError) -> OutputMode {
        OutputMode(width: try u32("\(field) width"), height: try u32("\(field) height"), refresh: try f64("\(field) refresh"))
    }

    mutating func rect(_ field: String) throws(DecodeError) -> Rect {
        Rect(x: try f64("\(field) x"), y: try f64("\(field) y"), width: try f64("\(field) width"), height: try f64("\(field) height"))
    }

    mutating func outputStates() throws(DecodeError) -> Reply {
        let backend = try string("outputs backend", limit: 256)
        let n = Int(try u32("output count"))
        guard n <= remaining / 60 else { throw DecodeError.invalid(field: "output count", reason: "\(n) outputs cannot fit") }
        var outputs: [OutputState] = []
        for i in 0..<n {
            let name = try string("output \(i) name", limit: 256)
            let frame = try rect("output \(i) rectangle")
            let scale = try f64("output \(i) scale")
            let transform = try string("output \(i) transform", limit: 32)
            let mode = try outputMode("output \(i) mode")
            let on = try bool("output \(i) power")
            let m = Int(try u32("output \(i) mode count"))
            guard m <= remaining / 16 else { throw DecodeError.invalid(field: "output \(i) mode count", reason: "\(m) modes cannot fit") }
            var modes: [OutputMode] = []
            for j in 0..<m { modes.append(try outputMode("output \(i) mode \(j)")) }
            outputs.append(OutputState(name: name, frame: frame, scale: scale, transform: transform, mode: mode, modes: modes, isOn: on))
        }
        return .outputs(backend: backend, outputs)
    }

    mutating func displayLayout() throws(DecodeError) -> DisplayLayout {
        let w = try u32("display width"), h = try u32("display height")
        let n = Int(try u32("display output count"))
        guard n <= remaining / 52 else { throw DecodeError.invalid(field: "display output count", reason: "\(n) outputs cannot fit") }
        var outputs: [DisplayLayout.Output] = []
        for i in 0..<n {
            outputs.append(DisplayLayout.Output(name: try string("display output \(i) name", limit: 256),
                                                frame: try rect("display output \(i) rectangle"),
                                                scale: try f64("display output \(i) scale"),
                                                transform: try string("display output \(i) transform", limit: 32),
                                                refresh: try f64("display output \(i) refresh")))
        }
        return DisplayLayout(width: w, height: h, outputs: outputs)
    }
}
