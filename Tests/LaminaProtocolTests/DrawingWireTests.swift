import Testing
import LaminaCore
@testable import LaminaProtocol

/// The drawing value (type 21) on the wire: round trip, and the refusals decoding makes (an
/// unknown opcode, too many commands, counts longer than the bytes left), each naming the command.
@Suite("Drawings on the wire")
struct DrawingWireTests {
    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> PropertyValue {
        var r = ByteReader(bytes)
        let v = try r.value(.drawing, "drawing")
        try r.finish()
        return v
    }

    static func message(_ bytes: [UInt8]) -> String {
        do throws(DecodeError) { _ = try decode(bytes); return "" } catch { return "\(error)" }
    }

    @Test func roundTripOfEveryOp() throws {
        // Each op with the numbers and strings it takes (gradients with two stops, a dash of two).
        let commands = DrawingOp.allCases.map { op in
            let extra: [Double] = switch op {
            case .drawLinearGradient, .drawRadialGradient: [0, 1, 0, 0, 1, 1, 0, 0, 1, 1]
            case .setLineDash: [4, 2]
            default: []
            }
            return DrawingCommand(op, (0..<op.numberCount).map { _ in 1 } + extra, (0..<op.stringCount).map { _ in "M 0 0 L 1 1" })
        }
        let d = Drawing(commands)
        var w = ByteWriter()
        w.value(.drawing(d))
        #expect(try Self.decode(w.bytes) == .drawing(d))
        // The layout: u32 count, then u8 opcode, u16 count, f64s, strings.
        var one = ByteWriter()
        one.value(.drawing(Drawing([DrawingCommand(.setLineWidth, [2])])))
        #expect(one.bytes == [1, 0, 0, 0, 52, 1, 0] + [0, 0, 0, 0, 0, 0, 0, 0x40])
    }

    @Test func refusals() {
        var w = ByteWriter()
        w.u32(1); w.u8(99); w.u16(0)
        #expect(Self.message(w.bytes).contains("command 0: unknown opcode 99"))
        w = ByteWriter()
        w.u32(UInt32(Drawing.maximumCommands + 1))
        #expect(Self.message(w.bytes).contains("10001 commands is more than the limit of 10000"))
        w = ByteWriter()
        w.u32(1); w.u8(DrawingOp.fillRect.rawValue); w.u16(60_000)
        #expect(Self.message(w.bytes).contains("command 0 (fillRect): 60000 numbers cannot fit"))
        w = ByteWriter()
        w.u32(5000)
        #expect(Self.message(w.bytes).contains("5000 commands cannot fit"))
    }
}
