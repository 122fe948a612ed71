/// Turns an animated number (or point) into a transform, so that a `transform` animation can
/// be written as a rotation angle or a scale and interpolated as that, not as a matrix.
/// Mirrors `CAValueFunction`: a `transform` animation from 0 to 4π with `.rotateZ` turns twice,
/// where interpolating the two (equal) matrices would not move at all.
public enum ValueFunction: String, Sendable, Hashable, CaseIterable {
    /// `kCAValueFunctionRotateX`: a number, radians about x.
    case rotateX
    /// `kCAValueFunctionRotateY`: a number, radians about y.
    case rotateY
    /// `kCAValueFunctionRotateZ`: a number, radians about z.
    case rotateZ
    /// `kCAValueFunctionScale`: a number (uniform x, y and z) or a point (x, y; z stays 1).
    /// Core Animation takes three numbers; Lamina has no 3-vector value yet, so z cannot vary.
    case scale
    /// `kCAValueFunctionScaleX`: a number.
    case scaleX
    /// `kCAValueFunctionScaleY`: a number.
    case scaleY
    /// `kCAValueFunctionScaleZ`: a number.
    case scaleZ
    /// `kCAValueFunctionTranslate`: a point (x, y; z stays 0). See `scale` about z.
    case translate
    /// `kCAValueFunctionTranslateX`: a number.
    case translateX
    /// `kCAValueFunctionTranslateY`: a number.
    case translateY
    /// `kCAValueFunctionTranslateZ`: a number.
    case translateZ

    /// The value types this function accepts as input.
    public var inputTypes: [PropertyValueType] {
        switch self {
        case .scale: [.number, .point]
        case .translate: [.point]
        default: [.number]
        }
    }

    /// The input that makes the identity transform: what a missing from/to value stands for.
    public var identityInput: PropertyValue {
        switch self {
        case .scale, .scaleX, .scaleY, .scaleZ: .number(1)
        case .translate: .point(.zero)
        default: .number(0)
        }
    }

    /// The transform for `input`; nil for an input of the wrong type.
    public func transform(for input: PropertyValue) -> Transform3D? {
        switch (self, input) {
        case (.rotateX, .number(let a)): return .rotation(angle: a, x: 1, y: 0, z: 0)
        case (.rotateY, .number(let a)): return .rotation(angle: a, x: 0, y: 1, z: 0)
        case (.rotateZ, .number(let a)): return Self.rotationZ(a)
        case (.scale, .number(let s)): return .scale(x: s, y: s, z: s)
        case (.scale, .point(let p)): return .scale(x: p.x, y: p.y)
        case (.scaleX, .number(let s)): return .scale(x: s, y: 1)
        case (.scaleY, .number(let s)): return .scale(x: 1, y: s)
        case (.scaleZ, .number(let s)): return .scale(x: 1, y: 1, z: s)
        case (.translate, .point(let p)): return .translation(x: p.x, y: p.y)
        case (.translateX, .number(let v)): return .translation(x: v, y: 0)
        case (.translateY, .number(let v)): return .translation(x: 0, y: v)
        case (.translateZ, .number(let v)): return .translation(x: 0, y: 0, z: v)
        default: return nil
        }
    }

    /// `CATransform3DMakeRotation(angle, 0, 0, 1)` without the axis normalisation.
    static func rotationZ(_ angle: Double) -> Transform3D {
        let c = _cos(angle), s = _sin(angle)
        var t = Transform3D.identity
        t.m11 = c; t.m12 = s; t.m21 = -s; t.m22 = c
        return t
    }
}
