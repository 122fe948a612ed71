import Foundation
import Testing
import LaminaCore

/// A scene file means the same live and offline: a non-zero animation beginTime counts from
/// the apply in `laminactl apply` as in `laminactl eval` (it was absolute media time live).
@Suite("Scene-file timing", .serialized)
@MainActor
struct SceneTimingTests {
    func presentedX(_ daemon: DaemonProcess, layer: String) throws -> Double? {
        let r = try daemon.laminactl(["tree", "--presentation"])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: Data(r.output.utf8)) as? [String: Any],
              let clients = json["clients"] as? [[String: Any]] else { return nil }
        func find(_ l: [String: Any]) -> Double? {
            if l["name"] as? String == layer {
                let p = ((l["presentation"] as? [String: Any])?["position"] ?? l["position"]) as? [Double]
                return p?.first
            }
            for s in l["sublayers"] as? [[String: Any]] ?? [] { if let x = find(s) { return x } }
            return nil
        }
        return clients.lazy.compactMap { ($0["root"] as? [String: Any]).flatMap(find) }.first
    }

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
            live.append(try presentedX(daemon, layer: "box") ?? .nan)
        }
        #expect(live == [50, 50, 55], "live at +0.5, +1, +1.5 after an apply at 11.75: \(live)")
    }
}
