import Testing
@testable import LaminaCore

/// A drawing's validation: argument counts, names, ranges and the budgets, each refusal naming
/// the command; and the `drawing` key taking it.
@Suite("Drawings")
struct DrawingTests {
    static func error(_ commands: [DrawingCommand]) -> String {
        do throws(DrawingError) { try Drawing(commands).validate(); return "" } catch { return error.message }
    }

    @Test func refusalsNameTheCommand() {
        #expect(Self.error([DrawingCommand(.fillRect, [0, 0, 1])]) == "command 0 (fillRect): takes 4 numbers, got 3")
        #expect(Self.error([DrawingCommand(.setLineCap, [7])]).contains("cap 7.0 is not one of 0–2 (butt, round, square)"))
        #expect(Self.error([DrawingCommand(.setFillColor, [2, 0, 0, 1])]).contains("colour components must be in [0, 1]"))
        #expect(Self.error([DrawingCommand(.restoreGState)]) == "command 0 (restoreGState): restoreGState without a saveGState")
        #expect(Self.error([DrawingCommand(.addPath, [], ["M 0 0 X 3"])]).contains("unknown path command 'X'"))
        #expect(Self.error([DrawingCommand(.translateBy, [.nan, 0])]).contains("numbers must be finite"))
        #expect(Self.error([DrawingCommand(.showText, [0, 0, 0], ["a", ""])]).contains("size must be greater than 0"))
        #expect(Self.error([DrawingCommand(.drawLinearGradient, [0, 0, 1, 1, 0, 0, 1, 0, 0, 1])]).contains("at least two stops"))
    }

    @Test func budgets() {
        let many = Array(repeating: DrawingCommand(.closePath), count: Drawing.maximumCommands + 1)
        #expect(Self.error(many) == "10001 commands is more than the limit of 10000 a drawing may have")
        let deep = Array(repeating: DrawingCommand(.saveGState), count: Drawing.maximumNesting + 1)
        #expect(Self.error(deep) == "command 64 (saveGState): saveGState nests deeper than the limit of 64")
        let dash = [DrawingCommand(.setLineDash, [0] + Array(repeating: 1, count: Drawing.maximumDashEntries + 1))]
        #expect(Self.error(dash) == "command 0 (setLineDash): 65 dash entries is more than the limit of 64")
        // 2501 elements, 3 points each (the budget counts a curve's), a path: the 14th passes 100000.
        let long = String(repeating: "L 1 1 ", count: 2500)
        let points = Array(repeating: DrawingCommand(.addPath, [], ["M 0 0 " + long]), count: 20)
        #expect(Self.error(points) == "command 13 (addPath): the drawing's paths have more than the limit of 100000 points")
        #expect(Self.error([DrawingCommand(.addPath, [], [String(repeating: "M 0 0 ", count: 3000)])])
            .contains("is longer than the limit of 16384"))
    }

    @Test func theKeyValidates() throws {
        var p = LayerProperties()
        try p.set(.drawing, .drawing(Drawing([DrawingCommand(.fillRect, [0, 0, 4, 4])])))
        #expect(p.drawing.commands.count == 1)
        #expect(throws: PropertyError.outOfRange(key: .drawing, reason: "command 0 (restoreGState): restoreGState without a saveGState")) {
            try p.set(.drawing, .drawing(Drawing([DrawingCommand(.restoreGState)])))
        }
        #expect(!PropertyKey.drawing.isAnimatable && PropertyKey.drawing.rawValue == 97 && PropertyValueType.drawing.rawValue == 21)
    }

    @Test func svgPathData() throws {
        let p = try Path(svgData: "M 0 0 L 10 0 q 5 5 10 0 Z")
        #expect(p.elements.count == 4)
        #expect(throws: PathSyntaxError.self) { try Path(svgData: "M 0") }
    }

    /// A number after Z was never consumed: the parser looped for ever, appending close-subpaths
    /// (found by the apply fuzzer through a drawing's addPath). It is refused now.
    @Test func aNumberAfterZIsRefusedNotLoopedOn() throws {
        #expect(throws: PathSyntaxError("'Z' takes no numbers, got '5' at token 8 of \"M 0 0 L 10 0 Z 5 5\"")) {
            try Path(svgData: "M 0 0 L 10 0 Z 5 5")
        }
        #expect(throws: PathSyntaxError.self) { try Path(svgData: "z1") }
        #expect(try Path(svgData: "M 0 0 L 1 1 Z M 2 2 L 3 3 z").elements.count == 6)
    }
}
