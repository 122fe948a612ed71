import LaminaCore

/// `CAEmitterLayer`: particles shed by its `emitterCells`, computed and drawn by laminad.
///
/// ```swift
/// let snow = EmitterLayer()
/// snow.emitterPosition = Point(x: 400, y: -10)
/// snow.emitterSize = Size(width: 800, height: 0)
/// snow.emitterShape = .line
/// var flake = EmitterCell(name: "flake")
/// let flakeImage = try Image(contentsOfFile: "flake.png", connection: connection)
/// flake.setContents(flakeImage)
/// flake.birthRate = 40
/// flake.lifetime = 12
/// flake.velocity = 60
/// flake.emissionLongitude = .pi / 2
/// snow.setEmitterCells([flake], images: [flakeImage])
/// ```
///
/// Cells are values (`EmitterCell`, LaminaCore): change one and assign the list again. Their
/// fields animate by key path, as in Core Animation: `emitterCells.flake.birthRate`.
public final class EmitterLayer: Layer {
    public override init() { super.init(kind: .emitter) }

    /// The images the cells show, kept alive while they are assigned (`EmitterCell.contents`
    /// holds their numbers).
    var cellImages: [UInt32: Image] = [:]

    /// The centre of the emitter's shape, in the layer's bounds coordinates. Animatable.
    public var emitterPosition: Point {
        get { model.emitter.emitterPosition }
        set { setValue(.point(newValue), forKey: .emitterPosition) }
    }
    public var emitterZPosition: Double {
        get { model.emitter.emitterZPosition }
        set { setValue(.number(newValue), forKey: .emitterZPosition) }
    }
    /// The shape's width and height. Animatable.
    public var emitterSize: Size {
        get { model.emitter.emitterSize }
        set { setValue(.size(newValue), forKey: .emitterSize) }
    }
    /// The cuboid's depth. Animatable.
    public var emitterDepth: Double {
        get { model.emitter.emitterDepth }
        set { setValue(.number(newValue), forKey: .emitterDepth) }
    }
    public var emitterShape: EmitterShape {
        get { model.emitter.emitterShape }
        set { setValue(.string(newValue.rawValue), forKey: .emitterShape) }
    }
    public var emitterMode: EmitterMode {
        get { model.emitter.emitterMode }
        set { setValue(.string(newValue.rawValue), forKey: .emitterMode) }
    }
    public var renderMode: EmitterRenderMode {
        get { model.emitter.renderMode }
        set { setValue(.string(newValue.rawValue), forKey: .renderMode) }
    }
    /// Multiplies every cell's `birthRate`. Animatable.
    public var birthRate: Double {
        get { model.emitter.birthRate }
        set { setValue(.number(newValue), forKey: .birthRate) }
    }
    /// Multiplies every cell's `lifetime`. Animatable.
    public var lifetime: Double {
        get { model.emitter.lifetime }
        set { setValue(.number(newValue), forKey: .lifetime) }
    }
    /// Multiplies every cell's `velocity`. Animatable.
    public var velocity: Double {
        get { model.emitter.velocity }
        set { setValue(.number(newValue), forKey: .velocity) }
    }
    /// Multiplies every cell's `scale`. Animatable.
    public var scale: Double {
        get { model.emitter.scale }
        set { setValue(.number(newValue), forKey: .scale) }
    }
    /// Multiplies every cell's `spin`. Animatable.
    public var spin: Double {
        get { model.emitter.spin }
        set { setValue(.number(newValue), forKey: .spin) }
    }
    /// Seeds the particles' random values (0…2³²−1).
    public var seed: UInt32 {
        get { UInt32(exactly: model.emitter.seed) ?? 0 }  // laminad keeps it a whole number in range
        set { setValue(.number(Double(newValue)), forKey: .seed) }
    }
    public var preservesDepth: Bool {
        get { model.emitter.preservesDepth }
        set { setValue(.bool(newValue), forKey: .preservesDepth) }
    }
    /// The particle kinds. Images a cell names must stay alive: assign them with
    /// `setEmitterCells(_:images:)`, or keep the `Image`s yourself.
    public var emitterCells: [EmitterCell] {
        get { model.emitter.emitterCells }
        set { setValue(.emitterCells(newValue), forKey: .emitterCells) }
    }

    /// Assigns `cells` and keeps `images` (the ones their `contents` name) alive while they are
    /// assigned.
    public func setEmitterCells(_ cells: [EmitterCell], images: [Image]) {
        cellImages = Dictionary(images.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
        emitterCells = cells
    }
}

extension EmitterCell {
    /// Makes the cell's particles show `image` (nil: none); the emitter layer must keep the
    /// image alive (`EmitterLayer.setEmitterCells(_:images:)`).
    public mutating func setContents(_ image: Image?) { contents = image?.number ?? 0 }
}

extension EmitterLayer {
    /// Keeps `images` alive with the layer, replacing those kept before (the scene applier's
    /// way of holding its cells' images).
    public func keep(_ images: [Image]) {
        cellImages = Dictionary(images.map { ($0.number, $0) }, uniquingKeysWith: { a, _ in a })
    }
}
