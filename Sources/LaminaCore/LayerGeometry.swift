/// The geometry of a layer: what places it in its superlayer and its sublayers in it. Both
/// the full `LayerProperties` and the compact `HitGeometry` hit testing walks with have it, so
/// the renderer and hit testing share one set of formulas.
public protocol LayerGeometry {
    var bounds: Rect { get }
    var position: Point { get }
    var anchorPoint: Point { get }
    var anchorPointZ: Double { get }
    var zPosition: Double { get }
    var transform: Transform3D { get }
    var sublayerTransform: Transform3D { get }
    var isGeometryFlipped: Bool { get }
}

extension LayerGeometry {
    /// The anchor point in the layer's own (bounds) coordinates.
    @inlinable public var anchorInBounds: Point {
        Point(x: bounds.origin.x + anchorPoint.x * bounds.size.width,
              y: bounds.origin.y + anchorPoint.y * bounds.size.height)
    }

    /// Maps the layer's bounds coordinates into its superlayer's coordinates:
    /// move the anchor point (and anchorPointZ) to the origin, apply `transform`,
    /// then move to `position` and `zPosition`.
    @inlinable public var transformToSuperlayer: Transform3D {
        let a = anchorInBounds
        let toAnchor = Transform3D.translation(x: -a.x, y: -a.y, z: -anchorPointZ)
        let place = Transform3D.translation(x: position.x, y: position.y, z: zPosition)
        if transform.isIdentity { return toAnchor.concatenating(place) }
        return toAnchor.concatenating(transform).concatenating(place)
    }

    /// `sublayerTransform` applied about the anchor point, in this layer's bounds coordinates:
    /// what maps a sublayer's superlayer-space point before `transformToSuperlayer`.
    @inlinable public var sublayerTransformAboutAnchor: Transform3D {
        if sublayerTransform.isIdentity { return .identity }
        let a = anchorInBounds
        return Transform3D.translation(x: -a.x, y: -a.y, z: -anchorPointZ)
            .concatenating(sublayerTransform)
            .concatenating(.translation(x: a.x, y: a.y, z: anchorPointZ))
    }

    /// What maps a layer's sublayers into its bounds coordinates before their own transforms:
    /// the geometry flip, then `sublayerTransform` about the anchor point.
    @inlinable public var sublayerSpace: Transform3D {
        var space = sublayerTransformAboutAnchor
        if isGeometryFlipped {
            // y' = minY + maxY − y: the sublayers' y axis runs up from the bottom of the bounds.
            let flip = Transform3D.scale(x: 1, y: -1).concatenating(.translation(x: 0, y: bounds.minY + bounds.maxY))
            space = space.isIdentity ? flip : flip.concatenating(space)
        }
        return space
    }
}

extension LayerProperties: LayerGeometry {}

/// What hit testing needs of a layer (96 bytes of geometry and a few flags, against the 1 KB
/// of `LayerProperties`): trees hand it to `HitTester` without copying whole layers.
public struct HitGeometry: LayerGeometry, Sendable {
    public var bounds: Rect
    public var position: Point
    public var anchorPoint: Point
    public var anchorPointZ: Double
    public var zPosition: Double
    public var transform: Transform3D
    public var sublayerTransform: Transform3D
    public var isGeometryFlipped: Bool
    public var isHidden: Bool
    public var isUserInteractionEnabled: Bool
    public var isDoubleSided: Bool
    public var masksToBounds: Bool
    public var kind: LayerKind
    /// `name`'s use here: laminad's per-output roots are named after their output.
    public var name: String

    @inlinable public init(_ p: LayerProperties) {
        bounds = p.bounds
        position = p.position
        anchorPoint = p.anchorPoint
        anchorPointZ = p.anchorPointZ
        zPosition = p.zPosition
        transform = p.transform
        sublayerTransform = p.sublayerTransform
        isGeometryFlipped = p.isGeometryFlipped
        isHidden = p.isHidden
        isUserInteractionEnabled = p.isUserInteractionEnabled
        isDoubleSided = p.isDoubleSided
        masksToBounds = p.masksToBounds
        kind = p.kind
        name = p.name
    }
}
