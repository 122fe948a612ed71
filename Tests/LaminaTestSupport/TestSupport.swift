import LaminaCore

/// A small deterministic generator (SplitMix64), so a failure in a randomised test replays.
/// Shared by the test targets (one copy, not one per target).
public struct SplitMix: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How two images of the same size differ: the largest difference of any channel, where it
/// is, and how many pixels differ at all (pixel tests allow a small tolerance).
public struct PixelDifference: Sendable, Equatable {
    public var worst = 0
    public var x = 0
    public var y = 0
    public var differing = 0
}

extension Bitmap {
    /// The channel-by-channel difference from `other` over the pixels both have.
    public func difference(from other: Bitmap) -> PixelDifference {
        var d = PixelDifference()
        let count = Swift.min(bytes.count, other.bytes.count) / 4
        for p in 0..<count {
            var pixelWorst = 0
            for c in 0..<4 { pixelWorst = Swift.max(pixelWorst, abs(Int(bytes[4 * p + c]) - Int(other.bytes[4 * p + c]))) }
            if pixelWorst > 0 { d.differing += 1 }
            if pixelWorst > d.worst { (d.worst, d.x, d.y) = (pixelWorst, p % width, p / width) }
        }
        return d
    }
}
