import LaminaCore

// Reading an `Animation` in the layout AnimationCodec.swift describes (docs/protocol.md,
// "Animations on the wire"): the mirror of AnimationWriter.swift, with every field checked.

extension ByteReader {
    /// Reads an animation written by `ByteWriter.animation(_:)`. Error fields start with `field`
    /// and name the part that was wrong, e.g. `"<field>.keyframe.calculationMode"`.
    ///
    /// Only the structure is checked here: truncation, unknown kind, enum and type numbers, counts
    /// that cannot fit in the bytes left, nesting deeper than `AnimationWire.maxGroupNesting`,
    /// key paths that are too long or not UTF-8, and timing-function control points that are not
    /// finite or whose x lies outside [0, 1] (`TimingFunction` would silently repair those, so
    /// `validate()` could never report them). Everything else, such as a NaN duration or a value
    /// of the wrong type for its key path, decodes, and `Animation.validate()` reports it.
    public mutating func animation(_ field: String) throws(DecodeError) -> Animation {
        try animation(field, enclosingGroups: 0)
    }

    private mutating func animation(_ field: String, enclosingGroups: Int) throws(DecodeError) -> Animation {
        let rawKind = try u8(field + ".kind")
        guard let kind = AnimationKind(rawValue: rawKind) else {
            throw .invalid(field: field + ".kind", reason: "unknown animation kind \(rawKind)")
        }
        // Checked before the group's children are read, so the recursion below is bounded.
        if kind == .group, enclosingGroups >= AnimationWire.maxGroupNesting {
            throw .invalid(field: field + ".kind",
                           reason: "groups may be nested at most \(AnimationWire.maxGroupNesting) deep")
        }
        let timing = try mediaTiming(field + ".timing")
        let function = try optionalTimingFunction(field + ".timingFunction")
        let removedOnCompletion = try bool(field + ".removedOnCompletion")

        switch kind {
        case .basic:
            let p = try propertyAnimationFields(field + ".basic")
            return .basic(BasicAnimation(keyPath: p.keyPath, fromValue: p.from, toValue: p.to, byValue: p.by,
                                         timing: timing, timingFunction: function,
                                         isRemovedOnCompletion: removedOnCompletion, isAdditive: p.additive,
                                         isCumulative: p.cumulative, valueFunction: p.valueFunction))
        case .keyframe:
            return .keyframe(try keyframeAnimation(field + ".keyframe", timing: timing, function: function,
                                                   removedOnCompletion: removedOnCompletion))
        case .spring:
            let f = field + ".spring"
            let p = try propertyAnimationFields(f)
            return .spring(SpringAnimation(keyPath: p.keyPath, fromValue: p.from, toValue: p.to, byValue: p.by,
                                           timing: timing, timingFunction: function,
                                           isRemovedOnCompletion: removedOnCompletion, isAdditive: p.additive,
                                           isCumulative: p.cumulative, valueFunction: p.valueFunction,
                                           mass: try f64(f + ".mass"), stiffness: try f64(f + ".stiffness"),
                                           damping: try f64(f + ".damping"),
                                           initialVelocity: try f64(f + ".initialVelocity")))
        case .group:
            let f = field + ".group.animations"
            let count = try arrayCount(f, smallestElement: AnimationWire.smallestAnimation, noun: "animations")
            var children: [Animation] = []
            reserve(&children, count)
            for i in 0..<count {
                children.append(try animation(f + "[\(i)]", enclosingGroups: enclosingGroups + 1))
            }
            return .group(AnimationGroup(animations: children, timing: timing, timingFunction: function,
                                         isRemovedOnCompletion: removedOnCompletion))
        case .transition:
            let f = field + ".transition"
            let type: Transition.Kind = try wireEnum(f + ".type", "transition type")
            let subtype: Transition.Direction? = try optionalWireEnum(f + ".subtype", "transition subtype")
            return .transition(Transition(type: type, subtype: subtype, startProgress: try f64(f + ".startProgress"),
                                          endProgress: try f64(f + ".endProgress"), timing: timing,
                                          timingFunction: function, isRemovedOnCompletion: removedOnCompletion))
        }
    }

    private mutating func keyframeAnimation(_ f: String, timing: MediaTiming, function: TimingFunction?,
                                            removedOnCompletion: Bool) throws(DecodeError) -> KeyframeAnimation {
        let keyPath = try string(f + ".keyPath", limit: AnimationWire.keyPathLimit)
        // The smallest value is a bool: its type tag and one byte.
        let valueCount = try arrayCount(f + ".values", smallestElement: 2, noun: "values")
        var values: [PropertyValue] = []
        reserve(&values, valueCount)
        for i in 0..<valueCount {
            let vf = f + ".values[\(i)]"
            guard let v = try optionalValue(vf) else {
                throw .invalid(field: vf + " type", reason: "a keyframe value cannot be absent (type 0)")
            }
            values.append(v)
        }
        var path: Path?
        if try presence(f + ".path") {
            path = try self.path(f + ".path")
        }
        let keyTimes = try optionalNumbers(f + ".keyTimes")
        var functions: [TimingFunction]?
        if try presence(f + ".timingFunctions") {
            let count = try arrayCount(f + ".timingFunctions", smallestElement: 32, noun: "timing functions")
            var fs: [TimingFunction] = []
            reserve(&fs, count)
            for i in 0..<count { fs.append(try timingFunction(f + ".timingFunctions[\(i)]")) }
            functions = fs
        }
        let mode: CalculationMode = try wireEnum(f + ".calculationMode", "mode")
        let rotation: RotationMode? = try optionalWireEnum(f + ".rotationMode", "rotation mode")
        let tension = try optionalNumbers(f + ".tensionValues")
        let continuity = try optionalNumbers(f + ".continuityValues")
        let bias = try optionalNumbers(f + ".biasValues")
        let additive = try bool(f + ".additive")
        let cumulative = try bool(f + ".cumulative")
        let valueFunction: ValueFunction? = try optionalWireEnum(f + ".valueFunction", "value function")
        return KeyframeAnimation(keyPath: keyPath, values: values, path: path, keyTimes: keyTimes,
                                 timingFunctions: functions, calculationMode: mode, rotationMode: rotation,
                                 tensionValues: tension, continuityValues: continuity, biasValues: bias,
                                 timing: timing, timingFunction: function, isRemovedOnCompletion: removedOnCompletion,
                                 isAdditive: additive, isCumulative: cumulative, valueFunction: valueFunction)
    }

    private mutating func mediaTiming(_ f: String) throws(DecodeError) -> MediaTiming {
        let beginTime = try f64(f + ".beginTime")
        let duration = try f64(f + ".duration")
        let speed = try f64(f + ".speed")
        let timeOffset = try f64(f + ".timeOffset")
        let repeatCount = try f64(f + ".repeatCount")
        let repeatDuration = try f64(f + ".repeatDuration")
        let autoreverses = try bool(f + ".autoreverses")
        let fillMode: FillMode = try wireEnum(f + ".fillMode", "fill mode")
        return MediaTiming(beginTime: beginTime, duration: duration, speed: speed, timeOffset: timeOffset,
                           repeatCount: repeatCount, repeatDuration: repeatDuration, autoreverses: autoreverses,
                           fillMode: fillMode)
    }

    private mutating func propertyAnimationFields(_ f: String) throws(DecodeError)
        -> (keyPath: String, from: PropertyValue?, to: PropertyValue?, by: PropertyValue?,
            additive: Bool, cumulative: Bool, valueFunction: ValueFunction?) {
        (keyPath: try string(f + ".keyPath", limit: AnimationWire.keyPathLimit),
         from: try optionalValue(f + ".fromValue"),
         to: try optionalValue(f + ".toValue"),
         by: try optionalValue(f + ".byValue"),
         additive: try bool(f + ".additive"),
         cumulative: try bool(f + ".cumulative"),
         valueFunction: try optionalWireEnum(f + ".valueFunction", "value function"))
    }

    /// The control points, refused rather than repaired when they are not finite or x leaves
    /// [0, 1]: `TimingFunction.init` would quietly make them linear or clamp them, and the
    /// client would never learn its curve was not the one it sent.
    mutating func timingFunction(_ f: String) throws(DecodeError) -> TimingFunction {
        let c1x = try f64(f), c1y = try f64(f), c2x = try f64(f), c2y = try f64(f)
        guard c1x.isFinite, c1y.isFinite, c2x.isFinite, c2y.isFinite else {
            throw .invalid(field: f, reason: "control points (\(c1x), \(c1y)) (\(c2x), \(c2y)) must be finite")
        }
        guard c1x >= 0, c1x <= 1, c2x >= 0, c2x <= 1 else {
            throw .invalid(field: f, reason: "control point x coordinates must be in [0, 1], got \(c1x) and \(c2x)")
        }
        return TimingFunction(controlPoints: c1x, c1y, c2x, c2y)
    }

    private mutating func optionalTimingFunction(_ f: String) throws(DecodeError) -> TimingFunction? {
        guard try presence(f) else { return nil }
        return try timingFunction(f)
    }

    /// A type tag (a `PropertyValueType` raw value, 0 for nil), then the value in the layout of
    /// `ByteReader.value(_:_:)`.
    private mutating func optionalValue(_ f: String) throws(DecodeError) -> PropertyValue? {
        let tag = try u8(f + " type")
        if tag == 0 { return nil }
        guard let type = PropertyValueType(rawValue: tag) else {
            throw .invalid(field: f + " type", reason: "unknown value type \(tag)")
        }
        return try value(type, f)
    }

    /// A u8 that names a case of `E` (its `wireNumber`); `noun` names the field in the error
    /// for a number no case has, e.g. "unknown fill mode 7".
    private mutating func wireEnum<E: WireNumbered>(_ f: String, _ noun: String) throws(DecodeError) -> E {
        try wireCase(try u8(f), f, noun)
    }

    /// `wireEnum` for the enums numbered from 1, where 0 is nil.
    private mutating func optionalWireEnum<E: WireNumbered>(_ f: String, _ noun: String) throws(DecodeError) -> E? {
        let raw = try u8(f)
        return raw == 0 ? nil : try wireCase(raw, f, noun)
    }

    private func wireCase<E: WireNumbered>(_ raw: UInt8, _ f: String, _ noun: String) throws(DecodeError) -> E {
        guard let value = E(wireNumber: raw) else { throw .invalid(field: f, reason: "unknown \(noun) \(raw)") }
        return value
    }

    /// A presence byte of 1, then a u32 count and that many f64; or a presence byte of 0 for nil
    /// (which differs from an empty array).
    private mutating func optionalNumbers(_ f: String) throws(DecodeError) -> [Double]? {
        guard try presence(f) else { return nil }
        let count = try arrayCount(f, smallestElement: 8, noun: "numbers")
        var numbers: [Double] = []
        reserve(&numbers, count)
        // The count check above guarantees these reads are in bounds.
        for _ in 0..<count { numbers.append(try f64(f)) }
        return numbers
    }

    mutating func path(_ f: String) throws(DecodeError) -> Path {
        // closeSubpath, the smallest element, is its tag alone.
        let count = try arrayCount(f + ".elements", smallestElement: 1, noun: "path elements")
        var elements: [PathElement] = []
        reserve(&elements, count)
        for i in 0..<count {
            let ef = f + ".elements[\(i)]"
            let tag = try u8(ef + " type")
            guard let kind = PathElementKind(rawValue: tag) else {
                throw .invalid(field: ef + " type", reason: "unknown path element type \(tag)")
            }
            switch kind {
            case .moveTo: elements.append(.moveTo(try point(ef)))
            case .lineTo: elements.append(.lineTo(try point(ef)))
            case .quadCurveTo: elements.append(.quadCurveTo(control: try point(ef), end: try point(ef)))
            case .curveTo: elements.append(.curveTo(control1: try point(ef), control2: try point(ef), end: try point(ef)))
            case .closeSubpath: elements.append(.closeSubpath)
            }
        }
        return Path(elements)
    }

    private mutating func point(_ f: String) throws(DecodeError) -> Point {
        Point(x: try f64(f), y: try f64(f))
    }

    /// A u8 that must be 0 (absent) or 1 (present).
    private mutating func presence(_ f: String) throws(DecodeError) -> Bool {
        switch try u8(f + " presence") {
        case 0: return false
        case 1: return true
        case let v: throw .invalid(field: f + " presence", reason: "must be 0 (absent) or 1 (present), not \(v)")
        }
    }

    /// A u32 element count, refused when even `smallestElement`-byte elements could not fit in the
    /// bytes left, so a hostile count fails at once instead of after a long loop.
    /// Reserves room for `count` elements, but never more memory than the bytes left in the
    /// message. A count that passes `arrayCount` can still be far larger in memory than on the
    /// wire (a bool value is 2 bytes there and a 136-byte `PropertyValue` here; a closeSubpath is
    /// 1 byte and a 56-byte `PathElement`), so trusting it would let one 16 MiB message reserve
    /// a gigabyte. Arrays that really are that long grow as their elements decode.
    private func reserve<T>(_ array: inout [T], _ count: Int) {
        array.reserveCapacity(Swift.min(count, remaining / MemoryLayout<T>.stride))
    }

    private mutating func arrayCount(_ f: String, smallestElement: Int, noun: String) throws(DecodeError) -> Int {
        let count = Int(try u32(f + " count"))
        guard count <= remaining / smallestElement else {
            throw .invalid(field: f + " count", reason: "\(count) \(noun) cannot fit in the \(remaining) bytes that follow")
        }
        return count
    }
}
