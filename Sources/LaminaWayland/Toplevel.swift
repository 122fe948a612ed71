#if canImport(Glibc)
import Glibc
#endif
import CWlroots
import LaminaCore

/// One xdg toplevel: its wlroots objects, the listeners on them, the `AppSurface` the host
/// shows, and a `SurfaceView` for each surface of its tree shown now. Kiosk mode: configured to
/// the desktop's size as soon as it exists.
final class Toplevel {
    let xdgSurface: UnsafeMutablePointer<wlr_xdg_surface>
    let surface: UnsafeMutablePointer<wlr_surface>
    let app: AppSurface
    let owner: WaylandClient
    var map: Listener!
    var unmap: Listener!
    var destroy: Listener!
    var setTitle: Listener!
    private(set) var isMapped = false
    /// When it was mapped, in the server's order (the newest is on top).
    var mappedSerial: UInt64 = 0
    /// The views of the surfaces shown, by `wlr_surface`; the window's own is made with it.
    var views: [UnsafeMutableRawPointer: SurfaceView] = [:]
    /// Where the window's geometry starts in its own surface (a client's shadow margin).
    private(set) var geometryOrigin = (x: 0, y: 0)

    init(xdgSurface: UnsafeMutablePointer<wlr_xdg_surface>, app: AppSurface, owner: WaylandClient, rootPart: AppSurfacePart) {
        self.xdgSurface = xdgSurface
        surface = xdgSurface.pointee.surface
        self.app = app
        self.owner = owner
        views[UnsafeMutableRawPointer(surface)] = SurfaceView(surface: surface, part: rootPart)
    }

    var root: SurfaceView { views[UnsafeMutableRawPointer(surface)]! }

    func detachAll() {
        for l in [map, unmap, destroy, setTitle] { l?.detach() }
        for view in views.values { view.detach() }
    }

    var toplevel: UnsafeMutablePointer<wlr_xdg_toplevel> { xdgSurface.pointee.toplevel }

    /// Reads the title and app id (wlroots keeps them as C strings).
    func readNames() -> Bool {
        let title = toplevel.pointee.title.map { String(cString: $0) } ?? ""
        let appID = toplevel.pointee.app_id.map { String(cString: $0) } ?? ""
        defer { app.title = title; app.appID = appID }
        return title != app.title || appID != app.appID
    }

    func markMapped(_ mapped: Bool) { isMapped = mapped }

    /// The mapped surfaces of the window's tree, bottom to top, at their places in the window's
    /// own surface (wlroots' walk: subsurfaces in their stacking order, then popups). At most
    /// `limit` (the client's surface bound: the walk cannot grow past what it may hold).
    func mappedSurfaces(limit: Int) -> [(surface: UnsafeMutablePointer<wlr_surface>, x: Int, y: Int)] {
        final class Walk {
            var found: [(surface: UnsafeMutablePointer<wlr_surface>, x: Int, y: Int)] = []
            let limit: Int
            init(limit: Int) { self.limit = limit }
        }
        let walk = Walk(limit: limit)
        withExtendedLifetime(walk) {
            wlr_xdg_surface_for_each_surface(xdgSurface, { surface, x, y, data in
                guard let surface, let data else { return }
                let walk = Unmanaged<Walk>.fromOpaque(data).takeUnretainedValue()
                if walk.found.count < walk.limit { walk.found.append((surface, Int(x), Int(y))) }
            }, Unmanaged.passUnretained(walk).toOpaque())
        }
        return walk.found
    }

    /// Brings the views and the parts in line with the tree: views for surfaces newly shown
    /// (their pixels taken whole, reported in `damage`), none for surfaces gone, every part
    /// placed from the window geometry's corner, in stacking order. `makeView` attaches a new
    /// view's commit listener. Returns a reason when a new surface's buffer is refused.
    func sync(limit: Int, maxPixels: Int, damage: inout [UInt32: PixelRect], makeView: (UnsafeMutablePointer<wlr_surface>) -> SurfaceView) -> String? {
        var box = wlr_box()
        wlr_xdg_surface_get_geometry(xdgSurface, &box)
        geometryOrigin = (Int(box.x), Int(box.y))
        var kept: [UnsafeMutableRawPointer: SurfaceView] = [:]
        var parts: [AppSurfacePart] = []
        var refusal: String?
        for entry in mappedSurfaces(limit: limit) {
            let key = UnsafeMutableRawPointer(entry.surface)
            let view: SurfaceView
            if let known = views[key] {
                view = known
            } else {
                view = makeView(entry.surface)
                switch view.copyCommittedPixels(maxPixels: maxPixels, whole: true) {
                case .damaged(let rect, _): damage[view.part.id] = rect
                case .refused(let why): refusal = why
                case .none: break
                }
            }
            view.part.x = entry.x - geometryOrigin.x
            view.part.y = entry.y - geometryOrigin.y
            kept[key] = view
            parts.append(view.part)
        }
        // The window's own surface keeps its view (and listener) while unmapped.
        let rootKey = UnsafeMutableRawPointer(surface)
        if kept[rootKey] == nil, let rootView = views[rootKey] { kept[rootKey] = rootView }
        for (key, view) in views where kept[key] == nil { view.detach() }
        views = kept
        app.parts = parts.filter { $0.shownPicture != nil }
        app.width = root.part.width
        app.height = root.part.height
        app.pointWidth = box.width > 0 ? Int(box.width) : root.part.pointWidth
        app.pointHeight = box.height > 0 ? Int(box.height) : root.part.pointHeight
        return refusal
    }

    /// Forgets a surface of its tree that is being destroyed (its part goes at once).
    func forget(_ surface: UnsafeMutableRawPointer) {
        guard surface != UnsafeMutableRawPointer(self.surface), let view = views.removeValue(forKey: surface) else { return }
        view.detach()
        app.parts.removeAll { $0 === view.part }
    }
}
