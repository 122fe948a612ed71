import LaminaCompositor
import Testing

/// weston's per-output repaint, as `RepaintPlanner` keeps it: each output paced by its own
/// refresh, a busy output never holding back a free one, and owing the frame it missed.
@Suite("per-output repaint")
struct RepaintPlannerTests {
    @Test func aSlowOutputDoesNotHoldBackAFastOne() {
        var p = RepaintPlanner(repaintWindow: 0.004)
        p.setOutputs([("fast", 1.0 / 60), ("slow", 1.0 / 30)])
        #expect(p.ready(sceneChanged: false) == ["fast", "slow"], "new outputs owe their first frame")
        // Frame 1 on both at t = 0.
        let t1 = p.frameStarted(at: 0, on: ["fast", "slow"], sceneChanged: true)
        #expect(abs(t1 - 0.004) < 1e-9, "aimed at the repaint window's end when idle")
        p.frameSubmitted(["fast", "slow"], flipping: ["fast", "slow"], now: 0.001)
        #expect(p.ready(sceneChanged: true).isEmpty && p.nextFrameTime(now: 0.002, sceneChanged: true) == nil,
                "nothing to draw on while both await their flips")
        // The fast output's flip completes first; the scene keeps changing.
        let fastOwes = p.presented("fast", at: 0.004)
        #expect(!fastOwes)
        #expect(p.ready(sceneChanged: true) == ["fast"])
        let at = p.nextFrameTime(now: 0.005, sceneChanged: true)!
        #expect(abs(at - (0.004 + 1.0 / 60 - 0.004)) < 1e-9, "the fast output's next repaint time")
        let t2 = p.frameStarted(at: at, on: ["fast"], sceneChanged: true)
        #expect(abs(t2 - (0.004 + 1.0 / 60)) < 1e-9, "aimed at the fast output's next refresh")
        p.frameSubmitted(["fast"], flipping: ["fast"], now: at + 0.001)
        // The slow one missed that frame: it owes it once its flip completes.
        let slowOwes = p.presented("slow", at: 0.004 + 1.0 / 30)
        #expect(slowOwes, "the slow output owes the frame it missed")
        #expect(p.ready(sceneChanged: false) == ["slow"])
        _ = p.frameStarted(at: 0.04, on: ["slow"], sceneChanged: false)
        p.frameSubmitted(["slow"], flipping: [], now: 0.041)   // shown by a modeset
        #expect(p.ready(sceneChanged: false).isEmpty, "nothing owed any more")
        #expect(p.anyAwaiting, "fast still awaits its flip")
    }

    @Test func hotplugAddsAndForgetsOutputs() {
        var p = RepaintPlanner(repaintWindow: 0.004)
        p.setOutputs([("A", 1.0 / 60)])
        _ = p.frameStarted(at: 0, on: ["A"], sceneChanged: true)
        p.frameSubmitted(["A"], flipping: ["A"], now: 0)
        p.setOutputs([("A", 1.0 / 75), ("B", 1.0 / 60)])
        #expect(p.outputs["A"]?.isAwaiting == true && p.outputs["A"]?.scheduler.refreshInterval == 1.0 / 75)
        #expect(p.ready(sceneChanged: false) == ["B"], "a new output owes a frame")
        p.setOutputs([("B", 1.0 / 60)])
        #expect(p.outputs["A"] == nil && !p.anyAwaiting)
    }
}
