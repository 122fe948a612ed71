import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// `compositingFilter` and `cornerCurve` in scene files: Core Animation's names, `null` for no
/// blend mode, and a misspelt name answered with the right one and the list.
@Suite("Scene files: compositingFilter and cornerCurve")
struct SceneBlendCornerTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func error(_ text: String) -> SceneError? {
        do { _ = try parse(text); return nil } catch { return error }
    }

    @Test func namesParse() throws {
        let s = try parse("""
        {"sublayers": [
          {"name": "card", "frame": [0, 0, 100, 60], "cornerRadius": 12, "cornerCurve": "continuous",
           "compositingFilter": "multiplyBlendMode"},
          {"name": "plain", "compositingFilter": null, "cornerCurve": "circular"}
        ]}
        """)
        let card = s.root.sublayers[0], plain = s.root.sublayers[1]
        #expect(card.properties[.compositingFilter] == .string("multiplyBlendMode"))
        #expect(card.properties[.cornerCurve] == .string("continuous"))
        #expect(card.resolvedProperties.compositingFilter == .multiply && card.resolvedProperties.cornerCurve == .continuous)
        #expect(plain.properties[.compositingFilter] == .string("") && plain.resolvedProperties.compositingFilter == nil)
        for mode in BlendMode.allCases {
            let one = try parse(#"{"compositingFilter": "\#(mode.rawValue)"}"#)
            #expect(one.root.properties[.compositingFilter] == .string(mode.rawValue))
        }
    }

    /// A misspelt value names itself, suggests the right name (also for the W3C and CSS
    /// spellings of a blend mode), and lists the valid ones.
    @Test func misspeltNamesSuggestTheRightOne() {
        let e = error(#"{"sublayers": [{"name": "card", "compositingFilter": "multiply"}]}"#)
        #expect(e?.description == "$.sublayers[0].compositingFilter: 'multiply' is not a compositingFilter name; did you mean "
            + "'multiplyBlendMode'? (one of \"\" (none), multiplyBlendMode, screenBlendMode, overlayBlendMode, darkenBlendMode, "
            + "lightenBlendMode, colorDodgeBlendMode, colorBurnBlendMode, softLightBlendMode, hardLightBlendMode, "
            + "differenceBlendMode, exclusionBlendMode, plusLighter, plusDarker)")
        #expect(error(#"{"compositingFilter": "soft-light"}"#)?.message.contains("did you mean 'softLightBlendMode'?") == true)
        #expect(error(#"{"compositingFilter": "colorDodgeBlendmode"}"#)?.message.contains("did you mean 'colorDodgeBlendMode'?") == true)
        #expect(error(#"{"compositingFilter": "plus-darker"}"#)?.message.contains("did you mean 'plusDarker'?") == true)
        #expect(error(#"{"cornerCurve": "continous"}"#)?.message
            == "'continous' is not a cornerCurve name; did you mean 'continuous'? (one of circular, continuous)")
        // Nothing close: the list alone.
        #expect(error(#"{"cornerCurve": "squircle"}"#)?.message == "'squircle' is not a cornerCurve name (one of circular, continuous)")
        // Other enumerated keys get the same help.
        #expect(error(#"{"contentsGravity": "resizeAspectFil"}"#)?.message.contains("did you mean 'resizeAspectFill'?") == true)
        // null is nil only where the key has a nil name.
        #expect(error(#"{"cornerCurve": null}"#)?.message == "expected a string")
        #expect(error(#"{"cornerCurve": 1}"#)?.message == "expected a string")
    }
}
