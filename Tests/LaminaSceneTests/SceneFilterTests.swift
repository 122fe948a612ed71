import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// `filters` in scene files: `[{"name", "type", input}]`, did-you-mean for a misspelt type or
/// input, and the filter's own errors with the file's path.
@Suite("Scene files: filters")
struct SceneFilterTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func message(_ text: String) -> String {
        do { _ = try parse(text); return "" } catch { return error.description }
    }

    @Test func filtersAreRead() throws {
        let scene = try parse(#"""
            {"sublayers": [{"name": "panel", "filters": [
              {"name": "soft", "type": "gaussianBlur", "inputRadius": 8},
              {"name": "grey", "type": "saturate", "inputAmount": 0.25},
              {"name": "neg", "type": "invert"},
              {"name": "m", "type": "colorMatrix", "inputMatrix": [0,1,0,0, 1,0,0,0, 0,0,1,0, 0,0,0,1, 0,0,0.1,0]},
              {"name": "turn", "type": "hueRotate"}]}]}
            """#)
        let p = try #require(scene.root.sublayers.first).resolvedProperties
        #expect(p.filters == [.gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.25), LayerFilter(name: "neg", type: .invert),
                              .colorMatrix("m", [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0]),
                              .hueRotate("turn", angle: 0)])
    }

    @Test func mistakesAreNamed() {
        #expect(message(#"{"filters": [{"name": "a", "type": "gausianBlur"}]}"#).contains("did you mean 'gaussianBlur'"))
        #expect(message(#"{"filters": [{"name": "a", "type": "gaussianBlur", "inputRadios": 3}]}"#).contains("did you mean 'inputRadius'"))
        #expect(message(#"{"filters": [{"name": "a", "type": "invert", "inputAmount": 3}]}"#).contains("takes no inputs"))
        #expect(message(#"{"filters": [{"name": "a", "type": "colorMatrix", "inputMatrix": [1, 2]}]}"#).contains("inputMatrix takes 20 numbers"))
        #expect(message(#"{"filters": [{"name": "a", "type": "gaussianBlur", "inputRadius": 100}]}"#).contains("filters.a.inputRadius must be from 0 to 64"))
        #expect(message(#"{"filters": [{"name": "a"}]}"#).contains("needs a \"type\""))
        #expect(message(#"{"filtres": []}"#).contains("filters"))
    }

    /// `"keyPath": "filters.soft.inputRadius"` animates the named filter's input, as
    /// `laminactl eval` shows.
    @Test func inputsAnimateByKeyPath() throws {
        let scene = try parse(#"""
            {"sublayers": [{"name": "panel", "filters": [{"name": "soft", "type": "gaussianBlur", "inputRadius": 2}],
              "animations": {"widen": {"type": "basic", "keyPath": "filters.soft.inputRadius", "fromValue": 0, "toValue": 20,
                                       "duration": 1, "timingFunction": [0, 0, 1, 1]}}}]}
            """#)
        let e = try SceneEvaluator(scene)
        let p = try #require(e.presentation(of: "panel", at: 0.5))
        #expect(abs((p.filters.first?.values.first ?? 0) - 10) < 1e-6, "\(p.filters)")
        let text = try e.evaluate(at: [0.25], layer: "panel", keyPath: "filters.soft.inputRadius")
        #expect(text.contains("5"), "\(text)")
        #expect(message(#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "filters.soft.inputRadios"}}}]}"#)
            .contains("inputRadius"))
    }

    /// `backgroundFilters` in the same form, its errors named by it, did-you-mean for the key,
    /// and `backgroundFilters.NAME.inputKey` animating as `laminactl eval` shows.
    @Test func backgroundFilters() throws {
        let scene = try parse(#"""
            {"sublayers": [{"name": "glass", "backgroundColor": [1, 1, 1, 0.25],
              "backgroundFilters": [{"name": "frost", "type": "gaussianBlur", "inputRadius": 4}, {"name": "pale", "type": "saturate", "inputAmount": 1.5}],
              "animations": {"thicken": {"type": "basic", "keyPath": "backgroundFilters.frost.inputRadius", "fromValue": 0, "toValue": 40,
                                         "duration": 1, "timingFunction": [0, 0, 1, 1]}}}]}
            """#)
        let p = try #require(scene.root.sublayers.first).resolvedProperties
        #expect(p.backgroundFilters == [.gaussianBlur("frost", radius: 4), .amount("pale", .saturate, 1.5)])
        #expect(p.filters.isEmpty)
        let e = try SceneEvaluator(scene)
        let at = try #require(e.presentation(of: "glass", at: 0.5))
        #expect(abs((at.backgroundFilters.first?.values.first ?? 0) - 20) < 1e-6, "\(at.backgroundFilters)")
        let text = try e.evaluate(at: [0.25], layer: "glass", keyPath: "backgroundFilters.frost.inputRadius")
        #expect(text.contains("10"), "\(text)")
        #expect(message(#"{"backgroundFilters": [{"name": "a", "type": "gaussianBlur", "inputRadius": 100}]}"#)
            .contains("backgroundFilters.a.inputRadius must be from 0 to 64"))
        #expect(message(#"{"backgroundFilters": [{"name": "a", "type": "blur"}]}"#).contains("unknown filter type 'blur'"))
        #expect(message(#"{"backgroundFilters": [{"name": "a", "type": "colorMatrix", "inputMatrix": [1]}]}"#).contains("inputMatrix takes 20 numbers"))
        #expect(message(#"{"backgroundFilter": []}"#).contains("backgroundFilters"))
        #expect(message(#"{"sublayers": [{"animations": {"x": {"type": "basic", "keyPath": "backgroundFilters.frost.inputRadios"}}}]}"#)
            .contains("inputRadius"))
    }
}
