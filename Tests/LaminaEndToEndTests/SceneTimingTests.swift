import Foundation
import Testing
import LaminaCore

/// A scene file means the same live and offline: a non-zero animation beginTime counts from
/// the apply in `laminactl apply` as in `laminactl eval` (it was absolute media time live).
@Suite("Scene-file timing", .serialized)
@MainActor
struct SceneTimingTests {
    @Test func beginTimeCountsFromTheApplyLiveAsInEval() throws {
        let daemon = try DaemonProcess()
        let scene = daemon.directory + "/begin.json"
        try ##"""
        {"sublayers":[{"name":"box","bounds":[0,0,10,10],"position":[50,20],"backgroundColor":"#FFFFFF",
         "animations":{"slide":{"type":"basic","keyPath":"position.x","fromValue":50,"toValue":60,"duration":1,
                                "beginTime":1,"fillMode":"both","timingFunction":"linear"}}}]}
        """##.write(toFile: scene, atomically: true, encoding: .utf8)
        let eval = try daemon.laminactl(["eval", scene, "--at", "0.5,1,1.5", "--layer", "box", "--key", "position.x"], withSocket: false)
        #expect(eval.output.contains(#"{"time":0.5,"layers":{"box":{"position.x":50}}},{"time":1,"layers":{"box":{"position.x":50}}},{"time":1.5,"layers":{"box":{"position.x":55}}}"#), "\(eval.output)")
        #expect(try daemon.laminactl(["advance", "11.75"]).status == 0)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        var live: [Double] = []
        for _ in 0..<3 {
            #expect(try daemon.laminactl(["advance", "0.5"]).status == 0)
            live.append(try daemon.presentedX(layer: "box") ?? .nan)
        }
        #expect(live == [50, 50, 55], "live at +0.5, +1, +1.5 after an apply at 11.75: \(live)")
    }
}
