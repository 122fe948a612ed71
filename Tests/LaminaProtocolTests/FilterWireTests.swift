import Testing
import LaminaCore
@testable import LaminaProtocol

/// The filter-list value (type 15) on the wire: round trip, and the refusals decoding makes
/// (unknown type, an input of the wrong size, too many filters), each naming the filter.
@Suite("Filter lists on the wire")
struct FilterWireTests {
    static func decode(_ bytes: [UInt8]) throws(DecodeError) -> PropertyValue {
        var r = ByteReader(bytes)
        return try r.value(.filters, "filters")
    }

    static func filter(name: String, tag: UInt8, numbers: [Double]) -> [UInt8] {
        var w = ByteWriter()
        w.u32(1)
        w.string(name); w.u8(tag); w.u8(UInt8(numbers.count))
        for d in numbers { w.f64(d) }
        return w.bytes
    }

    @Test func roundTrip() throws {
        let list: [LayerFilter] = [.gaussianBlur("soft", radius: 8), .hueRotate("h", angle: 1.5),
                                   .colorMatrix("m", Array(repeating: 0.5, count: 20)), LayerFilter(name: "neg", type: .invert)]
        var w = ByteWriter()
        w.value(.filters(list))
        #expect(try Self.decode(w.bytes) == .filters(list))
    }

    @Test func refusals() {
        func message(_ bytes: [UInt8]) -> String {
            do throws(DecodeError) { _ = try Self.decode(bytes); return "" } catch { return "\(error)" }
        }
        #expect(message(Self.filter(name: "odd", tag: 9, numbers: [1])).contains("unknown filter type 9"))
        #expect(message(Self.filter(name: "odd", tag: 9, numbers: [1])).contains("filters.odd"))
        #expect(message(Self.filter(name: "m", tag: 2, numbers: [1, 2, 3])).contains("colorMatrix takes 20 input numbers, got 3"))
        #expect(message(Self.filter(name: "i", tag: 6, numbers: [1])).contains("invert takes 0 input numbers, got 1"))
        var w = ByteWriter()
        w.u32(9)
        #expect(message(w.bytes).contains("9 filters is more than the limit of 8"))
    }
}
