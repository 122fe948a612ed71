import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// Tiled layers in scene files: `"class": "tiled"` and its properties by their Core Animation
/// names. A scene has no client to supply tiles: its tiled layer draws its background and
/// sublayers until a client that owns it supplies some.
@Suite("Scene files: tiled layers")
struct SceneTiledTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func error(_ text: String) -> SceneError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func aTiledLayerAndItsProperties() throws {
        let s = try parse("""
        {"sublayers": [{"name": "map", "class": "tiled", "frame": [0, 0, 20000, 20000], "tileSize": [512, 512],
                        "levelsOfDetail": 6, "levelsOfDetailBias": 2, "tileFadeDuration": 0.1}]}
        """)
        let map = s.root.sublayers[0]
        #expect(map.kind == .tiled)
        #expect(map.properties[.tileSize] == .size(Size(width: 512, height: 512)))
        #expect(map.properties[.levelsOfDetail] == .number(6))
        #expect(map.properties[.levelsOfDetailBias] == .number(2))
        #expect(map.properties[.tileFadeDuration] == .number(0.1))
    }

    @Test func badValuesAndMisspellings() {
        #expect(error(#"{"sublayers": [{"class": "tield"}]}"#)?.message.hasSuffix("did you mean 'tiled'?") == true)
        #expect(error(#"{"sublayers": [{"name": "map", "class": "tiled", "levelOfDetail": 3}]}"#)?.message
                == "unknown property 'levelOfDetail' on layer 'map'; did you mean 'levelsOfDetail'?")
        let size = error(#"{"sublayers": [{"class": "tiled", "tileSize": [0, 256]}]}"#)
        #expect(size?.message.contains("tileSize") == true || size?.path.contains("tileSize") == true, "\(String(describing: size))")
        #expect(error(#"{"sublayers": [{"class": "tiled", "levelsOfDetail": 0}]}"#) != nil)
    }
}
