import Testing
import LaminaCore

/// Core Animation's autoresizing (`resizeWithOldSuperlayerSize:`) and constraint layout
/// (`CAConstraintLayoutManager`), as pure values.
@Suite("Layout maths")
struct LayoutTests {
    let old = Rect(x: 0, y: 0, width: 1280, height: 720)
    let new = Rect(x: 0, y: 0, width: 800, height: 600)

    @Test func noMaskKeepsTheFrame() {
        let f = Rect(x: 40, y: 40, width: 200, height: 100)
        #expect(AutoresizingMask().resized(f, oldSuperlayerBounds: old, newSuperlayerBounds: new) == f)
    }

    @Test func fixedMarginsStretchTheSize() {
        // A panel 40 from every edge: width and height take the whole change.
        let f = Rect(x: 40, y: 40, width: 1200, height: 640)
        let r = AutoresizingMask([.widthSizable, .heightSizable]).resized(f, oldSuperlayerBounds: old, newSuperlayerBounds: new)
        #expect(r == Rect(x: 40, y: 40, width: 720, height: 520))
    }

    @Test func flexibleLeftMarginKeepsTheRightOne() {
        // Pinned to the bottom right: 20 from the right, 20 from the bottom.
        let f = Rect(x: 1160, y: 600, width: 100, height: 100)
        let r = AutoresizingMask([.minXMargin, .minYMargin]).resized(f, oldSuperlayerBounds: old, newSuperlayerBounds: new)
        #expect(r == Rect(x: 680, y: 480, width: 100, height: 100))
    }

    @Test func flexiblePartsShareInProportionToTheirSizes() {
        // Left margin 100, width 200, right margin 980: width and right margin flexible
        // (1180 in all) share −480 as 200:980.
        let f = Rect(x: 100, y: 0, width: 200, height: 10)
        let r = AutoresizingMask([.widthSizable, .maxXMargin]).resized(f, oldSuperlayerBounds: old, newSuperlayerBounds: new)
        #expect(r.minX == 100)
        #expect(abs(r.width - (200 - 480 * 200 / 1180)) < 1e-9)
        // Both margins flexible: a centred layer stays centred.
        let c = Rect(x: 540, y: 310, width: 200, height: 100)
        let m = AutoresizingMask([.minXMargin, .maxXMargin, .minYMargin, .maxYMargin])
            .resized(c, oldSuperlayerBounds: old, newSuperlayerBounds: new)
        #expect(m == Rect(x: 300, y: 250, width: 200, height: 100))
    }

    @Test func allFlexibleScalesWithTheSuperlayer() {
        let f = Rect(x: 128, y: 72, width: 256, height: 144)
        let r = AutoresizingMask.all.resized(f, oldSuperlayerBounds: old, newSuperlayerBounds: new)
        #expect(abs(r.minX - 80) < 1e-9 && abs(r.width - 160) < 1e-9)
        #expect(abs(r.minY - 60) < 1e-9 && abs(r.height - 120) < 1e-9)
    }

    @Test func zeroSizedFlexiblePartsShareEvenly() {
        // Flush left, zero width: nothing to be proportional to, so the two share evenly.
        let f = Rect(x: 0, y: 0, width: 0, height: 0)
        let wide = Rect(x: 0, y: 0, width: 0, height: 0)
        let r = AutoresizingMask([.minXMargin, .widthSizable]).resized(f, oldSuperlayerBounds: wide,
                                                                       newSuperlayerBounds: Rect(x: 0, y: 0, width: 100, height: 0))
        #expect(r.minX == 50 && r.width == 50)
    }

    @Test func maskNames() {
        #expect(AutoresizingMask(names: ["minXMargin", "heightSizable"]) == [.minXMargin, .heightSizable])
        #expect(AutoresizingMask(names: ["widthSizeable"]) == nil)
        #expect(AutoresizingMask([.maxYMargin, .widthSizable]).names == ["widthSizable", "maxYMargin"])
        #expect(AutoresizingMask.all.rawValue == 63)
    }

    // MARK: Constraints

    let bounds = Rect(x: 0, y: 0, width: 800, height: 600)

    @Test func centredInTheSuperlayer() throws {
        let item = ConstraintLayout.Item(name: "title", frame: Rect(x: 0, y: 0, width: 200, height: 50),
                                         constraints: [LayoutConstraint(attribute: .midX), LayoutConstraint(attribute: .midY)])
        let frames = try ConstraintLayout().solve([item], superlayerBounds: bounds)
        #expect(frames == [Rect(x: 300, y: 275, width: 200, height: 50)])
    }

    @Test func twoEdgesGiveTheSizeAndScaleAndOffsetApply() throws {
        let item = ConstraintLayout.Item(name: "bar", frame: Rect(x: 5, y: 5, width: 10, height: 10), constraints: [
            LayoutConstraint(attribute: .minX, offset: 20),
            LayoutConstraint(attribute: .maxX, relativeTo: "superlayer", sourceAttribute: .maxX, scale: 1, offset: -20),
            LayoutConstraint(attribute: .height, relativeTo: "superlayer", sourceAttribute: .height, scale: 0.25, offset: 0),
            LayoutConstraint(attribute: .maxY, offset: -10),
        ])
        let frames = try ConstraintLayout().solve([item], superlayerBounds: bounds)
        #expect(frames == [Rect(x: 20, y: 440, width: 760, height: 150)])
    }

    @Test func oneAttributeKeepsTheOthers() throws {
        // Only width: the origin stays; only maxX: the size stays.
        let a = ConstraintLayout.Item(name: "a", frame: Rect(x: 7, y: 9, width: 10, height: 10),
                                      constraints: [LayoutConstraint(attribute: .width, relativeTo: "superlayer", sourceAttribute: .width, scale: 0.5, offset: 0)])
        let b = ConstraintLayout.Item(name: "b", frame: Rect(x: 7, y: 9, width: 10, height: 10),
                                      constraints: [LayoutConstraint(attribute: .maxX)])
        let frames = try ConstraintLayout().solve([a, b], superlayerBounds: bounds)
        #expect(frames == [Rect(x: 7, y: 9, width: 400, height: 10), Rect(x: 790, y: 9, width: 10, height: 10)])
    }

    @Test func siblingsResolveInDependencyOrder() throws {
        // "badge" hangs off "title", which is listed after it; "title" is centred.
        let badge = ConstraintLayout.Item(name: "badge", frame: Rect(x: 0, y: 0, width: 20, height: 20), constraints: [
            LayoutConstraint(attribute: .minX, relativeTo: "title", sourceAttribute: .maxX, scale: 1, offset: 4),
            LayoutConstraint(attribute: .midY, relativeTo: "title", sourceAttribute: .midY, scale: 1, offset: 0),
        ])
        let title = ConstraintLayout.Item(name: "title", frame: Rect(x: 0, y: 0, width: 200, height: 50),
                                          constraints: [LayoutConstraint(attribute: .midX), LayoutConstraint(attribute: .midY)])
        let plain = ConstraintLayout.Item(name: "plain", frame: Rect(x: 1, y: 2, width: 3, height: 4), constraints: [])
        let frames = try ConstraintLayout().solve([badge, title, plain], superlayerBounds: bounds)
        #expect(frames[1] == Rect(x: 300, y: 275, width: 200, height: 50))
        #expect(frames[0] == Rect(x: 504, y: 290, width: 20, height: 20))
        #expect(frames[2] == plain.frame)
    }

    @Test func aCycleIsRefusedNamingTheRing() {
        let a = ConstraintLayout.Item(name: "a", frame: .zero, constraints: [LayoutConstraint(attribute: .minX, relativeTo: "b")])
        let b = ConstraintLayout.Item(name: "b", frame: .zero, constraints: [
            LayoutConstraint(attribute: .minY), LayoutConstraint(attribute: .minX, relativeTo: "a"),
        ])
        #expect(throws: ConstraintLayout.Failure.cycle(layer: 1, constraint: 1, cycle: [0, 1])) {
            try ConstraintLayout().solve([a, b], superlayerBounds: bounds)
        }
        let selfish = ConstraintLayout.Item(name: "s", frame: .zero, constraints: [LayoutConstraint(attribute: .width, relativeTo: "s", sourceAttribute: .height)])
        #expect(throws: ConstraintLayout.Failure.cycle(layer: 0, constraint: 0, cycle: [0])) {
            try ConstraintLayout().solve([selfish], superlayerBounds: bounds)
        }
    }

    @Test func anUnknownNameIsRefused() {
        let a = ConstraintLayout.Item(name: "a", frame: .zero, constraints: [LayoutConstraint(attribute: .minX, relativeTo: "tilte")])
        let t = ConstraintLayout.Item(name: "title", frame: .zero, constraints: [])
        #expect(throws: ConstraintLayout.Failure.unknownSource(layer: 0, constraint: 0, name: "tilte")) {
            try ConstraintLayout().solve([a, t], superlayerBounds: bounds)
        }
    }

    @Test func constraintsAreAPropertyWithBounds() throws {
        var p = LayerProperties()
        try p.set(.autoresizingMask, .number(18))
        #expect(p.autoresizingMask == [.widthSizable, .heightSizable])
        #expect(throws: PropertyError.self) { try p.set(.autoresizingMask, .number(64)) }
        let c = LayoutConstraint(attribute: .midX)
        try p.set(.constraints, .constraints([c]))
        #expect(p[.constraints] == .constraints([c]))
        #expect(throws: PropertyError.self) {
            try p.set(.constraints, .constraints(Array(repeating: c, count: LayoutConstraint.perLayerLimit + 1)))
        }
        #expect(!PropertyKey.constraints.isAnimatable && !PropertyKey.autoresizingMask.isAnimatable)
        #expect(PropertyKey(name: "constraints") == .constraints && PropertyKey.constraints.minorVersion == 7)
    }
}
