import LaminaCore

// Writing an `Animation` in the layout AnimationCodec.swift describes (docs/protocol.md,
// "Animations on the wire"); AnimationReader.swift reads it back, field for field.

extension ByteWriter {
    /// Appends `a` in the layout of docs/protocol.md, "Animations on the wire".
    ///
    /// The writer does not validate: an animation that `Animation.validate()` refuses is written
    /// as it is, and laminad reports the problem when it adds it. Groups are written however deep
    /// they are nested, but a reader refuses more than `AnimationWire.maxGroupNesting` levels.
    public mutating func animation(_ a: Animation) {
        switch a {
        case .basic(let b):
            u8(AnimationKind.basic.rawValue)
            animationHeader(b.timing, b.timingFunction, b.isRemovedOnCompletion)
            propertyAnimationFields(keyPath: b.keyPath, from: b.fromValue, to: b.toValue, by: b.byValue,
                                    additive: b.isAdditive, cumulative: b.isCumulative, valueFunction: b.valueFunction)
        case .keyframe(let k):
            u8(AnimationKind.keyframe.rawValue)
            animationHeader(k.timing, k.timingFunction, k.isRemovedOnCompletion)
            string(k.keyPath)
            u32(UInt32(k.values.count))
            for v in k.values { typedValue(v) }
            if let path = k.path {
                u8(1)
                self.path(path)
            } else {
                u8(0)
            }
            optionalNumbers(k.keyTimes)
            if let fs = k.timingFunctions {
                u8(1)
                u32(UInt32(fs.count))
                for f in fs { timingFunction(f) }
            } else {
                u8(0)
            }
            wireEnum(k.calculationMode)
            optionalWireEnum(k.rotationMode)
            optionalNumbers(k.tensionValues)
            optionalNumbers(k.continuityValues)
            optionalNumbers(k.biasValues)
            bool(k.isAdditive)
            bool(k.isCumulative)
            optionalWireEnum(k.valueFunction)
        case .spring(let s):
            u8(AnimationKind.spring.rawValue)
            animationHeader(s.timing, s.timingFunction, s.isRemovedOnCompletion)
            propertyAnimationFields(keyPath: s.keyPath, from: s.fromValue, to: s.toValue, by: s.byValue,
                                    additive: s.isAdditive, cumulative: s.isCumulative, valueFunction: s.valueFunction)
            f64(s.mass)
            f64(s.stiffness)
            f64(s.damping)
            f64(s.initialVelocity)
        case .group(let g):
            u8(AnimationKind.group.rawValue)
            animationHeader(g.timing, g.timingFunction, g.isRemovedOnCompletion)
            u32(UInt32(g.animations.count))
            for child in g.animations { animation(child) }
        case .transition(let t):
            u8(AnimationKind.transition.rawValue)
            animationHeader(t.timing, t.timingFunction, t.isRemovedOnCompletion)
            wireEnum(t.type)
            optionalWireEnum(t.subtype)
            f64(t.startProgress)
            f64(t.endProgress)
        }
    }

    /// The fields every kind starts with, after the kind.
    private mutating func animationHeader(_ timing: MediaTiming, _ function: TimingFunction?, _ removedOnCompletion: Bool) {
        f64(timing.beginTime)
        f64(timing.duration)
        f64(timing.speed)
        f64(timing.timeOffset)
        f64(timing.repeatCount)
        f64(timing.repeatDuration)
        bool(timing.autoreverses)
        wireEnum(timing.fillMode)
        if let function {
            u8(1)
            timingFunction(function)
        } else {
            u8(0)
        }
        bool(removedOnCompletion)
    }

    /// What basic and spring animations share.
    private mutating func propertyAnimationFields(keyPath: String, from: PropertyValue?, to: PropertyValue?,
                                                  by: PropertyValue?, additive: Bool, cumulative: Bool,
                                                  valueFunction: ValueFunction?) {
        string(keyPath)
        optionalValue(from)
        optionalValue(to)
        optionalValue(by)
        bool(additive)
        bool(cumulative)
        optionalWireEnum(valueFunction)
    }

    mutating func timingFunction(_ f: TimingFunction) {
        f64(f.c1x)
        f64(f.c1y)
        f64(f.c2x)
        f64(f.c2y)
    }

    /// A type tag, then the value. Unlike a `set` operation's value, an animation's value needs
    /// its type: `position` takes a point but `position.x` a number.
    private mutating func typedValue(_ v: PropertyValue) {
        u8(v.type.rawValue)
        value(v)
    }

    /// Type tag 0 for nil, else `typedValue`.
    private mutating func optionalValue(_ v: PropertyValue?) {
        if let v { typedValue(v) } else { u8(0) }
    }

    /// The case's `wireNumber`.
    private mutating func wireEnum(_ e: some WireNumbered) {
        u8(e.wireNumber)
    }

    /// For the enums numbered from 1: 0 for nil, else the case's `wireNumber`.
    private mutating func optionalWireEnum(_ e: (some WireNumbered)?) {
        u8(e?.wireNumber ?? 0)
    }

    private mutating func optionalNumbers(_ numbers: [Double]?) {
        guard let numbers else { u8(0); return }
        u8(1)
        u32(UInt32(numbers.count))
        for n in numbers { f64(n) }
    }

    private mutating func point(_ p: Point) {
        f64(p.x)
        f64(p.y)
    }

    /// A u32 element count, then each element: a u8 type and its points.
    mutating func path(_ p: Path) {
        u32(UInt32(p.elements.count))
        for e in p.elements { pathElement(e) }
    }

    private mutating func pathElement(_ e: PathElement) {
        switch e {
        case .moveTo(let p):
            u8(PathElementKind.moveTo.rawValue); point(p)
        case .lineTo(let p):
            u8(PathElementKind.lineTo.rawValue); point(p)
        case let .quadCurveTo(control, end):
            u8(PathElementKind.quadCurveTo.rawValue); point(control); point(end)
        case let .curveTo(control1, control2, end):
            u8(PathElementKind.curveTo.rawValue); point(control1); point(control2); point(end)
        case .closeSubpath:
            u8(PathElementKind.closeSubpath.rawValue)
        }
    }
}
