import LaminaCore

/// Where an output shows the desktop, for mapping input devices onto it: its name, its
/// rectangle in desktop points, and how its picture is turned on the panel (the panel's
/// physical orientation is the one touchscreens and absolute pointers report in).
public struct OutputPlacement: Sendable, Equatable {
    /// The connector name ("Virtual-1", "HDMI-A-1"); the backend's name for headless.
    public var name: String
    /// The output's rectangle in the desktop, in points.
    public var frame: Rect
    /// Clockwise quarter turns of the picture on the panel, 0…3 (KMS `transform` 90 is 1).
    public var quarterTurns: Int
    /// The picture is mirrored left to right before it is turned (`flipped-*` transforms).
    public var flipped: Bool

    public init(name: String, frame: Rect, quarterTurns: Int = 0, flipped: Bool = false) {
        self.name = name
        self.frame = frame
        self.quarterTurns = ((quarterTurns % 4) + 4) % 4
        self.flipped = flipped
    }

    /// The desktop point shown at `(u, v)` of the panel, each 0…1 from the panel's top-left
    /// corner in its physical orientation (what libinput's `*_transformed(e, 1)` reports for
    /// a touchscreen or tablet mounted on it): the inverse of the output's transform, then the
    /// output's place in the desktop. Values outside 0…1 are clamped to the panel's edge (NaN: 0).
    public func desktopPoint(panelX u: Double, panelY v: Double) -> Point {
        let u = Swift.min(1, Swift.max(0, u.isNaN ? 0 : u))
        let v = Swift.min(1, Swift.max(0, v.isNaN ? 0 : v))
        // The forward map (OutputTransform.matrix, in normalised coordinates) is: mirror s ↦ 1 − s,
        // then each clockwise quarter turn (s, t) ↦ (1 − t, s). Undo it in reverse order.
        var s: Double, t: Double
        switch quarterTurns {
        case 1: (s, t) = (v, 1 - u)
        case 2: (s, t) = (1 - u, 1 - v)
        case 3: (s, t) = (1 - v, u)
        default: (s, t) = (u, v)
        }
        if flipped { s = 1 - s }
        return Point(x: frame.minX + s * frame.width, y: frame.minY + t * frame.height)
    }
}
