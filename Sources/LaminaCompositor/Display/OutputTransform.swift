import LaminaCore

/// How an output's picture is turned on its panel (Wayland's wl_output_transform): rotated
/// clockwise by a multiple of 90°, optionally mirrored left to right first. Applied in the
/// renderer, as the virtual devices' planes cannot rotate. (`Output.transform`; the frame step
/// turns each output's draw list with `DrawList.forOutput`.)
public enum OutputTransform: String, Sendable, CaseIterable {
    case normal
    case rotate90 = "90"
    case rotate180 = "180"
    case rotate270 = "270"
    case flipped
    case flipped90 = "flipped-90"
    case flipped180 = "flipped-180"
    case flipped270 = "flipped-270"

    /// Quarter turns clockwise.
    public var quarterTurns: Int {
        switch self {
        case .normal, .flipped: 0
        case .rotate90, .flipped90: 1
        case .rotate180, .flipped180: 2
        case .rotate270, .flipped270: 3
        }
    }

    public var isFlipped: Bool { rawValue.hasPrefix("flipped") }

    /// True when the picture's width runs along the panel's height.
    public var swapsAxes: Bool { quarterTurns % 2 == 1 }

    /// The size of the picture in points for a `width` × `height` pixel panel.
    public func logicalSize(width: Int, height: Int) -> (width: Int, height: Int) {
        swapsAxes ? (height, width) : (width, height)
    }

    /// Maps the picture's points (`logicalWidth` × `logicalHeight`) to the panel's pixels.
    public func matrix(logicalWidth w: Double, logicalHeight h: Double) -> Transform3D {
        var t = Transform3D.identity
        if isFlipped { t = Transform3D(rowMajor: [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, w, 0, 0, 1])! }
        // Row vectors: p' = p · M. A clockwise quarter turn of a w × h picture: (x, y) → (h − y, x).
        let turn: Transform3D
        switch quarterTurns {
        case 1: turn = Transform3D(rowMajor: [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, h, 0, 0, 1])!
        case 2: turn = Transform3D(rowMajor: [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, w, h, 0, 1])!
        case 3: turn = Transform3D(rowMajor: [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, w, 0, 1])!
        default: turn = .identity
        }
        return t.concatenating(turn)
    }
}

extension DrawList {
    /// The part of the desktop an output shows: the quads moved so `origin` is the output's
    /// top-left corner, scaled by `scale` pixels per point, then turned by `transform` onto a
    /// `width` × `height` pixel panel.
    public func forOutput(origin: (x: Int, y: Int), scale: Double = 1, width: Int, height: Int, transform: OutputTransform) -> DrawList {
        let logical = transform.logicalSize(width: width, height: height)
        var m = Transform3D.translation(x: Double(-origin.x), y: Double(-origin.y))
        if scale != 1 { m = m.concatenating(.scale(x: scale, y: scale)) }
        m = m.concatenating(transform.matrix(logicalWidth: Double(logical.width), logicalHeight: Double(logical.height)))
        var list = self
        list.width = width
        list.height = height
        if !m.isIdentity {
            for i in list.quads.indices { list.quads[i].transform = list.quads[i].transform.concatenating(m) }
        }
        return list
    }
}
