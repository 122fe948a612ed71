import LaminaCompositor
import Testing

@Suite("frame pacing")
struct RepaintSchedulerTests {
    @Test func idleStartsAtOnce() {
        var s = RepaintScheduler(refreshInterval: 1.0 / 60, repaintWindow: 0.007)
        #expect(s.repaintTime(now: 5) == 5)
        s.presented(at: 5)
        // Long idle: start now.
        #expect(s.repaintTime(now: 9) == 9)
    }

    /// Virtual GPUs complete a flip about a millisecond after the commit, with no vblank: the
    /// next frame still waits for the refresh less the window, so an animation cannot spin.
    @Test func pacesToTheRefreshWithoutVblank() {
        var s = RepaintScheduler(refreshInterval: 1.0 / 60, repaintWindow: 0.007)
        var now = 10.0
        var starts: [Double] = []
        for _ in 0..<5 {
            let start = s.repaintTime(now: now)
            starts.append(start)
            s.frameStarted(at: start)
            now = start + 0.004  // render
            now += 0.001  // the flip event arrives
            s.presented(at: now)
        }
        for (a, b) in zip(starts.dropFirst(), starts.dropFirst(2)) {
            #expect(abs((b - a) - 1.0 / 60) < 1e-9, "frames \(b - a) s apart")
        }
    }

    @Test func animationsAimAtTheNextRefresh() {
        var s = RepaintScheduler(refreshInterval: 0.02, repaintWindow: 0.005)
        s.presented(at: 1.0)
        #expect(abs(s.targetRefresh(startingAt: 1.015) - 1.02) < 1e-9)
        // Late: the first refresh the frame can still make.
        #expect(abs(s.targetRefresh(startingAt: 1.019) - 1.04) < 1e-9)
    }

    @Test func windowIsClampedToTheRefresh() {
        let s = RepaintScheduler(refreshInterval: 0.01, repaintWindow: 0.5)
        #expect(s.repaintWindow == 0.01)
    }
}
