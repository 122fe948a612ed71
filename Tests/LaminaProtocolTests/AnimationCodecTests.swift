import Testing
import LaminaTestSupport
import LaminaCore
@testable import LaminaProtocol

@Suite("Animation wire codec")
struct AnimationCodecTests {
    static func encode(_ a: Animation) -> [UInt8] {
        var w = ByteWriter()
        w.animation(a)
        return w.bytes
    }

    /// Decodes one whole animation: what an `add-animation` operation does, minus the operation.
    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> Animation {
        var r = ByteReader(bytes)
        let a = try r.animation("animation")
        try r.finish()
        return a
    }

    static func bytes(_ build: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        build(&w)
        return w.bytes
    }

    static func f64Bytes(_ v: Double) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) }

    // MARK: Samples

    static let everyTiming = MediaTiming(beginTime: 1.5, duration: 2, speed: -0.5, timeOffset: 0.25,
                                         repeatCount: .infinity, repeatDuration: 3, autoreverses: true, fillMode: .both)
    static let overshoot = TimingFunction(controlPoints: 0.175, 0.885, 0.32, 1.275)
    static let everyValueType: [PropertyValue] = [
        .number(-0.25), .point(Point(x: 1.5, y: -2)), .size(Size(width: 3, height: 4)),
        .rect(Rect(x: 1, y: 2, width: 3, height: 4)), .color(Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4)),
        .transform(.rotation(angle: 0.5, x: 0, y: 1, z: 0).concatenating(.perspective(distance: 500))),
        .bool(true), .string("naïve ✓"),
    ]
    static let everyPathElement = Path([
        .moveTo(Point(x: 10, y: 20)),
        .lineTo(Point(x: 100, y: 20)),
        .quadCurveTo(control: Point(x: 150, y: 20), end: Point(x: 150, y: 70)),
        .curveTo(control1: Point(x: 150, y: 120), control2: Point(x: 60, y: 140), end: Point(x: 10, y: 100)),
        .closeSubpath,
    ])

    static let basicFull = Animation.basic(BasicAnimation(
        keyPath: "transform", fromValue: .number(0), toValue: .number(4 * Double.pi), byValue: .number(1),
        timing: everyTiming, timingFunction: overshoot, isRemovedOnCompletion: false, isAdditive: true,
        isCumulative: true, valueFunction: .rotateZ))
    static let keyframeValues = Animation.keyframe(KeyframeAnimation(
        keyPath: "position", values: everyValueType, keyTimes: [0, 0.1, 0.2, 0.3, 0.5, 0.6, 0.8, 1],
        timingFunctions: [.easeIn, .easeOut, overshoot, .linear, .default, .easeInEaseOut, .easeIn],
        calculationMode: .cubic, rotationMode: .auto, tensionValues: [0.5, -0.5], continuityValues: [1],
        biasValues: [0, 0.25, -1], timing: everyTiming, timingFunction: .easeInEaseOut, isRemovedOnCompletion: false,
        isAdditive: true, isCumulative: true, valueFunction: .scale))
    static let keyframePath = Animation.keyframe(KeyframeAnimation(
        keyPath: "position", path: everyPathElement, keyTimes: [], timingFunctions: [],
        calculationMode: .cubicPaced, rotationMode: .autoReverse, tensionValues: [], continuityValues: [], biasValues: []))
    static let springFull = Animation.spring(SpringAnimation(
        keyPath: "position", fromValue: .point(Point(x: 0, y: 0)), toValue: .point(Point(x: 300, y: 200)),
        byValue: .point(Point(x: 1, y: 1)), timing: everyTiming, timingFunction: .easeOut,
        isRemovedOnCompletion: false, isAdditive: true, isCumulative: true, valueFunction: .translate,
        mass: 2, stiffness: 300, damping: 0, initialVelocity: -5))
    static let transitionFull = Animation.transition(Transition(
        type: .push, subtype: .fromTop, startProgress: 0.2, endProgress: 0.8, timing: everyTiming,
        timingFunction: .easeIn, isRemovedOnCompletion: false))
    static let nestedGroup = Animation.group(AnimationGroup(
        animations: [
            basicFull, keyframeValues, keyframePath, springFull, transitionFull,
            .group(AnimationGroup([.group(AnimationGroup([], duration: 0))], duration: 1)),
        ],
        timing: everyTiming, timingFunction: .default, isRemovedOnCompletion: false))

    struct Sample: CustomTestStringConvertible, Sendable {
        var name: String
        var animation: Animation
        var testDescription: String { name }
    }

    static let samples: [Sample] = [
        Sample(name: "basic, nothing optional set", animation: .basic(BasicAnimation(keyPath: "opacity"))),
        Sample(name: "basic, everything set", animation: basicFull),
        Sample(name: "basic, point and colour values",
               animation: .basic(BasicAnimation(keyPath: "backgroundColor", fromValue: .color(.red), toValue: nil,
                                                byValue: .color(Color(red: 0, green: 0.5, blue: 0))))),
        Sample(name: "keyframe, nothing optional set", animation: .keyframe(KeyframeAnimation(keyPath: "opacity"))),
        Sample(name: "keyframe, values of every type and every option", animation: keyframeValues),
        Sample(name: "keyframe, path of every element kind and empty arrays", animation: keyframePath),
        Sample(name: "spring, nothing optional set", animation: .spring(SpringAnimation(keyPath: "position.x"))),
        Sample(name: "spring, every parameter", animation: springFull),
        Sample(name: "group, empty", animation: .group(AnimationGroup([], duration: 0))),
        Sample(name: "group, nested, of every kind", animation: nestedGroup),
        Sample(name: "transition, defaults", animation: .transition(Transition())),
        Sample(name: "transition, subtype and progress", animation: transitionFull),
    ]

    // MARK: Round trips

    @Test(arguments: samples)
    func roundTrip(_ s: Sample) throws {
        let bytes = Self.encode(s.animation)
        #expect(try Self.decode(bytes) == s.animation)
        // The layout is self-delimiting: an animation followed by more bytes stops at its end.
        var r = ByteReader(bytes + [0xAB])
        #expect(try r.animation("animation") == s.animation)
        #expect(r.remaining == 1)
    }

    @Test func everyEnumCaseRoundTrips() throws {
        for fill in FillMode.allCases {
            let a = Animation.basic(BasicAnimation(keyPath: "opacity", timing: MediaTiming(fillMode: fill)))
            #expect(try Self.decode(Self.encode(a)) == a)
        }
        for function in ValueFunction.allCases {
            let a = Animation.basic(BasicAnimation(keyPath: "transform", toValue: function.identityInput, valueFunction: function))
            #expect(try Self.decode(Self.encode(a)) == a)
        }
        for mode in CalculationMode.allCases {
            for rotation in RotationMode.allCases.map(Optional.some) + [nil] {
                let a = Animation.keyframe(KeyframeAnimation(keyPath: "position", path: Self.everyPathElement,
                                                             calculationMode: mode, rotationMode: rotation))
                #expect(try Self.decode(Self.encode(a)) == a)
            }
        }
        for type in Transition.Kind.allCases {
            for subtype in Transition.Direction.allCases.map(Optional.some) + [nil] {
                let a = Animation.transition(Transition(type: type, subtype: subtype))
                #expect(try Self.decode(Self.encode(a)) == a)
            }
        }
    }

    /// Decoding does not validate: an animation that `validate()` refuses still crosses the wire
    /// intact, so the server can name its problem rather than a decode error.
    @Test func invalidButWellFormedAnimationsDecode() throws {
        let a = Animation.basic(BasicAnimation(
            keyPath: "no.such.property", fromValue: .string("x"), toValue: .number(.nan), byValue: .bool(false),
            timing: MediaTiming(duration: -1, speed: .infinity, repeatCount: 2, repeatDuration: 2)))
        #expect(!a.validate().isEmpty)
        let decoded = try Self.decode(Self.encode(a))
        #expect(decoded.validate().count == a.validate().count)
        guard case .basic(let b) = decoded else { Issue.record("not basic"); return }
        #expect(b.keyPath == "no.such.property")
        #expect(b.toValue.map { !$0.isFinite } == true)
        #expect(b.timing.duration == -1)
    }

    // MARK: Wire numbers

    /// Pins the enum numbers documented in docs/protocol.md, so they cannot drift.
    @Test func wireNumbersMatchTheDocumentation() throws {
        let fillModeOffset = 50  // kind (1) + six f64 (48) + autoreverses (1)
        for (fill, n) in [(FillMode.removed, 0), (.forwards, 1), (.backwards, 2), (.both, 3)] as [(FillMode, UInt8)] {
            #expect(Self.encode(.basic(BasicAnimation(keyPath: "opacity", timing: MediaTiming(fillMode: fill))))[fillModeOffset] == n)
        }
        let functions: [ValueFunction] = [.rotateX, .rotateY, .rotateZ, .scale, .scaleX, .scaleY, .scaleZ,
                                          .translate, .translateX, .translateY, .translateZ]
        for (i, f) in functions.enumerated() {
            #expect(Self.encode(.basic(BasicAnimation(keyPath: "transform", valueFunction: f))).last == UInt8(i + 1))
        }
        // A keyframe animation on "position" with nothing optional: 53-byte header, key path
        // (4 + 8), value count (4), three absent presence bytes, then calculationMode and rotationMode.
        let modeOffset = 53 + 12 + 4 + 3
        let modes: [CalculationMode] = [.linear, .discrete, .paced, .cubic, .cubicPaced]
        for (i, m) in modes.enumerated() {
            #expect(Self.encode(.keyframe(KeyframeAnimation(keyPath: "position", calculationMode: m)))[modeOffset] == UInt8(i))
        }
        for (r, n) in [(RotationMode?.none, 0), (.auto, 1), (.autoReverse, 2)] as [(RotationMode?, UInt8)] {
            #expect(Self.encode(.keyframe(KeyframeAnimation(keyPath: "position", rotationMode: r)))[modeOffset + 1] == n)
        }
        let kinds: [Transition.Kind] = [.fade, .moveIn, .push, .reveal]
        let directions: [Transition.Direction] = [.fromLeft, .fromRight, .fromTop, .fromBottom]
        for (i, k) in kinds.enumerated() { #expect(Self.encode(.transition(Transition(type: k)))[53] == UInt8(i)) }
        for (i, d) in directions.enumerated() { #expect(Self.encode(.transition(Transition(subtype: d)))[54] == UInt8(i + 1)) }
        // Path elements follow CGPathElementType: move 0, line 1, quad 2, curve 3, close 4.
        let pathBytes = Self.encode(.keyframe(KeyframeAnimation(keyPath: "position", path: Path([.closeSubpath]))))
        #expect(Array(pathBytes[(53 + 12 + 4)..<(53 + 12 + 4 + 6)]) == [1, 1, 0, 0, 0, 4])
        // Animation kinds.
        let firstBytes = [Animation.basic(BasicAnimation(keyPath: "opacity")), .keyframe(KeyframeAnimation(keyPath: "opacity")),
                          .spring(SpringAnimation(keyPath: "opacity")), .group(AnimationGroup([], duration: 0)),
                          .transition(Transition())].map { Self.encode($0)[0] }
        #expect(firstBytes == [1, 2, 3, 4, 5])
    }

    /// Decoding derives from each enum's one number table: every case comes back as itself, no
    /// two cases share a number, and the first number past the table decodes to nothing.
    @Test func wireNumbersRoundTrip() {
        func check<E: WireNumbered>(_: E.Type) {
            let numbers = E.allCases.map(\.wireNumber)
            #expect(Set(numbers).count == numbers.count, "\(E.self) has a number twice: \(numbers)")
            for c in E.allCases { #expect(E(wireNumber: c.wireNumber) == c) }
            #expect(E(wireNumber: numbers.max()! + 1) == nil)
        }
        check(FillMode.self)
        check(ValueFunction.self)
        check(CalculationMode.self)
        check(RotationMode.self)
        check(Transition.Kind.self)
        check(Transition.Direction.self)
    }

    /// The array-count checks rely on no animation being shorter than this.
    @Test func smallestAnimationIsAnEmptyGroup() {
        let minimal: [Animation] = [.basic(BasicAnimation(keyPath: "")), .keyframe(KeyframeAnimation(keyPath: "")),
                                    .spring(SpringAnimation(keyPath: "")), .group(AnimationGroup([], duration: 0)),
                                    .transition(Transition())]
        #expect(minimal.map { Self.encode($0).count }.min() == AnimationWire.smallestAnimation)
        #expect(Self.encode(.group(AnimationGroup([], duration: 0))).count == AnimationWire.smallestAnimation)
    }

    // MARK: Golden bytes

    // docs/protocol.md, "Animations on the wire", shows these bytes as its worked example; the two
    // must agree.
    @Test func goldenBytesOfAFade() throws {
        let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .number(1), to: .number(0),
                                                  duration: 0.5, timingFunction: .easeIn))
        let expected: [UInt8] = [
            0x01,                                            // kind 1: basic
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // beginTime 0 (when added)
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x3F,  // duration 0.5
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // speed 1
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // timeOffset 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // repeatCount 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // repeatDuration 0
            0x00,                                            // autoreverses false
            0x00,                                            // fillMode 0: removed
            0x01,                                            // timing function present …
            0xE1, 0x7A, 0x14, 0xAE, 0x47, 0xE1, 0xDA, 0x3F,  // … c1x 0.42
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // … c1y 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // … c2x 1
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // … c2y 1 (easeIn)
            0x01,                                            // removedOnCompletion true
            0x07, 0x00, 0x00, 0x00,                          // key path: 7 bytes …
            0x6F, 0x70, 0x61, 0x63, 0x69, 0x74, 0x79,        // … "opacity"
            0x01,                                            // fromValue: type 1 (number) …
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // … 1
            0x01,                                            // toValue: type 1 (number) …
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // … 0
            0x00,                                            // byValue absent
            0x00,                                            // additive false
            0x00,                                            // cumulative false
            0x00,                                            // no value function
        ]
        #expect(Self.encode(fade) == expected)
        #expect(expected.count == 118)
        #expect(try Self.decode(expected) == fade)
    }

    // MARK: Malformed input

    /// Every proper prefix of an encoding must throw, never crash and never decode.
    @Test(arguments: samples)
    func everyTruncationThrows(_ s: Sample) {
        let bytes = Self.encode(s.animation)
        for n in 0..<bytes.count {
            var r = ByteReader(Array(bytes.prefix(n)))
            #expect(throws: DecodeError.self, "prefix of \(n) of \(bytes.count) bytes") { try r.animation("animation") }
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var expect: DecodeError
        var testDescription: String { name }
    }

    /// The common header (kind, default timing, no timing function, removedOnCompletion) of an
    /// animation of `kind`: 53 bytes.
    static func header(_ kind: UInt8) -> [UInt8] {
        var b = Array(encode(.group(AnimationGroup([], duration: 0))).prefix(53))
        b[0] = kind
        return b
    }

    static let malformed: [Malformed] = {
        let fade = encode(.basic(BasicAnimation(keyPath: "opacity", from: .number(1), to: .number(0), duration: 0.5,
                                                timingFunction: .easeIn)))
        // Offsets in `fade` (see goldenBytesOfAFade).
        let autoreverses = 49, fillMode = 50, functionPresence = 51, c1x = 52, c2x = 68, fromType = 96
        var unknownKind = fade; unknownKind[0] = 9
        var zeroKind = fade; zeroKind[0] = 0
        var badFill = fade; badFill[fillMode] = 7
        var badBool = fade; badBool[autoreverses] = 2
        var badPresence = fade; badPresence[functionPresence] = 2
        var nanFunction = fade; nanFunction.replaceSubrange(c1x..<(c1x + 8), with: f64Bytes(.nan))
        var wideFunction = fade; wideFunction.replaceSubrange(c2x..<(c2x + 8), with: f64Bytes(1.5))
        var badValueType = fade; badValueType[fromType] = 99
        var badUTF8 = fade; badUTF8[89] = 0xC3; badUTF8[90] = 0x28  // "op" → an unfinished two-byte sequence
        let badValueFunction = Array(fade.dropLast()) + [12]

        let keyframeStart = header(2) + bytes { $0.string("position") }
        let noValuesNoPath: [UInt8] = [0, 0, 0, 0,  0,  0,  0]  // values count, path, keyTimes, timingFunctions
        let keyframeTail: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]    // mode, rotation, T, C, B, additive, cumulative, valueFunction

        let tooLongKeyPath = header(1) + bytes { $0.string(String(repeating: "x", count: 257)) } + [0, 0, 0, 0, 0, 0]
        var tooDeep: [UInt8] = []
        for _ in 0..<AnimationWire.maxGroupNesting { tooDeep += header(4) + [1, 0, 0, 0] }
        tooDeep += header(4) + [0, 0, 0, 0]
        let tooDeepField = "animation" + String(repeating: ".group.animations[0]", count: AnimationWire.maxGroupNesting) + ".kind"

        let springTruncated = Array(encode(.spring(SpringAnimation(keyPath: "opacity"))).dropLast(12))

        return [
            Malformed(name: "empty", bytes: [], expect: .truncated(field: "animation.kind")),
            Malformed(name: "unknown kind", bytes: unknownKind,
                      expect: .invalid(field: "animation.kind", reason: "unknown animation kind 9")),
            Malformed(name: "kind 0", bytes: zeroKind,
                      expect: .invalid(field: "animation.kind", reason: "unknown animation kind 0")),
            Malformed(name: "unknown fill mode", bytes: badFill,
                      expect: .invalid(field: "animation.timing.fillMode", reason: "unknown fill mode 7")),
            Malformed(name: "autoreverses that is 2", bytes: badBool,
                      expect: .invalid(field: "animation.timing.autoreverses", reason: "a bool must be 0 or 1, not 2")),
            Malformed(name: "timing function presence that is 2", bytes: badPresence,
                      expect: .invalid(field: "animation.timingFunction presence", reason: "must be 0 (absent) or 1 (present), not 2")),
            Malformed(name: "NaN timing function", bytes: nanFunction,
                      expect: .invalid(field: "animation.timingFunction", reason: "control points (nan, 0.0) (1.0, 1.0) must be finite")),
            Malformed(name: "timing function x outside [0, 1]", bytes: wideFunction,
                      expect: .invalid(field: "animation.timingFunction", reason: "control point x coordinates must be in [0, 1], got 0.42 and 1.5")),
            Malformed(name: "unknown value type", bytes: badValueType,
                      expect: .invalid(field: "animation.basic.fromValue type", reason: "unknown value type 99")),
            Malformed(name: "invalid UTF-8 key path", bytes: badUTF8,
                      expect: .invalid(field: "animation.basic.keyPath", reason: "not valid UTF-8")),
            Malformed(name: "key path too long", bytes: tooLongKeyPath,
                      expect: .invalid(field: "animation.basic.keyPath", reason: "string of 257 bytes is longer than the limit of 256")),
            Malformed(name: "unknown value function", bytes: badValueFunction,
                      expect: .invalid(field: "animation.basic.valueFunction", reason: "unknown value function 12")),
            Malformed(name: "colour component out of range",
                      bytes: header(1) + bytes { $0.string("backgroundColor"); $0.u8(5); for c in [0.5, 0.5, 2, 1] { $0.f64(c) } } + [0, 0, 0, 0, 0],
                      expect: .invalid(field: "animation.basic.fromValue", reason: "colour components must be in [0, 1], got 2.0")),
            Malformed(name: "spring cut off in its parameters", bytes: springTruncated,
                      expect: .truncated(field: "animation.spring.damping")),
            Malformed(name: "huge keyframe value count",
                      bytes: keyframeStart + [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 10),
                      expect: .invalid(field: "animation.keyframe.values count", reason: "4294967295 values cannot fit in the 10 bytes that follow")),
            // 32 768 values fit in the bytes that follow (2 each), but would take 4.5 MB as
            // PropertyValues: the decoder must not reserve them all before the first one fails.
            Malformed(name: "keyframe value count that fits the bytes but not the values",
                      bytes: keyframeStart + [0x00, 0x80, 0x00, 0x00] + [UInt8](repeating: 0, count: 65_536),
                      expect: .invalid(field: "animation.keyframe.values[0] type", reason: "a keyframe value cannot be absent (type 0)")),
            Malformed(name: "absent keyframe value",
                      bytes: keyframeStart + [1, 0, 0, 0, 0] + [0, 0, 0] + keyframeTail,
                      expect: .invalid(field: "animation.keyframe.values[0] type", reason: "a keyframe value cannot be absent (type 0)")),
            Malformed(name: "huge path element count",
                      bytes: keyframeStart + [0, 0, 0, 0, 1, 0x00, 0x00, 0x00, 0x80] + [0, 0] + keyframeTail,
                      expect: .invalid(field: "animation.keyframe.path.elements count", reason: "2147483648 path elements cannot fit in the 10 bytes that follow")),
            Malformed(name: "unknown path element",
                      bytes: keyframeStart + [0, 0, 0, 0, 1, 2, 0, 0, 0, 4, 5] + [0, 0] + keyframeTail,
                      expect: .invalid(field: "animation.keyframe.path.elements[1] type", reason: "unknown path element type 5")),
            Malformed(name: "huge key time count",
                      bytes: keyframeStart + [0, 0, 0, 0, 0, 1, 0x00, 0x01, 0x00, 0x00, 0] + keyframeTail,
                      expect: .invalid(field: "animation.keyframe.keyTimes count", reason: "256 numbers cannot fit in the 9 bytes that follow")),
            Malformed(name: "huge timing function count",
                      bytes: keyframeStart + [0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0] + f64Bytes(0) + keyframeTail,
                      expect: .invalid(field: "animation.keyframe.timingFunctions count", reason: "2 timing functions cannot fit in the 16 bytes that follow")),
            Malformed(name: "unknown calculation mode",
                      bytes: keyframeStart + noValuesNoPath + [9] + keyframeTail.dropFirst(),
                      expect: .invalid(field: "animation.keyframe.calculationMode", reason: "unknown mode 9")),
            Malformed(name: "unknown rotation mode",
                      bytes: keyframeStart + noValuesNoPath + [0, 3] + keyframeTail.dropFirst(2),
                      expect: .invalid(field: "animation.keyframe.rotationMode", reason: "unknown rotation mode 3")),
            Malformed(name: "huge group count", bytes: header(4) + [0xFF, 0xFF, 0xFF, 0xFF] + header(5) + [0, 0] + f64Bytes(0) + f64Bytes(1),
                      expect: .invalid(field: "animation.group.animations count", reason: "4294967295 animations cannot fit in the 71 bytes that follow")),
            Malformed(name: "groups nested deeper than the limit", bytes: tooDeep,
                      expect: .invalid(field: tooDeepField, reason: "groups may be nested at most 8 deep")),
            Malformed(name: "a bad child names its index",
                      bytes: header(4) + [2, 0, 0, 0] + header(5) + [0, 0] + f64Bytes(0) + f64Bytes(1) + header(5) + [4],
                      expect: .invalid(field: "animation.group.animations[1].transition.type", reason: "unknown transition type 4")),
            Malformed(name: "unknown transition subtype", bytes: header(5) + [0, 5] + f64Bytes(0) + f64Bytes(1),
                      expect: .invalid(field: "animation.transition.subtype", reason: "unknown transition subtype 5")),
            Malformed(name: "trailing bytes", bytes: fade + [0], expect: .trailingBytes(count: 1)),
        ]
    }()

    @Test(arguments: malformed)
    func malformedAnimationsAreNamed(_ m: Malformed) {
        #expect(throws: m.expect) { try Self.decode(m.bytes) }
    }

    @Test func groupsNestedToTheLimitDecode() throws {
        var a = Animation.basic(BasicAnimation(keyPath: "opacity", to: .number(0), duration: 1))
        for _ in 0..<AnimationWire.maxGroupNesting { a = .group(AnimationGroup([a], duration: 1)) }
        #expect(try Self.decode(Self.encode(a)) == a)
        let deeper = Animation.group(AnimationGroup([a], duration: 1))
        #expect(throws: DecodeError.self) { try Self.decode(Self.encode(deeper)) }
    }

    /// Random corruption of real encodings must only ever throw or decode, never crash or hang.
    @Test func corruptedEncodingsNeverCrash() {
        var rng = SplitMix(state: 0x1A31_4A5E)
        let encodings = Self.samples.map { Self.encode($0.animation) }
        var decoded = 0
        for i in 0..<20_000 {
            var b = encodings[i % encodings.count]
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: rng.next())
            }
            if (try? Self.decode(b)) != nil { decoded += 1 }
        }
        // Some corruptions only change a number; most must be caught.
        #expect(decoded < 20_000)
        for _ in 0..<2_000 {
            let b = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            _ = try? Self.decode(b)
        }
    }
}

