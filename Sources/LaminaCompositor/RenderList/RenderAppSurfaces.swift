import LaminaCore
import LaminaProtocol

/// What a frame's render walk needs to draw hosted app windows in managing clients' layers
/// (`appSurface`): the app session's tree, where each window is a layer numbered as the window
/// holding a layer per surface, and that session's presentation.
public struct AppPortals {
    let tree: ClientTree
    let serial: EntrySerial
    let presentation: ClientPresentation
    let windows: [UInt32: HostedWindow]
    /// The entries of clients managing apps: only their layers show windows.
    let managers: Set<EntrySerial>
}

extension RenderWalk {
    /// Draws the app window a layer shows (`appSurface`) where its contents would go: the
    /// window's layers from the app session's tree, placed in the bounds by `contentsGravity`
    /// (filling them by default) and clipped to the rounded bounds with `masksToBounds`. Its
    /// popups are kept inside the window by the Wayland server, so they show within the layer.
    /// A gone window shows its last frame only where `appExitContents` keeps it.
    mutating func appendAppSurface(_ p: LayerProperties, bounds: Rect, radii: CornerRadii, opacity: Double, tint: Color?,
                                   toDisplay: Transform3D, into commands: inout [DrawCommand]) {
        // Whatever it shows now, the window may come, change or go without this tree changing:
        // its subtree is walked every frame (the cache keeps none of it).
        appSurfaceDraws += 1
        guard let apps, let window = apps.windows[p.appSurface], window.width > 0, window.height > 0,
              window.gone == nil || p.appExitContents == .keep,
              let layer = apps.tree[LayerID(p.appSurface)] else { return }
        appSurfacesDrawn.insert(window.id)
        let d = HostedApps.destination(bounds: bounds, window: window, gravity: p.contentsGravity)
        guard d.width > 0, d.height > 0 else { return }
        let place = Transform3D.scale(x: d.width / Double(window.width), y: d.height / Double(window.height))
            .concatenating(.translation(x: d.minX, y: d.minY))
        let clipStart = commands.count
        if p.masksToBounds {
            commands.append(DrawCommand(kind: .pushClip, transform: toDisplay, bounds: bounds, cornerRadii: radii))
        }
        var walk = RenderWalk(tree: apps.tree, serial: apps.serial, presentation: apps.presentation, transitions: transitions,
                              rasters: rasters, outputRoots: [:])
        walk.visits = visits
        walk.clockTime = clockTime
        walk.displayScale = displayScale
        walk.viewport = viewport
        walk.particleLimits = particleLimits
        walk.particlesLeft = particlesLeft
        // The window layer's own place (its bounds at the session's origin) is the window's
        // points; `place` puts those in this layer's bounds, flattened into its plane.
        let (wp, local) = walk.properties(of: LayerID(p.appSurface), layer, parentTime: clockTime)
        var shown = wp
        shown.position = Point(x: Double(window.width) / 2, y: Double(window.height) / 2)
        shown.bounds = Rect(x: 0, y: 0, width: Double(window.width), height: Double(window.height))
        shown.anchorPoint = Point(x: 0.5, y: 0.5)
        shown.transform = .identity
        walk.visit(LayerID(p.appSurface), layer, shown, localTime: local, superlayerSpace: .identity,
                   superlayerToDisplay: place.concatenating(toDisplay.flatteningZ), parentOpacity: opacity, tint: tint,
                   into: &commands)
        visits = walk.visits
        particlesLeft = walk.particlesLeft
        if p.masksToBounds {
            if commands.count == clipStart + 1 { commands.removeLast() } else { commands.append(DrawCommand(kind: .popClip)) }
        }
    }
}
