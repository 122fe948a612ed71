import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
@testable import LaminaCompositor

/// Layout through the compositor, by pixels: a scene laid out by autoresizing and constraints
/// at one display size, then `Compositor.resize` (what laminad calls when the backend's desktop
/// changes size), drawn by GLES on llvmpipe into the headless output.
@Suite("Layout on screen", .serialized)
final class LayoutCompositorTests {
    let h: CompositorHarness
    var compositor: Compositor { h.compositor }

    init() throws {
        h = try CompositorHarness(headlessWidth: 128, height: 96)
    }

    static func layer(_ id: UInt32, name: String, frame: Rect, color: Color, in parent: LayerID = .root,
                      mask: AutoresizingMask = [], constraints: [LayoutConstraint] = []) -> [Operation] {
        LayoutTreeTests.layer(id, name: name, frame: frame, in: parent, mask: mask, constraints: constraints)
            + [.set(LayerID(id), .backgroundColor, .color(color))]
    }

    /// A blue panel 8 points from every edge, a red 16-point square 4 from the bottom right
    /// corner, and a green bar centred in the panel by constraints, 8 from its top.
    static let scene: [Operation] =
        layer(1, name: "panel", frame: Rect(x: 8, y: 8, width: 112, height: 80), color: Color(red: 0, green: 0, blue: 1, alpha: 1),
              mask: [.widthSizable, .heightSizable])
        + layer(2, name: "corner", frame: Rect(x: 108, y: 76, width: 16, height: 16), color: .red, mask: [.minXMargin, .minYMargin])
        + layer(3, name: "bar", frame: Rect(x: 0, y: 0, width: 32, height: 8), color: Color(red: 0, green: 1, blue: 0, alpha: 1),
                in: LayerID(1), constraints: [LayoutConstraint(attribute: .midX), LayoutConstraint(attribute: .minY, offset: 8)])

    static let blue: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 255, 255)
    static let black: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 255)
    static let green: (UInt8, UInt8, UInt8, UInt8) = (0, 255, 0, 255)
    static let red: (UInt8, UInt8, UInt8, UInt8) = (255, 0, 0, 255)

    @Test func aDisplayResizeLaysTheSceneOutAgainAnimated() throws {
        let a = h.hello("a")
        guard case .applied? = h.commit(a, Self.scene) else { Issue.record("the scene was refused: \(h.take(a))"); return }
        let before = try h.screenshot(a)
        #expect(before.pixel(x: 4, y: 48) == Self.black, "left margin")
        #expect(before.pixel(x: 20, y: 48) == Self.blue)
        #expect(before.pixel(x: 64, y: 20) == Self.green, "bar centred at 64, 16…24")
        #expect(before.pixel(x: 44, y: 20) == Self.blue)
        #expect(before.pixel(x: 116, y: 84) == Self.red)

        #expect(compositor.resize(width: 96, height: 64))
        // Layout animates by the layers' actions: at once the old frames still show.
        let start = try h.screenshot(a)
        #expect(start.pixel(x: 84, y: 52) == Self.blue, "the corner has not jumped")
        h.advance(a, 1)
        let after = try h.screenshot(a)
        #expect(after.width >= 96 && after.height >= 64)
        #expect(after.pixel(x: 4, y: 32) == Self.black, "the left margin is kept")
        #expect(after.pixel(x: 91, y: 32) == Self.black, "the right margin is kept (panel 8…88)")
        #expect(after.pixel(x: 86, y: 32) == Self.blue, "the panel stretched to 88")
        #expect(after.pixel(x: 84, y: 52) == Self.red, "the corner follows the bottom right (76…92, 44…60)")
        #expect(after.pixel(x: 48, y: 20) == Self.green, "the bar stays centred (32…64)")
        #expect(after.pixel(x: 28, y: 20) == Self.blue)
        #expect(after.pixel(x: 68, y: 20) == Self.blue)
    }

    @Test func aConstraintCycleIsRefusedWithAClearError() throws {
        let a = h.hello("a")
        let ops = Self.layer(1, name: "a", frame: .zero, color: .red, constraints: [LayoutConstraint(attribute: .minX, relativeTo: "b")])
            + Self.layer(2, name: "b", frame: .zero, color: .red, constraints: [LayoutConstraint(attribute: .maxX, relativeTo: "a", sourceAttribute: .minX, scale: 1, offset: 0)])
        guard case .error(let e)? = h.commit(a, ops) else { Issue.record("a cycle was accepted"); return }
        #expect(e.code == .cycle)
        #expect(e.message.contains("constraint 0") && e.message.contains("a → b → a"), "\(e.message)")
        #expect(compositor.model.tree(of: a)?[.root]?.sublayers.isEmpty == true)
    }
}
