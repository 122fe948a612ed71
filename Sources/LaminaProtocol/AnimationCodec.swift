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

/// The first byte of an animation. 0 is unused, so zeroed memory is never a valid animation.
enum AnimationKind: UInt8 {
    case basic = 1, keyframe, spring, group, transition
}

extension FillMode {
    var wireNumber: UInt8 {
        switch self {
        case .removed: 0
        case .forwards: 1
        case .backwards: 2
        case .both: 3
        }
    }

    init?(wireNumber n: UInt8) {
        switch n {
        case 0: self = .removed
        case 1: self = .forwards
        case 2: self = .backwards
        case 3: self = .both
        default: return nil
        }
    }
}

extension ValueFunction {
    /// 1-based: 0 on the wire is "no value function".
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

    init?(wireNumber n: UInt8) {
        switch n {
        case 1: self = .rotateX
        case 2: self = .rotateY
        case 3: self = .rotateZ
        case 4: self = .scale
        case 5: self = .scaleX
        case 6: self = .scaleY
        case 7: self = .scaleZ
        case 8: self = .translate
        case 9: self = .translateX
        case 10: self = .translateY
        case 11: self = .translateZ
        default: return nil
        }
    }
}

extension CalculationMode {
    var wireNumber: UInt8 {
        switch self {
        case .linear: 0
        case .discrete: 1
        case .paced: 2
        case .cubic: 3
        case .cubicPaced: 4
        }
    }

    init?(wireNumber n: UInt8) {
        switch n {
        case 0: self = .linear
        case 1: self = .discrete
        case 2: self = .paced
        case 3: self = .cubic
        case 4: self = .cubicPaced
        default: return nil
        }
    }
}

extension RotationMode {
    /// 1-based: 0 on the wire is nil (the layer keeps its rotation).
    var wireNumber: UInt8 {
        switch self {
        case .auto: 1
        case .autoReverse: 2
        }
    }

    init?(wireNumber n: UInt8) {
        switch n {
        case 1: self = .auto
        case 2: self = .autoReverse
        default: return nil
        }
    }
}

extension Transition.Kind {
    var wireNumber: UInt8 {
        switch self {
        case .fade: 0
        case .moveIn: 1
        case .push: 2
        case .reveal: 3
        }
    }

    init?(wireNumber n: UInt8) {
        switch n {
        case 0: self = .fade
        case 1: self = .moveIn
        case 2: self = .push
        case 3: self = .reveal
        default: return nil
        }
    }
}

extension Transition.Direction {
    /// 1-based: 0 on the wire is nil (Core Animation's default, fromLeft).
    var wireNumber: UInt8 {
        switch self {
        case .fromLeft: 1
        case .fromRight: 2
        case .fromTop: 3
        case .fromBottom: 4
        }
    }

    init?(wireNumber n: UInt8) {
        switch n {
        case 1: self = .fromLeft
        case 2: self = .fromRight
        case 3: self = .fromTop
        case 4: self = .fromBottom
        default: return nil
        }
    }
}
