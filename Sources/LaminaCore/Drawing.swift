/// A layer's drawn contents (`drawing`, protocol 1.7): the commands a `draw(_:in:)` delegate
/// gave a drawing context, recorded by the client and rasterised by laminad at the scale the
/// layer is shown (a drawing, not pixels). Coordinates are the layer's bounds, y down, as
/// `draw(in:)` sees them. The empty drawing draws nothing.
public struct Drawing: Hashable, Sendable, CustomStringConvertible {
    public var commands: [DrawingCommand]
    public init(_ commands: [DrawingCommand] = []) { self.commands = commands }

    public var isEmpty: Bool { commands.isEmpty }

    /// The client images `drawImage` commands name, in order, once each.
    public var imageNumbers: [UInt32] {
        var out: [UInt32] = []
        for c in commands where c.op == .drawImage && c.numbers.count == 5 {
            let n = UInt32(exactly: c.numbers[0]) ?? 0
            if n != 0, !out.contains(n) { out.append(n) }
        }
        return out
    }

    public var description: String {
        commands.isEmpty ? "no drawing" : "drawing of \(commands.count) command\(commands.count == 1 ? "" : "s")"
    }

    // Budgets: what one drawing may hold (each refused with a message naming it).
    /// The most commands in one drawing.
    public static let maximumCommands = 10_000
    /// The most path points in one drawing (every point of move, line, curve and arc commands,
    /// and of `addPath` strings).
    public static let maximumPathPoints = 100_000
    /// The most entries in one dash pattern.
    public static let maximumDashEntries = 64
    /// The deepest `saveGState` nesting.
    public static let maximumNesting = 64
    /// The most stops in one gradient.
    public static let maximumGradientStops = 64
    /// The longest string argument (an `addPath`, a `showText` text or font), in UTF-8 bytes.
    public static let maximumStringBytes = 16_384

    /// Checks every command's argument count, names and ranges and the drawing's budgets;
    /// the error names the command by index and op.
    public func validate() throws(DrawingError) {
        guard commands.count <= Self.maximumCommands else {
            throw DrawingError("\(commands.count) commands is more than the limit of \(Self.maximumCommands) a drawing may have")
        }
        var depth = 0, points = 0
        for (i, c) in commands.enumerated() {
            let at = "command \(i) (\(c.op.name))"
            guard c.numbers.allSatisfy(\.isFinite) else { throw DrawingError("\(at): numbers must be finite") }
            let n = c.op.numberCount
            switch c.op {
            case .setLineDash:
                guard c.numbers.count >= 1 else { throw DrawingError("\(at): needs a phase") }
                guard c.numbers.count - 1 <= Self.maximumDashEntries else {
                    throw DrawingError("\(at): \(c.numbers.count - 1) dash entries is more than the limit of \(Self.maximumDashEntries)")
                }
                guard c.numbers.dropFirst().allSatisfy({ $0 >= 0 }) else {
                    throw DrawingError("\(at): dash and gap lengths must not be negative")
                }
            case .drawLinearGradient, .drawRadialGradient:
                let extra = c.numbers.count - n
                guard extra >= 10, extra % 5 == 0 else {
                    throw DrawingError("\(at): needs at least two stops (location, red, green, blue, alpha each)")
                }
                guard extra / 5 <= Self.maximumGradientStops else {
                    throw DrawingError("\(at): \(extra / 5) stops is more than the limit of \(Self.maximumGradientStops)")
                }
                for s in stride(from: n, to: c.numbers.count, by: 5) where !c.numbers[s..<(s + 5)].allSatisfy({ $0 >= 0 && $0 <= 1 }) {
                    throw DrawingError("\(at): a stop's location and colour components must be in [0, 1]")
                }
            default:
                guard c.numbers.count == n else {
                    throw DrawingError("\(at): takes \(n) number\(n == 1 ? "" : "s"), got \(c.numbers.count)")
                }
            }
            guard c.strings.count == c.op.stringCount else {
                throw DrawingError("\(at): takes \(c.op.stringCount) string\(c.op.stringCount == 1 ? "" : "s"), got \(c.strings.count)")
            }
            for s in c.strings where s.utf8.count > Self.maximumStringBytes {
                throw DrawingError("\(at): a string of \(s.utf8.count) bytes is longer than the limit of \(Self.maximumStringBytes)")
            }
            // Named arguments are whole-number indexes into their names.
            var k = 0
            for arg in c.op.arguments {
                if case .name(let names) = arg.kind {
                    let v = c.numbers[k]
                    guard v >= 0, v < Double(names.count), v.rounded() == v else {
                        throw DrawingError("\(at): \(arg.name) \(v) is not one of 0–\(names.count - 1) (\(names.joined(separator: ", ")))")
                    }
                }
                if case .color = arg.kind, !c.numbers[k..<(k + 4)].allSatisfy({ $0 >= 0 && $0 <= 1 }) {
                    throw DrawingError("\(at): colour components must be in [0, 1]")
                }
                k += arg.kind.numberCount ?? 0
            }
            switch c.op {
            case .saveGState:
                depth += 1
                guard depth <= Self.maximumNesting else {
                    throw DrawingError("\(at): saveGState nests deeper than the limit of \(Self.maximumNesting)")
                }
            case .restoreGState:
                guard depth > 0 else { throw DrawingError("\(at): restoreGState without a saveGState") }
                depth -= 1
            case .setLineWidth, .setMiterLimit, .setAlpha:
                guard c.numbers[0] >= 0 else { throw DrawingError("\(at): must not be negative (got \(c.numbers[0]))") }
                if c.op == .setAlpha, c.numbers[0] > 1 { throw DrawingError("\(at): alpha is in [0, 1] (got \(c.numbers[0]))") }
            case .addArc, .setShadow, .addRoundedRect:
                let r = c.op == .addArc ? c.numbers[2] : c.op == .setShadow ? c.numbers[2] : Swift.min(c.numbers[4], c.numbers[5])
                guard r >= 0 else { throw DrawingError("\(at): a radius must not be negative (got \(r))") }
            case .drawImage:
                let n = c.numbers[0]
                guard n >= 1, n <= Double(UInt32.max), n.rounded() == n else {
                    throw DrawingError("\(at): an image number is a whole number ≥ 1 (got \(n))")
                }
            case .showText:
                guard c.numbers[2] > 0 else { throw DrawingError("\(at): size must be greater than 0 (got \(c.numbers[2]))") }
            case .addPath:
                do {
                    let p = try Path(svgData: c.strings[0])
                    points += p.elements.count * 3
                } catch {
                    throw DrawingError("\(at): \(error.message)")
                }
            default: break
            }
            points += c.op.pointCount
            guard points <= Self.maximumPathPoints else {
                throw DrawingError("\(at): the drawing's paths have more than the limit of \(Self.maximumPathPoints) points")
            }
        }
    }
}

/// Why a drawing was refused.
public struct DrawingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One command: an op and its arguments, flat (`DrawingOp.arguments` says what they are).
public struct DrawingCommand: Hashable, Sendable, CustomStringConvertible {
    public var op: DrawingOp
    public var numbers: [Double]
    public var strings: [String]
    public init(_ op: DrawingOp, _ numbers: [Double] = [], _ strings: [String] = []) {
        self.op = op
        self.numbers = numbers
        self.strings = strings
    }
    public var description: String {
        op.name + "(" + (numbers.map { "\($0)" } + strings.map { "\"\($0)\"" }).joined(separator: ", ") + ")"
    }
}

/// CGBlendMode's names, the default first; sent as their index.
public enum DrawingBlendMode: String, CaseIterable, Sendable {
    case normal, multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight,
         difference, exclusion, hue, saturation, color, luminosity, clear, copy, sourceIn, sourceOut,
         sourceAtop, destinationOver, destinationIn, destinationOut, destinationAtop, xor, plusLighter
}

/// The kind of one named argument of a drawing command, as scene files write it.
public enum DrawingArgumentKind: Sendable, Equatable {
    case number, point, size, rect, color, bool
    /// A client image's number (≥ 1), as `contents` names it.
    case image
    /// One of these names, sent as its index.
    case name([String])
    /// `[a, b, c, d, tx, ty]`.
    case affine
    /// A string.
    case string
    /// A list of numbers (last argument only).
    case numbers
    /// Gradient stops `[{"location": l, "color": c}, …]`, five numbers each (last argument only).
    case stops

    /// Numbers it takes on the wire; nil for the variable lists and strings.
    public var numberCount: Int? {
        switch self {
        case .number, .bool, .name, .image: 1
        case .point, .size: 2
        case .rect, .color: 4
        case .affine: 6
        case .string: 0
        case .numbers, .stops: nil
        }
    }
}

/// A named argument of a drawing command.
public struct DrawingArgument: Sendable {
    public var name: String
    public var kind: DrawingArgumentKind
    /// The value when a scene file leaves it out (nil: required).
    public var defaultNumbers: [Double]?
    init(_ name: String, _ kind: DrawingArgumentKind, default d: [Double]? = nil) {
        self.name = name
        self.kind = kind
        self.defaultNumbers = d
    }
}

/// The commands of a drawing, named after CGContext's methods. The raw value is the opcode on
/// the wire (docs/protocol.md, "Drawings"); numbers are never reused.
public enum DrawingOp: UInt8, CaseIterable, Sendable, CustomStringConvertible {
    case saveGState = 1, restoreGState, translateBy, scaleBy, rotateBy, concatenate
    case beginPath = 10, move, addLine, addQuadCurve, addCurve, addArc, addRect, addRoundedRect, addEllipse, closePath, addPath
    case fillPath = 30, strokePath, clip, fillRect, strokeRect, clearRect, fillEllipse, strokeEllipse
    case setFillColor = 50, setStrokeColor, setLineWidth, setLineCap, setLineJoin, setMiterLimit, setLineDash
    case setAlpha, setBlendMode, setShadow
    case drawLinearGradient = 70, drawRadialGradient, showText, drawImage

    /// `fillRule`'s names (`non-zero`, `even-odd`), sent as their index.
    public static let fillRules = FillRule.allCases.map(\.rawValue)
    public static let lineCaps = LineCap.allCases.map(\.rawValue)
    public static let lineJoins = LineJoin.allCases.map(\.rawValue)
    public static let blendModes = DrawingBlendMode.allCases.map(\.rawValue)
    /// `drawLinearGradient`/`drawRadialGradient` options (`CGGradientDrawingOptions`).
    public static let gradientExtends = ["none", "drawsBeforeStartLocation", "drawsAfterEndLocation", "both"]

    public var name: String {
        switch self {
        case .saveGState: "saveGState"
        case .restoreGState: "restoreGState"
        case .translateBy: "translateBy"
        case .scaleBy: "scaleBy"
        case .rotateBy: "rotateBy"
        case .concatenate: "concatenate"
        case .beginPath: "beginPath"
        case .move: "move"
        case .addLine: "addLine"
        case .addQuadCurve: "addQuadCurve"
        case .addCurve: "addCurve"
        case .addArc: "addArc"
        case .addRect: "addRect"
        case .addRoundedRect: "addRoundedRect"
        case .addEllipse: "addEllipse"
        case .closePath: "closePath"
        case .addPath: "addPath"
        case .fillPath: "fillPath"
        case .strokePath: "strokePath"
        case .clip: "clip"
        case .fillRect: "fillRect"
        case .strokeRect: "strokeRect"
        case .clearRect: "clearRect"
        case .fillEllipse: "fillEllipse"
        case .strokeEllipse: "strokeEllipse"
        case .setFillColor: "setFillColor"
        case .setStrokeColor: "setStrokeColor"
        case .setLineWidth: "setLineWidth"
        case .setLineCap: "setLineCap"
        case .setLineJoin: "setLineJoin"
        case .setMiterLimit: "setMiterLimit"
        case .setLineDash: "setLineDash"
        case .setAlpha: "setAlpha"
        case .setBlendMode: "setBlendMode"
        case .setShadow: "setShadow"
        case .drawLinearGradient: "drawLinearGradient"
        case .drawRadialGradient: "drawRadialGradient"
        case .showText: "showText"
        case .drawImage: "drawImage"
        }
    }

    public var description: String { name }

    public static let byName: [String: DrawingOp] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.name, $0) })

    /// The named arguments, in wire order.
    public var arguments: [DrawingArgument] {
        switch self {
        case .saveGState, .restoreGState, .beginPath, .closePath, .strokePath: []
        case .translateBy, .scaleBy: [.init("x", .number), .init("y", .number)]
        case .rotateBy: [.init("angle", .number)]
        case .concatenate: [.init("transform", .affine)]
        case .move, .addLine: [.init("point", .point)]
        case .addQuadCurve: [.init("to", .point), .init("control", .point)]
        case .addCurve: [.init("to", .point), .init("control1", .point), .init("control2", .point)]
        case .addArc:
            [.init("center", .point), .init("radius", .number), .init("startAngle", .number),
             .init("endAngle", .number), .init("clockwise", .bool, default: [0])]
        case .addRect, .addEllipse, .fillRect, .strokeRect, .clearRect, .fillEllipse, .strokeEllipse: [.init("rect", .rect)]
        case .addRoundedRect: [.init("rect", .rect), .init("cornerWidth", .number), .init("cornerHeight", .number)]
        case .addPath: [.init("path", .string)]
        case .fillPath, .clip: [.init("rule", .name(Self.fillRules), default: [0])]
        case .setFillColor, .setStrokeColor: [.init("color", .color)]
        case .setLineWidth: [.init("width", .number)]
        case .setLineCap: [.init("cap", .name(Self.lineCaps))]
        case .setLineJoin: [.init("join", .name(Self.lineJoins))]
        case .setMiterLimit: [.init("limit", .number)]
        case .setLineDash: [.init("phase", .number, default: [0]), .init("lengths", .numbers)]
        case .setAlpha: [.init("alpha", .number)]
        case .setBlendMode: [.init("mode", .name(Self.blendModes))]
        case .setShadow: [.init("offset", .size), .init("blur", .number), .init("color", .color, default: [0, 0, 0, 1.0 / 3])]
        case .drawLinearGradient:
            [.init("start", .point), .init("end", .point), .init("options", .name(Self.gradientExtends), default: [0]),
             .init("stops", .stops)]
        case .drawRadialGradient:
            [.init("startCenter", .point), .init("startRadius", .number), .init("endCenter", .point),
             .init("endRadius", .number), .init("options", .name(Self.gradientExtends), default: [0]), .init("stops", .stops)]
        case .showText: [.init("at", .point), .init("size", .number), .init("text", .string), .init("font", .string)]
        case .drawImage: [.init("image", .image), .init("rect", .rect)]
        }
    }

    /// The fixed numbers the op takes (before a dash list or gradient stops).
    public var numberCount: Int { arguments.reduce(0) { $0 + ($1.kind.numberCount ?? 0) } }
    /// The strings it takes, in order.
    public var stringCount: Int { arguments.filter { $0.kind == .string }.count }
    /// Path points it adds (for the budget).
    var pointCount: Int {
        switch self {
        case .move, .addLine: 1
        case .addQuadCurve: 2
        case .addCurve: 3
        case .addArc: 13
        case .addRect, .fillRect, .strokeRect, .clearRect: 4
        case .addRoundedRect, .addEllipse, .fillEllipse, .strokeEllipse: 13
        default: 0
        }
    }
}
