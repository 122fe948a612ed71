import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

@Suite("scene videos")
struct SceneVideoTests {
    @Test("\"video\" with loop, playing, rate, volume and muted parses; bad values name the key's path")
    func parses() throws {
        let scene = try Scene.parse(Data(#"{"sublayers": [{"name": "v", "video": "clips/a.webm", "loop": true, "playing": true, "rate": 0.5, "volume": 0.25, "muted": true}]}"#.utf8))
        let layer = try #require(scene.root.sublayers.first)
        #expect(layer.videoFile == "clips/a.webm")
        #expect(layer.video == SceneVideo(loops: true, playing: true, rate: 0.5, volume: 0.25, muted: true))
        #expect(try Scene.parse(Data(#"{"video": "a.webm"}"#.utf8)).root.video == SceneVideo(), "volume 1, not muted by default")
        #expect(scene.videoLayers.map(\.name) == ["v"])
        for bad in [#"{"video": "a.webm", "contents": "b.png"}"#, #"{"video": 3}"#, #"{"video": "a.webm", "rate": 0}"#,
                    #"{"video": "a.webm", "rate": 17}"#, #"{"video": "a.webm", "loop": "yes"}"#,
                    #"{"video": "a.webm", "volume": 1.5}"#, #"{"video": "a.webm", "volume": -1}"#, #"{"video": "a.webm", "muted": 1}"#] {
            #expect(throws: SceneError.self) { _ = try Scene.parse(Data((#"{"sublayers": ["# + bad + "]}").utf8)) }
        }
    }

    @Test("a \"video\" URI (a camera, a stream) is passed on as it is; a file is relative to the scene")
    func urisStayAsTheyAre() throws {
        #expect(SceneLayer.isURI("v4l2:///dev/video0") && SceneLayer.isURI("https://example.com/a.webm"))
        #expect(!SceneLayer.isURI("clips/a.webm") && !SceneLayer.isURI("/srv/a.webm") && !SceneLayer.isURI("://x")
                && !SceneLayer.isURI("weird name:/a") && !SceneLayer.isURI("1abc://x"))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scene-uri-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"sublayers": [{"name": "cam", "video": "v4l2:///dev/video0"}, {"name": "clip", "video": "a.webm"}]}"#
            .write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let scene = try Scene.load(path: dir + "/s.json")
        #expect(scene.videoLayers.map(\.videoFile) == ["v4l2:///dev/video0", dir + "/a.webm"])
    }
}
