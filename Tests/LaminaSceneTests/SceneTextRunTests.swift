import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// `attributedString` in scene files: runs as objects (or plain strings), weight names and
/// numbers, did-you-mean for a misspelt key or weight, and the limits with the file's path.
@Suite("Scene files: attributed strings")
struct SceneTextRunTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func message(_ text: String) -> String {
        do { _ = try parse(text); return "" } catch { return error.description }
    }

    @Test func runsAreRead() throws {
        let scene = try parse(#"""
            {"sublayers": [{"name": "label", "class": "text", "lineSpacing": 4, "attributedString": [
              {"text": "Sale ", "color": "#FF0000", "weight": "bold"},
              "today ",
              {"text": "now", "font": "DejaVu Serif", "fontSize": 20, "weight": 300, "italic": true,
               "backgroundColor": [0, 0, 1, 0.5], "underline": true, "strikethrough": true, "kerning": 1.5,
               "baselineOffset": -2}]}]}
            """#)
        let p = try #require(scene.root.sublayers.first).resolvedProperties
        #expect(p.attributedString == [
            TextRun("Sale ", weight: 700, color: .red), TextRun("today "),
            TextRun("now", font: "DejaVu Serif", fontSize: 20, weight: 300, italic: true,
                    backgroundColor: Color(red: 0, green: 0, blue: 1, alpha: 0.5), underline: true, strikethrough: true,
                    kerning: 1.5, baselineOffset: -2),
        ])
        #expect(p.lineSpacing == 4)
    }

    @Test func mistakesAreNamed() {
        #expect(message(##"{"attributedString": [{"text": "a", "colour": "#FF0000"}]}"##).contains("did you mean 'color'"))
        #expect(message(#"{"attributedString": [{"text": "a", "weight": "blod"}]}"#).contains("did you mean 'bold'"))
        #expect(message(#"{"attributedString": [{"text": "a", "weight": 5000}]}"#).contains("run 0: weight"))
        #expect(message(##"{"attributedString": [{"text": "a", "color": "#GG0000"}]}"##).contains("not a colour"))
        #expect(message(##"{"attributedString": [{"color": "#FF0000"}]}"##).contains("needs a \"text\""))
        #expect(message(#"{"attributedString": "Sale"}"#).contains("expected an array of runs"))
        let many = "[" + Array(repeating: "\"x\"", count: 257).joined(separator: ",") + "]"
        #expect(message(#"{"attributedString": "# + many + "}").contains("at most 256 runs"))
        #expect(message(#"{"attributedStrng": []}"#).contains("attributedString"))
    }
}
