import Foundation
import Testing
import Lamina
import LaminaCore
@testable import LaminaScene

@Suite("Scene files: masks")
@MainActor
struct SceneMaskTests {
    @Test func aMaskObjectParsesAndApplies() throws {
        let text = """
        {"sublayers": [
          {"name": "card", "class": "gradient", "frame": [10, 10, 100, 100], "colors": ["#FF0000", "#0000FF"],
           "mask": {"frame": [0, 0, 100, 100], "backgroundColor": "#FFFFFF", "cornerRadius": 50,
                    "transform": {"rotation": 0.5}}}
        ]}
        """
        let scene = try Scene.parse(Data(text.utf8))
        let card = scene.root.sublayers[0]
        #expect(card.mask?.properties[.cornerRadius] == .number(50))
        #expect(card.mask?.path == "$.sublayers[0].mask")
        let root = Layer()
        SceneApplier.apply(scene, to: root)
        let mask = try #require(root.sublayers.first?.mask)
        #expect(mask.cornerRadius == 50 && mask.superlayer == nil)
        // Applied again: the same mask layer, updated in place; a scene without it removes it.
        SceneApplier.apply(try Scene.parse(Data(text.replacingOccurrences(of: "\"cornerRadius\": 50", with: "\"cornerRadius\": 20").utf8)), to: root)
        #expect(root.sublayers.first?.mask === mask && mask.cornerRadius == 20)
        SceneApplier.apply(try Scene.parse(Data(#"{"sublayers": [{"name": "card", "class": "gradient"}]}"#.utf8)), to: root)
        #expect(root.sublayers.first?.mask == nil)
        // A mask must be a layer object.
        #expect(throws: SceneError.self) { try Scene.parse(Data(#"{"sublayers": [{"mask": 3}]}"#.utf8)) }
    }
}
