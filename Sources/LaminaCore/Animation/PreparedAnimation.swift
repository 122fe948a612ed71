/// An animation compiled for per-frame evaluation: key paths parsed, defaults resolved, fixed
/// endpoints decomposed, keyframe tables built. Built once by `LayerAnimations.add`.
struct PreparedAnimation: Sendable {
    var timing: MediaTiming
    var timingFunction: TimingFunction?
    var body: Body

    enum Body: Sendable {
        case basic(PreparedBasic)
        case spring(PreparedBasic, DampedSpring)
        case keyframe(PreparedKeyframes)
        case group([PreparedAnimation])
        case transition(Transition)
    }

    /// Compiles `animation`, whose defaults must already be resolved. `previous` is the layer's
    /// presentation before the change that caused the animation (for basic animations with no
    /// from, to or by value).
    init(_ animation: Animation, previous: LayerProperties?) throws(AnimationError) {
        let errors = animation.validate()
        if let first = errors.first { throw first }
        timing = animation.timing
        switch animation {
        case .basic(let a):
            timingFunction = a.timingFunction
            body = .basic(PreparedBasic(a, previous: previous))
        case .spring(let a):
            timingFunction = a.timingFunction
            body = .spring(PreparedBasic(a.basic, previous: previous), a.spring)
        case .keyframe(let a):
            timingFunction = a.timingFunction
            // validate() has parsed the key path already; this cannot fail.
            let path = (try? AnimationKeyPath.parse(a.keyPath)) ?? AnimationKeyPath(.opacity)
            body = .keyframe(PreparedKeyframes(a, keyPath: path))
        case .group(let g):
            timingFunction = g.timingFunction
            var children: [PreparedAnimation] = []
            children.reserveCapacity(g.animations.count)
            for child in g.animations { children.append(try PreparedAnimation(child, previous: previous)) }
            body = .group(children)
        case .transition(let t):
            timingFunction = t.timingFunction
            body = .transition(t)
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
        let progress = timingFunction?.value(at: state.fraction) ?? state.fraction
        switch body {
        case .basic(let b):
            b.apply(progress: progress, iteration: state.iteration, to: &props)
        case let .spring(b, spring):
            b.apply(progress: spring.progress(at: progress * timing.duration), iteration: state.iteration, to: &props)
        case .keyframe(let k):
            k.apply(progress: progress, iteration: state.iteration, to: &props)
        case .group(let children):
            let groupTime = progress * timing.duration
            for child in children {
                _ = child.apply(atParentTime: groupTime, endInclusive: true, to: &props, transition: &transition)
            }
        case .transition(let t):
            transition = TransitionState(type: t.type, subtype: t.subtype ?? .fromLeft, progress: t.progress(at: progress))
        }
    }
}

/// A basic (or spring) animation compiled for evaluation.
struct PreparedBasic: Sendable {
    let keyPath: AnimationKeyPath
    let fromValue: PropertyValue?
    let toValue: PropertyValue?
    let byValue: PropertyValue?
    /// The presentation value before the change, for the no-values rule.
    let previousValue: PropertyValue?
    let isAdditive: Bool
    let isCumulative: Bool
    let valueFunction: ValueFunction?
    /// Both endpoints when they do not depend on the underlying value.
    let fixedEndpoints: (from: PropertyValue, to: PropertyValue)?
    /// Their decompositions when they are transforms, so frames skip decomposing.
    let fixedDecomposed: (from: DecomposedTransform, to: DecomposedTransform)?

    init(_ a: BasicAnimation, previous: LayerProperties?) {
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
        var fixed: (PropertyValue, PropertyValue)?
        switch (fromValue, toValue, byValue) {
        case let (f?, t?, _): fixed = (f, t)
        case let (f?, nil, b?): fixed = (f, Interpolation.add(f, b))
        case let (nil, t?, b?): fixed = (Interpolation.subtract(t, b), t)
        default: fixed = nil
        }
        fixedEndpoints = fixed
        if let (f, t) = fixed, case .transform(let mf) = f, case .transform(let mt) = t,
           let df = DecomposedTransform(mf), let dt = DecomposedTransform(mt) {
            fixedDecomposed = (df, dt)
        } else {
            fixedDecomposed = nil
        }
    }

    /// The values the animation runs between, given the current (underlying) value.
    @inline(__always) func endpoints(current: PropertyValue) -> (PropertyValue, PropertyValue) {
        if let fixedEndpoints { return fixedEndpoints }
        switch (fromValue, toValue, byValue) {
        case let (f?, nil, nil): return (f, current)
        case let (nil, t?, nil): return (current, t)
        case let (nil, nil, b?): return (current, Interpolation.add(current, b))
        default: return (previousValue ?? current, current)
        }
    }

    func apply(progress p: Double, iteration: Int, to props: inout LayerProperties) {
        let needsUnderlying = isAdditive || fixedEndpoints == nil
        let underlying = needsUnderlying ? keyPath.value(in: props) : .number(0)
        // A value function's inputs are numbers, not the transform underneath.
        let current = valueFunction?.identityInput ?? underlying
        let (from, to) = endpoints(current: current)
        var value: PropertyValue
        if let (df, dt) = fixedDecomposed, p != 0, p != 1 {
            value = .transform(DecomposedTransform.interpolate(df, dt, p).transform)
        } else {
            value = Interpolation.interpolate(from, to, p)
        }
        if isCumulative, iteration != 0 { value = Interpolation.accumulate(value, to, count: iteration) }
        if let vf = valueFunction { value = .transform(vf.transform(for: value) ?? .identity) }
        if isAdditive { value = Interpolation.add(underlying, value) }
        keyPath.apply(value, to: &props)
    }
}
