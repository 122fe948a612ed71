import CWlroots

/// One of laminad's outputs as Wayland apps see it (`wl_output`, `xdg_output`): its name, its
/// place and size in the desktop in points, its pixels per point, its refresh and its turn.
public struct WaylandOutput: Sendable, Equatable {
    public var name: String
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var scale: Double
    /// Refreshes per second; 0 where nothing paces the output (headless: told as 60).
    public var refresh: Double
    /// Clockwise quarter turns, 0…3, and mirrored first (`flipped-*`).
    public var quarterTurns: Int
    public var flipped: Bool

    public init(name: String, x: Double, y: Double, width: Double, height: Double, scale: Double = 1,
                refresh: Double = 0, quarterTurns: Int = 0, flipped: Bool = false) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.scale = scale
        self.refresh = refresh
        self.quarterTurns = quarterTurns
        self.flipped = flipped
    }

    /// The mode in pixels, as the panel scans it out (a turned output's sides swap).
    var modePixels: (width: Int32, height: Int32) {
        let s = scale.isFinite && scale > 0 ? scale : 1
        let w = Self.clamped(width * s), h = Self.clamped(height * s)
        return quarterTurns % 2 == 1 ? (h, w) : (w, h)
    }

    /// The scale wlroots keeps (fractional: `xdg_output`'s logical size is the mode over it;
    /// `wl_output.scale` tells it rounded up, as compositors do).
    var wlrScale: Float { Float(max(0.25, min(16, scale.isFinite ? scale : 1))) }

    var transform: wl_output_transform {
        let turns = ((quarterTurns % 4) + 4) % 4
        return wl_output_transform(rawValue: UInt32(turns + (flipped ? 4 : 0)))
    }

    /// Its place in the output layout, whole points (never a trap on a far-off or odd value).
    var layoutPosition: (x: Int32, y: Int32) {
        func whole(_ v: Double) -> Int32 { v.isFinite ? Int32(max(-1e9, min(1e9, v)).rounded()) : 0 }
        return (whole(x), whole(y))
    }

    private static func clamped(_ v: Double) -> Int32 {
        guard v.isFinite else { return 1 }
        return Int32(max(1, min(65_535, v.rounded())))
    }
}

/// laminad's outputs as `wl_output` globals (with `xdg_output` through an output layout):
/// each is a `wlr_output` of the headless backend that is never started, so it exists only to be
/// described. Its mode is set with `wlr_output_update_custom_mode` (a mode commit would ask for a
/// buffer, which no renderer of wlroots makes here) and its scale and transform by commits that
/// carry no buffer.
final class WaylandOutputs {
    private let backend: UnsafeMutablePointer<wlr_backend>
    let layout: UnsafeMutablePointer<wlr_output_layout>
    private(set) var outputs: [String: (output: UnsafeMutablePointer<wlr_output>, shown: WaylandOutput)] = [:]

    init(backend: UnsafeMutablePointer<wlr_backend>, layout: UnsafeMutablePointer<wlr_output_layout>) {
        self.backend = backend
        self.layout = layout
    }

    /// Makes the globals match `wanted`: new outputs appear, changed ones are updated (clients
    /// get the new mode, scale, transform and place, then `done`), gone ones are removed.
    /// Returns the names that failed to update (logged by the caller).
    func update(_ wanted: [WaylandOutput]) -> [String] {
        var failed: [String] = []
        let names = Set(wanted.map(\.name))
        for (name, entry) in outputs where !names.contains(name) {
            wlr_output_layout_remove(layout, entry.output)
            wlr_output_destroy(entry.output)
            outputs[name] = nil
        }
        for o in wanted {
            if let entry = outputs[o.name], entry.shown == o { continue }
            let output: UnsafeMutablePointer<wlr_output>
            if let entry = outputs[o.name] {
                output = entry.output
            } else {
                let mode = o.modePixels
                guard let made = wlr_headless_add_output(backend, UInt32(mode.width), UInt32(mode.height)) else {
                    failed.append(o.name)
                    continue
                }
                output = made
                wlr_output_set_name(output, o.name)
                wlr_output_set_description(output, "Lamina output \(o.name)")
                withUnsafeMutablePointer(to: &output.pointee.make) { p in
                    p.withMemoryRebound(to: CChar.self, capacity: 56) { c in _ = strncpy(c, "Lamina", 55) }
                }
                withUnsafeMutablePointer(to: &output.pointee.model) { p in
                    p.withMemoryRebound(to: CChar.self, capacity: 16) { c in _ = strncpy(c, String(o.name.prefix(15)), 15) }
                }
            }
            let mode = o.modePixels
            let refresh = Int32(max(0, min(1_000_000, (o.refresh > 0 ? o.refresh : 60) * 1000)))
            wlr_output_update_custom_mode(output, mode.width, mode.height, refresh)
            wlr_output_set_scale(output, o.wlrScale)
            wlr_output_set_transform(output, o.transform)
            if !wlr_output_commit(output) {
                wlr_output_rollback(output)
                failed.append(o.name)
            }
            wlr_output_layout_add(layout, output, o.layoutPosition.x, o.layoutPosition.y)
            outputs[o.name] = (output, o)
        }
        return failed
    }

    func close() {
        for entry in outputs.values {
            wlr_output_layout_remove(layout, entry.output)
            wlr_output_destroy(entry.output)
        }
        outputs = [:]
        wlr_output_layout_destroy(layout)
    }
}
