import Testing
@testable import LaminaCore

/// Emitter layers' properties and cells: key paths into cells, validation naming the cell.
@Suite("Emitter properties")
struct EmitterPropertyTests {
    static func layer() -> LayerProperties {
        var p = LayerProperties(kind: .emitter)
        var snow = EmitterCell(name: "snow")
        snow.birthRate = 10
        var spark = EmitterCell(name: "spark")
        spark.velocity = 3
        snow.emitterCells = [spark]
        p.emitter.emitterCells = [snow]
        return p
    }

    @Test("emitterCells.NAME.field and nested key paths read and write the named cell")
    func keyPaths() throws {
        var p = Self.layer()
        let rate = try AnimationKeyPath.parse("emitterCells.snow.birthRate")
        #expect(rate.valueType == .number && rate.description == "emitterCells.snow.birthRate")
        #expect(rate.value(in: p) == .number(10))
        rate.apply(.number(25), to: &p)
        #expect(p.emitter.emitterCells[0].birthRate == 25)
        let nested = try AnimationKeyPath.parse("emitterCells.snow.emitterCells.spark.velocity")
        #expect(nested.value(in: p) == .number(3))
        nested.apply(.number(-8), to: &p)
        #expect(p.emitter.emitterCells[0].emitterCells[0].velocity == -8)
        // A rate may not go below 0 even when a spring overshoots; NaN is ignored.
        rate.apply(.number(-1), to: &p)
        #expect(p.emitter.emitterCells[0].birthRate == 0)
        rate.apply(.number(.nan), to: &p)
        #expect(p.emitter.emitterCells[0].birthRate == 0)
        // A missing cell reads as a default cell's value and writes nothing.
        let missing = try AnimationKeyPath.parse("emitterCells.rain.color")
        #expect(missing.value(in: p) == .color(.white))
        // The layer's multipliers are plain properties.
        #expect(try AnimationKeyPath.parse("birthRate").property == .birthRate)
    }

    @Test("bad cell key paths name what is wrong")
    func badKeyPaths() {
        #expect(throws: KeyPathError.self) { try AnimationKeyPath.parse("emitterCells.snow.birthRat") }
        #expect(throws: KeyPathError.notAnimatable(keyPath: "emitterCells.snow.name", property: "name")) {
            try AnimationKeyPath.parse("emitterCells.snow.name")
        }
        #expect(throws: KeyPathError.self) { try AnimationKeyPath.parse("emitterCells.snow") }
        #expect(throws: KeyPathError.notAnimatable(keyPath: "emitterCells", property: "emitterCells")) {
            try AnimationKeyPath.parse("emitterCells")
        }
    }

    @Test("validation refuses NaN, negative rates and deep nesting, naming the cell and field")
    func validation() throws {
        var p = LayerProperties(kind: .emitter)
        var bad = EmitterCell(name: "snow")
        bad.lifetime = .infinity
        #expect(throws: PropertyError.self) { try p.set(.emitterCells, .emitterCells([bad])) }
        do { try p.set(.emitterCells, .emitterCells([bad])) } catch {
            #expect(error.description.contains("emitterCells.snow.lifetime must be finite"))
        }
        bad.lifetime = 1
        bad.birthRate = -2
        do { try p.set(.emitterCells, .emitterCells([bad])); Issue.record("accepted") } catch {
            #expect(error.description.contains("emitterCells.snow.birthRate must not be negative"))
        }
        var deep = EmitterCell(name: "leaf")
        for _ in 0..<EmitterCell.maximumDepth { var c = EmitterCell(name: "n"); c.emitterCells = [deep]; deep = c }
        #expect(throws: PropertyError.self) { try p.set(.emitterCells, .emitterCells([deep])) }
        #expect(throws: PropertyError.self) { try p.set(.emitterShape, .string("square")) }
        #expect(throws: PropertyError.self) { try p.set(.seed, .number(1.5)) }
        try p.set(.emitterShape, .string("sphere"))
        try p.set(.renderMode, .string("additive"))
        #expect(p.emitter.emitterShape == .sphere && p[.renderMode] == .string("additive"))
        #expect(EmitterCellField(name: "isEnabled") == .isEnabled && EmitterCellField.isEnabled.name == "enabled")
    }
}
