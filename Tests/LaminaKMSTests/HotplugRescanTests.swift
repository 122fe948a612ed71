import LaminaKMS
import Testing

/// A hotplug that comes while page flips are queued is owed, not dropped: it is answered by the
/// first pass of the loop with no flip queued (the flips' events make that pass come).
@Suite("hotplug rescans")
struct HotplugRescanTests {
    @Test func aHotplugWithNoFlipQueuedRescansAtOnce() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: false, flipsQueued: false) == .none)
        #expect(r.next(hotplug: true, flipsQueued: false) == .rescan)
        #expect(!r.owed)
        #expect(r.next(hotplug: false, flipsQueued: false) == .none)
    }

    @Test func aHotplugDuringALateFlipIsOwedUntilTheFlipCompletes() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, flipsQueued: true) == .deferred)
        #expect(r.owed)
        // Passes of the loop while the flip is still late (other descriptors woke it): still owed.
        for _ in 0..<100 { #expect(r.next(hotplug: false, flipsQueued: true) == .deferred) }
        // The flip's event came: the rescan runs once.
        #expect(r.next(hotplug: false, flipsQueued: false) == .rescan)
        #expect(r.next(hotplug: false, flipsQueued: false) == .none)
    }

    @Test func hotplugsWhileOwedAreAnsweredByOneRescan() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, flipsQueued: true) == .deferred)
        #expect(r.next(hotplug: true, flipsQueued: true) == .deferred)
        #expect(r.next(hotplug: true, flipsQueued: false) == .rescan)
        #expect(r.next(hotplug: false, flipsQueued: false) == .none)
    }
}
