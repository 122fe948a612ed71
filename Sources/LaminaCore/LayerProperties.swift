/// Why a value could not be stored in a layer property.
public enum PropertyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The value's type is not the key's type.
    case typeMismatch(key: PropertyKey, expected: PropertyValueType, got: PropertyValueType)
    /// A number in the value is NaN or infinite.
    case notFinite(key: PropertyKey)
    /// The value is outside what the key allows (a negative size, say).
    case outOfRange(key: PropertyKey, reason: String)

    public var description: String {
        switch self {
        case let .typeMismatch(key, expected, got): "property '\(key)' takes a \(expected), not a \(got)"
        case let .notFinite(key): "property '\(key)' must be finite (got NaN or infinity)"
        case let .outOfRange(key, reason): "property '\(key)': \(reason)"
        }
    }
}

/// The values of one layer's properties, with Core Animation's defaults.
///
/// A plain struct with a field per key, so reading or writing one key costs the same whatever
/// the number of keys (no dictionary on the per-frame path).
public struct LayerProperties: Hashable, Sendable {
    /// Places a client's root layer on a display of `width` × `height` points: bounds at the
    /// origin with the display's size, position at the display's centre (so with the default
    /// anchor point the root covers the display exactly). laminad does this to every root,
    /// the client library starts its model so, and `laminactl eval` evaluates scenes so.
    public mutating func fitRoot(displayWidth width: Double, displayHeight height: Double) {
        bounds = Rect(x: 0, y: 0, width: width, height: height)
        position = Point(x: width / 2, y: height / 2)
    }

    public var bounds: Rect = .zero
    public var position: Point = .zero
    public var anchorPoint = Point(x: 0.5, y: 0.5)
    public var anchorPointZ: Double = 0
    public var zPosition: Double = 0
    public var transform: Transform3D = .identity
    public var sublayerTransform: Transform3D = .identity
    public var opacity: Double = 1
    public var isHidden = false
    /// Core Animation's default is a nil colour, which draws nothing: `.clear` here.
    public var backgroundColor: Color = .clear
    public var name = ""
    public var cornerRadius: Double = 0
    public var borderWidth: Double = 0
    public var borderColor: Color = .black
    public var masksToBounds = false
    public var shadowColor: Color = .black
    public var shadowOpacity: Double = 0
    public var shadowOffset = Size(width: 0, height: -3)
    public var shadowRadius: Double = 3
    public var isDoubleSided = true
    /// False: hit testing passes through this layer and its subtree (`isUserInteractionEnabled`).
    public var isUserInteractionEnabled = true
    public var speed: Double = 1
    public var timeOffset: Double = 0
    public var beginTime: Double = 0
    /// The corners `cornerRadius` rounds; on the wire a number holding the mask's bits.
    public var maskedCorners: CornerMask = .all
    /// Whether a translucent layer with sublayers is composited as one group, so overlapping
    /// sublayers do not show through each other (true by default, as on current Apple systems).
    public var allowsGroupOpacity = true
    /// Whether the sublayers' coordinate system is flipped vertically: y grows upwards from
    /// the bottom of the bounds.
    public var isGeometryFlipped = false
    /// How the layer, drawn with its sublayers as one group, blends with what lies behind it;
    /// nil composites source-over. On the wire the blend mode's name, "" for nil.
    public var compositingFilter: BlendMode?
    /// The shape of the corners `cornerRadius` rounds (background, border, shadow and the
    /// `masksToBounds` clip alike).
    public var cornerCurve: CornerCurve = .circular
    /// Filters applied, in order, to the layer and its sublayers drawn as one group.
    public var filters: [LayerFilter] = []
    /// Filters applied, in order, to what lies behind the layer inside its bounds, clipped by
    /// its corners and mask, before the layer draws (frosted glass).
    public var backgroundFilters: [LayerFilter] = []
    /// `drawing`: what `draw(_:in:)` recorded; drawn in place of `contents` when not empty.
    public var drawing = Drawing()

    /// The layer's class, fixed at creation (not a property key).
    public var kind: LayerKind = .layer

    // Contents.
    /// The client's image shown as contents; 0 for none.
    public var contents: UInt32 = 0
    /// The part of the image drawn, in unit coordinates of the image.
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    /// The stretchable middle of the image (nine-slice), in unit coordinates.
    public var contentsCenter = Rect(x: 0, y: 0, width: 1, height: 1)
    public var contentsGravity: ContentsGravity = .resize
    /// Image pixels per point.
    public var contentsScale: Double = 1
    public var minificationFilter: ContentsFilter = .linear
    public var magnificationFilter: ContentsFilter = .linear
    /// A promise that the layer's contents cover its bounds opaquely.
    public var isOpaque = false

    /// The client's layer whose alpha masks this layer; 0 for none.
    public var mask: UInt32 = 0
    /// The shadow's shape; empty for the layer's own shape.
    public var shadowPath = Path()

    // Gradient layers.
    public var colors: [Color] = []
    /// Stops in [0, 1] for `colors`; empty for evenly spaced.
    public var locations: [Double] = []
    public var startPoint = Point(x: 0.5, y: 0)
    public var endPoint = Point(x: 0.5, y: 1)
    public var gradientType: GradientType = .axial

    // Shape layers.
    public var path = Path()
    public var fillColor: Color = .black
    public var fillRule: FillRule = .nonZero
    /// nil (clear) by default: no stroke.
    public var strokeColor: Color = .clear
    public var lineWidth: Double = 1
    public var lineCap: LineCap = .butt
    public var lineJoin: LineJoin = .miter
    public var miterLimit: Double = 10
    public var lineDashPattern: [Double] = []
    public var lineDashPhase: Double = 0
    public var strokeStart: Double = 0
    public var strokeEnd: Double = 1

    // Text layers.
    public var string = ""
    /// A font family or fontconfig pattern; Core Animation's default is Helvetica.
    public var font = "Helvetica"
    public var fontSize: Double = 36
    public var foregroundColor: Color = .white
    public var alignmentMode: TextAlignment = .natural
    public var isWrapped = false
    public var truncationMode: TruncationMode = .none
    /// Runs drawn instead of `string` when not empty.
    public var attributedString: [TextRun] = []
    /// Points added between lines.
    public var lineSpacing: Double = 0

    // Replicator layers.
    public var instanceCount = 1
    public var instanceTransform: Transform3D = .identity
    public var instanceColor: Color = .white
    public var instanceRedOffset: Double = 0
    public var instanceGreenOffset: Double = 0
    public var instanceBlueOffset: Double = 0
    public var instanceAlphaOffset: Double = 0
    public var instanceDelay: Double = 0

    // Layout (Layout.swift): what laminad applies when the superlayer's bounds change.
    /// How the frame follows the superlayer's size; none by default (`kCALayerNotSizable`).
    public var autoresizingMask: AutoresizingMask = []
    /// The frame's relations to the superlayer and siblings; none by default.
    public var constraints: [LayoutConstraint] = []
    // Emitter layers: their own struct (EmitterProperties.swift), keys 80–94.
    public var emitter = EmitterProperties()
    // Tiled layers: their own struct (TiledProperties.swift), keys 78–79 and 95–96.
    public var tiled = TiledProperties()
    // Scroll layers.
    public var scrollMode: ScrollMode = .both
    /// laminad scrolls the layer by touch and wheel (beyond Core Animation).
    public var scrollsOnTouch = false
    /// What scrolls, from (0, 0); zero: the union of the sublayers' frames.
    public var scrollContentSize: Size = .zero
    /// Touch scrolls settle on whole multiples of the bounds size.
    public var pagingEnabled = false
    // App surfaces (a Wayland app's window as contents).
    /// laminad's number for the app window shown in place of `contents`; 0: none.
    public var appSurface: UInt32 = 0
    public var appSizing: AppSizing = .bounds
    public var appExitContents: AppExitContents = .keep

    public init() {}

    /// The default properties of a new layer of `kind`.
    public init(kind: LayerKind) {
        self.kind = kind
    }

    /// The most entries a list value (`colors`, `locations`, `lineDashPattern`) may have.
    public static let listLimit = 1024
    /// The most elements a path may have.
    public static let pathElementLimit = 65_536
    /// The most instances a replicator may draw.
    public static let instanceLimit = 10_000

    /// The default properties of a new layer.
    public static let defaults = LayerProperties()

    /// The value of `key`.
    public subscript(key: PropertyKey) -> PropertyValue {
        switch key {
        case .bounds: .rect(bounds)
        case .position: .point(position)
        case .anchorPoint: .point(anchorPoint)
        case .anchorPointZ: .number(anchorPointZ)
        case .zPosition: .number(zPosition)
        case .transform: .transform(transform)
        case .sublayerTransform: .transform(sublayerTransform)
        case .opacity: .number(opacity)
        case .isHidden: .bool(isHidden)
        case .backgroundColor: .color(backgroundColor)
        case .name: .string(name)
        case .cornerRadius: .number(cornerRadius)
        case .borderWidth: .number(borderWidth)
        case .borderColor: .color(borderColor)
        case .masksToBounds: .bool(masksToBounds)
        case .shadowColor: .color(shadowColor)
        case .shadowOpacity: .number(shadowOpacity)
        case .shadowOffset: .size(shadowOffset)
        case .shadowRadius: .number(shadowRadius)
        case .isDoubleSided: .bool(isDoubleSided)
        case .isUserInteractionEnabled: .bool(isUserInteractionEnabled)
        case .speed: .number(speed)
        case .timeOffset: .number(timeOffset)
        case .beginTime: .number(beginTime)
        case .maskedCorners: .number(Double(maskedCorners.rawValue))
        case .allowsGroupOpacity: .bool(allowsGroupOpacity)
        case .isGeometryFlipped: .bool(isGeometryFlipped)
        case .contents: .image(contents)
        case .contentsRect: .rect(contentsRect)
        case .contentsCenter: .rect(contentsCenter)
        case .contentsGravity: .string(contentsGravity.rawValue)
        case .contentsScale: .number(contentsScale)
        case .minificationFilter: .string(minificationFilter.rawValue)
        case .magnificationFilter: .string(magnificationFilter.rawValue)
        case .isOpaque: .bool(isOpaque)
        case .mask: .layer(mask)
        case .shadowPath: .path(shadowPath)
        case .colors: .colors(colors)
        case .locations: .numbers(locations)
        case .startPoint: .point(startPoint)
        case .endPoint: .point(endPoint)
        case .gradientType: .string(gradientType.rawValue)
        case .path: .path(path)
        case .fillColor: .color(fillColor)
        case .fillRule: .string(fillRule.rawValue)
        case .strokeColor: .color(strokeColor)
        case .lineWidth: .number(lineWidth)
        case .lineCap: .string(lineCap.rawValue)
        case .lineJoin: .string(lineJoin.rawValue)
        case .miterLimit: .number(miterLimit)
        case .lineDashPattern: .numbers(lineDashPattern)
        case .lineDashPhase: .number(lineDashPhase)
        case .strokeStart: .number(strokeStart)
        case .strokeEnd: .number(strokeEnd)
        case .string: .string(string)
        case .font: .string(font)
        case .fontSize: .number(fontSize)
        case .foregroundColor: .color(foregroundColor)
        case .alignmentMode: .string(alignmentMode.rawValue)
        case .isWrapped: .bool(isWrapped)
        case .truncationMode: .string(truncationMode.rawValue)
        case .instanceCount: .number(Double(instanceCount))
        case .instanceTransform: .transform(instanceTransform)
        case .instanceColor: .color(instanceColor)
        case .instanceRedOffset: .number(instanceRedOffset)
        case .instanceGreenOffset: .number(instanceGreenOffset)
        case .instanceBlueOffset: .number(instanceBlueOffset)
        case .instanceAlphaOffset: .number(instanceAlphaOffset)
        case .instanceDelay: .number(instanceDelay)
        case .compositingFilter: .string(compositingFilter?.rawValue ?? "")
        case .cornerCurve: .string(cornerCurve.rawValue)
        case .autoresizingMask: .number(Double(autoresizingMask.rawValue))
        case .constraints: .constraints(constraints)
        case .filters: .filters(filters)
        case .backgroundFilters: .filters(backgroundFilters)
        case .drawing: .drawing(drawing)
        case .attributedString: .attributedString(attributedString)
        case .lineSpacing: .number(lineSpacing)
        case .appSurface: .number(Double(appSurface))
        case .appSizing: .string(appSizing.rawValue)
        case .appExitContents: .string(appExitContents.rawValue)
        case .emitterPosition, .emitterZPosition, .emitterSize, .emitterDepth, .emitterShape, .emitterMode, .renderMode,
             .birthRate, .lifetime, .velocity, .scale, .spin, .seed, .preservesDepth, .emitterCells: emitter[key]
        case .tileSize, .levelsOfDetail, .levelsOfDetailBias, .tileFadeDuration: tiled[key]
        case .scrollMode: .string(scrollMode.rawValue)
        case .scrollsOnTouch: .bool(scrollsOnTouch)
        case .scrollContentSize: .size(scrollContentSize)
        case .pagingEnabled: .bool(pagingEnabled)
        }
    }

    /// Stores `value` for `key`, checking its type, that it is finite, and the key's range.
    /// Opacity, shadow opacity, strokeStart and strokeEnd are clamped to [0, 1] and radii and widths
    /// to ≥ 0, as Core Animation does; a negative bounds size, a corner mask that is not a whole
    /// number in 0…15, a name a key does not know, or a list or path over its limit, is refused.
    public mutating func set(_ key: PropertyKey, _ value: PropertyValue) throws(PropertyError) {
        store(key, try Self.validated(key, value))
    }

    /// `value` as `set` would store it for `key` (clamped where the key clamps), or the error
    /// `set` would throw; stores nothing.
    public static func validated(_ key: PropertyKey, _ value: PropertyValue) throws(PropertyError) -> PropertyValue {
        guard value.type == key.valueType else {
            throw .typeMismatch(key: key, expected: key.valueType, got: value.type)
        }
        guard value.isFinite else {
            if case .emitterCells(let cells) = value { try EmitterCell.validate(cells) }
            if case .filters(let list) = value { try LayerFilter.validate(list, key: key) }
            if case .drawing(let d) = value {
                do { try d.validate() } catch { throw .outOfRange(key: key, reason: error.message) }
            }
            if case .attributedString(let runs) = value { try TextRun.validate(runs) }
            throw .notFinite(key: key)
        }
        if EmitterProperties.holds(key) { try EmitterProperties.check(key, value) }
        if TiledProperties.holds(key) { try TiledProperties.check(key, value) }
        var v = value
        switch (key, value) {
        case (.bounds, .rect(let r)):
            guard r.size.width >= 0, r.size.height >= 0 else {
                throw .outOfRange(key: key, reason: "size must not be negative (got \(r.size))")
            }
        case (.scrollContentSize, .size(let size)):
            guard size.width >= 0, size.height >= 0 else {
                throw .outOfRange(key: key, reason: "a content size must not be negative (got \(size)); (0, 0) takes the sublayers' frames")
            }
        case (.maskedCorners, .number(let x)):
            guard x >= 0, x <= 15, x.rounded() == x else {
                throw .outOfRange(key: key, reason: "a corner mask is a whole number from 0 to 15 (got \(x))")
            }
        case (.autoresizingMask, .number(let x)):
            guard x >= 0, x <= 63, x.rounded() == x else {
                throw .outOfRange(key: key, reason: "an autoresizing mask is a whole number from 0 to 63 (got \(x))")
            }
        case (.appSurface, .number(let x)):
            guard x >= 0, x <= Double(UInt32.max), x.rounded() == x else {
                throw .outOfRange(key: key, reason: "an app surface is laminad's whole number for an app window, or 0 for none (got \(x))")
            }
        case (_, .filters(let list)):
            try LayerFilter.validate(list, key: key)
        case (_, .drawing(let d)):
            do { try d.validate() } catch { throw .outOfRange(key: key, reason: error.message) }
        case (_, .attributedString(let runs)):
            try TextRun.validate(runs)
        case (_, .constraints(let list)):
            try Self.checkCount(key, list.count, limit: LayoutConstraint.perLayerLimit, noun: "constraints")
            if let c = list.first(where: { $0.relativeTo.isEmpty }) {
                throw .outOfRange(key: key, reason: "a constraint needs the name of a sibling or \"superlayer\" (\(c.attribute) relative to \"\")")
            }
        case (.contentsScale, .number(let x)):
            guard x > 0 else { throw .outOfRange(key: key, reason: "must be greater than 0 (got \(x))") }
        case (.instanceCount, .number(let x)):
            guard x.rounded() == x, x >= 0, x <= Double(Self.instanceLimit) else {
                throw .outOfRange(key: key, reason: "a whole number from 0 to \(Self.instanceLimit) (got \(x))")
            }
        case (_, .string(let s)):
            if let names = key.allowedNames, !names.contains(s) {
                throw .outOfRange(key: key, reason: "'\(s)' is not one of \(PropertyKey.listed(names))")
            }
        case (_, .numbers(let list)):
            try Self.checkCount(key, list.count, limit: Self.listLimit, noun: "entries")
            if key == .lineDashPattern, !list.allSatisfy({ $0 >= 0 }) {
                throw .outOfRange(key: key, reason: "dash and gap lengths must not be negative (got \(list))")
            }
        case (_, .colors(let list)):
            try Self.checkCount(key, list.count, limit: Self.listLimit, noun: "entries")
        case (_, .path(let p)):
            try Self.checkCount(key, p.elements.count, limit: Self.pathElementLimit, noun: "path elements")
        case (_, .number(let x)):
            v = .number(Self.clamped(key, x))
        default:
            break
        }
        return v
    }

    /// A number clamped to the range `key` allows: [0, 1] for opacities and stroke ends,
    /// ≥ 0 for radii, widths and sizes; unchanged for other keys.
    @inlinable static func clamped(_ key: PropertyKey, _ x: Double) -> Double {
        switch key {
        case .opacity, .shadowOpacity, .strokeStart, .strokeEnd: Swift.min(Swift.max(x, 0), 1)
        case .cornerRadius, .borderWidth, .shadowRadius, .lineWidth, .miterLimit, .fontSize: Swift.max(x, 0)
        default: x
        }
    }

    private static func checkCount(_ key: PropertyKey, _ n: Int, limit: Int, noun: String) throws(PropertyError) {
        guard n <= limit else { throw .outOfRange(key: key, reason: "at most \(limit) \(noun) (got \(n))") }
    }

    /// Stores `value` for `key` as given, without range checks or clamping (the client library's
    /// model keeps what its user set; laminad validates with `set`). Returns false, storing
    /// nothing, when the value cannot be held: the wrong type, a name the key does not know, a
    /// corner mask or instance count that is not a whole number in range.
    @discardableResult
    public mutating func store(_ key: PropertyKey, _ value: PropertyValue) -> Bool {
        if EmitterProperties.holds(key) { return emitter.store(key, value) }
        if TiledProperties.holds(key) { return tiled.store(key, value) }
        switch value {
        case .number(let v):
            switch key {
            case .anchorPointZ: anchorPointZ = v
            case .zPosition: zPosition = v
            case .opacity: opacity = v
            case .cornerRadius: cornerRadius = v
            case .borderWidth: borderWidth = v
            case .shadowOpacity: shadowOpacity = v
            case .shadowRadius: shadowRadius = v
            case .speed: speed = v
            case .timeOffset: timeOffset = v
            case .beginTime: beginTime = v
            case .maskedCorners:
                guard v >= 0, v <= 15, v.rounded() == v else { return false }
                maskedCorners = CornerMask(rawValue: UInt8(v))
            case .contentsScale: contentsScale = v
            case .lineWidth: lineWidth = v
            case .miterLimit: miterLimit = v
            case .lineDashPhase: lineDashPhase = v
            case .strokeStart: strokeStart = v
            case .strokeEnd: strokeEnd = v
            case .fontSize: fontSize = v
            case .lineSpacing: lineSpacing = v
            case .appSurface:
                guard v >= 0, v <= Double(UInt32.max), v.rounded() == v else { return false }
                appSurface = UInt32(v)
            case .instanceCount:
                guard v.rounded() == v, v >= 0, v <= Double(Self.instanceLimit) else { return false }
                instanceCount = Int(v)
            case .instanceRedOffset: instanceRedOffset = v
            case .instanceGreenOffset: instanceGreenOffset = v
            case .instanceBlueOffset: instanceBlueOffset = v
            case .instanceAlphaOffset: instanceAlphaOffset = v
            case .instanceDelay: instanceDelay = v
            case .autoresizingMask:
                guard v >= 0, v <= 63, v.rounded() == v else { return false }
                autoresizingMask = AutoresizingMask(rawValue: UInt8(v))
            default: return false
            }
        case .point(let p):
            switch key {
            case .position: position = p
            case .anchorPoint: anchorPoint = p
            case .startPoint: startPoint = p
            case .endPoint: endPoint = p
            default: return false
            }
        case .size(let s):
            switch key {
            case .shadowOffset: shadowOffset = s
            case .scrollContentSize: scrollContentSize = s
            default: return false
            }
        case .rect(let r):
            switch key {
            case .bounds: bounds = r
            case .contentsRect: contentsRect = r
            case .contentsCenter: contentsCenter = r
            default: return false
            }
        case .color(let c):
            switch key {
            case .backgroundColor: backgroundColor = c
            case .borderColor: borderColor = c
            case .shadowColor: shadowColor = c
            case .fillColor: fillColor = c
            case .strokeColor: strokeColor = c
            case .foregroundColor: foregroundColor = c
            case .instanceColor: instanceColor = c
            default: return false
            }
        case .transform(let t):
            switch key {
            case .transform: transform = t
            case .sublayerTransform: sublayerTransform = t
            case .instanceTransform: instanceTransform = t
            default: return false
            }
        case .bool(let b):
            switch key {
            case .isHidden: isHidden = b
            case .masksToBounds: masksToBounds = b
            case .isDoubleSided: isDoubleSided = b
            case .isUserInteractionEnabled: isUserInteractionEnabled = b
            case .allowsGroupOpacity: allowsGroupOpacity = b
            case .isGeometryFlipped: isGeometryFlipped = b
            case .isOpaque: isOpaque = b
            case .isWrapped: isWrapped = b
            case .scrollsOnTouch: scrollsOnTouch = b
            case .pagingEnabled: pagingEnabled = b
            default: return false
            }
        case .string(let s):
            switch key {
            case .name: name = s
            case .string: string = s
            case .font: font = s
            case .contentsGravity: return Self.storeNamed(s, into: &contentsGravity)
            case .minificationFilter: return Self.storeNamed(s, into: &minificationFilter)
            case .magnificationFilter: return Self.storeNamed(s, into: &magnificationFilter)
            case .gradientType: return Self.storeNamed(s, into: &gradientType)
            case .fillRule: return Self.storeNamed(s, into: &fillRule)
            case .lineCap: return Self.storeNamed(s, into: &lineCap)
            case .lineJoin: return Self.storeNamed(s, into: &lineJoin)
            case .alignmentMode: return Self.storeNamed(s, into: &alignmentMode)
            case .truncationMode: return Self.storeNamed(s, into: &truncationMode)
            case .scrollMode: return Self.storeNamed(s, into: &scrollMode)
            case .appSizing: return Self.storeNamed(s, into: &appSizing)
            case .appExitContents: return Self.storeNamed(s, into: &appExitContents)
            case .cornerCurve: return Self.storeNamed(s, into: &cornerCurve)
            case .compositingFilter:
                if s.isEmpty {
                    compositingFilter = nil
                    return true
                }
                guard let mode = BlendMode(rawValue: s) else { return false }
                compositingFilter = mode
            default: return false
            }
        case .numbers(let v):
            switch key {
            case .locations: locations = v
            case .lineDashPattern: lineDashPattern = v
            default: return false
            }
        case .colors(let v):
            guard key == .colors else { return false }
            colors = v
        case .path(let p):
            switch key {
            case .path: path = p
            case .shadowPath: shadowPath = p
            default: return false
            }
        case .image(let n):
            guard key == .contents else { return false }
            contents = n
        case .layer(let n):
            guard key == .mask else { return false }
            mask = n
        case .constraints(let v):
            guard key == .constraints else { return false }
            constraints = v
        case .filters(let v):
            switch key {
            case .filters: filters = v
            case .backgroundFilters: backgroundFilters = v
            default: return false
            }
        case .drawing(let d):
            guard key == .drawing else { return false }
            drawing = d
        case .attributedString(let v):
            guard key == .attributedString else { return false }
            attributedString = v
        case .emitterCells:
            return false
        }
        return true
    }

    private static func storeNamed<E: RawRepresentable>(_ name: String, into field: inout E) -> Bool where E.RawValue == String {
        guard let v = E(rawValue: name) else { return false }
        field = v
        return true
    }
    /// The keys whose values differ from `other`'s, in wire order.
    public func changedKeys(from other: LayerProperties) -> [PropertyKey] {
        PropertyKey.allCases.filter { self[$0] != other[$0] }
    }
}

// MARK: - Geometry derived from the properties

extension LayerProperties {
    /// The layer's frame in its superlayer's coordinates, derived as Core Animation does:
    /// origin = position − anchorPoint × bounds.size. Only meaningful for an identity transform.
    public var frame: Rect {
        get {
            Rect(x: position.x - anchorPoint.x * bounds.size.width,
                 y: position.y - anchorPoint.y * bounds.size.height,
                 width: bounds.size.width, height: bounds.size.height)
        }
        set {
            bounds.size = Size(width: Swift.max(newValue.size.width, 0), height: Swift.max(newValue.size.height, 0))
            position = Point(x: newValue.origin.x + anchorPoint.x * bounds.size.width,
                             y: newValue.origin.y + anchorPoint.y * bounds.size.height)
        }
    }

    /// The layer's local time for its superlayer's time `tp`: `(tp − beginTime) · speed + timeOffset`
    /// (the layer-time hierarchy; a speed of 0 pauses the subtree).
    @inlinable public func localTime(fromParent tp: Double) -> Double {
        (tp - beginTime) * speed + timeOffset
    }
}
