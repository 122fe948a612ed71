import LaminaCore

/// A filter in a layer's `filters` (Core Image's filters as Core Animation on macOS takes them):
/// a name for key paths, a type and its input.
public typealias Filter = LayerFilter

extension Layer {
    /// Filters applied, in order, to the layer and its sublayers drawn as one group
    /// (`CALayer.filters`): `[.gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.2)]`.
    /// laminad draws them; at most 8, a blur's radius at most 64 points. The list switches at once;
    /// an input animates by key path, `filters.soft.inputRadius`. A new key in protocol 1.7: an
    /// older laminad refuses it.
    public var filters: [Filter] {
        get { model.filters }
        set { setValue(.filters(newValue), forKey: .filters) }
    }
}

extension Layer {
    /// Filters applied, in order, to what lies behind the layer inside its bounds, clipped by its
    /// corners and mask, before the layer draws (`CALayer.backgroundFilters`): a blur under a
    /// translucent `backgroundColor` is frosted glass. The same filters and limits as `filters`;
    /// laminad keeps the filtered backdrop while nothing behind changes. An input animates by
    /// key path, `backgroundFilters.frost.inputRadius`. A new key in protocol 1.7.
    public var backgroundFilters: [Filter] {
        get { model.backgroundFilters }
        set { setValue(.filters(newValue), forKey: .backgroundFilters) }
    }
}
