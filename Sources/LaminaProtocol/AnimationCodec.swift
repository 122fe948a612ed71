import LaminaCore

// The binary layout of an `Animation`, documented byte for byte in docs/protocol.md
// ("Animations on the wire"). Change both together; Tests/LaminaProtocolTests/AnimationCodecTests
// pins the bytes.
//
// Every animation starts with the same header (kind, media timing, timing function, removal), so
// a reader can report timing mistakes the same way whatever the kind. Fields are never added to an
// existing kind: a later minor version that needs more adds a new kind number instead, so a
// decoder never has to guess where an animation ends.
//
// AnimationWriter.swift writes the layout and AnimationReader.swift reads it, in the same order;
// this file holds what both share: the limits and the wire numbers of each enum.

/// Limits and sizes of the animation layout.
public enum AnimationWire {
    /// The most groups that may enclose one another. Deeper nesting is refused before it is read,
    /// so a hostile message cannot exhaust the decoder's stack.
    public static let maxGroupNesting = 8
    /// The longest key path accepted, in UTF-8 bytes.
    public static let keyPathLimit = 256
    /// The fewest bytes any animation takes: the 53-byte common header (kind, media timing, an
    /// absent timing function, removedOnCompletion) plus an empty group's 4-byte count. Counts of
    /// animations are checked against it.
    static let smallestAnimation = 57
}

// MARK: - Wire numbers

// Each enum's numbers are spelled out rather than derived from case order or raw strings, so
// reordering or renaming a Swift case never changes the protocol, and a new case fails to compile
// until it is given a number. Numbers are never reused.
//
// Each number is written once, in the enum's `wireNumber` switch, which is the table: decoding
// (`init(wireNumber:)`) searches the cases for it, so the two directions cannot disagree.
// AnimationCodecTests pins every number and checks that they round-trip.

/// The first byte of an animation. 0 is unused, so zeroed memory is never a valid animation.
enum AnimationKind: UInt8 {
    case basic = 1, keyframe, spring, group, transition
}

/// The first byte of a path element; the numbers are CGPathElementType's.
enum PathElementKind: UInt8 {
    case moveTo = 0, lineTo, quadCurveTo, curveTo, closeSubpath
}

/// An enum sent as one byte: its number table is `wireNumber`, and decoding derives from it.
protocol WireNumbered: CaseIterable, Equatable {
    /// The case's number on the wire: the only place it is written.
    var wireNumber: UInt8 { get }
}

extension WireNumbered {
    /// The case whose `wireNumber` is `n`, or nil when no case has it.
    init?(wireNumber n: UInt8) {
        // At most a dozen cases, read once per field of an animation being decoded.
        guard let match = Self.allCases.first(where: { $0.wireNumber == n }) else { return nil }
        self = match
    }
}

extension FillMode: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .removed: 0
        case .forwards: 1
        case .backwards: 2
        case .both: 3
        }
    }
}

/// 1-based: 0 on the wire is "no value function".
extension ValueFunction: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .rotateX: 1
        case .rotateY: 2
        case .rotateZ: 3
        case .scale: 4
        case .scaleX: 5
        case .scaleY: 6
        case .scaleZ: 7
        case .translate: 8
        case .translateX: 9
        case .translateY: 10
        case .translateZ: 11
        }
    }
}

extension CalculationMode: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .linear: 0
        case .discrete: 1
        case .paced: 2
        case .cubic: 3
        case .cubicPaced: 4
        }
    }
}

/// 1-based: 0 on the wire is nil (the layer keeps its rotation).
extension RotationMode: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .auto: 1
        case .autoReverse: 2
        }
    }
}

extension Transition.Kind: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .fade: 0
        case .moveIn: 1
        case .push: 2
        case .reveal: 3
        }
    }
}

/// 1-based: 0 on the wire is nil (Core Animation's default, fromLeft).
extension Transition.Direction: WireNumbered {
    var wireNumber: UInt8 {
        switch self {
        case .fromLeft: 1
        case .fromRight: 2
        case .fromTop: 3
        case .fromBottom: 4
        }
    }
}
