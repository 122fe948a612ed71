import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

@Suite("Scene files")
struct SceneTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func error(_ text: String) -> SceneError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func parsesCoreAnimationNames() throws {
        let s = try parse("""
        {"opacity": 0.5, "sublayers": [
          {"name": "a", "bounds": [0,0,100,50], "position": [200,300], "anchorPoint": [0,1], "zPosition": 2,
           "backgroundColor": "#FF000080", "hidden": true, "transform": {"rotation": 1.5707963267948966, "scale": 2},
           "sublayerTransform": {"perspective": 500},
           "sublayers": [{"name": "b", "backgroundColor": [0, 0.5, 1, 1], "transform": [1,0,0,0, 0,1,0,0, 0,0,1,0, 5,6,0,1]}]}
        ]}
        """)
        #expect(s.root.properties[.opacity] == .number(0.5))
        let a = s.root.sublayers[0]
        #expect(a.name == "a")
        #expect(a.properties[.bounds] == .rect(Rect(x: 0, y: 0, width: 100, height: 50)))
        #expect(a.properties[.isHidden] == .bool(true))
        #expect(a.properties[.backgroundColor] == .color(Color(red: 1, green: 0, blue: 0, alpha: 128.0 / 255)))
        #expect(a.resolvedProperties.frame == Rect(x: 200, y: 250, width: 100, height: 50))
        guard case .transform(let t)? = a.properties[.transform] else { Issue.record("no transform"); return }
        // scale 2 then a quarter turn: (1, 0) → (2, 0) → (0, 2).
        let p = t.apply(to: Point(x: 1, y: 0))!
        #expect(abs(p.x) < 1e-12 && abs(p.y - 2) < 1e-12)
        #expect(a.properties[.sublayerTransform] == .transform(.perspective(distance: 500)))
        #expect(a.sublayers[0].properties[.transform] == .transform(.translation(x: 5, y: 6)))
    }

    @Test func layerClassesAndTheirProperties() throws {
        let s = try parse("""
        {"sublayers": [
          {"name": "g", "class": "gradient", "colors": ["#FF0000", [0, 0, 1, 1]], "locations": [0, 0.75], "type": "radial"},
          {"name": "s", "class": "shape", "path": "M 0 0 L 10 0 L 10 10 Z", "lineDashPattern": [4, 2], "lineCap": "round",
           "strokeColor": "#00FF00"},
          {"name": "t", "class": "text", "string": "Hello", "fontSize": 20, "wrapped": true}
        ]}
        """)
        let g = s.root.sublayers[0], sh = s.root.sublayers[1], t = s.root.sublayers[2]
        #expect(g.kind == .gradient && sh.kind == .shape && t.kind == .text)
        #expect(g.resolvedProperties.colors == [.red, .blue])
        #expect(g.resolvedProperties.gradientType == .radial)
        #expect(g.resolvedProperties.kind == .gradient)
        #expect(sh.resolvedProperties.path.elements.count == 4)
        #expect(sh.resolvedProperties.lineCap == .round)
        #expect(t.resolvedProperties.string == "Hello" && t.resolvedProperties.isWrapped)
        #expect(error(#"{"sublayers": [{"class": "oval"}]}"#)?.path == "$.sublayers[0].class")
        #expect(error(#"{"sublayers": [{"lineCap": "pointy"}]}"#)?.message.contains("butt, round, square") == true)
        #expect(error(#"{"class": "text"}"#)?.path == "$.class")
    }

    @Test func frameSetsBoundsAndPosition() throws {
        let s = try parse(#"{"sublayers": [{"frame": [10, 20, 30, 40], "anchorPoint": [0, 0]}]}"#)
        let p = s.root.sublayers[0].resolvedProperties
        #expect(p.frame == Rect(x: 10, y: 20, width: 30, height: 40))
        #expect(p.position == Point(x: 10, y: 20))
    }

    /// Every mistake is reported at its JSON path.
    @Test(arguments: [
        (#"{"sublayers": [{"bounds": [0, 0, 10]}]}"#, "$.sublayers[0].bounds"),
        (#"{"sublayers": [{}, {"opacity": "half"}]}"#, "$.sublayers[1].opacity"),
        (##"{"sublayers": [{"sublayers": [{"backgroundColor": "#ZZZ"}]}]}"##, "$.sublayers[0].sublayers[0].backgroundColor"),
        (##"{"sublayers": [{"colour": "#FFF"}]}"##, "$.sublayers[0].colour"),
        (#"{"sublayers": [{"transform": {"spin": 1}}]}"#, "$.sublayers[0].transform.spin"),
        (#"{"sublayers": [{"transform": [1, 2]}]}"#, "$.sublayers[0].transform"),
        (#"{"sublayers": [{"backgroundColor": [1, 0, 0, 2]}]}"#, "$.sublayers[0].backgroundColor[3]"),
        (#"{"sublayers": [{"name": "x"}, {"name": "x"}]}"#, "$.sublayers[1].name"),
        (#"{"sublayers": [{"bounds": [0, 0, -5, 5]}]}"#, "$.sublayers[0].bounds"),
        (#"{"sublayers": [{"frame": [0, 0, 5, 5], "position": [1, 1]}]}"#, "$.sublayers[0].position"),
        (#"{"sublayers": 3}"#, "$.sublayers"),
        (#"[1, 2]"#, "$"),
        (#"{"sublayers": [{"hidden": 1}]}"#, "$.sublayers[0].hidden"),
        (#"{"opacity": 1"#, "$"),
    ])
    func mistakesNameTheirPath(_ text: String, _ path: String) {
        let e = error(text)
        #expect(e?.path == path, "\(String(describing: e))")
        #expect(!(e?.message.isEmpty ?? true))
    }
}

/// Emitter layers in scene files: the class, names, cells with contents files, did-you-mean.
@Suite("Scene files: emitter layers")
struct SceneEmitterTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    @Test func emitterWithCells() throws {
        let scene = try parse(#"""
            {"sublayers": [{"name": "snow", "class": "emitter", "emitterShape": "rectangle", "renderMode": "additive",
              "emitterSize": [100, 20], "seed": 3,
              "emitterCells": [{"name": "flake", "contents": "flake.png", "birthRate": 10, "lifetime": 2,
                                "color": "#FF8800", "magnificationFilter": "nearest",
                                "emitterCells": [{"name": "spark", "velocity": 5, "isEnabled": false}]}]}]}
            """#)
        let layer = try #require(scene.root.sublayers.first)
        #expect(layer.kind == .emitter)
        let p = layer.resolvedProperties
        #expect(p.emitter.emitterShape == .rectangle && p.emitter.renderMode == .additive && p.emitter.seed == 3)
        let flake = try #require(p.emitter.emitterCells.first)
        #expect(flake.name == "flake" && flake.birthRate == 10 && flake.magnificationFilter == .nearest)
        #expect(flake.emitterCells.first?.name == "spark" && flake.emitterCells.first?.isEnabled == false)
        #expect(layer.cellContentsFiles == [[0]: "flake.png"])
        #expect(scene.contentsFiles == ["flake.png"])
    }

    @Test func misspeltKeysAndValuesAreNamed() {
        func message(_ text: String) -> String {
            do { _ = try parse(text); return "" } catch { return error.description }
        }
        #expect(message(#"{"sublayers": [{"class": "emitter", "emitterCells": [{"birthRat": 1}]}]}"#).contains("did you mean 'birthRate'"))
        #expect(message(#"{"sublayers": [{"class": "emiter"}]}"#).contains("emitter"))
        #expect(message(#"{"sublayers": [{"class": "emitter", "emitterShape": "rectangel"}]}"#).contains("rectangle"))
        #expect(message(#"{"sublayers": [{"class": "emitter", "emitterCells": [{"lifetime": -1}]}]}"#).contains("lifetime must not be negative"))
    }
}

/// `"app"` and `"appRestart"` (docs/scene-format.md): a command line for a named layer.
@Suite("Scene apps")
struct SceneAppTests {
    @Test func anAppLayerIsParsed() throws {
        let scene = try Scene.parse(Data(#"{"sublayers": [{"name": "web", "app": ["cog", "https://example.com"], "appRestart": true}]}"#.utf8))
        #expect(scene.appLayers.map(\.name) == ["web"])
        #expect(scene.appLayers.first?.app == ["cog", "https://example.com"])
        #expect(scene.appLayers.first?.appRestart == true)
    }

    @Test func mistakesAreNamed() {
        for (text, message) in [
            (#"{"sublayers": [{"app": ["cog"]}]}"#, "needs a \"name\""),
            (#"{"app": ["cog"]}"#, "root layer cannot show an app"),
            (#"{"sublayers": [{"name": "a", "app": []}]}"#, "array of 1 to 256 strings"),
            (#"{"sublayers": [{"name": "a", "app": [""]}]}"#, "must not be empty"),
            (#"{"sublayers": [{"name": "a", "appRestart": true}]}"#, "goes with \"app\""),
            (#"{"sublayers": [{"name": "a", "app": ["cog"], "contents": "x.png"}]}"#, "one of \"contents\", \"video\" or \"app\""),
            (#"{"sublayers": [{"name": "a", "app": ["cog"], "appRestart": 1}]}"#, "expected true or false"),
        ] {
            #expect(throws: SceneError.self) { try Scene.parse(Data(text.utf8)) }
            do { _ = try Scene.parse(Data(text.utf8)) } catch { #expect("\(error)".contains(message), "\(text): \(error)") }
        }
    }
}
