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

    /// Moves the virtual clock forward.
    mutating func advance(by seconds: Double) { virtualTime += seconds }
}
