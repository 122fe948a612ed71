import LaminaCore

/// A set of property keys as a bit set: marking a change costs no allocation.
struct PropertyKeySet: Sendable, Equatable {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    var isEmpty: Bool { low == 0 && high == 0 }

    mutating func insert(_ k: PropertyKey) {
        let r = Int(k.rawValue)
        if r < 64 { low |= 1 << UInt64(r) } else { high |= 1 << UInt64(r - 64) }
    }

    func contains(_ k: PropertyKey) -> Bool {
        let r = Int(k.rawValue)
        return r < 64 ? low & (1 << UInt64(r)) != 0 : high & (1 << UInt64(r - 64)) != 0
    }

    mutating func removeAll() { low = 0; high = 0 }

    /// The keys in wire order.
    var keys: [PropertyKey] { PropertyKey.allCases.filter(contains) }
}
