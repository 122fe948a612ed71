import LaminaCore

/// A layer's `filters` as the renderer applies them to its group: the filters in order, with
/// each run of colour filters composed into one colour matrix, so a group takes one shader pass
/// per run and two per blur.
public struct DrawFilters: Sendable, Equatable, Hashable {
    public enum Stage: Sendable, Equatable, Hashable {
        /// A Gaussian of σ = radius / 3, radius in the layer's points.
        case blur(radius: Double)
        /// A colour matrix on straight colour, clamped to [0, 1] after.
        case color(ColorMatrix)
    }

    public var stages: [Stage]

    /// The stages of `filters`; nil when they change nothing (none, or blurs of radius 0 and
    /// identity matrices only).
    public init?(_ filters: [LayerFilter]) {
        var stages: [Stage] = []
        for f in filters {
            if let m = ColorMatrix(f) {
                if case .color(let previous)? = stages.last {
                    stages[stages.count - 1] = .color(previous.then(m))
                } else {
                    stages.append(.color(m))
                }
            } else if f.reach > 0 {
                stages.append(.blur(radius: f.reach))
            }
        }
        stages.removeAll { $0 == .color(.identity) }
        guard !stages.isEmpty else { return nil }
        self.stages = stages
    }

    /// How far the blurs together spread a pixel, in the layer's points: the group's box and
    /// its damage grow by this much (three standard deviations of each blur).
    public var reach: Double {
        stages.reduce(0) { total, s in
            if case .blur(let r) = s { return total + r }
            return total
        }
    }
}
