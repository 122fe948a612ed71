/// One kind of particle an emitter layer sheds (`CAEmitterCell`), with the cells its own
/// particles shed in turn (`emitterCells`).
///
/// A value: a layer's `emitterCells` property holds an array of them, set and animated like
/// any other property (`emitterCells.NAME.birthRate`). Ranges vary a value uniformly by up to
/// the range either way for each particle (`velocity ± velocityRange`); speeds change a value
/// by that much per second of the particle's life.
public struct EmitterCell: Hashable, Sendable {
    /// Names the cell in key paths (`emitterCells.NAME.birthRate`).
    public var name = ""
    /// False: the cell sheds nothing (its live particles still finish their lives).
    public var isEnabled = true
    /// Particles per second; multiplied by the layer's `birthRate`.
    public var birthRate: Double = 0
    /// Seconds a particle lives, ± `lifetimeRange`; multiplied by the layer's `lifetime`.
    public var lifetime: Double = 0
    public var lifetimeRange: Double = 0
    /// Initial speed in points per second, ± `velocityRange`; multiplied by the layer's `velocity`.
    public var velocity: Double = 0
    public var velocityRange: Double = 0
    /// Constant acceleration, points per second², along each axis (y down, as layers are).
    public var xAcceleration: Double = 0
    public var yAcceleration: Double = 0
    public var zAcceleration: Double = 0
    /// The direction of emission: `emissionLongitude` in the x-y plane from the x axis (radians,
    /// towards +y), `emissionLatitude` out of it towards +z; `emissionRange` spreads the
    /// longitude uniformly over that many radians centred on it (2π: every direction).
    public var emissionLatitude: Double = 0
    public var emissionLongitude: Double = 0
    public var emissionRange: Double = 0
    /// Turning speed in radians per second, ± `spinRange`; multiplied by the layer's `spin`.
    public var spin: Double = 0
    public var spinRange: Double = 0
    /// Size factor of the contents, ± `scaleRange`, changing by `scaleSpeed` a second;
    /// multiplied by the layer's `scale`.
    public var scale: Double = 1
    public var scaleRange: Double = 0
    public var scaleSpeed: Double = 0
    /// Multiplies the contents' colour; each channel varies by its range at birth and changes by
    /// its speed a second, kept in [0, 1].
    public var color: Color = .white
    public var redRange: Double = 0, greenRange: Double = 0, blueRange: Double = 0, alphaRange: Double = 0
    public var redSpeed: Double = 0, greenSpeed: Double = 0, blueSpeed: Double = 0, alphaSpeed: Double = 0
    /// The client's image each particle shows (0: none, and the cell's particles draw nothing,
    /// as in Core Animation; its sub-cells still emit from them).
    public var contents: UInt32 = 0
    /// The part of the image shown, in unit coordinates.
    public var contentsRect = Rect(x: 0, y: 0, width: 1, height: 1)
    /// Image pixels per point: a particle is the shown part's pixel size / contentsScale × scale.
    public var contentsScale: Double = 1
    public var minificationFilter: ContentsFilter = .linear
    public var magnificationFilter: ContentsFilter = .linear
    /// The cell's media timing: its local time is `(t − beginTime) · speed + timeOffset` of the
    /// layer's local time (a sub-cell's, of its parent particle's age). It sheds while that lies
    /// in its active span: `duration` (0: forever) times `repeatCount`, or `repeatDuration`,
    /// doubled by `autoreverses`; `fillMode` is kept for Core Animation's API and has no effect
    /// on shedding.
    public var beginTime: Double = 0
    public var duration: Double = 0
    public var speed: Double = 1
    public var timeOffset: Double = 0
    public var repeatCount: Double = 0
    public var repeatDuration: Double = 0
    public var autoreverses = false
    public var fillMode: FillMode = .removed
    /// The cells each of this cell's particles sheds, from where the particle is.
    public var emitterCells: [EmitterCell] = []

    public init(name: String = "") { self.name = name }

    /// How deep cells may nest: top-level cells are at depth 1.
    public static let maximumDepth = 4
    /// The most cells one list (a layer's, or a cell's) may hold.
    public static let maximumCells = 64

    /// The span of cell-local time in which the cell sheds: `0 ..< end` (`.infinity`: forever).
    public var activeEnd: Double {
        if repeatDuration > 0 { return repeatDuration }
        guard duration > 0 else { return .infinity }
        let repeats = repeatCount > 0 ? repeatCount : 1
        return duration * repeats * (autoreverses ? 2 : 1)
    }

    /// The cell's local time for `t` of the time it lives in (the layer's, or a parent particle's age).
    @inlinable public func localTime(_ t: Double) -> Double { (t - beginTime) * speed + timeOffset }
}

extension EmitterCell {
    /// True when every number in the cell and its sub-cells is finite.
    public var isFinite: Bool {
        EmitterCellField.allCases.allSatisfy { self[$0].isFinite } && emitterCells.allSatisfy(\.isFinite)
    }

    /// The cell named `name` in `cells` (the first, as Core Animation's key-value coding finds).
    public static func index(named name: String, in cells: [EmitterCell]) -> Int? {
        cells.firstIndex { $0.name == name }
    }

    /// Checks `cells` (and their sub-cells) as laminad stores them: every number finite, rates,
    /// lifetimes, scales and the contents scale not negative, at most `maximumCells` a list and
    /// `maximumDepth` levels. The error names the cell by its path (`emitterCells.snow.…`) and
    /// the field.
    public static func validate(_ cells: [EmitterCell], depth: Int = 1, path: String = "emitterCells") throws(PropertyError) {
        guard cells.count <= maximumCells else {
            throw .outOfRange(key: .emitterCells, reason: "\(path): at most \(maximumCells) cells in a list (got \(cells.count))")
        }
        guard depth <= maximumDepth || cells.isEmpty else {
            throw .outOfRange(key: .emitterCells, reason: "\(path): cells nest at most \(maximumDepth) deep")
        }
        for (i, cell) in cells.enumerated() {
            let here = path + "." + (cell.name.isEmpty ? "[\(i)]" : cell.name)
            for field in EmitterCellField.allCases {
                let value = cell[field]
                guard value.isFinite else {
                    throw .outOfRange(key: .emitterCells, reason: "\(here).\(field.name) must be finite (got NaN or infinity)")
                }
                if field.mustNotBeNegative, case .number(let x) = value, x < 0 {
                    throw .outOfRange(key: .emitterCells, reason: "\(here).\(field.name) must not be negative (got \(x))")
                }
            }
            if !(cell.contentsScale > 0) {
                throw .outOfRange(key: .emitterCells, reason: "\(here).contentsScale must be greater than 0 (got \(cell.contentsScale))")
            }
            try validate(cell.emitterCells, depth: depth + 1, path: here + ".emitterCells")
        }
    }
}
