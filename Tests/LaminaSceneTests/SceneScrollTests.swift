import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// Scroll layers in scene files: `"class": "scroll"`, its properties by their Core Animation
/// names, and what a typo meant.
@Suite("Scene files: scroll layers")
struct SceneScrollTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func error(_ text: String) -> SceneError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func aScrollLayerAndItsProperties() throws {
        let s = try parse("""
        {"sublayers": [{"name": "list", "class": "scroll", "frame": [0, 0, 300, 400], "scrollMode": "vertically",
                        "scrollsOnTouch": true, "pagingEnabled": true, "scrollContentSize": [300, 40000],
                        "sublayers": [{"name": "row0", "frame": [0, 0, 300, 40]}]}]}
        """)
        let list = s.root.sublayers[0]
        #expect(list.kind == .scroll)
        #expect(list.properties[.scrollMode] == .string("vertically"))
        #expect(list.properties[.scrollsOnTouch] == .bool(true))
        #expect(list.properties[.pagingEnabled] == .bool(true))
        #expect(list.properties[.scrollContentSize] == .size(Size(width: 300, height: 40000)))
        #expect(try parse(#"{"sublayers": [{"class": "scroll", "isPagingEnabled": true}]}"#).root.sublayers[0].properties[.pagingEnabled] == .bool(true))
    }

    @Test func misspellingsSuggestTheName() {
        #expect(error(#"{"sublayers": [{"class": "scrol"}]}"#)?.message.hasSuffix("did you mean 'scroll'?") == true)
        #expect(error(#"{"sublayers": [{"name": "list", "class": "scroll", "scrollsOnTuch": true}]}"#)?.message
                == "unknown property 'scrollsOnTuch' on layer 'list'; did you mean 'scrollsOnTouch'?")
        let mode = error(#"{"sublayers": [{"class": "scroll", "scrollMode": "verticaly"}]}"#)
        #expect(mode?.path == "$.sublayers[0].scrollMode")
        // The scene format's one message for a misspelt name: the nearest one, then the list.
        #expect(mode?.message == "'verticaly' is not a scrollMode name; did you mean 'vertically'? (one of both, none, vertically, horizontally)",
                "\(String(describing: mode))")
        #expect(error(#"{"sublayers": [{"class": "scroll", "scrollContentSize": [-1, 5]}]}"#)?.message
                == "property 'scrollContentSize': a content size must not be negative (got -1.0×5.0); (0, 0) takes the sublayers' frames")
        #expect(error(#"{"sublayers": [{"class": "scroll", "scrollContentSize": [100]}]}"#)?.message == "expected 2 numbers [width, height]")
        #expect(error(#"{"sublayers": [{"class": "scroll", "scrollsOnTouch": "yes"}]}"#)?.message == "expected true or false, not a string")
    }
}
