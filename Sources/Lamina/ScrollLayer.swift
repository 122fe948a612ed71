import LaminaCore
import LaminaProtocol

/// `CAScrollLayer`: shows part of its sublayers, the part at `bounds.origin`. Scrolling moves
/// the origin (`scroll(to:)`), limited to the axes `scrollMode` allows; the extent is the
/// layout of its sublayers, as Core Animation defines it.
///
/// Beyond Core Animation, `scrollsOnTouch` has laminad scroll it when a finger drags over it or
/// a wheel turns over it, with no round trip to the client: momentum after the finger lifts
/// (UIScrollView's normal deceleration), rubber-banding at the edges of the extent, and paging
/// with `isPagingEnabled`. laminad moves the origin in its own model and tells this layer
/// (`onScroll`); the layer's `bounds.origin` follows without being sent back. Setting
/// `bounds.origin` (or calling `scroll(to:)`) while laminad scrolls ends its scroll.
public final class ScrollLayer: Layer {
    public override init() { super.init(kind: .scroll) }

    /// The axes the origin moves along; `.both` by default.
    public var scrollMode: ScrollMode {
        get { model.scrollMode }
        set { setValue(.string(newValue.rawValue), forKey: .scrollMode) }
    }

    /// laminad scrolls the layer by touch and wheel (protocol 1.7: an older laminad refuses it).
    public var scrollsOnTouch: Bool {
        get { model.scrollsOnTouch }
        set { setValue(.bool(newValue), forKey: .scrollsOnTouch) }
    }

    /// The size of what scrolls, from (0, 0) in the layer's bounds coordinates; `.zero` (the
    /// default) takes the union of the sublayers' frames and (0, 0).
    public var scrollContentSize: Size {
        get { model.scrollContentSize }
        set { setValue(.size(newValue), forKey: .scrollContentSize) }
    }

    /// A touch scroll settles on whole multiples of the bounds size.
    public var isPagingEnabled: Bool {
        get { model.pagingEnabled }
        set { setValue(.bool(newValue), forKey: .pagingEnabled) }
    }

    /// Called with each scroll laminad drives on this layer (began, moved once per frame,
    /// ended or interrupted), after `bounds.origin` has taken the event's offset.
    public var onScroll: ((ScrollEvent) -> Void)?

    /// `scrollToPoint:`: moves the origin to `point` on the axes `scrollMode` allows. An
    /// animatable change of `bounds`, so it animates unless the transaction disables actions.
    public func scroll(to point: Point) {
        let origin = model.scrollOrigin(to: point)
        guard origin != bounds.origin else { return }
        bounds = Rect(origin: origin, size: bounds.size)
    }

    /// `scrollToRect:`: moves the origin as little as shows `rect` (in this layer's bounds
    /// coordinates), on the axes `scrollMode` allows.
    public func scroll(to rect: Rect) {
        scroll(to: model.scrollOrigin(showing: rect))
    }
}

extension Layer {
    /// The nearest scroll layer above this one (its superlayer, or theirs), or nil.
    var enclosingScrollLayer: ScrollLayer? {
        var at = superlayer
        while let l = at {
            if let s = l as? ScrollLayer { return s }
            at = l.superlayer
        }
        return nil
    }

    /// `scrollPoint:`: scrolls the nearest scroll layer above this one so that `point` (in
    /// this layer's coordinates) lies at its origin. Does nothing outside a scroll layer.
    public func scrollPoint(_ point: Point) {
        guard let s = enclosingScrollLayer else { return }
        s.scroll(to: s.convert(point, from: self))
    }

    /// `scrollRectToVisible:`: scrolls the nearest scroll layer above this one as little as
    /// shows `rect` (in this layer's coordinates). Does nothing outside a scroll layer.
    public func scrollRectToVisible(_ rect: Rect) {
        guard let s = enclosingScrollLayer else { return }
        s.scroll(to: s.convert(rect, from: self))
    }

    /// `visibleRect`: the part of this layer's bounds that the nearest scroll layer above it
    /// shows (its bounds, in this layer's coordinates), in this layer's coordinates; the bounds
    /// outside a scroll layer. Empty (zero size) where none of it shows.
    public var visibleRect: Rect {
        let b = bounds
        guard let s = enclosingScrollLayer else { return b }
        let shown = convert(s.bounds, from: s)
        let x0 = Swift.max(b.minX, shown.minX), y0 = Swift.max(b.minY, shown.minY)
        let x1 = Swift.min(b.maxX, shown.maxX), y1 = Swift.min(b.maxY, shown.maxY)
        guard x1 > x0, y1 > y0 else { return Rect(x: Swift.max(x0, b.minX), y: Swift.max(y0, b.minY), width: 0, height: 0) }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

extension Connection {
    /// A `scroll` message: laminad moved the layer's origin. The model takes it (not a change to
    /// send back), unless the client has set the bounds since and not yet committed them (its
    /// commit ends laminad's scroll); then the layer's handler hears it.
    func receivedScroll(_ event: ScrollEvent) {
        guard let layer = layer(withID: event.layer) else { return }
        let pending = log.contains { if case let .set(l, .bounds) = $0.kind { l === layer } else { false } }
        if !pending { layer.takeScrolledOrigin(event.offset) }
        (layer as? ScrollLayer)?.onScroll?(event)
    }
}
