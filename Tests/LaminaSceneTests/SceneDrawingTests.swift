import Foundation
import Testing
import LaminaCore
@testable import LaminaScene

/// `drawing` in scene files: commands named after CGContext's methods with named arguments,
/// defaults, did-you-mean for a misspelt op, argument or name, the drawing's own budgets with the
/// file's path, and the JSON form `tree` and `laminactl eval` write (which reads back the same).
@Suite("Scene files: drawings")
struct SceneDrawingTests {
    func parse(_ text: String) throws(SceneError) -> Scene { try Scene.parse(Data(text.utf8)) }

    func message(_ text: String) -> String {
        do { _ = try parse(text); return "" } catch { return error.description }
    }

    static let gauge = #"""
        {"sublayers": [{"name": "gauge", "bounds": [0, 0, 200, 120], "drawing": [
          {"op": "setFillColor", "color": "#1A1A33"},
          {"op": "addRoundedRect", "rect": [0, 0, 200, 120], "cornerWidth": 12, "cornerHeight": 12},
          {"op": "fillPath"},
          {"op": "setLineWidth", "width": 8},
          {"op": "setLineCap", "cap": "round"},
          {"op": "setStrokeColor", "color": "#808080"},
          {"op": "addArc", "center": [100, 72], "radius": 70, "startAngle": 3.14159, "endAngle": 6.28318},
          {"op": "strokePath"},
          {"op": "saveGState"},
          {"op": "translateBy", "x": 100, "y": 72},
          {"op": "rotateBy", "angle": 0.6},
          {"op": "setFillColor", "color": "#FF4D00"},
          {"op": "addPath", "path": "M -3 0 L 0 -66 L 3 0 Z"},
          {"op": "fillPath", "rule": "even-odd"},
          {"op": "restoreGState"},
          {"op": "drawLinearGradient", "start": [0, 0], "end": [0, 10], "options": "drawsAfterEndLocation",
           "stops": [{"location": 0, "color": "#FFFFFF00"}, {"location": 1, "color": "#FFFFFF40"}]},
          {"op": "showText", "text": "70", "at": [90, 112], "font": "DejaVu Sans", "size": 14}]}]}
        """#

    @Test func aGaugeIsRead() throws {
        let scene = try parse(Self.gauge)
        let p = try #require(scene.root.sublayers.first).resolvedProperties
        let c = p.drawing.commands
        #expect(c.count == 17)
        #expect(c[0] == DrawingCommand(.setFillColor, [0x1A / 255.0, 0x1A / 255.0, 0x33 / 255.0, 1]))
        #expect(c[4] == DrawingCommand(.setLineCap, [1]))
        #expect(c[6] == DrawingCommand(.addArc, [100, 72, 70, 3.14159, 6.28318, 0]), "clockwise defaults to false")
        #expect(c[2] == DrawingCommand(.fillPath, [0]) && c[13] == DrawingCommand(.fillPath, [1]))
        #expect(c[12] == DrawingCommand(.addPath, [], ["M -3 0 L 0 -66 L 3 0 Z"]))
        #expect(c[15].numbers.prefix(5) == [0, 0, 0, 10, 2] && c[15].numbers.count == 15)
        #expect(c[16] == DrawingCommand(.showText, [90, 112, 14], ["70", "DejaVu Sans"]))
    }

    @Test func theJSONFormReadsBack() throws {
        let p = try #require(try parse(Self.gauge).root.sublayers.first).resolvedProperties
        var w = JSONWriter(exactColors: true)
        w.value(.drawing(p.drawing))
        let again = try parse(#"{"sublayers": [{"drawing": "# + w.text + "}]}")
        #expect(try #require(again.root.sublayers.first).resolvedProperties.drawing == p.drawing)
    }

    @Test func mistakesAreNamed() {
        #expect(message(#"{"drawing": [{"op": "filRect", "rect": [0, 0, 1, 1]}]}"#).contains("did you mean 'fillRect'"))
        #expect(message(#"{"drawing": [{"op": "fillRect", "rectangle": [0, 0, 1, 1]}]}"#)
            .contains("unknown argument 'rectangle' for fillRect, which takes rect"))
        #expect(message(#"{"drawing": [{"op": "setLineCap", "cap": "rund"}]}"#).contains("did you mean 'round'"))
        #expect(message(#"{"drawing": [{"op": "fillRect"}]}"#).contains("fillRect needs \"rect\" ([x, y, width, height])"))
        #expect(message(#"{"drawing": [{"op": "restoreGState"}]}"#).contains("restoreGState without a saveGState"))
        #expect(message(#"{"drawing": [{"op": "addPath", "path": "M 0 0 K"}]}"#).contains("unknown path command 'K'"))
        #expect(message(#"{"drawing": [{"rect": [0, 0, 1, 1]}]}"#).contains("needs an \"op\""))
        #expect(message(#"{"drawing": [{"op": "setLineDash", "lengths": [1, 2], "phaze": 0}]}"#).contains("did you mean 'phase'"))
    }
}
