import Testing
@testable import LaminaCore

/// A layer's `filters`: validation naming the filter, the colour matrices each filter reduces
/// to (checked against the formulas on known colours), and `filters.NAME.input` key paths.
@Suite("Layer filters")
struct LayerFilterTests {
    static func reason(_ filters: [LayerFilter]) -> String? {
        do throws(PropertyError) {
            _ = try LayerProperties.validated(.filters, .filters(filters))
            return nil
        } catch {
            return error.description
        }
    }

    @Test("good filters are stored and read back")
    func stores() throws {
        var p = LayerProperties()
        let list: [LayerFilter] = [.gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.5), LayerFilter(name: "neg", type: .invert)]
        try p.set(.filters, .filters(list))
        #expect(p.filters == list)
        #expect(p[.filters] == .filters(list))
        #expect(PropertyKey(name: "filters") == .filters)
        #expect(!PropertyKey.filters.isAnimatable)
        #expect(PropertyKey.filters.minorVersion == 7)
        #expect(LayerFilter(name: "x", type: .colorMatrix).values == ColorMatrix.identity.coefficients)
        #expect(LayerFilter(name: "x", type: .gaussianBlur).values == [10])
    }

    @Test("bad filters are refused with an error naming the filter")
    func refusesBadInput() {
        #expect(Self.reason([.gaussianBlur("soft", radius: 65)])?.contains("filters.soft.inputRadius must be from 0 to 64") == true)
        #expect(Self.reason([.gaussianBlur("soft", radius: -1)])?.contains("filters.soft.inputRadius") == true)
        #expect(Self.reason([.gaussianBlur("soft", radius: .nan)])?.contains("filters.soft.inputRadius must be finite") == true)
        #expect(Self.reason([.colorMatrix("m", [1, 0, 0])])?.contains("filters.m: colorMatrix takes inputMatrix of 20 numbers (got 3)") == true)
        #expect(Self.reason([LayerFilter(name: "n", type: .invert, values: [1])])?.contains("invert takes no inputs") == true)
        #expect(Self.reason([.amount("grey", .saturate, -0.5)])?.contains("filters.grey.inputAmount must not be negative") == true)
        #expect(Self.reason([.gaussianBlur("a.b", radius: 1)])?.contains("no dots") == true)
        let nine = (0..<9).map { LayerFilter.amount("f\($0)", .brightness, 0.1) }
        #expect(Self.reason(nine)?.contains("at most 8 filters a layer (got 9)") == true)
        #expect(Self.reason(Array(nine.prefix(8))) == nil)
        // Unnamed filters are named by their place.
        #expect(Self.reason([.gaussianBlur("", radius: 100)])?.contains("filters.[0].inputRadius") == true)
    }

    static func close(_ a: [Double], _ b: [Double], _ tolerance: Double = 1e-9) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test("each colour filter's matrix follows its formula on known colours")
    func colourMatrices() throws {
        let c: [Double] = [0.8, 0.4, 0.2, 0.5]
        let grey = 0.2126 * 0.8 + 0.7152 * 0.4 + 0.0722 * 0.2
        let sat0 = try #require(ColorMatrix(.amount("s", .saturate, 0)))
        #expect(Self.close(sat0.apply(c), [grey, grey, grey, 0.5]))
        let sat1 = try #require(ColorMatrix(.amount("s", .saturate, 1)))
        #expect(Self.close(sat1.apply(c), c))
        let sat2 = try #require(ColorMatrix(.amount("s", .saturate, 2)))
        #expect(Self.close(sat2.apply(c), [2 * 0.8 - grey, 2 * 0.4 - grey, 2 * 0.2 - grey, 0.5]))
        #expect(Self.close(ColorMatrix(.amount("b", .brightness, 0.1))!.apply(c), [0.9, 0.5, 0.3, 0.5]))
        #expect(Self.close(ColorMatrix(.amount("c", .contrast, 2))!.apply(c), [1.1, 0.3, -0.1, 0.5]))
        #expect(Self.close(ColorMatrix(LayerFilter(name: "i", type: .invert))!.apply(c), [0.2, 0.6, 0.8, 0.5]))
        // A hue turn of 0 changes nothing, and keeps greys grey at any angle.
        #expect(Self.close(ColorMatrix(.hueRotate("h", angle: 0))!.apply(c), c, 1e-3))
        let turned = ColorMatrix(.hueRotate("h", angle: 2))!.apply([0.5, 0.5, 0.5, 1])
        #expect(Self.close(turned, [0.5, 0.5, 0.5, 1], 2e-3))
        // CIColorMatrix order: R, G, B, A vectors then the bias.
        let swap = ColorMatrix(.colorMatrix("m", [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0]))!
        #expect(Self.close(swap.apply(c), [0.4, 0.8, 0.30000000000000004, 0.5]))
        #expect(ColorMatrix(.gaussianBlur("g", radius: 3)) == nil)
    }

    @Test("composing matrices applies them in order")
    func composition() {
        let a = ColorMatrix(.amount("b", .brightness, 0.1))!
        let b = ColorMatrix(.amount("c", .contrast, 2))!
        let c: [Double] = [0.3, 0.6, 0.9, 1]
        #expect(Self.close(a.then(b).apply(c), b.apply(a.apply(c))))
        #expect(Self.close(b.then(a).apply(c), a.apply(b.apply(c))))
        #expect(ColorMatrix.identity.then(a) == a)
    }

    @Test("filters.NAME.input key paths read and write the named filter")
    func keyPaths() throws {
        var p = LayerProperties()
        p.filters = [.gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.5)]
        let radius = try AnimationKeyPath.parse("filters.soft.inputRadius")
        #expect(radius.property == .filters)
        #expect(radius.valueType == .number)
        #expect(radius.description == "filters.soft.inputRadius")
        #expect(radius.value(in: p) == .number(8))
        radius.apply(.number(12), to: &p)
        #expect(p.filters[0].values == [12])
        // A spring's overshoot is kept within the radius bound.
        radius.apply(.number(-3), to: &p)
        #expect(p.filters[0].values == [0])
        let amount = try AnimationKeyPath.parse("filters.grey.inputAmount")
        amount.apply(.number(0.25), to: &p)
        #expect(p.filters[1].values == [0.25])
        // The wrong input for the filter, or a missing name, writes nothing.
        try AnimationKeyPath.parse("filters.soft.inputAmount").apply(.number(3), to: &p)
        try AnimationKeyPath.parse("filters.none.inputRadius").apply(.number(3), to: &p)
        #expect(p.filters[0].values == [0] && p.filters[1].values == [0.25])
        #expect(try AnimationKeyPath.parse("filters.m.inputMatrix").valueType == .numbers)
        #expect(throws: KeyPathError.self) { try AnimationKeyPath.parse("filters.soft.inputRadios") }
        #expect(throws: KeyPathError.self) { try AnimationKeyPath.parse("filters.soft") }
        do {
            _ = try AnimationKeyPath.parse("filters.soft.inputRadios")
        } catch {
            #expect(error.description.contains("inputRadius"))
        }
    }

    @Test("backgroundFilters: stored beside filters, key paths into them, errors naming them")
    func backgroundFilters() throws {
        var p = LayerProperties()
        try p.set(.backgroundFilters, .filters([.gaussianBlur("frost", radius: 20), .amount("pale", .saturate, 1.5)]))
        #expect(p.filters.isEmpty && p.backgroundFilters.count == 2)
        #expect(p[.backgroundFilters] == .filters(p.backgroundFilters))
        #expect(PropertyKey(rawValue: 77) == .backgroundFilters && PropertyKey.backgroundFilters.valueType == .filters)
        let radius = try AnimationKeyPath.parse("backgroundFilters.frost.inputRadius")
        #expect(radius.property == .backgroundFilters && radius.description == "backgroundFilters.frost.inputRadius")
        #expect(radius.value(in: p) == .number(20))
        radius.apply(.number(90), to: &p)
        #expect(p.backgroundFilters[0].values == [64], "kept within the radius bound")
        p.filters = [.gaussianBlur("frost", radius: 2)]
        radius.apply(.number(5), to: &p)
        #expect(p.filters[0].values == [2] && p.backgroundFilters[0].values == [5], "the key path writes its own list only")
        #expect(throws: KeyPathError.self) { try AnimationKeyPath.parse("backgroundFilters.frost.inputRadios") }
        do {
            try p.set(.backgroundFilters, .filters([.gaussianBlur("frost", radius: 100)]))
            Issue.record("a radius of 100 was stored")
        } catch {
            #expect(error.description.contains("backgroundFilters.frost.inputRadius must be from 0 to 64"), "\(error)")
        }
    }
}
