/// An animation compiled for per-frame evaluation: key paths parsed, defaults resolved, fixed
/// endpoints decomposed, keyframe tables built. Built once by `LayerAnimations.add`.
///
/// An enum of immutable classes, each holding its own timing: the per-frame loop follows one
/// reference from the entry to everything it needs. (Copying big structs out of the entry array,
/// or chasing a second pointer per animation, cost more than evaluating the animation.)
enum PreparedAnimation: Sendable {
    case basic(PreparedBasic)
    case keyframe(PreparedKeyframes)
    case group(PreparedGroup)
    case transition(PreparedTransition)

    /// Compiles `animation`, whose defaults must already be resolved. `previous` is the layer's
    /// presentation before the change that caused the animation (for basic animations with no
    /// from, to or by value).
    init(_ animation: Animation, previous: LayerProperties?) throws(AnimationError) {
        let errors = animation.validate()
        if let first = errors.first { throw first }
        switch animation {
        case .basic(let a):
            self = .basic(PreparedBasic(a, spring: nil, source: animation, previous: previous))
        case .spring(let a):
            self = .basic(PreparedBasic(a.basic, spring: a.spring, source: animation, previous: previous))
        case .keyframe(let a):
            // validate() has parsed the key path already; this cannot fail.
            let path = (try? AnimationKeyPath.parse(a.keyPath)) ?? AnimationKeyPath(.opacity)
            self = .keyframe(PreparedKeyframes(a, keyPath: path, source: animation))
        case .group(let g):
            var children: [PreparedAnimation] = []
            children.reserveCapacity(g.animations.count)
            for child in g.animations {
                // Children were validated with the group; preparing them cannot fail.
                if let c = try? PreparedAnimation(child, previous: previous) { children.append(c) }
            }
            self = .group(PreparedGroup(g, children: children, source: animation))
        case .transition(let t):
            self = .transition(PreparedTransition(t, source: animation))
        }
    }

    /// The animation's timing.
    var timing: MediaTiming {
        switch self {
        case .basic(let b): b.timing
        case .keyframe(let k): k.timing
        case .group(let g): g.timing
        case .transition(let t): t.timing
        }
    }

    /// The animation this was compiled from, defaults resolved (for `animationForKey:`).
    var source: Animation {
        switch self {
        case .basic(let b): b.source
        case .keyframe(let k): k.source
        case .group(let g): g.source
        case .transition(let t): t.source
        }
    }

    /// `source` with the previous presentation made explicit: a basic or spring animation with
    /// no from, to or by value (an implicit animation) runs from the presentation value before
    /// its change, which `source` does not carry; here that value is its `fromValue`, so the
    /// animation runs the same when added again elsewhere (a restarted laminad's journal).
    var standalone: Animation {
        switch self {
        case .basic(let b):
            guard let previous = b.previousValue, b.fromValue == nil, b.toValue == nil, b.byValue == nil else { return b.source }
            switch b.source {
            case .basic(var a):
                a.fromValue = previous
                return .basic(a)
            case .spring(var a):
                a.fromValue = previous
                return .spring(a)
            default:
                return b.source
            }
        case .group(let g):
            guard case .group(var a) = g.source, a.animations.count == g.children.count else { return g.source }
            a.animations = g.children.map(\.standalone)
            return .group(a)
        case .keyframe(let k): return k.source
        case .transition(let t): return t.source
        }
    }

    /// Evaluates at `parentTime` (the layer's local time, or a group's) and writes the result into
    /// `props` (and `transition`) when the animation is in effect. Returns where the time fell.
    func apply(atParentTime parentTime: Double, endInclusive: Bool, to props: inout LayerProperties,
               transition: inout TransitionState?) -> TimingState {
        let state = timing.state(atParentTime: parentTime, endInclusive: endInclusive)
        if state.isInEffect { apply(state, to: &props, transition: &transition) }
        return state
    }

    /// Writes the animation's effect at `state` (which must be in effect) into `props`.
    func apply(_ state: TimingState, to props: inout LayerProperties, transition: inout TransitionState?) {
        switch self {
        case .basic(let b):
            let progress = b.timingFunction?.value(at: state.fraction) ?? state.fraction
            // A spring runs in seconds of its cycle, not in fractions of it.
            let p = b.spring?.progress(at: progress * b.timing.duration) ?? progress
            b.apply(progress: p, iteration: state.iteration, to: &props)
        case .keyframe(let k):
            k.apply(progress: k.timingFunction?.value(at: state.fraction) ?? state.fraction,
                    iteration: state.iteration, to: &props)
        case .group(let g):
            let progress = g.timingFunction?.value(at: state.fraction) ?? state.fraction
            let groupTime = progress * g.timing.duration
            for child in g.children {
                _ = child.apply(atParentTime: groupTime, endInclusive: true, to: &props, transition: &transition)
            }
        case .transition(let t):
            let progress = t.timingFunction?.value(at: state.fraction) ?? state.fraction
            transition = TransitionState(type: t.type, subtype: t.subtype, progress: t.start + (t.end - t.start) * progress)
        }
    }
}

/// A group compiled for evaluation.
final class PreparedGroup: Sendable {
    let timing: MediaTiming
    let timingFunction: TimingFunction?
    let children: [PreparedAnimation]
    let source: Animation

    init(_ g: AnimationGroup, children: [PreparedAnimation], source: Animation) {
        timing = g.timing
        timingFunction = g.timingFunction
        self.children = children
        self.source = source
    }
}

/// A basic (or spring) animation compiled for evaluation.
final class PreparedBasic: Sendable {
    // Fields a frame reads come first, so they share a cache line.
    let timing: MediaTiming
    let timingFunction: TimingFunction?
    /// The spring of a spring animation.
    let spring: DampedSpring?
    let keyPath: AnimationKeyPath
    let isAdditive: Bool
    let isCumulative: Bool
    let valueFunction: ValueFunction?
    /// The fixed endpoints unpacked, so a frame computes with plain numbers: moving
    /// `PropertyValue`s (129 bytes, with a String case) around cost more than the arithmetic.
    let fast: FastEndpoints
    /// Both endpoints when they do not depend on the underlying value (`fixed` says whether).
    let fixed: Bool
    let fixedFrom: PropertyValue, fixedTo: PropertyValue
    /// The decompositions of transform endpoints (for `fast == .transform`).
    let fromDecomposed: DecomposedTransform, toDecomposed: DecomposedTransform
    let fromValue: PropertyValue?
    let toValue: PropertyValue?
    let byValue: PropertyValue?
    /// The presentation value before the change, for the no-values rule.
    let previousValue: PropertyValue?
    let source: Animation

    enum FastEndpoints: Sendable {
        case none
        case number(Double, Double)
        case point(Point, Point)
        case size(Size, Size)
        case rect(Rect, Rect)
        case color(Color, Color)
        /// `fromDecomposed` → `toDecomposed`, interpolated part by part.
        case transform
    }

    init(_ a: BasicAnimation, spring: DampedSpring?, source: Animation, previous: LayerProperties?) {
        timing = a.timing
        timingFunction = a.timingFunction
        self.spring = spring
        self.source = source
        // validate() has parsed the key path already; this cannot fail.
        let keyPath = (try? AnimationKeyPath.parse(a.keyPath)) ?? AnimationKeyPath(.opacity)
        self.keyPath = keyPath
        // At most two of the three are used: with all three set, byValue is ignored.
        fromValue = a.fromValue
        toValue = a.toValue
        byValue = a.fromValue != nil && a.toValue != nil ? nil : a.byValue
        previousValue = a.valueFunction == nil ? previous.map { keyPath.value(in: $0) } : nil
        isAdditive = a.isAdditive
        isCumulative = a.isCumulative
        valueFunction = a.valueFunction
        var endpoints: (PropertyValue, PropertyValue)?
        switch (fromValue, toValue, byValue) {
        case let (f?, t?, _): endpoints = (f, t)
        case let (f?, nil, b?): endpoints = (f, Interpolation.add(f, b))
        case let (nil, t?, b?): endpoints = (Interpolation.subtract(t, b), t)
        default: endpoints = nil
        }
        fixed = endpoints != nil
        fixedFrom = endpoints?.0 ?? .number(0)
        fixedTo = endpoints?.1 ?? .number(0)
        var fast: FastEndpoints
        switch (fixedFrom, fixedTo) {
        case _ where !fixed: fast = .none
        case let (.number(x), .number(y)): fast = .number(x, y)
        case let (.point(x), .point(y)): fast = .point(x, y)
        case let (.size(x), .size(y)): fast = .size(x, y)
        case let (.rect(x), .rect(y)): fast = .rect(x, y)
        case let (.color(x), .color(y)): fast = .color(x, y)
        case (.transform, .transform): fast = .none   // decided below
        default: fast = .none
        }
        if fixed, case .transform(let x) = fixedFrom, case .transform(let y) = fixedTo,
           let dx = DecomposedTransform(x), let dy = DecomposedTransform(y) {
            fromDecomposed = dx
            toDecomposed = dy
            fast = .transform
        } else {
            fromDecomposed = DecomposedTransform()
            toDecomposed = DecomposedTransform()
        }
        self.fast = fast
    }

    /// The values the animation runs between, given the current (underlying) value.
    func endpoints(current: PropertyValue) -> (PropertyValue, PropertyValue) {
        if fixed { return (fixedFrom, fixedTo) }
        switch (fromValue, toValue, byValue) {
        case let (f?, nil, nil): return (f, current)
        case let (nil, t?, nil): return (current, t)
        case let (nil, nil, b?): return (current, Interpolation.add(current, b))
        default: return (previousValue ?? current, current)
        }
    }

    func apply(progress p: Double, iteration: Int, to props: inout LayerProperties) {
        let k = Double(iteration)
        let cumulative = isCumulative && iteration != 0
        // Fast paths for fixed endpoints: numbers and points carry additive and cumulative too;
        // anything else finishes through the general `finish`.
        switch fast {
        case let .number(a, b):
            var v = a + (b - a) * p
            if cumulative { v += b * k }
            if valueFunction == nil {
                if isAdditive, case .number(let u) = keyPath.value(in: props) { v += u }
                keyPath.apply(.number(v), to: &props)
            } else {
                finish(.number(v), to: &props)
            }
            return
        case let .point(a, b):
            var v = Point(x: a.x + (b.x - a.x) * p, y: a.y + (b.y - a.y) * p)
            if cumulative { v = v + b * k }
            if valueFunction == nil {
                if isAdditive, case .point(let u) = keyPath.value(in: props) { v = v + u }
                keyPath.apply(.point(v), to: &props)
            } else {
                finish(.point(v), to: &props)
            }
            return
        case let .size(a, b):
            let v = Size(width: a.width + (b.width - a.width) * p, height: a.height + (b.height - a.height) * p)
            finish(cumulative ? Interpolation.accumulate(.size(v), fixedTo, count: iteration) : .size(v), to: &props)
            return
        case let .rect(a, b):
            let v = Rect(x: a.origin.x + (b.origin.x - a.origin.x) * p, y: a.origin.y + (b.origin.y - a.origin.y) * p,
                         width: a.size.width + (b.size.width - a.size.width) * p,
                         height: a.size.height + (b.size.height - a.size.height) * p)
            finish(cumulative ? Interpolation.accumulate(.rect(v), fixedTo, count: iteration) : .rect(v), to: &props)
            return
        case let .color(a, b):
            let v = Color(red: a.red + (b.red - a.red) * p, green: a.green + (b.green - a.green) * p,
                          blue: a.blue + (b.blue - a.blue) * p, alpha: a.alpha + (b.alpha - a.alpha) * p)
            finish(cumulative ? Interpolation.accumulate(.color(v), fixedTo, count: iteration) : .color(v), to: &props)
            return
        case .transform:
            let v: PropertyValue = p == 0 ? fixedFrom : p == 1 ? fixedTo
                : .transform(DecomposedTransform.interpolate(fromDecomposed, toDecomposed, p).transform)
            finish(cumulative ? Interpolation.accumulate(v, fixedTo, count: iteration) : v, to: &props)
            return
        case .none:
            break
        }
        // A value function's inputs are numbers, not the transform underneath.
        let current = valueFunction?.identityInput ?? keyPath.value(in: props)
        let (from, to) = endpoints(current: current)
        var value = Interpolation.interpolate(from, to, p)
        if cumulative { value = Interpolation.accumulate(value, to, count: iteration) }
        finish(value, to: &props)
    }

    /// Applies the value function and `additive`, then writes the value.
    private func finish(_ value: PropertyValue, to props: inout LayerProperties) {
        var value = value
        if let vf = valueFunction { value = .transform(vf.transform(for: value) ?? .identity) }
        if isAdditive { value = Interpolation.add(keyPath.value(in: props), value) }
        keyPath.apply(value, to: &props)
    }
}

/// A transition compiled for evaluation (a class, like the other bodies, to keep `Body` small).
final class PreparedTransition: Sendable {
    let type: Transition.Kind
    let subtype: Transition.Direction
    let start: Double, end: Double

    let timing: MediaTiming
    let timingFunction: TimingFunction?
    let source: Animation

    init(_ t: Transition, source: Animation) {
        timing = t.timing
        timingFunction = t.timingFunction
        self.source = source
        type = t.type
        subtype = t.subtype ?? .fromLeft
        start = t.startProgress
        end = t.endProgress
    }
}
