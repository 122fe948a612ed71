import LaminaCore
@testable import LaminaGLES
import LaminaHeadless
import LaminaServer
import LaminaTestSupport
import Testing

/// Offscreen groups kept while their commands stay the same (`GroupCache`): groups of opacity
/// too, not only groups that cast a shadow of their pixels.
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
        return try drawList([card, panel], width: 400, height: 200, background: rgb(16, 16, 16))
    }

    @Test("an opacity group is drawn from the cache the second time, with the pixels of a fresh draw")
    func opacityGroupsAreKept() throws {
        let list = try Self.scene()
        let backend = try HeadlessBackend(width: 400, height: 200)
        backend.damageTracking = false
        try backend.present(list)
        let hitsBefore = backend.glesRenderer.groupCache.hits
        try backend.present(list)
        #expect(backend.glesRenderer.groupCache.hits - hitsBefore == 2, "both groups (opacity and shadow) came from the cache")
        let cached = try backend.screenshot()
        backend.glesRenderer.cachesGroups = false
        try backend.present(list)
        let d = cached.difference(from: try backend.screenshot())
        // The appearance is rounded to 8 bits once more than a direct composite: one step at most.
        #expect(d.worst <= 1, "largest channel difference \(d.worst) at (\(d.x), \(d.y)), \(d.differing) pixels differ")
    }
}
