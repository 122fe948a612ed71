/// Why an animation key path was refused.
public enum KeyPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The key path is empty.
    case empty
    /// The first part names no layer property.
    case unknownProperty(keyPath: String, property: String, valid: [String])
    /// The property exists but cannot be animated (`name`, `speed`, `timeOffset`, `beginTime`).
    case notAnimatable(keyPath: String, property: String)
    /// The part after the property is not one of that property's fields.
    case unknownComponent(keyPath: String, component: String, valid: [String])

    public var description: String {
        switch self {
        case .empty:
            "empty key path: name a layer property such as 'opacity' or 'position.x'"
        case let .unknownProperty(keyPath, property, valid):
            "key path '\(keyPath)': '\(property)' is not an animatable layer property; valid: \(valid.joined(separator: ", "))"
        case let .notAnimatable(keyPath, property):
            "key path '\(keyPath)': '\(property)' cannot be animated"
        case let .unknownComponent(keyPath, component, valid):
            valid.isEmpty
                ? "key path '\(keyPath)': '\(component)' has no fields to animate; use the property alone"
                : "key path '\(keyPath)': '\(component)' is not a field here; valid: \(valid.joined(separator: ", "))"
        }
    }
}

/// A parsed animation key path: a layer property, optionally narrowed to one field, as the
/// `keyPath` of a `CAPropertyAnimation` (`"opacity"`, `"position.x"`, `"bounds.size.width"`,
/// `"transform.rotation.z"`, …).
///
/// Reading and writing go through a switch on the property, so they cost the same whatever the
/// number of properties. Transform fields follow Core Animation's key-value coding extensions:
/// the transform is decomposed, the field replaced and the transform rebuilt, so animating
/// `transform.rotation.z` from 0 to 4π turns twice, keeping the model's scale and translation.
public struct AnimationKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// A field of a property.
    public enum Component: String, Sendable, Hashable, CaseIterable {
        case whole = ""
        // Point fields (position, anchorPoint).
        case x, y
        // Size fields (shadowOffset).
        case width, height
        // Rect fields (bounds).
        case origin, originX = "origin.x", originY = "origin.y"
        case size, sizeWidth = "size.width", sizeHeight = "size.height"
        // Transform fields (transform, sublayerTransform).
        case rotationX = "rotation.x", rotationY = "rotation.y", rotationZ = "rotation.z"
        case scale, scaleX = "scale.x", scaleY = "scale.y", scaleZ = "scale.z"
        case translation, translationX = "translation.x", translationY = "translation.y", translationZ = "translation.z"
    }

    /// The layer property animated.
    public let property: PropertyKey
    /// The field of the property animated, or `.whole`.
    public let component: Component
    /// For `emitterCells.NAME(.emitterCells.NAME2…).field`: the cell names from the layer down
    /// and the field (EmitterKeyPath.swift); nil for every other key path.
    public let cell: EmitterCellKeyPath?
    /// For `filters.NAME.inputKey` and `backgroundFilters.NAME.inputKey`: the list, the
    /// filter's name and input (FilterKeyPath.swift); nil for every other key path.
    public let filter: FilterKeyPath?

    /// A key path for a whole property or one of its fields. Use `parse(_:)` for text.
    public init(_ property: PropertyKey, _ component: Component = .whole) {
        self.property = property
        self.component = component
        self.cell = nil
        self.filter = nil
    }

    /// A key path to a field of an emitter cell.
    public init(cell: EmitterCellKeyPath) {
        self.property = .emitterCells
        self.component = .whole
        self.cell = cell
        self.filter = nil
    }

    /// A key path to an input of a filter.
    public init(filter: FilterKeyPath) {
        self.property = filter.property
        self.component = .whole
        self.cell = nil
        self.filter = filter
    }

    /// Parses a Core Animation key path. `transform.rotation` means `transform.rotation.z`.
    public static func parse(_ text: String) throws(KeyPathError) -> AnimationKeyPath {
        guard !text.isEmpty else { throw .empty }
        let name: Substring, rest: Substring
        if let dot = text.firstIndex(of: ".") {
            name = text[..<dot]
            rest = text[text.index(after: dot)...]
        } else {
            name = Substring(text)
            rest = ""
        }
        if name == "emitterCells", !rest.isEmpty { return AnimationKeyPath(cell: try EmitterCellKeyPath.parse(text)) }
        if name == "filters" || name == "backgroundFilters", !rest.isEmpty { return AnimationKeyPath(filter: try FilterKeyPath.parse(text)) }
        guard let key = PropertyKey(name: String(name)) else {
            throw .unknownProperty(keyPath: text, property: String(name), valid: animatablePropertyNames)
        }
        guard key.isAnimatable else { throw .notAnimatable(keyPath: text, property: String(name)) }
        let fieldName = rest == "rotation" ? "rotation.z" : String(rest)
        let valid = components(of: key.valueType)
        guard let component = Component(rawValue: fieldName), component == .whole || valid.contains(component) else {
            throw .unknownComponent(keyPath: text, component: String(rest),
                                    valid: valid.map(\.rawValue) + (key.valueType == .transform ? ["rotation"] : []))
        }
        return AnimationKeyPath(key, component)
    }

    /// The names of the properties that can be animated.
    public static var animatablePropertyNames: [String] {
        PropertyKey.allCases.filter(\.isAnimatable).map(\.name)
    }

    /// The fields a value type has.
    public static func components(of type: PropertyValueType) -> [Component] {
        switch type {
        case .point: [.x, .y]
        case .size: [.width, .height]
        case .rect: [.origin, .originX, .originY, .size, .sizeWidth, .sizeHeight]
        case .transform: [.rotationX, .rotationY, .rotationZ, .scale, .scaleX, .scaleY, .scaleZ,
                          .translation, .translationX, .translationY, .translationZ]
        case .number, .color, .bool, .string, .numbers, .colors, .path, .image, .layer, .constraints, .emitterCells, .filters, .drawing, .attributedString: []
        }
    }

    /// The type of the values an animation on this key path takes.
    public var valueType: PropertyValueType {
        if let cell { return cell.field.valueType }
        if let filter { return filter.valueType }
        return switch component {
        case .whole: property.valueType
        case .origin: .point
        case .size: .size
        case .translation: .size
        default: .number
        }
    }

    /// True for the fields of a transform, which are read and written through a decomposition.
    public var isTransformField: Bool { property.valueType == .transform && component != .whole }

    public var description: String {
        if let cell { return cell.description }
        if let filter { return filter.description }
        return component == .whole ? property.name : property.name + "." + component.rawValue
    }

    // MARK: Reading

    /// The value at this key path in `props`.
    public func value(in props: LayerProperties) -> PropertyValue {
        if let cell { return cell.value(in: props.emitter.emitterCells) }
        if let filter { return filter.value(in: filter.property == .backgroundFilters ? props.backgroundFilters : props.filters) }
        switch component {
        case .whole:
            return props[property]
        case .x, .y:
            guard case .point(let p) = props[property] else { return props[property] }
            return .number(component == .x ? p.x : p.y)
        case .width, .height:
            guard case .size(let s) = props[property] else { return props[property] }
            return .number(component == .width ? s.width : s.height)
        case .origin, .originX, .originY, .size, .sizeWidth, .sizeHeight:
            let r = props.bounds
            switch component {
            case .origin: return .point(r.origin)
            case .originX: return .number(r.origin.x)
            case .originY: return .number(r.origin.y)
            case .size: return .size(r.size)
            case .sizeWidth: return .number(r.size.width)
            default: return .number(r.size.height)
            }
        default:
            let d = AnimationKeyPath.decompose(property == .transform ? props.transform : props.sublayerTransform)
            switch component {
            case .rotationX: return .number(d.eulerAngles.x)
            case .rotationY: return .number(d.eulerAngles.y)
            case .rotationZ: return .number(d.eulerAngles.z)
            // Core Animation: "the average of all three scale factors".
            case .scale: return .number((d.scaleX + d.scaleY + d.scaleZ) / 3)
            case .scaleX: return .number(d.scaleX)
            case .scaleY: return .number(d.scaleY)
            case .scaleZ: return .number(d.scaleZ)
            case .translation: return .size(Size(width: d.translationX, height: d.translationY))
            case .translationX: return .number(d.translationX)
            case .translationY: return .number(d.translationY)
            default: return .number(d.translationZ)
            }
        }
    }

    // MARK: Writing

    /// Writes `value` at this key path into `props`, as a presentation value: a value of the wrong
    /// type or with a NaN/infinite number is ignored (the property keeps what it had), and values
    /// are clamped where the layer model clamps them (opacity to [0, 1], sizes and radii ≥ 0).
    public func apply(_ value: PropertyValue, to props: inout LayerProperties) {
        if let cell { cell.apply(value, to: &props.emitter.emitterCells); return }
        if let filter {
            if filter.property == .backgroundFilters { filter.apply(value, to: &props.backgroundFilters) } else { filter.apply(value, to: &props.filters) }
            return
        }
        switch component {
        case .whole:
            props.setPresentation(property, value)
        case .x, .y:
            guard case .number(let v) = value, v.isFinite else { return }
            if property == .position {
                if component == .x { props.position.x = v } else { props.position.y = v }
            } else if property == .anchorPoint {
                if component == .x { props.anchorPoint.x = v } else { props.anchorPoint.y = v }
            }
        case .width, .height:
            guard case .number(let v) = value, v.isFinite, property == .shadowOffset else { return }
            if component == .width { props.shadowOffset.width = v } else { props.shadowOffset.height = v }
        case .origin:
            guard case .point(let p) = value, p.x.isFinite, p.y.isFinite else { return }
            props.bounds.origin = p
        case .size:
            guard case .size(let s) = value, s.width.isFinite, s.height.isFinite else { return }
            props.bounds.size = Size(width: Swift.max(s.width, 0), height: Swift.max(s.height, 0))
        case .originX, .originY, .sizeWidth, .sizeHeight:
            guard case .number(let v) = value, v.isFinite else { return }
            switch component {
            case .originX: props.bounds.origin.x = v
            case .originY: props.bounds.origin.y = v
            case .sizeWidth: props.bounds.size.width = Swift.max(v, 0)
            default: props.bounds.size.height = Swift.max(v, 0)
            }
        default:
            applyTransformField(value, to: &props)
        }
    }

    private func applyTransformField(_ value: PropertyValue, to props: inout LayerProperties) {
        var d = AnimationKeyPath.decompose(property == .transform ? props.transform : props.sublayerTransform)
        switch (component, value) {
        case (.translation, .size(let s)):
            guard s.width.isFinite, s.height.isFinite else { return }
            d.translationX = s.width
            d.translationY = s.height
        case (_, .number(let v)):
            guard v.isFinite else { return }
            switch component {
            case .rotationX, .rotationY, .rotationZ:
                var (x, y, z) = d.eulerAngles
                if component == .rotationX { x = v } else if component == .rotationY { y = v } else { z = v }
                d.setEulerAngles(x: x, y: y, z: z)
            case .scale: d.scaleX = v; d.scaleY = v; d.scaleZ = v
            case .scaleX: d.scaleX = v
            case .scaleY: d.scaleY = v
            case .scaleZ: d.scaleZ = v
            case .translationX: d.translationX = v
            case .translationY: d.translationY = v
            case .translationZ: d.translationZ = v
            default: return
            }
        default:
            return
        }
        if property == .transform { props.transform = d.transform } else { props.sublayerTransform = d.transform }
    }

    /// The decomposition a transform field is read from and written into. A transform with no
    /// decomposition (a zero scale) is treated as the identity with its translation kept, so
    /// `transform.scale` can still animate out of zero.
    static func decompose(_ m: Transform3D) -> DecomposedTransform {
        if m.isIdentity { return DecomposedTransform() }
        if let d = DecomposedTransform(m) { return d }
        var d = DecomposedTransform()
        if m.m44 != 0 {
            d.translationX = m.m41 / m.m44
            d.translationY = m.m42 / m.m44
            d.translationZ = m.m43 / m.m44
        }
        let sx = (m.m11 * m.m11 + m.m12 * m.m12 + m.m13 * m.m13).squareRoot()
        let sy = (m.m21 * m.m21 + m.m22 * m.m22 + m.m23 * m.m23).squareRoot()
        let sz = (m.m31 * m.m31 + m.m32 * m.m32 + m.m33 * m.m33).squareRoot()
        d.scaleX = sx; d.scaleY = sy; d.scaleZ = sz
        return d
    }
}

extension LayerProperties {
    /// Stores an animated value for `key`, never throwing: a value of the wrong type or with a
    /// non-finite number is ignored, and values are clamped as `set(_:_:)` clamps them (a negative
    /// bounds size, which `set` refuses, becomes 0, since a spring may overshoot below zero).
    mutating func setPresentation(_ key: PropertyKey, _ value: PropertyValue) {
        guard value.isFinite else { return }
        switch value {
        case .number(let v):
            store(key, .number(LayerProperties.clamped(key, v)))
        case .rect(let r) where key == .bounds:
            bounds = Rect(x: r.origin.x, y: r.origin.y, width: Swift.max(r.size.width, 0), height: Swift.max(r.size.height, 0))
        case .numbers(let v) where key == .lineDashPattern:
            lineDashPattern = v.map { Swift.max($0, 0) }
        default:
            store(key, value)
        }
    }
}
