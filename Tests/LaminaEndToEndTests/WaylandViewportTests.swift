import Foundation
import Testing
import LaminaCore
import LaminaImage

/// Kiosk mode's `wp_viewport` (source crop and destination size) and `wl_surface` buffer
/// transforms, with the unmodified weston-scaler and weston-transformed (Debian's weston).
extension WaylandEndToEndTests {
    static let scaler = "/usr/bin/weston-scaler"
    static let transformed = "/usr/bin/weston-transformed"

    /// Whether `p` is within `tolerance` of the colour, per channel.
    func near(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ r: Int, _ g: Int, _ b: Int, tolerance: Int = 12) -> Bool {
        abs(Int(p.r) - r) <= tolerance && abs(Int(p.g) - g) <= tolerance && abs(Int(p.b) - b) <= tolerance
    }

    /// Runs weston-scaler with `mode` until its window shows (`ready`), checks, then quits it and
    /// waits for the desktop to be empty again.
    func withScaler(_ daemon: DaemonProcess, _ socket: String, _ mode: String, ready: (Bitmap) -> Bool, _ check: (Bitmap) -> Void) throws {
        let app = try App(daemon, socket: socket, program: Self.scaler, arguments: [mode])
        try wait("weston-scaler \(mode)'s window", daemon) { ready(try screenshot(daemon, "scaler\(mode)-wait")) }
        check(try screenshot(daemon, "scaler\(mode)"))
        app.kill()
        try wait("the desktop empty after weston-scaler \(mode)", daemon) {
            let shot = try screenshot(daemon, "scaler\(mode)-gone")
            return shot.pixel(x: 20, y: 20) == (0, 0, 0, 255) && shot.pixel(x: 110, y: 154) == (0, 0, 0, 255)
        }
    }

    /// `wp_viewport`, with weston-scaler (clients/scaler.c): a scale-2 buffer of 842 × 674 pixels,
    /// red, with a blue box at pixels (42, 50) of 110 × 154 whose left and top pixel columns are
    /// green, whose right column is white, and a black row under it. `-d` asks a 220 × 308
    /// destination only: the whole buffer squashed there (red, the box at the top left). `-s`
    /// crops to the box from half way into its green edges to half way into the red beyond its
    /// white one, at its own size (55 × 77 points): blue, whiter to the right. `-b` shows that
    /// crop stretched to 220 × 308: blue, green top and left edges, a white right edge, nothing
    /// beyond. Without the crop both would show mostly red.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.scaler), "weston-scaler (Debian's weston) is not installed"))
    func aViewportSourceCropsTheBuffer() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        try withScaler(daemon, path, "-d", ready: { $0.pixel(x: 110, y: 154) != (0, 0, 0, 255) }) { shot in
            #expect(near(shot.pixel(x: 110, y: 154), 255, 0, 0), "the buffer's red middle: \(shot.pixel(x: 110, y: 154))")
            #expect(near(shot.pixel(x: 25, y: 58), 0, 0, 255), "the blue box at the top left, squashed: \(shot.pixel(x: 25, y: 58))")
            #expect(near(shot.pixel(x: 217, y: 300), 255, 0, 0), "red to the destination's corner: \(shot.pixel(x: 217, y: 300))")
            #expect(shot.pixel(x: 224, y: 154) == (0, 0, 0, 255), "nothing right of 220 points: \(shot.pixel(x: 224, y: 154))")
            #expect(shot.pixel(x: 110, y: 312) == (0, 0, 0, 255), "nothing under 308 points: \(shot.pixel(x: 110, y: 312))")
        }
        try withScaler(daemon, path, "-s", ready: { $0.pixel(x: 27, y: 38) != (0, 0, 0, 255) }) { shot in
            let middle = shot.pixel(x: 27, y: 38)
            #expect(middle.b > 230 && middle.r < 30 && middle.g < 30, "the crop's blue middle: \(middle)")
            let right = shot.pixel(x: 54, y: 38)
            #expect(right.b > 100 && right.r > 60, "the crop's right edge, white (and red beyond it): \(right)")
            #expect(shot.pixel(x: 58, y: 38) == (0, 0, 0, 255), "the crop is 55 points wide: \(shot.pixel(x: 58, y: 38))")
            #expect(shot.pixel(x: 27, y: 80) == (0, 0, 0, 255), "the crop is 77 points tall: \(shot.pixel(x: 27, y: 80))")
        }
        try withScaler(daemon, path, "-b", ready: { $0.pixel(x: 110, y: 154) != (0, 0, 0, 255) }) { shot in
            #expect(near(shot.pixel(x: 110, y: 154), 0, 0, 255, tolerance: 4), "the crop's blue middle: \(shot.pixel(x: 110, y: 154))")
            #expect(near(shot.pixel(x: 200, y: 290), 0, 0, 255, tolerance: 4), "blue near the bottom right: \(shot.pixel(x: 200, y: 290))")
            // The crop starts half way into the green pixel rows (a display pixel of green,
            // filtered with the blue beside it) and ends in the white column.
            let top = shot.pixel(x: 110, y: 0), left = shot.pixel(x: 0, y: 154)
            #expect(top.g > 100 && top.r < 30, "the green top edge: \(top)")
            #expect(left.g > 100 && left.r < 30, "the green left edge: \(left)")
            let whiter = shot.pixel(x: 218, y: 154), white = shot.pixel(x: 219, y: 154)
            #expect(whiter.r > 100 && whiter.g > 100 && whiter.b > 230, "blue turning white at the right edge: \(whiter)")
            #expect(white.r > 230 && white.g > 180 && white.b > 180, "the white right edge: \(white)")
            #expect(shot.pixel(x: 224, y: 154) == (0, 0, 0, 255), "the crop stretched to 220 points: \(shot.pixel(x: 224, y: 154))")
            #expect(shot.pixel(x: 110, y: 312) == (0, 0, 0, 255), "the crop stretched to 308 points: \(shot.pixel(x: 110, y: 312))")
        }
    }

    /// Buffer transforms, with weston-transformed (clients/transformed.c): it draws, in its
    /// surface's own coordinates whatever its buffer's transform, a black window with lines from
    /// its middle, red up, green right, white down and left; its arrow keys and space step
    /// through the eight `wl_output.transform`s (its buffer sideways for the odd ones). Each is
    /// shown turned back upright, at once: the same picture, the arms where they belong.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.transformed), "weston-transformed (Debian's weston) is not installed"))
    func aTurnedBufferIsShownUpright() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        // stdbuf: its "setting buffer transform to N" lines reach the log as it prints them.
        let app = try App(daemon, socket: path, program: "/usr/bin/stdbuf", arguments: ["-oL", Self.transformed])
        try wait("weston-transformed's window", daemon) { daemon.logText.contains("\"Transformed\" mapped") }
        // The window fills the desktop (kiosk mode sizes it so); its middle is the desktop's.
        let (w, h) = (640, 480), (cx, cy) = (320, 240)
        func expectCross(_ shot: Bitmap, _ transform: Int) {
            for (x, y, what, colour) in [(cx - 1, cy / 2, "red arm up", (255, 0, 0)), (cx, cy / 3, "red arm up", (255, 0, 0)),
                                         (cx + (w - cx) / 2, cy - 1, "green arm right", (0, 255, 0)), (w - 20, cy, "green arm right", (0, 255, 0)),
                                         (cx, cy + (h - cy) / 2, "white arm down", (255, 255, 255)), (cx / 2, cy, "white arm left", (255, 255, 255)),
                                         (cx / 2, cy / 2, "black top left", (0, 0, 0)), (cx + cx / 2, cy / 2, "black top right", (0, 0, 0)),
                                         (cx / 2, cy + cy / 2, "black bottom left", (0, 0, 0)), (cx + cx / 2, cy + cy / 2, "black bottom right", (0, 0, 0))] {
                let p = shot.pixel(x: x, y: y)
                #expect(near(p, colour.0, colour.1, colour.2, tolerance: 8), "transform \(transform): \(what) at (\(x), \(y)): \(p)")
            }
        }
        try wait("weston-transformed's cross", daemon) { near(try screenshot(daemon, "t0-wait").pixel(x: cx - 1, y: cy / 2), 255, 0, 0) }
        expectCross(try screenshot(daemon, "t0"), 0)
        // Right: 0 → 1 → 2 → 3; space: 3 → 7 (flipped); Left: 7 → 6 → 5 → 4.
        let rows: [String: [Int]] = ["1": [0, 1, -1, 0], "2": [-1, 0, 0, -1], "3": [0, -1, 1, 0], "4": [-1, 0, 0, 1],
                                     "5": [0, 1, 1, 0], "6": [1, 0, 0, -1], "7": [0, -1, -1, 0]]
        for (key, transform) in [("Right", 1), ("Right", 2), ("Right", 3), ("space", 7), ("Left", 6), ("Left", 5), ("Left", 4)] {
            for pressed in [true, false] {
                let r = try daemon.laminactl(["input", "key", pressed ? "press" : "release", key])
                #expect(r.status == 0, "\(r.output)")
            }
            try wait("transform \(transform) asked", daemon) { daemon.logText.contains("setting buffer transform to \(transform)\n") }
            let m = rows["\(transform)"]!
            let matrix = "\"transform\":[\(m[0]),\(m[1]),0,0,\(m[2]),\(m[3]),0,0,0,0,1,0,0,0,0,1]"
            // Its layer turned (sides swapped for a quarter turn), at once (no implicit animation).
            let bounds = transform % 2 == 1 ? "\"bounds\":[0,0,\(h),\(w)]" : "\"bounds\":[0,0,\(w),\(h)]"
            var tree = ""
            try wait("transform \(transform) shown", daemon) {
                tree = try daemon.laminactl(["tree", "--presentation"]).output
                return tree.contains(matrix) && tree.contains(bounds)
            }
            #expect(!tree.contains("\"presentation\""), "transform \(transform) animates: \(tree)")
            expectCross(try screenshot(daemon, "t\(transform)"), transform)
        }
        #expect(app.process.isRunning, "weston-transformed died")
        app.kill()
    }
}
