import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

@Suite("Scene animations and offline evaluation")
struct SceneAnimationTests {
    func scene(_ text: String) throws -> Scene { try Scene.parse(Data(text.utf8)) }

    // Property-Based Animations, Listing 1: position (74,74) → (566,406) over 3 s with the
    // control points (0.25, 0.1, 0.25, 1). At 1.5 s the curve's x = 0.5 gives y ≈ 0.8024033
    // (solving the Bézier by hand/numerically), so x = 74 + 492·y.
    static let listing1 = #"""
    {"sublayers": [{"name": "ball", "bounds": [0, 0, 20, 20], "position": [74, 74],
      "animations": {"move": {"type": "basic", "keyPath": "position", "fromValue": [74, 74], "toValue": [566, 406],
                              "duration": 3, "timingFunction": [0.25, 0.1, 0.25, 1]}}}]}
    """#

    @Test func listing1EvaluatesOffline() throws {
        let e = try SceneEvaluator(try scene(Self.listing1))
        let start = try #require(e.presentation(of: "ball", at: 0))
        #expect(start.position == Point(x: 74, y: 74))
        let mid = try #require(e.presentation(of: "ball", at: 1.5))
        let y = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1).value(at: 0.5)
        #expect(abs(mid.position.x - (74 + 492 * y)) < 1e-9)
        #expect(abs(mid.position.y - (74 + 332 * y)) < 1e-9)
        // After 3 s the animation is removed: the model value shows again.
        #expect(e.presentation(of: "ball", at: 3.5)?.position == Point(x: 74, y: 74))
        let json = try e.evaluate(at: [0, 1.5], layer: "ball", keyPath: "position.x")
        #expect(json.hasPrefix(#"[{"time":0,"layers":{"ball":{"position.x":74}}},{"time":1.5,"layers":{"ball":{"position.x":"#))
    }

    @Test func keyframePathsGroupsAndSprings() throws {
        let e = try SceneEvaluator(try scene(#"""
        {"sublayers": [
          {"name": "a", "animations": {"bounce": {"type": "keyframe", "keyPath": "position", "duration": 2,
              "path": "M 0 0 L 100 0 L 100 100", "calculationMode": "paced"}}},
          {"name": "b", "animations": {"g": {"type": "group", "duration": 1, "animations": [
              {"type": "basic", "keyPath": "opacity", "fromValue": 1, "toValue": 0},
              {"type": "basic", "keyPath": "transform.rotation.z", "fromValue": 0, "toValue": 3.14159, "duration": 2}]}}},
          {"name": "c", "position": [0, 0], "animations": {"s": {"type": "spring", "keyPath": "position.x",
              "fromValue": 0, "toValue": 100, "damping": 10, "stiffness": 100, "mass": 1, "duration": 5}}}
        ]}
        """#))
        // Paced over a 200-long path: at 1 s the layer is at the corner.
        let a = try #require(e.presentation(of: "a", at: 1))
        #expect(abs(a.position.x - 100) < 1e-6 && abs(a.position.y) < 1e-6)
        let b = try #require(e.presentation(of: "b", at: 0.5))
        #expect(abs(b.opacity - 0.5) < 1e-9)
        let c = try #require(e.presentation(of: "c", at: 4.9))
        #expect(abs(c.position.x - 100) < 0.5)  // settled
    }

    @Test(arguments: [
        (#"{"sublayers": [{"animations": {"x": {"type": "wobble"}}}]}"#, "$.sublayers[0].animations.x.type"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "positon"}}}]}"#, "$.sublayers[0].animations.x.keyPath"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity", "toValue": [1, 2]}}}]}"#, "$.sublayers[0].animations.x.toValue"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity", "fillMode": "sideways"}}}]}"#, "$.sublayers[0].animations.x.fillMode"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity", "timingFunction": "bouncy"}}}]}"#, "$.sublayers[0].animations.x.timingFunction"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity", "values": [1]}}}]}"#, "$.sublayers[0].animations.x.values"),
        (#"{"sublayers": [{"animations": {"x": {"type": "keyframe", "keyPath": "position", "path": "M 0 0 X 3"}}}]}"#, "$.sublayers[0].animations.x.path"),
        (#"{"sublayers": [{"animations": {"x": {"type": "keyframe", "keyPath": "opacity", "values": [0, 1], "calculationMode": "wiggly"}}}]}"#, "$.sublayers[0].animations.x.calculationMode"),
        (#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "opacity", "duration": -1}}}]}"#, "$.sublayers[0].animations.x"),
        (#"{"sublayers": [{"animations": {"x": {"type": "group", "animations": [{"type": "basic"}]}}}]}"#, "$.sublayers[0].animations.x.animations[0].keyPath"),
    ])
    func badAnimationsNameTheField(_ text: String, _ path: String) {
        do {
            _ = try scene(text)
            Issue.record("accepted \(text)")
        } catch let e as SceneError {
            #expect(e.path == path, "\(e)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func svgPathsParse() throws {
        let p = try ScenePathParser.svg("M10,20 l5-5 H0 v-2.5e1 Q 1 2 3 4 C1 1 2 2 3 3 z", path: "$")
        #expect(p.elements == [
            .moveTo(Point(x: 10, y: 20)), .lineTo(Point(x: 15, y: 15)), .lineTo(Point(x: 0, y: 15)), .lineTo(Point(x: 0, y: -10)),
            .quadCurveTo(control: Point(x: 1, y: 2), end: Point(x: 3, y: 4)),
            .curveTo(control1: Point(x: 1, y: 1), control2: Point(x: 2, y: 2), end: Point(x: 3, y: 3)), .closeSubpath,
        ])
    }
}
