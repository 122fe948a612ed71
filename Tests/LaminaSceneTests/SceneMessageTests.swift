import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol
@testable import LaminaScene

/// Messages a newcomer reads: where broken JSON breaks, and the name a typo meant.
@Suite("Scene files: messages")
struct SceneMessageTests {
    func error(_ text: String) -> SceneError? {
        do { _ = try Scene.parse(Data(text.utf8)); return nil } catch { return error }
    }

    /// Syntax errors give the line and column (1-based, in characters) of the offending text.
    @Test(arguments: [
        ("{\"sublayers\": [\n  {\"name\": \"a\",}\n]}", 2, 16, "no trailing comma"),
        ("{\"opacity\": 0.5\n \"hidden\": true}", 2, 2, "expected ',' or '}' after the value of \"opacity\""),
        ("{\"name\": \"é\", \"opacity\": .5}", 1, 26, "expected a value"),
        ("{\"opacity\": 1", 1, 14, "not closed"),
        ("{'opacity': 1}", 1, 2, "double quotes"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "appears twice"),
        ("{\"name\": \"tab\there\"}", 1, 14, "control character"),
        ("{\"opacity\": 01}", 1, 13, "leading zeros"),
        ("{\"opacity\": 1e999}", 1, 13, "out of range"),
        ("{} {}", 1, 4, "after the end"),
        ("", 1, 1, "empty"),
    ])
    func syntaxErrorsSayLineAndColumn(_ text: String, _ line: Int, _ column: Int, _ words: String) {
        let e = error(text)
        #expect(e?.line == line && e?.column == column, "\(String(describing: e))")
        #expect(e?.description.hasPrefix("line \(line), column \(column): not valid JSON: ") == true, "\(String(describing: e))")
        #expect(e?.message.contains(words) == true, "\(String(describing: e))")
    }

    /// The reader agrees with JSONSerialization on valid text: escapes, surrogate pairs, numbers.
    @Test func validJSONReadsAsFoundationReadsIt() throws {
        let text = #"{"s": "a\"b\\c\/d\n\u00e9\ud83d\ude00", "n": [-0.5, 1e3, 2E-2, 0, -12], "t": true, "f": false, "z": null, "o": {}, "e": []}"#
        let v = try JSONValue.parse(Data(text.utf8))
        #expect(v == .object([
            "s": .string("a\"b\\c/d\né😀"), "n": .array([.number(-0.5), .number(1000), .number(0.02), .number(0), .number(-12)]),
            "t": .bool(true), "f": .bool(false), "z": .null, "o": .object([:]), "e": .array([]),
        ]))
        // A byte-order mark is skipped.
        #expect(try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8))) == .array([.number(1)]))
        // Nesting is bounded rather than overflowing the stack.
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: SceneError.self) { try JSONValue.parse(Data(deep.utf8)) }
    }

    /// An unknown key names the layer and suggests the nearest known one, instead of listing all.
    @Test func unknownPropertySuggestsTheClosest() {
        let e = error(#"{"sublayers": [{"name": "card", "cornerRadious": 8}]}"#)
        #expect(e?.description == "$.sublayers[0].cornerRadious: unknown property 'cornerRadious' on layer 'card'; did you mean 'cornerRadius'?")
        // A swap of neighbours is one edit; case is ignored.
        #expect(error(#"{"opactiy": 1}"#)?.message == "unknown property 'opactiy' on the root layer; did you mean 'opacity'?")
        #expect(error(##"{"sublayers": [{"BackgroundColor": "#FFF"}]}"##)?.message.hasSuffix("on an unnamed layer; did you mean 'backgroundColor'?") == true)
        #expect(error(#"{"sublayers": [{"sublayer": []}]}"#)?.message.hasSuffix("did you mean 'sublayers'?") == true)
        // Nothing close: no guess, and no list of 70 names.
        let far = error(#"{"wobble": 1}"#)?.message ?? ""
        #expect(far == "unknown property 'wobble' on the root layer (docs/scene-format.md lists a layer's keys)", "\(far)")
    }

    @Test func unknownClassesTransformPartsAndAnimationFieldsSuggestToo() {
        #expect(error(#"{"sublayers": [{"class": "gradiant"}]}"#)?.message.hasSuffix("did you mean 'gradient'?") == true)
        #expect(error(#"{"sublayers": [{"transform": {"rotaton": 1}}]}"#)?.message.hasPrefix("unknown transform part 'rotaton'; did you mean 'rotation'?") == true)
        #expect(error(#"{"animations": {"a": {"type": "basik", "keyPath": "opacity"}}}"#)?.message == "unknown animation type 'basik'; did you mean 'basic'?")
        #expect(error(#"{"animations": {"a": {"type": "basic", "keyPath": "opacity", "duraton": 1}}}"#)?.message == "not a field of a basic animation; did you mean 'duration'?")
    }

    @Test func editDistance() {
        #expect(Suggestion.distance(Array("kitten"), Array("sitting")) == 3)
        #expect(Suggestion.distance(Array("ab"), Array("ba")) == 1)
        #expect(Suggestion.distance(Array(""), Array("abc")) == 3)
        #expect(Suggestion.closest(to: "posiiton", among: ["position", "positron", "opacity"]) == "position")
        #expect(Suggestion.closest(to: "xy", among: ["opacity"]) == nil)
    }

    /// A first apply counts every layer as created and none of them as updated too.
    @MainActor
    @Test func summaryCountsWhatHappened() throws {
        let scene = try Scene.parse(Data(#"""
        {"sublayers": [{"name": "a", "opacity": 0.5, "sublayers": [{"name": "b", "backgroundColor": "#FFF"}]},
                       {"name": "c", "mask": {"bounds": [0, 0, 4, 4]}}]}
        """#.utf8))
        let root = Layer()
        var s = SceneApplier.apply(scene, to: root)
        #expect(s.created == 4 && s.updated == 0 && s.removed == 0, "\(s)")
        // Applying the same file again changes nothing.
        s = SceneApplier.apply(scene, to: root)
        #expect(s == SceneApplier.Summary(), "\(s)")
        let changed = try Scene.parse(Data(#"{"opacity": 0.9, "sublayers": [{"name": "a", "opacity": 0.7}]}"#.utf8))
        s = SceneApplier.apply(changed, to: root)
        #expect(s.created == 0 && s.updated == 2 && s.removed == 2 && s.propertiesSet == 2, "\(s)")
    }
}

@Suite("Scene files: actions")
struct SceneActionTests {
    @Test func actionsParseNullAndAnimations() throws {
        let s = try Scene.parse(Data(#"""
        {"sublayers": [{"actions": {"opacity": null, "hidden": null, "position": {"type": "basic", "duration": 2}, "onOrderIn": {"type": "basic", "fromValue": 0}}}]}
        """#.utf8))
        let a = s.root.sublayers[0].actions
        #expect(a["opacity"] == Action.noAnimation && a["hidden"] == Action.noAnimation)
        guard case .animation(.basic(let move))? = a["position"], case .animation(.basic(let fade))? = a["onOrderIn"] else {
            Issue.record("\(a)")
            return
        }
        #expect(move.keyPath == "position" && move.timing.duration == 2)
        #expect(fade.keyPath == "opacity" && fade.fromValue == .number(0))
    }

    @Test func badActionsNameTheirPath() {
        func error(_ text: String) -> SceneError? {
            do { _ = try Scene.parse(Data(text.utf8)); return nil } catch { return error }
        }
        let e = error(#"{"sublayers": [{"actions": {"opactiy": null}}]}"#)
        #expect(e?.path == "$.sublayers[0].actions.opactiy" && e?.message.hasSuffix("did you mean 'opacity'?") == true, "\(String(describing: e))")
        #expect(error(#"{"actions": {"opacity": false}}"#)?.message == "expected null (no animation) or an animation object, not a boolean")
        #expect(error(#"{"actions": {"name": null}}"#)?.path == "$.actions.name")
        #expect(error(#"{"actions": []}"#)?.path == "$.actions")
    }
}
