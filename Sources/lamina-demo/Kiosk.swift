import Foundation
import Lamina
import LaminaCore
import LaminaPlatform
#if canImport(Glibc)
import Glibc
#endif

/// Act five, a kiosk (issue 28): a web page in a real browser engine (Debian's cog, WPE WebKit,
/// as a Wayland app of laminad) pushed in by a Core Animation transition into a rounded layer,
/// with a native ticker scrolling over it. The demo manages apps while it plays the act.
@MainActor
enum Kiosk {
    static let cog = "/usr/bin/cog"

    struct Act {
        let root: Layer
        let browser: pid_t
    }

    /// Why the act cannot play here, or nil.
    static func problem(on c: Connection) async throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: cog) else { return "cog (Debian's WPE WebKit browser) is not installed" }
        guard try await c.waylandSocket() != nil else { return "laminad serves no Wayland socket" }
        return nil
    }

    /// The page: a welcome board drawn by WebKit.
    static let page = """
    <!DOCTYPE html><html><head><meta charset="utf-8"><style>
    html, body { margin: 0; height: 100%; font-family: sans-serif; color: white; }
    body { background: linear-gradient(135deg, #1d3557, #457b9d); display: flex; flex-direction: column;
           justify-content: center; align-items: center; }
    h1 { font-size: 64px; margin: 0 0 16px; }
    p { font-size: 26px; margin: 6px; opacity: 0.9; }
    .cards { display: flex; gap: 24px; margin-top: 28px; }
    .card { width: 200px; height: 110px; border-radius: 14px; background: rgba(255,255,255,0.18);
            display: flex; align-items: center; justify-content: center; font-size: 24px; }
    </style></head><body>
    <h1>Welcome</h1><p>This page is a web page in WPE WebKit,</p><p>shown in a Core Animation layer by laminad.</p>
    <div class="cards"><div class="card">Menu</div><div class="card">Map</div><div class="card">Help</div></div>
    </body></html>
    """

    /// Starts cog on the page and builds the act's layers (the page's layer waits for its window).
    static func start(on c: Connection, in directory: String, size: Size) async throws -> Act {
        let file = directory + "/kiosk.html"
        try page.write(toFile: file, atomically: true, encoding: .utf8)
        try await c.manageApps()
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = try await c.waylandSocket()
        if environment["XDG_RUNTIME_DIR"] == nil { environment["XDG_RUNTIME_DIR"] = directory }
        let pid = try spawnProgram([cog, "--platform=wl", "file://" + file], environment: environment)

        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        root.backgroundColor = Color(red: 0.06, green: 0.07, blue: 0.1, alpha: 1)
        let web = Layer()
        web.name = "web"
        web.frame = Rect(x: 60, y: 40, width: size.width - 120, height: size.height - 150)
        web.cornerRadius = 18
        web.masksToBounds = true
        web.backgroundColor = Color(red: 0.15, green: 0.17, blue: 0.22, alpha: 1)
        root.addSublayer(web)

        // The ticker: a native text layer over the page's bottom edge, scrolled by laminad.
        let bar = Layer()
        bar.frame = Rect(x: 0, y: size.height - 86, width: size.width, height: 56)
        bar.backgroundColor = Color(red: 0.9, green: 0.22, blue: 0.27, alpha: 0.92)
        bar.masksToBounds = true
        let ticker = TextLayer()
        let text = "LIVE  ·  Trains on time  ·  Gate B closes at 14:05  ·  The café on level 2 is open  ·  "
        ticker.string = text + text
        ticker.fontSize = 28
        ticker.foregroundColor = .white
        ticker.frame = Rect(x: 0, y: 10, width: 2400, height: 40)
        var scroll = BasicAnimation(keyPath: "position.x", from: .number(1200), to: .number(0), duration: 12)
        scroll.repeatCount = .infinity
        ticker.add(.basic(scroll), forKey: "ticker")
        bar.addSublayer(ticker)
        root.addSublayer(bar)
        return Act(root: root, browser: pid)
    }

    /// The browser's window, once it has one: pushed in from the right.
    static func show(_ window: UInt32, in act: Act) {
        guard let web = act.root.sublayers.first(where: { $0.name == "web" }) else { return }
        web.add(.transition(Transition(type: .push, subtype: .fromRight, timing: MediaTiming(duration: 0.8),
                                       timingFunction: .easeInEaseOut)), forKey: "transition")
        Transaction.begin()
        Transaction.disableActions = true
        web.contents = .appSurface(window)
        Transaction.commit()
    }

    static func stop(_ act: Act, on c: Connection) async {
        kill(act.browser, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 where waitpid(act.browser, &status, WNOHANG) != act.browser { usleep(20_000) }
        kill(act.browser, SIGKILL)
        waitpid(act.browser, &status, WNOHANG)
        try? await c.stopManagingApps()
    }
}
