import LaminaCore
@testable import LaminaGLES
import LaminaCompositor
import LaminaTestSupport
import Testing

/// Offscreen groups kept while their commands stay the same (`GroupCache`): groups of opacity
/// and masked groups too, not only groups that cast a shadow of their pixels.
@Suite("Group cache")
struct GroupCacheTests {
    /// A translucent card with content (group opacity) and a shadowed panel.
    static func scene() throws -> DrawList {
        let card = SceneLayer(frame: Rect(20, 20, 160, 120), color: rgb(30, 90, 200), sublayers: [
            SceneLayer(frame: Rect(10, 10, 80, 60), color: rgb(250, 200, 40)),
            SceneLayer(frame: Rect(60, 40, 80, 60), color: rgb(40, 220, 120)) { $0.cornerRadius = 10 },
        ]) { $0.opacity = 0.6; $0.cornerRadius = 14 }
        let panel = SceneLayer(frame: Rect(220, 40, 140, 100), color: .white, sublayers: [
            SceneLayer(frame: Rect(10, 10, 60, 20), color: rgb(200, 30, 30)),
        ]) { $0.shadowOpacity = 0.7; $0.shadowRadius = 8; $0.cornerRadius = 10 }
        // A masked layer: a gradient of squares seen through a round mask.
        let masked = SceneLayer(frame: Rect(250, 150, 60, 40), color: rgb(250, 120, 0), sublayers: [
            SceneLayer(frame: Rect(5, 5, 30, 20), color: rgb(0, 120, 250)),
        ], mask: SceneLayer(frame: Rect(0, 0, 60, 40), color: .white) { $0.cornerRadius = 20 })
        return try drawList([card, panel, masked], width: 400, height: 200, background: rgb(16, 16, 16))
    }

    @Test("opacity, shadow and mask groups are kept the second time they are drawn the same, with the pixels of a fresh draw")
    func opacityGroupsAreKept() throws {
        let list = try Self.scene()
        let backend = try HeadlessDisplay(width: 400, height: 200)
        backend.damageTracking = false
        try backend.present(list)
        let cache = backend.renderer.groupCache
        #expect(cache.count == 0 && cache.unkept == 3, "drawn once: not kept yet (\(cache.count) kept)")
        let first = try backend.screenshot()
        try backend.present(list)
        #expect(cache.count == 3 && cache.hits == 0, "drawn twice the same: kept")
        let hitsBefore = cache.hits
        try backend.present(list)
        #expect(cache.hits - hitsBefore == 3, "the three groups (opacity, shadow, mask) came from the cache")
        let cached = try backend.screenshot()
        backend.renderer.cachesGroups = false
        try backend.present(list)
        let uncached = try backend.screenshot()
        // A group not kept composites directly, as with the cache off.
        #expect(first.difference(from: uncached).worst == 0, "a group not kept is drawn as without the cache")
        let d = cached.difference(from: uncached)
        // The appearance is rounded to 8 bits once more than a direct composite: one step at most.
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels differ")
    }

    /// A group whose commands change every frame (a turning card with a shadow of its pixels)
    /// is drawn through its appearance each frame but never kept: no entry allocated, none
    /// evicted. Once it stops, it is kept the second frame it is drawn the same.
    @Test("a group changing every frame is not kept, and is kept once it stops")
    func changingGroupsAreNotKept() throws {
        func list(_ angle: Double) throws -> DrawList {
            let card = SceneLayer(frame: Rect(150, 50, 100, 100), color: rgb(30, 90, 200), sublayers: [
                SceneLayer(frame: Rect(10, 10, 40, 30), color: rgb(250, 200, 40)),
            ]) {
                $0.shadowOpacity = 0.8; $0.shadowRadius = 6; $0.cornerRadius = 12
                $0.transform = .rotation(angle: angle)
            }
            return try drawList([card], width: 400, height: 200, background: rgb(16, 16, 16))
        }
        let backend = try HeadlessDisplay(width: 400, height: 200)
        backend.damageTracking = false
        let cache = backend.renderer.groupCache
        for k in 0..<12 { try backend.present(try list(Double(k) * 0.1)) }
        #expect(cache.count == 0 && cache.evictions == 0 && cache.hits == 0, "\(cache.count) kept, \(cache.evictions) evicted")
        #expect(cache.unkept == 12 && cache.misses == 12)
        // Turned by a frame's step, drawn straight onto the display: the same within a step.
        let turning = try backend.screenshot()
        backend.renderer.cachesGroups = false
        try backend.present(try list(1.1))
        let d = turning.difference(from: try backend.screenshot())
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y))")
        backend.renderer.cachesGroups = true
        try backend.present(try list(1.1))
        #expect(cache.count == 1 && cache.hits == 0, "the still card, drawn the second time, is kept")
        try backend.present(try list(1.1))
        #expect(cache.hits == 1)
    }
}
