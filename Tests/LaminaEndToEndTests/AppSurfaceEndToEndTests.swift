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
    /// `clock`: moves the virtual clock a frame each time, as a display's refresh would, for
    /// apps that wait for a frame callback before they draw again.
    func until(_ what: String, _ daemon: DaemonProcess, seconds: Double = 30, clock: Connection? = nil,
               _ condition: () async throws -> Bool) async throws {
        for _ in 0..<Int(seconds * 20) {
            if try await condition() { return }
            if let clock { _ = try await clock.advanceClock(by: 1.0 / 60) }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw DaemonError("timed out waiting for \(what):\n\(daemon.logText)")
    }

    /// A managing client on `daemon` with its first app window's number once `start` runs it.
    func managedApp(_ daemon: DaemonProcess, name: String = "shell", start: () throws -> WaylandEndToEndTests.App)
        async throws -> (Connection, WaylandEndToEndTests.App, UInt32) {
        let c = try Connection.connect(to: daemon.socket, name: name)
        try await c.manageApps()
        let path = daemon.directory + "/wayland-lamina-0"
        try wayland.waitForSocket(path, daemon)
        let app = try start()
        try await until("the app's window", daemon) { !c.appSurfaces.isEmpty }
        return (c, app, c.appSurfaces.keys.min()!)
    }

    /// A layer of `size` centred at `centre`, turned a quarter clockwise, showing window `id`,
    /// added to `c`'s root (without implicit animations).
    @discardableResult
    func turnedLayer(_ c: Connection, showing id: UInt32, size: Size, centre: Point) -> Layer {
        Transaction.disableActions = true
        let layer = Layer()
        layer.bounds = Rect(x: 0, y: 0, width: size.width, height: size.height)
        layer.position = centre
        layer.transform = .rotation(angle: .pi / 2)
        layer.contents = .appSurface(id)
        c.rootLayer.addSublayer(layer)
        return layer
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
        let (c, app, id) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0")
        }
        let surface = try #require(c.appSurfaces[id])
        #expect(surface.appID == "org.freedesktop.weston.simple-shm")
        #expect(surface.size == Size(width: 250, height: 250))
        #expect(surface.pid == app.process.processIdentifier)
        // Nothing of it shows until a layer shows it.
        let bare = try await c.screenshot()
        #expect(bare.pixel(x: 5, y: 5) == (0x33, 0x66, 0xCC, 255) && bare.pixel(x: 320, y: 240) == (0x33, 0x66, 0xCC, 255))

        let centre = Point(x: 320, y: 240), size = Size(width: 250, height: 250)
        let layer = turnedLayer(c, showing: id, size: size, centre: centre)
        layer.cornerRadius = 40
        layer.masksToBounds = true
        try await c.sync()
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

    /// A GTK 4 program (Fixtures/gtk4_menu_app.py) in a layer turned a quarter: laminad sizes
    /// its window to the layer's bounds (640 × 480), a touch injected on the screen where the
    /// turned layer shows the app's button reaches the button (its callback runs), the popover
    /// menu it opens shows turned with the window, and a tap on its second item runs that
    /// item's action: input through the layer's transform into the surface under it.
    @Test(.enabled(if: WaylandEndToEndTests.hasGTK4, "GTK 4 for Python (python3-gi, gir1.2-gtk-4.0) is not installed"))
    func aGTKButtonTappedThroughATurnedLayer() async throws {
        let daemon = try wayland.kioskDaemon(size: "800x800")
        let (c, app, id) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0", program: "/usr/bin/python3",
                                         arguments: [WaylandEndToEndTests.gtkApp],
                                         environment: ["XDG_RUNTIME_DIR": daemon.directory, "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        }
        let size = Size(width: 640, height: 480), centre = Point(x: 400, y: 400)
        turnedLayer(c, showing: id, size: size, centre: centre)
        try await c.sync()
        try await until("the window configured to the layer's bounds", daemon) { c.appSurfaces[id]?.size == size }
        let button = turned(320, 140, size: size, centre: centre)
        try await until("the GTK window's blue button, turned", daemon, clock: c) {
            try await c.screenshot().pixel(x: button.0, y: button.1) == (32, 96, 224, 255)
        }
        let menu = turned(370, 252, size: size, centre: centre)
        let before = try await c.screenshot().pixel(x: menu.0, y: menu.1)
        #expect(before != (255, 255, 255, 255), "the window there before the menu: \(before)")
        _ = try daemon.laminactl(["input", "touch", "down", "0", "\(button.0)", "\(button.1)"])
        _ = try daemon.laminactl(["input", "touch", "up", "0"])
        try await until("the button's callback and its menu", daemon, clock: c) { daemon.logText.contains("clicked") && daemon.logText.contains("menu shown") }
        try await until("the menu drawn, turned", daemon, clock: c) { try await c.screenshot().pixel(x: menu.0, y: menu.1) == (255, 255, 255, 255) }
        let second = turned(320, 268, size: size, centre: centre)
        _ = try daemon.laminactl(["input", "touch", "down", "0", "\(second.0)", "\(second.1)"])
        _ = try daemon.laminactl(["input", "touch", "up", "0"])
        try await until("the menu item's action", daemon, clock: c) { daemon.logText.contains("chose second") }
        app.kill()
    }

    /// An app that dies (SIGKILL): the managing client hears `gone` with `exited`; a layer with
    /// `appExitContents` `keep` (the default) goes on showing the last frame, one with `clear`
    /// shows its own background. The managing client leaves: kiosk mode is back, and a new
    /// app fills the desktop from its top left again.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func aCrashIsToldAndTheLayerKeepsOrClears() async throws {
        let daemon = try wayland.kioskDaemon(size: "640x300", extra: ["--background", "#3366CC"])
        var (c, app, id) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0")
        }
        var gone: [AppSurfaceEvent] = []
        c.onAppSurface = { if $0.kind == .gone { gone.append($0) } }
        Transaction.disableActions = true
        let keep = Layer(), clear = Layer()
        for (i, l) in [keep, clear].enumerated() {
            l.frame = Rect(x: 40 + Double(i) * 300, y: 25, width: 250, height: 250)
            l.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 1)
            l.contents = .appSurface(id)
            c.rootLayer.addSublayer(l)
        }
        clear.appExitContents = .clear
        try await c.sync()
        try await until("both layers showing simple-shm", daemon) {
            let shot = try await c.screenshot()
            return shot.pixel(x: 45, y: 30) == (255, 255, 255, 255) && shot.pixel(x: 345, y: 30) == (255, 255, 255, 255)
        }
        app.kill()
        try await until("the gone event", daemon) { !gone.isEmpty }
        #expect(gone.first?.id == id && gone.first?.reason == .exited, "\(gone)")
        #expect(c.appSurfaces[id] == nil)
        try await until("the cleared layer's own background", daemon) { try await c.screenshot().pixel(x: 345, y: 30) == (255, 0, 0, 255) }
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 45, y: 30) == (255, 255, 255, 255), "the kept last frame's margin")
        #expect(shot.pixel(x: 45 + 125, y: 30 + 125) != (255, 0, 0, 255), "the kept last frame's rings")

        // The manager leaves: kiosk mode, a new app from the desktop's top left.
        c.close()
        app = try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0")
        try wayland.wait("a kiosk window at the top left", daemon) { try wayland.screenshot(daemon, "kiosk").pixel(x: 5, y: 5) == (255, 255, 255, 255) }
        app.kill()
        _ = c
    }

    /// Keys in managed mode (weston-eventdemo, `--log-key`): none reach the app before it has
    /// the keyboard; a tap on its layer gives it the keyboard (its keys then arrive, with
    /// laminad's keymap); a tap on the managing client's own layer takes it back (keys go to the
    /// client again); `focusApp` gives it again without a tap.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.eventDemo), "weston-eventdemo (Debian's weston) is not installed"))
    func keysFollowTheTapOrTheManagersRequest() async throws {
        let daemon = try wayland.kioskDaemon(size: "640x480")
        let (c, app, id) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0", program: "/usr/bin/stdbuf",
                                         arguments: ["-oL", WaylandEndToEndTests.eventDemo, "--log-key"])
        }
        Transaction.disableActions = true
        let window = Layer(), button = Layer()
        window.frame = Rect(x: 0, y: 0, width: 640, height: 380)
        window.contents = .appSurface(id)
        button.frame = Rect(x: 0, y: 400, width: 640, height: 80)
        button.backgroundColor = Color(red: 0, green: 0.5, blue: 0, alpha: 1)
        c.rootLayer.addSublayer(window)
        c.rootLayer.addSublayer(button)
        try await c.sync()
        var keys: [InputEvent] = []
        c.rootLayer.onInput = { if $0.kind == .keyPress { keys.append($0.event) } }
        func key(_ name: String) throws {
            for action in ["press", "release"] { #expect(try daemon.laminactl(["input", "key", action, name]).status == 0) }
        }
        func tap(_ x: Int, _ y: Int) throws {
            _ = try daemon.laminactl(["input", "touch", "down", "0", "\(x)", "\(y)"])
            _ = try daemon.laminactl(["input", "touch", "up", "0"])
        }
        func appKeys() -> [String] { daemon.logText.split(separator: "\n").filter { $0.hasPrefix("key key: ") && $0.contains("pressed") }.map(String.init) }
        try tap(320, 440)
        try key("a")
        try await until("the client's key", daemon) { keys.count == 1 }
        try tap(320, 200)
        try key("z")
        // Once the app has logged its "z", it has logged every key sent to it before (one
        // connection, in order): an "a" that reached it would show, not be still on its way.
        try await until("the app's key", daemon, clock: c) { appKeys().contains { $0.hasPrefix("key key: 44, unicode: 122") } }
        #expect(appKeys().count == 1, "no key reached the app before it had the keyboard: \(appKeys())")
        #expect(appKeys().first?.hasPrefix("key key: 44, unicode: 122") == true, "\(appKeys())")
        #expect(keys.count == 1, "the client heard no key meanwhile")
        try tap(320, 440)
        try key("b")
        try await until("the client's key again", daemon) { keys.count == 2 }
        try await c.focusApp(id)
        try key("y")
        try await until("the app's second key", daemon, clock: c) { appKeys().count == 2 }
        #expect(keys.count == 2)
        app.kill()
    }

    /// The pointer in managed mode (weston-eventdemo without its border, `--log-button
    /// --log-axis`), through a quarter-turned layer: a press at the screen point where the layer
    /// shows window point (100, 60) reaches the app at (100, 60), a wheel turn reaches it as an
    /// axis event, and the press after the pointer left the layer does not reach the app.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.eventDemo), "weston-eventdemo (Debian's weston) is not installed"))
    func thePointerReachesTheAppThroughATurnedLayer() async throws {
        let daemon = try wayland.kioskDaemon(size: "800x800")
        let (c, app, id) = try await managedApp(daemon) {
            try WaylandEndToEndTests.App(daemon, socket: daemon.directory + "/wayland-lamina-0", program: "/usr/bin/stdbuf",
                                         arguments: ["-oL", WaylandEndToEndTests.eventDemo, "--no-border", "--log-button", "--log-axis"])
        }
        let size = Size(width: 640, height: 480), centre = Point(x: 400, y: 400)
        turnedLayer(c, showing: id, size: size, centre: centre)
        var presses: [InputEvent] = []
        c.rootLayer.onInput = { if $0.kind == .buttonPress { presses.append($0.event) } }
        try await c.sync()
        try await until("the window configured to the layer's bounds", daemon, clock: c) { c.appSurfaces[id]?.size == size }
        let at = turned(100, 60, size: size, centre: centre)
        for args in [["move", "\(at.0)", "\(at.1)"], ["press"], ["release"], ["scroll", "0", "10"]] {
            #expect(try daemon.laminactl(["input", "pointer"] + args).status == 0)
        }
        try await until("the app's button and axis lines", daemon, clock: c) {
            daemon.logText.contains("state: pressed, x: 100, y: 60") && daemon.logText.contains("axis")
        }
        #expect(presses.isEmpty, "the manager heard the app's press")
        // Off the layer (the display's corner): the next press is not the app's. (Nor the
        // manager's: its root layer has no bounds here, so nothing of it is hit there.)
        for args in [["move", "5", "5"], ["press"], ["release"]] { _ = try daemon.laminactl(["input", "pointer"] + args) }
        // Back on the layer, a sideways wheel turn: once the app has logged it, it has logged
        // whatever was sent to it before (one connection, in order), a stray press included.
        for args in [["move", "\(at.0)", "\(at.1)"], ["scroll", "10", "0"]] {
            #expect(try daemon.laminactl(["input", "pointer"] + args).status == 0)
        }
        try await until("the app's horizontal axis line", daemon, clock: c) { daemon.logText.contains("axis: horizontal") }
        #expect(daemon.logText.components(separatedBy: "state: pressed").count == 2, "one press reached the app")
        app.kill()
    }
}
