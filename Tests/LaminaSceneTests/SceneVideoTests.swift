import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

@Suite("scene videos")
struct SceneVideoTests {
    @Test("\"video\" with loop, playing and rate parses; bad values name the key's path")
    func parses() throws {
        let scene = try Scene.parse(Data(#"{"sublayers": [{"name": "v", "video": "clips/a.webm", "loop": true, "playing": true, "rate": 0.5}]}"#.utf8))
        let layer = try #require(scene.root.sublayers.first)
        #expect(layer.videoFile == "clips/a.webm")
        #expect(layer.video == SceneVideo(loops: true, playing: true, rate: 0.5))
        #expect(scene.videoLayers.map(\.name) == ["v"])
        for bad in [#"{"video": "a.webm", "contents": "b.png"}"#, #"{"video": 3}"#, #"{"video": "a.webm", "rate": 0}"#,
                    #"{"video": "a.webm", "rate": 17}"#, #"{"video": "a.webm", "loop": "yes"}"#] {
            #expect(throws: SceneError.self) { _ = try Scene.parse(Data((#"{"sublayers": ["# + bad + "]}").utf8)) }
        }
    }
}
