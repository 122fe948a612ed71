extension Animation {
    /// The key path the animation animates, or nil for groups and transitions.
    public var keyPath: String? {
        switch self {
        case .basic(let a): a.keyPath
        case .keyframe(let a): a.keyPath
        case .spring(let a): a.keyPath
        case .group, .transition: nil
        }
    }

    /// The animation with an empty key path replaced by `key`: an action's animation animates
    /// the property whose change ran it, as `-[CAAnimation runActionForKey:object:arguments:]`
    /// does when the animation has no key path of its own.
    public func withDefaultKeyPath(_ key: String) -> Animation {
        switch self {
        case .basic(var a) where a.keyPath.isEmpty: a.keyPath = key; return .basic(a)
        case .keyframe(var a) where a.keyPath.isEmpty: a.keyPath = key; return .keyframe(a)
        case .spring(var a) where a.keyPath.isEmpty: a.keyPath = key; return .spring(a)
        case .group(var g):
            g.animations = g.animations.map { $0.withDefaultKeyPath(key) }
            return .group(g)
        default: return self
        }
    }
}
