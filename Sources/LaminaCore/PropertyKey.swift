/// A layer property that a client can set, named as in Core Animation.
///
/// The raw value is the property's number on the wire (docs/protocol.md); numbers are never
/// reused. Each key has one value type, so a value on the wire needs no type tag.
public enum PropertyKey: UInt16, CaseIterable, Sendable, CustomStringConvertible {
    case bounds = 1
    case position = 2
    case anchorPoint = 3
    case anchorPointZ = 4
    case zPosition = 5
    case transform = 6
    case sublayerTransform = 7
    case opacity = 8
    case isHidden = 9
    case backgroundColor = 10
    case name = 11
    case cornerRadius = 12
    case borderWidth = 13
    case borderColor = 14
    case masksToBounds = 15
    case shadowColor = 16
    case shadowOpacity = 17
    case shadowOffset = 18
    case shadowRadius = 19
    case isDoubleSided = 20
    case speed = 21
    case timeOffset = 22
    case beginTime = 23
    case maskedCorners = 24
    case allowsGroupOpacity = 25
    case isGeometryFlipped = 26

    // Contents (any layer).
    case contents = 27
    case contentsRect = 28
    case contentsCenter = 29
    case contentsGravity = 30
    case contentsScale = 31
    case minificationFilter = 32
    case magnificationFilter = 33
    case isOpaque = 34
    // Masking and shadow shape (any layer).
    case mask = 35
    case shadowPath = 36
    // Gradient layers (`CAGradientLayer`).
    case colors = 37
    case locations = 38
    case startPoint = 39
    case endPoint = 40
    case gradientType = 41
    // Shape layers (`CAShapeLayer`).
    case path = 42
    case fillColor = 43
    case fillRule = 44
    case strokeColor = 45
    case lineWidth = 46
    case lineCap = 47
    case lineJoin = 48
    case miterLimit = 49
    case lineDashPattern = 50
    case lineDashPhase = 51
    case strokeStart = 52
    case strokeEnd = 53
    // Text layers (`CATextLayer`).
    case string = 54
    case font = 55
    case fontSize = 56
    case foregroundColor = 57
    case alignmentMode = 58
    case isWrapped = 59
    case truncationMode = 60
    // Replicator layers (`CAReplicatorLayer`).
    case instanceCount = 61
    case instanceTransform = 62
    case instanceColor = 63
    case instanceRedOffset = 64
    case instanceGreenOffset = 65
    case instanceBlueOffset = 66
    case instanceAlphaOffset = 67
    case instanceDelay = 68
    // Input (protocol 1.4).
    /// UIKit's `isUserInteractionEnabled`: false makes the layer and its subtree transparent to
    /// touches and the pointer (hit testing passes through to what is behind).
    case isUserInteractionEnabled = 69
    // Blending and corners (protocol 1.7).
    /// `compositingFilter`: a blend mode name (`BlendMode`), or "" for none.
    case compositingFilter = 70
    /// `cornerCurve`: circular or continuous corners (`CornerCurve`).
    case cornerCurve = 71
    // Scroll layers (`CAScrollLayer`; protocol 1.7).
    /// `CAScrollLayer.scrollMode`: none, vertically, horizontally, both.
    case scrollMode = 72
    /// Beyond Core Animation: laminad scrolls the layer itself when a touch drags over it or a
    /// wheel turns over it (momentum, rubber-banding, paging).
    case scrollsOnTouch = 73
    /// The size of what scrolls, from (0, 0) in the layer's bounds coordinates; (0, 0): the
    /// union of the sublayers' frames.
    case scrollContentSize = 74
    /// A touch scroll settles on whole multiples of the bounds size.
    case pagingEnabled = 75
    // Filters (protocol 1.7).
    /// `filters`: named filters applied to the layer and its sublayers drawn as a group
    /// (`LayerFilter`); their inputs animate by key path (`filters.NAME.inputRadius`).
    case filters = 76
    /// `backgroundFilters`: the same filters applied to what lies behind the layer inside its
    /// bounds (clipped by its corners and mask) before the layer draws: frosted glass. Inputs
    /// animate by key path (`backgroundFilters.NAME.inputRadius`).
    case backgroundFilters = 77
    // Tiled layers (`CATiledLayer`, protocol 1.7): 78–79 and 95–96, in `TiledProperties`.
    /// `tileSize`: each tile's size in image pixels (256 × 256 by default).
    case tileSize = 78
    /// `levelsOfDetail`: how many levels, each half the resolution of the one before (1).
    case levelsOfDetail = 79
    // Emitter layers (`CAEmitterLayer`, protocol 1.7): 80–94, in `EmitterProperties`.
    case emitterPosition = 80
    case emitterZPosition = 81
    case emitterSize = 82
    case emitterDepth = 83
    case emitterShape = 84
    case emitterMode = 85
    case renderMode = 86
    case birthRate = 87
    case lifetime = 88
    case velocity = 89
    case scale = 90
    case spin = 91
    case seed = 92
    case preservesDepth = 93
    case emitterCells = 94
    /// `levelsOfDetailBias`: how many magnified levels (2×, 4×, …) come before level 0 (0).
    case levelsOfDetailBias = 95
    /// `CATiledLayer.fadeDuration` (a class property in Core Animation): how long a new tile
    /// takes to fade in, in seconds (0.25).
    case tileFadeDuration = 96
    // Drawn contents (`draw(in:)`, protocol 1.7).
    /// `drawing`: the commands a layer's `draw(_:in:)` recorded (`Drawing`), rasterised by
    /// laminad at the scale the layer is shown, in place of `contents`.
    case drawing = 97
    // Rich text (protocol 1.7).
    /// `attributedString`: a text layer's runs (`TextRun`); non-empty, it is drawn instead of `string`.
    case attributedString = 98
    /// `lineSpacing`: points added between a text layer's lines (`NSParagraphStyle.lineSpacing`).
    case lineSpacing = 99
    // Layout (`CAAutoresizingMask`, `CAConstraint`; protocol 1.7): 100–101, applied by laminad
    // when a superlayer's bounds change (Layout.swift, ConstraintLayout.swift).
    /// `autoresizingMask`: a number holding the `AutoresizingMask` bits (0–63).
    case autoresizingMask = 100
    /// `constraints`: the layer's `LayoutConstraint`s.
    case constraints = 101
    // App surfaces (protocol 1.7): a Wayland app's window shown as a layer's contents.
    /// `appSurface`: laminad's number for an app window (`app-surface` events); 0 shows none.
    /// Drawn in place of `contents`, for a client that manages apps.
    case appSurface = 102
    /// `appSizing`: `bounds` (the app is configured to the layer's bounds) or `app` (it keeps
    /// its own size, placed by `contentsGravity`).
    case appSizing = 103
    /// `appExitContents`: what the layer shows once its app is gone: `keep` its last frame, or `clear`.
    case appExitContents = 104

    /// The protocol minor version that added the key: a server must not send it to a client
    /// that said hello with an older minor version (it could not decode it).
    public var minorVersion: UInt16 {
        switch rawValue {
        case ...26: 0
        case ...68: 1
        case ...69: 4
        default: 7
        }
    }

    /// The Core Animation name of the property, as used in key paths and scene files.
    public var name: String {
        switch self {
        case .bounds: "bounds"
        case .position: "position"
        case .anchorPoint: "anchorPoint"
        case .anchorPointZ: "anchorPointZ"
        case .zPosition: "zPosition"
        case .transform: "transform"
        case .sublayerTransform: "sublayerTransform"
        case .opacity: "opacity"
        case .isHidden: "hidden"
        case .backgroundColor: "backgroundColor"
        case .name: "name"
        case .cornerRadius: "cornerRadius"
        case .borderWidth: "borderWidth"
        case .borderColor: "borderColor"
        case .masksToBounds: "masksToBounds"
        case .shadowColor: "shadowColor"
        case .shadowOpacity: "shadowOpacity"
        case .shadowOffset: "shadowOffset"
        case .shadowRadius: "shadowRadius"
        case .isDoubleSided: "doubleSided"
        case .speed: "speed"
        case .timeOffset: "timeOffset"
        case .beginTime: "beginTime"
        case .maskedCorners: "maskedCorners"
        case .allowsGroupOpacity: "allowsGroupOpacity"
        case .isGeometryFlipped: "geometryFlipped"
        case .contents: "contents"
        case .contentsRect: "contentsRect"
        case .contentsCenter: "contentsCenter"
        case .contentsGravity: "contentsGravity"
        case .contentsScale: "contentsScale"
        case .minificationFilter: "minificationFilter"
        case .magnificationFilter: "magnificationFilter"
        case .isOpaque: "opaque"
        case .mask: "mask"
        case .shadowPath: "shadowPath"
        case .colors: "colors"
        case .locations: "locations"
        case .startPoint: "startPoint"
        case .endPoint: "endPoint"
        case .gradientType: "type"
        case .path: "path"
        case .fillColor: "fillColor"
        case .fillRule: "fillRule"
        case .strokeColor: "strokeColor"
        case .lineWidth: "lineWidth"
        case .lineCap: "lineCap"
        case .lineJoin: "lineJoin"
        case .miterLimit: "miterLimit"
        case .lineDashPattern: "lineDashPattern"
        case .lineDashPhase: "lineDashPhase"
        case .strokeStart: "strokeStart"
        case .strokeEnd: "strokeEnd"
        case .string: "string"
        case .font: "font"
        case .fontSize: "fontSize"
        case .foregroundColor: "foregroundColor"
        case .alignmentMode: "alignmentMode"
        case .isWrapped: "wrapped"
        case .truncationMode: "truncationMode"
        case .instanceCount: "instanceCount"
        case .instanceTransform: "instanceTransform"
        case .instanceColor: "instanceColor"
        case .instanceRedOffset: "instanceRedOffset"
        case .instanceGreenOffset: "instanceGreenOffset"
        case .instanceBlueOffset: "instanceBlueOffset"
        case .instanceAlphaOffset: "instanceAlphaOffset"
        case .instanceDelay: "instanceDelay"
        case .isUserInteractionEnabled: "userInteractionEnabled"
        case .compositingFilter: "compositingFilter"
        case .cornerCurve: "cornerCurve"
        case .scrollMode: "scrollMode"
        case .scrollsOnTouch: "scrollsOnTouch"
        case .scrollContentSize: "scrollContentSize"
        case .pagingEnabled: "pagingEnabled"
        case .filters: "filters"
        case .backgroundFilters: "backgroundFilters"
        case .emitterPosition: "emitterPosition"
        case .emitterZPosition: "emitterZPosition"
        case .emitterSize: "emitterSize"
        case .emitterDepth: "emitterDepth"
        case .emitterShape: "emitterShape"
        case .emitterMode: "emitterMode"
        case .renderMode: "renderMode"
        case .birthRate: "birthRate"
        case .lifetime: "lifetime"
        case .velocity: "velocity"
        case .scale: "scale"
        case .spin: "spin"
        case .seed: "seed"
        case .preservesDepth: "preservesDepth"
        case .emitterCells: "emitterCells"
        case .tileSize: "tileSize"
        case .levelsOfDetail: "levelsOfDetail"
        case .levelsOfDetailBias: "levelsOfDetailBias"
        case .tileFadeDuration: "tileFadeDuration"
        case .drawing: "drawing"
        case .attributedString: "attributedString"
        case .lineSpacing: "lineSpacing"
        case .autoresizingMask: "autoresizingMask"
        case .constraints: "constraints"
        case .appSurface: "appSurface"
        case .appSizing: "appSizing"
        case .appExitContents: "appExitContents"
        }
    }

    public var description: String { name }

    private static let byName: [String: PropertyKey] = {
        var d: [String: PropertyKey] = [:]
        for k in PropertyKey.allCases { d[k.name] = k }
        d["isHidden"] = .isHidden
        d["isDoubleSided"] = .isDoubleSided
        d["isGeometryFlipped"] = .isGeometryFlipped
        d["isOpaque"] = .isOpaque
        d["isWrapped"] = .isWrapped
        d["gradientType"] = .gradientType
        d["isUserInteractionEnabled"] = .isUserInteractionEnabled
        d["isPagingEnabled"] = .pagingEnabled
        return d
    }()

    /// Every name `init(name:)` accepts, aliases (`isHidden`) included.
    public static var allNames: [String] { Array(byName.keys) }

    /// Looks a key up by its Core Animation name (`"opacity"`, `"hidden"`/`"isHidden"`, …).
    public init?(name: String) {
        guard let k = PropertyKey.byName[name] else { return nil }
        self = k
    }

    /// The type every value of this key has.
    public var valueType: PropertyValueType {
        switch self {
        case .bounds, .contentsRect, .contentsCenter: .rect
        case .position, .anchorPoint, .startPoint, .endPoint, .emitterPosition: .point
        case .shadowOffset, .emitterSize, .scrollContentSize, .tileSize: .size
        case .anchorPointZ, .zPosition, .opacity, .cornerRadius, .borderWidth, .shadowOpacity, .shadowRadius,
             .speed, .timeOffset, .beginTime, .maskedCorners, .contentsScale,
             .lineWidth, .miterLimit, .lineDashPhase, .strokeStart, .strokeEnd, .fontSize,
             .instanceCount, .instanceRedOffset, .instanceGreenOffset, .instanceBlueOffset, .instanceAlphaOffset,
             .instanceDelay,
             .autoresizingMask, .emitterZPosition, .emitterDepth, .birthRate, .lifetime, .velocity, .scale, .spin, .seed,
             .levelsOfDetail, .levelsOfDetailBias, .tileFadeDuration, .lineSpacing, .appSurface: .number
        case .transform, .sublayerTransform, .instanceTransform: .transform
        case .isHidden, .masksToBounds, .isDoubleSided, .allowsGroupOpacity, .isGeometryFlipped, .isOpaque,
             .isWrapped, .isUserInteractionEnabled, .preservesDepth, .scrollsOnTouch, .pagingEnabled: .bool
        case .backgroundColor, .borderColor, .shadowColor, .fillColor, .strokeColor, .foregroundColor,
             .instanceColor: .color
        case .name, .contentsGravity, .minificationFilter, .magnificationFilter, .gradientType, .fillRule,
             .lineCap, .lineJoin, .string, .font, .alignmentMode, .truncationMode, .compositingFilter, .cornerCurve,
             .emitterShape, .emitterMode, .renderMode, .scrollMode, .appSizing, .appExitContents: .string
        case .contents: .image
        case .mask: .layer
        case .shadowPath, .path: .path
        case .colors: .colors
        case .locations, .lineDashPattern: .numbers
        case .constraints: .constraints
        case .emitterCells: .emitterCells
        case .filters, .backgroundFilters: .filters
        case .drawing: .drawing
        case .attributedString: .attributedString
        }
    }

    /// For keys whose value is one of a fixed set of names (`contentsGravity`, `lineCap`, …),
    /// the names accepted, the default first. nil for every other key.
    public var allowedNames: [String]? {
        switch self {
        case .contentsGravity: ContentsGravity.allCases.map(\.rawValue)
        case .minificationFilter, .magnificationFilter: ContentsFilter.allCases.map(\.rawValue)
        case .gradientType: GradientType.allCases.map(\.rawValue)
        case .fillRule: FillRule.allCases.map(\.rawValue)
        case .lineCap: LineCap.allCases.map(\.rawValue)
        case .lineJoin: LineJoin.allCases.map(\.rawValue)
        case .alignmentMode: TextAlignment.allCases.map(\.rawValue)
        case .truncationMode: TruncationMode.allCases.map(\.rawValue)
        case .compositingFilter: BlendMode.wireNames
        case .cornerCurve: CornerCurve.allCases.map(\.rawValue)
        case .emitterShape: EmitterShape.allCases.map(\.rawValue)
        case .emitterMode: EmitterMode.allCases.map(\.rawValue)
        case .renderMode: EmitterRenderMode.allCases.map(\.rawValue)
        case .scrollMode: ScrollMode.allCases.map(\.rawValue)
        case .appSizing: AppSizing.allCases.map(\.rawValue)
        case .appExitContents: AppExitContents.allCases.map(\.rawValue)
        default: nil
        }
    }

    /// `names` for a message: comma-separated, the empty name (a nil `compositingFilter`) as `""`.
    public static func listed(_ names: [String]) -> String {
        names.map { $0.isEmpty ? "\"\" (none)" : $0 }.joined(separator: ", ")
    }

    /// Whether a change to this key starts an implicit animation (Core Animation's "animatable").
    public var isAnimatable: Bool {
        switch self {
        case .name, .speed, .timeOffset, .beginTime, .maskedCorners, .allowsGroupOpacity, .isGeometryFlipped,
             // Contents switch without a crossfade for now (Core Animation crossfades them).
             .contents, .contentsGravity, .contentsScale, .minificationFilter, .magnificationFilter, .isOpaque,
             .mask, .gradientType, .fillRule, .lineCap, .lineJoin, .string, .font, .alignmentMode, .isWrapped,
             .truncationMode, .instanceCount,
             // Core Animation switches these at once (neither is interpolable).
             .compositingFilter, .cornerCurve,
             // UIKit's flag, not a Core Animation property: it changes at once.
             .isUserInteractionEnabled,
             // What layout says, not values: the frames they produce animate (bounds, position).
             .autoresizingMask, .constraints,
             // Emitter layers: the shape, modes, seed and cell list switch at once; the cells'
             // own values animate by key path (`emitterCells.NAME.birthRate`).
             .emitterShape, .emitterMode, .renderMode, .seed, .preservesDepth, .emitterCells,
             // Scroll layers scroll through bounds.origin, which animates; their settings do not.
             .scrollMode, .scrollsOnTouch, .scrollContentSize, .pagingEnabled,
             // The list switches at once; each filter's input animates by key path
             // (`filters.NAME.inputRadius`).
             .filters, .backgroundFilters,
             // Tiled layers: the tiling changes at once (new tiles fade in).
             .tileSize, .levelsOfDetail, .levelsOfDetailBias, .tileFadeDuration,
             // A new drawing replaces the old at once (Core Animation does not crossfade it).
             .drawing,
             // Text switches at once, as `string` does.
             .attributedString,
             // Which app window, and how: switched at once, as `contents` is.
             .appSurface, .appSizing, .appExitContents: false
        default: true
        }
    }
}

/// The type of a property's value.
public enum PropertyValueType: UInt8, Sendable, CustomStringConvertible {
    case number = 1, point, size, rect, color, transform, bool, string
    /// A list of numbers (`locations`, `lineDashPattern`).
    case numbers = 9
    /// A list of colours (`colors`).
    case colors = 10
    /// A path of lines and Bézier curves (`path`, `shadowPath`); the empty path is nil.
    case path = 11
    /// A client's image number (`contents`); 0 is nil.
    case image = 12
    /// A client's layer number (`mask`); 0 is nil.
    case layer = 13
    /// An emitter layer's cells (`emitterCells`), each a list of fields and its own cells.
    case emitterCells = 14
    /// A layer's filters (`filters`): each a name, a type and its input's numbers.
    case filters = 15
    /// A layer's layout constraints (`constraints`; 20, leaving room for other list types).
    case constraints = 20
    /// A layer's drawing (`drawing`): a list of commands, each an opcode and its arguments.
    case drawing = 21
    /// A text layer's runs (`attributedString`): each a string and its attributes.
    case attributedString = 22

    public var description: String {
        switch self {
        case .number: "number"
        case .point: "point"
        case .size: "size"
        case .rect: "rect"
        case .color: "color"
        case .transform: "transform"
        case .bool: "bool"
        case .string: "string"
        case .numbers: "number list"
        case .colors: "colour list"
        case .path: "path"
        case .image: "image"
        case .layer: "layer"
        case .constraints: "constraint list"
        case .emitterCells: "emitter cells"
        case .filters: "filter list"
        case .drawing: "drawing"
        case .attributedString: "attributed string"
        }
    }
}

/// A property value of any of the types layers hold.
public enum PropertyValue: Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case point(Point)
    case size(Size)
    case rect(Rect)
    case color(Color)
    case transform(Transform3D)
    case bool(Bool)
    case string(String)
    case numbers([Double])
    case colors([Color])
    case path(Path)
    case image(UInt32)
    case layer(UInt32)
    case constraints([LayoutConstraint])
    case emitterCells([EmitterCell])
    case filters([LayerFilter])
    case drawing(Drawing)
    case attributedString([TextRun])

    public var type: PropertyValueType {
        switch self {
        case .number: .number
        case .point: .point
        case .size: .size
        case .rect: .rect
        case .color: .color
        case .transform: .transform
        case .bool: .bool
        case .string: .string
        case .numbers: .numbers
        case .colors: .colors
        case .path: .path
        case .image: .image
        case .layer: .layer
        case .constraints: .constraints
        case .emitterCells: .emitterCells
        case .filters: .filters
        case .drawing: .drawing
        case .attributedString: .attributedString
        }
    }

    /// True when every number in the value is finite (strings and bools always are).
    public var isFinite: Bool {
        switch self {
        case .number(let v): v.isFinite
        case .point(let p): p.x.isFinite && p.y.isFinite
        case .size(let s): s.width.isFinite && s.height.isFinite
        case .rect(let r): r.origin.x.isFinite && r.origin.y.isFinite && r.size.width.isFinite && r.size.height.isFinite
        case .color(let c): c.red.isFinite && c.green.isFinite && c.blue.isFinite && c.alpha.isFinite
        case .transform(let t): t.isFinite
        case .numbers(let v): v.allSatisfy(\.isFinite)
        case .colors(let v): v.allSatisfy { $0.red.isFinite && $0.green.isFinite && $0.blue.isFinite && $0.alpha.isFinite }
        case .path(let p): p.isFinite
        case .constraints(let v): v.allSatisfy(\.isFinite)
        case .emitterCells(let cells): cells.allSatisfy(\.isFinite)
        case .filters(let list): list.allSatisfy { $0.values.allSatisfy(\.isFinite) }
        case .drawing(let d): d.commands.allSatisfy { $0.numbers.allSatisfy(\.isFinite) }
        case .attributedString(let runs): runs.allSatisfy(\.isFinite)
        case .bool, .string, .image, .layer: true
        }
    }

    public var description: String {
        switch self {
        case .number(let v): "\(v)"
        case .point(let p): p.description
        case .size(let s): s.description
        case .rect(let r): r.description
        case .color(let c): c.description
        case .transform(let t): t.description
        case .bool(let b): "\(b)"
        case .string(let s): "\"\(s)\""
        case .numbers(let v): "[" + v.map { "\($0)" }.joined(separator: ", ") + "]"
        case .colors(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .path(let p): p.description
        case .image(let n): n == 0 ? "nil" : "image \(n)"
        case .layer(let n): n == 0 ? "nil" : "layer #\(n)"
        case .constraints(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .emitterCells(let cells): "[" + cells.map { "cell '\($0.name)'" }.joined(separator: ", ") + "]"
        case .filters(let list): "[" + list.map(\.description).joined(separator: ", ") + "]"
        case .drawing(let d): d.description
        case .attributedString(let runs): "[" + runs.map(\.description).joined(separator: ", ") + "]"
        }
    }
}

/// Which corners `cornerRadius` rounds (Core Animation's `CACornerMask`). Lamina's y axis points
/// down, so the `minY` corners are the top ones.
public struct CornerMask: OptionSet, Hashable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `kCALayerMinXMinYCorner`: top left.
    public static let minXMinY = CornerMask(rawValue: 1)
    /// `kCALayerMaxXMinYCorner`: top right.
    public static let maxXMinY = CornerMask(rawValue: 2)
    /// `kCALayerMinXMaxYCorner`: bottom left.
    public static let minXMaxY = CornerMask(rawValue: 4)
    /// `kCALayerMaxXMaxYCorner`: bottom right.
    public static let maxXMaxY = CornerMask(rawValue: 8)
    /// Every corner: the default.
    public static let all: CornerMask = [.minXMinY, .maxXMinY, .minXMaxY, .maxXMaxY]
}
