import LaminaKMS
import Testing

/// A hotplug while page flips are queued waits for them (bounded), as a modeset must; one whose
/// wait runs out on a late flip is owed, not dropped; no pass waits while that flip is still
/// out, and a hotplug waits at most twice.
@Suite("hotplug rescans")
struct HotplugRescanTests {
    @Test func aHotplugWithNoFlipQueuedRescansAtOnce() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: false, queued: []) == .none)
        #expect(r.next(hotplug: true, queued: []) == .rescan)
        #expect(!r.owed)
        #expect(r.next(hotplug: false, queued: ["HDMI-A-1"]) == .none)
    }

    @Test func aHotplugWithFlipsQueuedWaitsForThemThenRescans() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1", "DP-1"]) == .waitThenRescan)
        // Taken to have come through (a wait that runs out is reported with flipsLate).
        #expect(!r.owed)
        #expect(r.next(hotplug: false, queued: ["HDMI-A-1"]) == .none)
    }

    @Test func aFlipLatePastTheWaitLeavesTheHotplugOwedUntilItComes() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1"]) == .waitThenRescan)
        r.flipsLate(["HDMI-A-1"])
        #expect(r.owed)
        // Passes while the flip is still out (other descriptors woke the loop): no wait.
        for _ in 0..<100 { #expect(r.next(hotplug: false, queued: ["HDMI-A-1"]) == .deferred) }
        // Its event came and nothing else is queued: the rescan runs, once.
        #expect(r.next(hotplug: false, queued: []) == .rescan)
        #expect(r.next(hotplug: false, queued: []) == .none)
    }

    @Test func aHungOutputDoesNotStallTheOthersAndTheirFlipsAreWaitedForOnceItIsBack() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1", "DP-1"]) == .waitThenRescan)
        r.flipsLate(["HDMI-A-1"])
        // DP-1 keeps flipping; while HDMI-A-1's flip is out, no pass waits.
        #expect(r.next(hotplug: false, queued: ["HDMI-A-1", "DP-1"]) == .deferred)
        #expect(r.next(hotplug: false, queued: ["HDMI-A-1"]) == .deferred)
        // HDMI-A-1's flip came; DP-1 has queued another meanwhile: wait for that one (the two
        // might never both be idle at a pass), then rescan.
        #expect(r.next(hotplug: false, queued: ["DP-1"]) == .waitThenRescan)
        #expect(!r.owed)
    }

    @Test func aNewHotplugWhileALateFlipIsOutWaitsNoMore() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1"]) == .waitThenRescan)
        r.flipsLate(["HDMI-A-1"])
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1"]) == .deferred)
        #expect(r.next(hotplug: false, queued: []) == .rescan)
        #expect(r.lateWaits == 0)
    }

    @Test func aNewHotplugAfterTheLateFlipCameWaitsForTheFlipsQueuedSince() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1"]) == .waitThenRescan)
        r.flipsLate(["HDMI-A-1"])
        // HDMI-A-1's flip came; DP-1 flips; another hotplug comes with it.
        #expect(r.next(hotplug: true, queued: ["DP-1"]) == .waitThenRescan)
    }

    @Test func aDisplayPathSlowerThanTheWaitIsWaitedForAtMostTwice() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1", "DP-1"]) == .waitThenRescan)
        r.flipsLate(["HDMI-A-1"])
        #expect(r.next(hotplug: false, queued: ["DP-1"]) == .waitThenRescan)
        r.flipsLate(["DP-1"])
        #expect(r.lateWaits == HotplugRescan.maximumWaits)
        // Both outputs keep taking longer than the wait: no third stall; the first pass with
        // nothing queued rescans.
        #expect(r.next(hotplug: false, queued: ["HDMI-A-1"]) == .deferred)
        #expect(r.next(hotplug: true, queued: ["HDMI-A-1"]) == .deferred)
        #expect(r.next(hotplug: false, queued: []) == .rescan)
    }

    /// A rescan that fails (the connectors could not be read) is tried again on a later pass,
    /// at most `maximumFailures` times in a row; a new hotplug starts the count again.
    @Test func aFailedRescanIsTriedAgainABoundedNumberOfTimes() {
        var r = HotplugRescan()
        #expect(r.next(hotplug: true, queued: []) == .rescan)
        for k in 1..<HotplugRescan.maximumFailures {
            // The rescan runs and fails.
            r.rescanStarted()
            let owed = r.rescanFailed()
            #expect(owed, "failure \(k) leaves the hotplug owed")
            // Like any owed hotplug: at once with no flip queued, else after the queued flips.
            let queued: Set<String> = k % 2 == 0 ? [] : ["HDMI-A-1"]
            #expect(r.next(hotplug: false, queued: queued) == (queued.isEmpty ? .rescan : .waitThenRescan))
        }
        r.rescanStarted()
        let dropped = !r.rescanFailed()
        #expect(dropped, "the last failure drops it")
        #expect(!r.owed && r.next(hotplug: false, queued: []) == .none)
        // The next hotplug gets its own tries.
        #expect(r.next(hotplug: true, queued: []) == .rescan)
        r.rescanStarted()
        let again = r.rescanFailed()
        #expect(again && r.failures == 1)
        #expect(r.next(hotplug: false, queued: []) == .rescan)
        r.rescanStarted()
        r.rescanSucceeded()
        #expect(r.failures == 0 && !r.owed)
        #expect(r.next(hotplug: false, queued: []) == .none)
    }
}
