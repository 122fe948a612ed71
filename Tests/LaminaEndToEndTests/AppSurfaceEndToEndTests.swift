import Foundation
import Testing
import Lamina
import LaminaImage

/// App surfaces as layer contents (docs/architecture.md, "App surfaces"): a Lamina client that
/// manages apps hears of Wayland app windows, shows them in its layers (`contents =
/// .appSurface(id)`) with everything layers do, sizes them by the layers' bounds, and input on
/// those layers reaches the apps through the layers' transforms. Real, unmodified programs.
@Suite("App surfaces", .serialized)
@MainActor
struct AppSurfaceEndToEndTests {
    let wayland = WaylandEndToEndTests()

    /// Waits (polling every 50 ms, at most `seconds`: a bound far above a slow machine's need,
    /// not a timing check) while letting the connection's events in.
    func until(_ what: String, _ daemon: DaemonProcess, seconds: Double = 30, _ condition: () async throws -> Bool) async throws {
        for _ in 0..<Int(seconds * 20) {
            if try await condition() { return }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw DaemonError("timed out waiting for \(what):\n\(daemon.logText)")
    }

    /// A managing client on `daemon` with its first app window's number once `start` runs it.
    func managedApp(_ daemon: DaemonProcess, name: String = "shell", start: () throws -> WaylandEndToEndTests.App)
        async throws -> (Connection, WaylandEndToEndTests.App, UInt32, [AppSurfaceEvent]) {
        let c = try Connection.connect(to: daemon.socket, name: name)
        var events: [AppSurfaceEvent] = []
        c.onAppSurface = { events.append($0) }
        try await c.manageApps()
        let path = daemon.directory + "/wayland-lamina-0"
        try wayland.waitForSocket(path, daemon)
        let app = try start()
        try await until("the app's window", daemon) { !c.appSurfaces.isEmpty }
        return (c, app, c.appSurfaces.keys.min()!, events)
    }

    /// Screen point of window point (wx, wy) in a layer of `size` centred at `centre`, turned a
    /// quarter clockwise (a +π/2 rotation about z, y down): (x, y) from the centre → (−y, x).
    func turned(_ wx: Double, _ wy: Double, size: Size, centre: Point) -> (Int, Int) {
        let x = wx - size.width / 2, y = wy - size.height / 2
        return (Int((centre.x - y).rounded(.down)), Int((centre.y + x).rounded(.down)))
    }

    func put(_ b: inout Bitmap, _ x: Int, _ y: Int, _ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
        let i = (y * b.width + x) * 4
        b.bytes[i] = p.r; b.bytes[i + 1] = p.g; b.bytes[i + 2] = p.b; b.bytes[i + 3] = p.a
    }

    /// weston-simple-shm in a layer with rounded corners, masksToBounds and a quarter turn:
    /// its pattern, turned back, is simple-shm's (the same checks as in kiosk mode), the
    /// corners are cut round to the background, and laminad reported the window (appeared,
    /// its app id and size) to the managing client only: no full-screen kiosk window.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func simpleSHMInARoundedTurnedLayer() async throws {
        let daemon = try wayland.kioskDaemon(size: "640x480", extra: ["--background", "#3366CC"])
        let (c, app, id, _) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0")
        }
        let surface = try #require(c.appSurfaces[id])
        #expect(surface.appID == "org.freedesktop.weston.simple-shm")
        #expect(surface.size == Size(width: 250, height: 250))
        #expect(surface.pid == app.process.processIdentifier)
        // Nothing of it shows until a layer shows it.
        let bare = try await c.screenshot()
        #expect(bare.pixel(x: 5, y: 5) == (0x33, 0x66, 0xCC, 255) && bare.pixel(x: 320, y: 240) == (0x33, 0x66, 0xCC, 255))

        Transaction.disableActions = true
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: 250, height: 250)
        layer.position = Point(x: 320, y: 240)
        layer.cornerRadius = 40
        layer.masksToBounds = true
        layer.transform = .rotation(angle: .pi / 2)
        layer.contents = .appSurface(id)
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        let centre = Point(x: 320, y: 240), size = Size(width: 250, height: 250)
        try await until("simple-shm in the layer", daemon) {
            let (x, y) = turned(30, 12, size: size, centre: centre)
            return try await c.screenshot().pixel(x: x, y: y) == (255, 255, 255, 255)
        }
        let shot = try await c.screenshot()
        // Turned back into the window's own orientation, pixel for pixel.
        var back = Bitmap(width: 250, height: 250)
        for wy in 0..<250 {
            for wx in 0..<250 {
                let (x, y) = turned(Double(wx) + 0.5, Double(wy) + 0.5, size: size, centre: centre)
                put(&back, wx, wy, shot.pixel(x: x, y: y))
            }
        }
        // The rounded corners show the background where the window's white margin was.
        #expect(back.pixel(x: 1, y: 1) == (0x33, 0x66, 0xCC, 255), "a corner cut round: \(back.pixel(x: 1, y: 1))")
        #expect(back.pixel(x: 248, y: 248) == (0x33, 0x66, 0xCC, 255))
        // Away from the corners, simple-shm's pattern (its corner pixels excepted).
        put(&back, 5, 5, (255, 255, 255, 255))
        wayland.expectSimpleSHMPattern(back)
        #expect(daemon.logText.contains("sized by the app until a layer shows it"))
        app.kill()
    }
}
