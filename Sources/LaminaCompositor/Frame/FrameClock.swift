/// The clock frames follow: real media time, or a virtual clock that moves only when told to.
public struct FrameClock: Sendable {
    public let kind: ClockKindSetting
    /// The virtual clock's time; unused for a real clock.
    public private(set) var virtualTime: Double = 0

    public enum ClockKindSetting: Sendable, Equatable {
        /// CLOCK_MONOTONIC, frames every `1 / refreshRate` seconds while something changes.
        case real(refreshRate: Double)
        case virtual
    }

    public init(_ kind: ClockKindSetting) { self.kind = kind }

    public var isVirtual: Bool { kind == .virtual }

    /// How frames follow this clock where no display paces them.
    public var pacing: RepaintLoop.Pacing {
        switch kind {
        case .virtual: .virtualClock
        case .real(let hz): .refreshRate(hz)
        }
    }

    /// The virtual clock never passes this (about 31 700 years): far beyond any test, and small
    /// enough that time stays finite and keeps sub-microsecond steps exact in a Double.
    public static let maximumVirtualTime = 1e12

    /// While a frame is drawn on the real clock: the time it will be presented at (the refresh
    /// it is aimed at, `RepaintScheduler`). The compositor's `now` reads it for the frame's
    /// duration, so animations, events and transactions within the frame agree on its time.
    public private(set) var frameTarget: Double?

    /// The clock's reading: the virtual time, or on the real clock the frame's target while one
    /// is drawn and `realTime` otherwise.
    public func now(realTime: @autoclosure () -> Double) -> Double {
        isVirtual ? virtualTime : (frameTarget ?? realTime())
    }

    /// A frame aimed at `target` starts (ignored on the virtual clock, whose frames show its time).
    mutating func beginFrame(at target: Double?) {
        frameTarget = isVirtual ? nil : target
    }

    mutating func endFrame() { frameTarget = nil }

    /// Moves the virtual clock forward; false (and no move) when that would pass
    /// `maximumVirtualTime` or the step is not a finite number ≥ 0.
    mutating func advance(by seconds: Double) -> Bool {
        guard seconds.isFinite, seconds >= 0, virtualTime + seconds <= Self.maximumVirtualTime else { return false }
        virtualTime += seconds
        return true
    }
}
