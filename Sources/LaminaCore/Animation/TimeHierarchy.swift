/// Conversions between the time spaces of a layer tree, as `-[CALayer convertTime:fromLayer:]`
/// and `-[CALayer convertTime:toLayer:]`.
///
/// **Convention.** A layer's time space is its *local* time: its parent's time mapped through the
/// layer's own timing, `t = (tp − beginTime) · speed + timeOffset`. Media time
/// (`CACurrentMediaTime`, CLOCK_MONOTONIC seconds) is the root's parent time. Converting from
/// layer A to layer B therefore undoes the timing of A and of each ancestor of A up to, but not
/// including, the nearest common ancestor C, then applies the timing of each layer below C down
/// to and including B. C's own timing cancels out, so it is never applied: a root with speed 2
/// and timeOffset 3 leaves `child.convertTime(10, from: root)` at (10 − 0)·4 + 5 = 45 for a child
/// with speed 4 and timeOffset 5. Converting from media time (CA's `fromLayer: nil`) applies every
/// timing from the root down, the root's included.
///
/// A chain is the list of timings from the root down to the layer, both included. Only
/// `beginTime`, `speed` and `timeOffset` of a layer take part: Lamina does not fold layer time by
/// a layer's `duration`/`repeatCount` (a deliberate simplification; no client pattern relies on it).
public enum LayerTime {
    /// The local time of the last layer in `chain` at media time `t`.
    @inlinable public static func localTime(fromMedia t: Double, chain: [MediaTiming]) -> Double {
        var t = t
        for timing in chain { t = timing.localTime(fromParent: t) }
        return t
    }

    /// The media time at which the last layer in `chain` has local time `t`.
    /// Where a layer on the way is paused (speed 0) its inverse is not unique; see
    /// `MediaTiming.parentTime(fromLocal:)`.
    @inlinable public static func mediaTime(fromLocal t: Double, chain: [MediaTiming]) -> Double {
        var t = t
        for timing in chain.reversed() { t = timing.parentTime(fromLocal: t) }
        return t
    }

    /// Converts `t` from the local time of the layer at the end of `source` to the local time of
    /// the layer at the end of `destination`.
    ///
    /// - Parameters:
    ///   - source: timings from the root down to the source layer. Empty means media time.
    ///   - destination: timings from the root down to the destination layer. Empty means media time.
    ///   - sharedAncestors: how many leading entries of both chains are the same layers (the path
    ///     from the root to the nearest common ancestor, inclusive); 0 when one side is media time
    ///     or the layers are in different trees. See `sharedPrefixCount(_:_:)`.
    public static func convert(_ t: Double, from source: [MediaTiming], to destination: [MediaTiming],
                               sharedAncestors: Int) -> Double {
        let shared = Swift.max(0, Swift.min(sharedAncestors, source.count, destination.count))
        var t = t
        var i = source.count - 1
        while i >= shared {
            t = source[i].parentTime(fromLocal: t)
            i -= 1
        }
        for j in shared..<destination.count { t = destination[j].localTime(fromParent: t) }
        return t
    }

    /// How many leading elements two root-first ancestor paths (of layer identifiers) share:
    /// the `sharedAncestors` argument of `convert(_:from:to:sharedAncestors:)`.
    public static func sharedPrefixCount<ID: Equatable>(_ a: [ID], _ b: [ID]) -> Int {
        var n = 0
        while n < a.count, n < b.count, a[n] == b[n] { n += 1 }
        return n
    }
}
