import Foundation
import Testing
import LaminaCore
import LaminaImage
import LaminaPlatform

/// laminad's Wayland server (docs/architecture.md, "Wayland clients"), through its socket with
/// the Wayland wire protocol written by hand, and with unmodified Wayland programs.
@Suite("Wayland clients", .serialized)
struct WaylandEndToEndTests {
    enum WireArgument {
        case uint(UInt32)
        case string(String)
    }

    /// A Wayland client speaking the wire protocol directly: requests written as bytes, events
    /// read back (object id, opcode, arguments).
    final class WireClient {
        let fd: FileDescriptor
        private var pending: [UInt8] = []
        init(path: String) throws { fd = try UnixSocket.connect(path: path) }

        func request(_ object: UInt32, _ opcode: UInt16, _ words: [UInt32]) throws {
            let size = UInt32(8 + 4 * words.count)
            var bytes: [UInt8] = []
            for w in [object, size << 16 | UInt32(opcode)] + words { withUnsafeBytes(of: w.littleEndian) { bytes += $0 } }
            try fd.writeAll(bytes)
        }

        /// The next event, nil when the server closed the connection; throws after `seconds`.
        func event(within seconds: Double = 10) throws -> (object: UInt32, opcode: UInt16, body: [UInt8])? {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                if pending.count >= 8 {
                    let word = { (i: Int) in UInt32(self.pending[i]) | UInt32(self.pending[i + 1]) << 8 | UInt32(self.pending[i + 2]) << 16 | UInt32(self.pending[i + 3]) << 24 }
                    let object = word(0), sizeOpcode = word(4), size = Int(sizeOpcode >> 16)
                    if size >= 8, pending.count >= size {
                        let body = Array(pending[8..<size])
                        pending.removeFirst(size)
                        return (object, UInt16(sizeOpcode & 0xffff), body)
                    }
                }
                var pfd = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, Int32(seconds * 1000)) > 0 else { throw DaemonError("no Wayland event within \(seconds) s") }
                // An error (a reset connection) or end of file: the server closed it.
                let n: Int = (try? buffer.withUnsafeMutableBytes { try fd.read(into: $0) }) ?? 0
                if n == 0 { return nil }
                pending += buffer[0..<n]
            }
        }

        /// A request whose arguments include strings (each a length with its NUL, padded to 4).
        func request(_ object: UInt32, _ opcode: UInt16, _ arguments: [WireArgument]) throws {
            var words: [UInt32] = []
            for a in arguments {
                switch a {
                case .uint(let v): words.append(v)
                case .string(let text):
                    let bytes = Array(text.utf8) + [0]
                    words.append(UInt32(bytes.count))
                    let padded = bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
                    for i in stride(from: 0, to: padded.count, by: 4) {
                        words.append(UInt32(padded[i]) | UInt32(padded[i + 1]) << 8 | UInt32(padded[i + 2]) << 16 | UInt32(padded[i + 3]) << 24)
                    }
                }
            }
            try request(object, opcode, words)
        }

        /// The globals with their numbers (interface → (name, version)), through registry 2.
        func globalNames() throws -> [String: (name: UInt32, version: UInt32)] {
            try request(1, 1, [2])
            try request(1, 0, [3])
            var out: [String: (name: UInt32, version: UInt32)] = [:]
            while let e = try event() {
                if e.object == 3 { return out }
                guard e.object == 2, e.opcode == 0, e.body.count >= 12 else { continue }
                let number = UInt32(e.body[0]) | UInt32(e.body[1]) << 8 | UInt32(e.body[2]) << 16 | UInt32(e.body[3]) << 24
                let length = Int(e.body[4]) | Int(e.body[5]) << 8
                let name = String(decoding: e.body[8..<(8 + max(0, length - 1))], as: UTF8.self)
                let at = 8 + (length + 3) / 4 * 4
                out[name] = (number, UInt32(e.body[at]) | UInt32(e.body[at + 1]) << 8)
            }
            throw DaemonError("the server closed the connection before the registry's sync")
        }

        /// The globals (interface → version): wl_display.get_registry (registry 2), then a
        /// sync (callback 3) whose done ends the list.
        func globals() throws -> [String: UInt32] {
            try request(1, 1, [2])
            try request(1, 0, [3])
            var out: [String: UInt32] = [:]
            while let e = try event() {
                if e.object == 3 { return out }
                guard e.object == 2, e.opcode == 0, e.body.count >= 12 else { continue }
                let length = Int(e.body[4]) | Int(e.body[5]) << 8
                let name = String(decoding: e.body[8..<(8 + max(0, length - 1))], as: UTF8.self)
                let at = 8 + (length + 3) / 4 * 4
                out[name] = UInt32(e.body[at]) | UInt32(e.body[at + 1]) << 8
            }
            throw DaemonError("the server closed the connection before the registry's sync")
        }
    }

    /// Waits for laminad's Wayland socket (bound a moment after the Lamina socket), polling: at
    /// most 30 s, as long as DaemonProcess waits for the Lamina socket.
    func waitForSocket(_ path: String, _ daemon: DaemonProcess) throws {
        let giveUp = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path), Date() < giveUp { usleep(25_000) }
        guard FileManager.default.fileExists(atPath: path) else { throw DaemonError("no Wayland socket at \(path):\n\(daemon.logText)") }
    }

    func statistics(_ daemon: DaemonProcess) throws -> [String: Double] {
        let r = try daemon.laminactl(["stats"])
        var out: [String: Double] = [:]
        for line in r.output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { out[String(parts[0])] = v }
        }
        return out
    }

    /// A laminad with `toml` as its laminad.toml (in a directory of its own).
    func configuredDaemon(_ toml: String, size: String = "320x240", extra: [String] = []) throws -> DaemonProcess {
        let directory = NSTemporaryDirectory() + "lamina-wl-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/laminad.toml"
        try toml.write(toFile: config, atomically: true, encoding: .utf8)
        return try DaemonProcess(size: size, extra: ["--config", config] + extra)
    }

    /// A laminad for kiosk tests that read an app's pixels as soon as it maps: windows appear at
    /// once (`[wayland] fade_in = 0`; the fade itself is `aNewWindowFadesIn`'s), `wayland` more
    /// lines of that table, `toml` other tables. Held keys do not repeat (`[input]
    /// key_repeat_rate = 0`): a key pressed and released by two laminactl calls reaches the app
    /// once, however long a slow machine takes between them.
    func kioskDaemon(size: String, wayland: String = "", toml: String = "", extra: [String] = []) throws -> DaemonProcess {
        try configuredDaemon("[input]\nkey_repeat_rate = 0\n" + toml + "\n[wayland]\nfade_in = 0\n" + wayland, size: size, extra: extra)
    }

    /// By default the socket is wayland-lamina-0 beside the Lamina socket, with its
    /// permissions, offers the globals apps look for, and `laminactl stats` names it.
    @Test func theDefaultSocketOffersTheGlobalsAppsNeed() throws {
        let daemon = try DaemonProcess()
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o660)
        let client = try WireClient(path: path)
        let globals = try client.globals()
        for name in ["wl_compositor", "wl_subcompositor", "wl_shm", "xdg_wm_base", "wl_seat", "wl_data_device_manager",
                     "wp_viewporter", "wp_presentation"] {
            #expect(globals[name] != nil, "\(name) missing from \(globals)")
        }
        let stats = try statistics(daemon)
        #expect(stats["wayland.socket:" + path] == 1, "\(stats.keys.filter { $0.hasPrefix("wayland") })")
        #expect(stats["wayland.clients"] == 1)
        daemon.kill(SIGTERM)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket outlived laminad")
    }

    /// `--wayland-display NAME` names the socket beside the Lamina socket; `PATH` places it.
    @Test func theDisplayFlagNamesOrPlacesTheSocket() throws {
        let named = try DaemonProcess(extra: ["--wayland-display", "wayland-kiosk"])
        try waitForSocket(named.directory + "/wayland-kiosk", named)
        #expect(try WireClient(path: named.directory + "/wayland-kiosk").globals()["xdg_wm_base"] != nil)
        let elsewhere = NSTemporaryDirectory() + "lamina-wl-" + UUID().uuidString.prefix(8)
        let placed = try DaemonProcess(extra: ["--wayland-display", elsewhere])
        try waitForSocket(elsewhere, placed)
        #expect(try WireClient(path: elsewhere).globals()["wl_compositor"] != nil)
    }

    /// `[wayland] enabled = false`: no socket, nothing in stats.
    @Test func disabledMeansNoSocket() throws {
        let daemon = try configuredDaemon("[wayland]\nenabled = false\n")
        let stats = try statistics(daemon)
        #expect(stats["framesRendered"] != nil)
        #expect(!stats.keys.contains { $0.hasPrefix("wayland.") })
        #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/wayland-lamina-0"))
    }

    /// Writes 64 KiB of seeded noise to `hostile` without blocking (and without SIGPIPE once
    /// laminad has closed its end): a message header may claim more bytes than follow, so the
    /// stream goes on until libwayland's buffer overflows, when it is not refused before.
    /// libwayland answers with wl_display.error at most, then closes the connection: returns
    /// whether it did.
    static func writeGarbage(to hostile: WireClient, seed start: UInt32) throws -> Bool {
        var garbage = [UInt8](repeating: 0, count: 64 << 10)
        var seed = start
        for i in garbage.indices { seed = seed &* 1_103_515_245 &+ 12345; garbage[i] = UInt8(truncatingIfNeeded: seed >> 16) }
        var offset = 0
        while offset < garbage.count {
            let n = garbage[offset...].withUnsafeBytes { send(hostile.fd.rawValue, $0.baseAddress, min($0.count, 4096), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n <= 0 { break }
            offset += n
        }
        for _ in 0..<100 {
            guard try hostile.event(within: 5) != nil else { return true }
        }
        return false
    }

    /// A connection writing garbage is dropped alone: another Wayland client connected before
    /// it still gets answers, and so do new ones.
    @Test func aClientWritingGarbageIsDroppedAlone() throws {
        let daemon = try DaemonProcess()
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let good = try WireClient(path: path)
        #expect(try good.globals()["wl_compositor"] != nil)
        let hostile = try WireClient(path: path)
        #expect(try Self.writeGarbage(to: hostile, seed: 12345), "laminad kept the garbage writer")
        // The first client still works: a sync (callback 4) is answered.
        try good.request(1, 0, [4])
        var answered = false
        while !answered, let e = try good.event() { answered = e.object == 4 }
        #expect(answered)
        #expect(try WireClient(path: path).globals()["wl_seat"] != nil)
        #expect(try statistics(daemon)["wayland.clientsConnected"] == 3)
        #expect(daemon.logText.contains("disconnected"), "no log line about the dropped client:\n\(daemon.logText)")
    }

    // MARK: Kiosk mode, with the unmodified weston-simple-shm from Debian's weston package

    static let simpleSHM = "/usr/bin/weston-simple-shm"
    static var hasSimpleSHM: Bool { FileManager.default.isExecutableFile(atPath: simpleSHM) }

    /// Runs weston-simple-shm against `daemon`'s Wayland socket until the value goes.
    final class App {
        let process = Process()
        init(_ daemon: DaemonProcess, socket: String, program: String = WaylandEndToEndTests.simpleSHM,
             arguments: [String] = [], environment extra: [String: String] = [:]) throws {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
            environment["WAYLAND_DISPLAY"] = socket
            process.environment = environment
            let log = try DaemonProcess.appending(to: daemon.log)
            process.standardOutput = log
            process.standardError = log
            try process.run()
        }
        /// SIGKILL: the test process's threads block SIGTERM, and a spawned child inherits the mask.
        func kill() {
            guard process.isRunning else { return }
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        deinit { kill() }
    }

    func screenshot(_ daemon: DaemonProcess, _ name: String) throws -> Bitmap {
        let png = daemon.directory + "/" + name + ".png"
        let r = try daemon.laminactl(["screenshot", png])
        guard r.status == 0 else { throw DaemonError("screenshot: \(r.output)") }
        return try PNG.read(fromFile: png)
    }

    /// Waits until `condition` holds (polling laminad every 50 ms, at most `seconds`: an upper
    /// bound for a program's start, far above what it takes on a slow machine).
    func wait(_ what: String, _ daemon: DaemonProcess, seconds: Double = 20, _ condition: () throws -> Bool) throws {
        for _ in 0..<Int(seconds * 20) {
            if try condition() { return }
            usleep(50_000)
        }
        throw DaemonError("timed out waiting for \(what):\n\(daemon.logText)")
    }

    /// Moves `daemon`'s virtual clock on 0.1 s and draws the frame there, as a display's next
    /// refreshes would: an app drawing by its frame callbacks' time draws anew.
    func tick(_ daemon: DaemonProcess) throws { _ = try daemon.laminactl(["advance", "0.1"]) }

    /// simple-shm's pixel as the 0xRRGGBB it wrote (XRGB8888).
    func rgb(_ shot: Bitmap, _ x: Int, _ y: Int) -> UInt32 {
        let p = shot.pixel(x: x, y: y)
        return UInt32(p.r) << 16 | UInt32(p.g) << 8 | UInt32(p.b)
    }

    /// Checks a screenshot against weston-simple-shm's pattern at 250 × 250 (clients/simple-shm.c,
    /// paint_pixels with padding 20; the time it draws with is unknown, so each check relates
    /// pixels the formula ties together): the 20-pixel margin stays as it was cleared (white);
    /// outside the outer ring (radius 117) v = (x + t/16) · 0x0080401, the same down a column
    /// and one step of 0x0080401 from one column to the next; between the rings (radius 85
    /// to 117) v = (y + t/32) · 0x0080401, the same along a row. The X byte is 0 on two
    /// diagonals ("a cross if the compositor uses X from XRGB as alpha"): XRGB is opaque, so
    /// the diagonal shows the pattern too, not the background.
    func expectSimpleSHMPattern(_ shot: Bitmap, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(shot.pixel(x: 5, y: 5) == (255, 255, 255, 255), "the cleared margin", sourceLocation: sourceLocation)
        #expect(shot.pixel(x: 244, y: 130) == (255, 255, 255, 255), "the cleared margin", sourceLocation: sourceLocation)
        // Outside the outer ring: columns 25…28 at rows 40 and 60 (radius > 117).
        for x in 25...27 {
            #expect(rgb(shot, x, 40) == rgb(shot, x, 60), "column \(x) is one colour outside the ring", sourceLocation: sourceLocation)
            #expect((rgb(shot, x + 1, 40) &- rgb(shot, x, 40)) & 0xffffff == 0x080401,
                    "one step of 0x0080401 per column: \(String(rgb(shot, x, 40), radix: 16)) → \(String(rgb(shot, x + 1, 40), radix: 16))",
                    sourceLocation: sourceLocation)
        }
        // The cross: (30, 30) has X = 0; (30, 45) is in the same column outside the ring.
        #expect(rgb(shot, 30, 30) == rgb(shot, 30, 45), "XRGB's X byte is not alpha", sourceLocation: sourceLocation)
        #expect(shot.pixel(x: 30, y: 30).a == 255, sourceLocation: sourceLocation)
        // Between the rings: row 125 at x = 30 and x = 220 (radius 95).
        #expect(rgb(shot, 30, 125) == rgb(shot, 220, 125), "a row is one colour between the rings", sourceLocation: sourceLocation)
        // The rings inside: many colours.
        var colours = Set<UInt32>()
        for y in stride(from: 60, to: 190, by: 3) { for x in stride(from: 60, to: 190, by: 3) { colours.insert(rgb(shot, x, y)) } }
        #expect(colours.count > 20, "the rings: \(colours.count) colours", sourceLocation: sourceLocation)
    }

    /// Under `--clock virtual`, an app's frame callbacks carry the virtual clock's time: the
    /// unmodified weston-simple-shm paints its pattern from the callback's milliseconds, so after
    /// the clock is moved to 8 s its picture is exactly the one for t = 8000 (outside its rings,
    /// column x is (x + t/16) · 0x0080401), on every run and machine. With CLOCK_MONOTONIC's
    /// milliseconds there it would be whatever the machine's uptime made it.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func frameCallbacksFollowTheVirtualClock() throws {
        let daemon = try kioskDaemon(size: "250x250")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path)
        // simple-shm's column x outside the rings at time t (ms), as its paint_pixels makes it.
        func column(_ x: UInt32, at t: UInt32) -> UInt32 { ((x + t / 16) &* 0x0080401) & 0xffffff }
        try wait("simple-shm's first frame", daemon) { try screenshot(daemon, "first").pixel(x: 5, y: 5) == (255, 255, 255, 255) }
        let first = try screenshot(daemon, "a")
        #expect(rgb(first, 25, 40) == column(25, at: 0), "drawn at the virtual clock's 0: \(String(rgb(first, 25, 40), radix: 16))")
        _ = try daemon.laminactl(["advance", "8"])
        try wait("a picture drawn after the clock moved", daemon) { rgb(try screenshot(daemon, "b"), 25, 40) != column(25, at: 0) }
        let later = try screenshot(daemon, "c")
        for x: UInt32 in [25, 26, 27] {
            #expect(rgb(later, Int(x), 40) == column(x, at: 8000), "column \(x) drawn at 8000 ms: \(String(rgb(later, Int(x), 40), radix: 16))")
        }
        app.kill()
    }

    /// Kiosk mode: headless laminad and the unmodified weston-simple-shm. Its toplevel is
    /// configured to the desktop (250 × 250, the size it draws), fills it over the background,
    /// and keeps drawing (frame callbacks answered after each frame is presented); then a raw
    /// socket writing garbage is dropped alone while it goes on drawing.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func westonSimpleSHMFillsTheDesktopAndSurvivesAGarbageWriter() throws {
        let daemon = try kioskDaemon(size: "250x250", extra: ["--background", "#3366CC"])
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path)
        try wait("simple-shm's first frame", daemon) { try screenshot(daemon, "first").pixel(x: 5, y: 5) == (255, 255, 255, 255) }
        let first = try screenshot(daemon, "a")
        expectSimpleSHMPattern(first)
        #expect(daemon.logText.contains("configured to 250 × 250"))
        #expect(daemon.logText.contains("'org.freedesktop.weston.simple-shm' \"simple-shm\" mapped, 250 × 250"))
        // It keeps drawing: each frame callback comes after a presented frame. It draws with the
        // callbacks' time, the virtual clock's: the picture changes as the clock moves.
        let rendered = try statistics(daemon)["framesRendered"] ?? 0
        try wait("simple-shm's next frames", daemon) { (try statistics(daemon)["framesRendered"] ?? 0) > rendered + 10 }
        try wait("a changed picture", daemon) {
            try tick(daemon)
            return try screenshot(daemon, "b").bytes != first.bytes
        }

        // A garbage writer is dropped alone.
        let hostile = try WireClient(path: path)
        #expect(try Self.writeGarbage(to: hostile, seed: 99), "laminad kept the garbage writer")
        #expect(app.process.isRunning, "weston-simple-shm died")
        let before = try screenshot(daemon, "c")
        let renderedBefore = try statistics(daemon)["framesRendered"] ?? 0
        try wait("simple-shm drawing on after the garbage writer", daemon) {
            try tick(daemon)
            let frames = try statistics(daemon)["framesRendered"] ?? 0
            return try frames > renderedBefore + 10 && screenshot(daemon, "d").bytes != before.bytes
        }
        expectSimpleSHMPattern(try screenshot(daemon, "e"))
        #expect(try statistics(daemon)["wayland.clients"] == 1)

        // The app leaves: its layer goes, the background shows again.
        app.kill()
        try wait("the background back", daemon) { try screenshot(daemon, "f").pixel(x: 125, y: 125) == (0x33, 0x66, 0xCC, 255) }
    }

    /// A buffer over `[wayland] max_buffer_pixels` drops its client with a log line naming the
    /// limit; laminad goes on.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func aBufferOverTheBoundDropsItsClient() throws {
        let daemon = try configuredDaemon("[wayland]\nmax_buffer_pixels = 10000\n", size: "250x250")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path)
        app.process.waitUntilExit()  // it exits on the protocol error
        try wait("the log line", daemon) { daemon.logText.contains("dropped: a 250 × 250 buffer is over [wayland] max_buffer_pixels (10000)") }
        #expect(try statistics(daemon)["wayland.clients"] == 0)
        #expect(try screenshot(daemon, "shot").pixel(x: 125, y: 125) == (0, 0, 0, 255), "nothing of it shows")
    }

    /// More surfaces than `[wayland] max_surfaces_per_client` drop the client, with a log line.
    @Test func surfacesOverTheBoundDropTheirClient() throws {
        let daemon = try configuredDaemon("[wayland]\nmax_surfaces_per_client = 4\n")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let client = try WireClient(path: path)
        try client.request(1, 1, [2])
        // wl_registry.bind(name, "wl_compositor", 4, new id 3): the compositor is global 2.
        let name = Array("wl_compositor".utf8) + [0, 0, 0]  // 14 bytes with the NUL, padded to 16
        var words: [UInt32] = [2, 14]
        for i in stride(from: 0, to: 16, by: 4) {
            words.append(UInt32(name[i]) | UInt32(name[i + 1]) << 8 | UInt32(name[i + 2]) << 16 | UInt32(name[i + 3]) << 24)
        }
        words += [4, 3]
        try client.request(2, 0, words)
        for id: UInt32 in 4...8 { try client.request(3, 0, [id]) }  // five wl_compositor.create_surface
        var closed = false
        for _ in 0..<100 {
            guard try client.event(within: 10) != nil else { closed = true; break }
        }
        #expect(closed, "laminad kept a client over its surface bound")
        try wait("the log line", daemon) { daemon.logText.contains("dropped: it made more than [wayland] max_surfaces_per_client (4) surfaces") }
        #expect(try WireClient(path: path).globals()["wl_compositor"] != nil, "laminad serves on")
    }

    static let simpleTouch = "/usr/bin/weston-simple-touch"

    /// Kiosk input: a touch injected into laminad reaches the unmodified weston-simple-touch
    /// (600 × 500, the desktop's size here) at the same point, which paints a five-pixel red
    /// diamond there for touch 0 (clients/simple-touch.c: 0xffff0000 at x ± 2 on the middle row,
    /// over its work area cleared to 0x40404040, premultiplied grey over the black background).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.simpleTouch), "weston-simple-touch (Debian's weston) is not installed"))
    func aTouchReachesTheAppUnderIt() throws {
        let daemon = try kioskDaemon(size: "600x500")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path, program: Self.simpleTouch)
        try wait("simple-touch's work area", daemon) { try screenshot(daemon, "a").pixel(x: 300, y: 250) == (64, 64, 64, 255) }
        var r = try daemon.laminactl(["input", "touch", "down", "0", "300", "250"])
        #expect(r.status == 0, "\(r.output)")
        try wait("the red diamond", daemon) { try screenshot(daemon, "b").pixel(x: 300, y: 250) == (255, 0, 0, 255) }
        let shot = try screenshot(daemon, "c")
        #expect(shot.pixel(x: 302, y: 250) == (255, 0, 0, 255) && shot.pixel(x: 300, y: 252) == (255, 0, 0, 255))
        #expect(shot.pixel(x: 303, y: 250) == (64, 64, 64, 255) && shot.pixel(x: 302, y: 252) == (64, 64, 64, 255), "the diamond's edge")
        r = try daemon.laminactl(["input", "touch", "up", "0"])
        #expect(r.status == 0, "\(r.output)")
        app.kill()
    }

    static let eventDemo = "/usr/bin/weston-eventdemo"

    /// Kiosk keys: the unmodified weston-eventdemo (`--log-key` prints each key it gets: evdev
    /// code, the character its keymap gives, modifiers) under a laminad whose keymap is German
    /// (`[input] keyboard_layout = "de"`). `laminactl input key press z` finds z on the German
    /// keymap's Y key (evdev 21); the app reads 'z' there, so it got laminad's keymap, not a
    /// US one (where 21 is 'y'). Shift held gives 'Z' with the Shift modifier. Key repeat is
    /// off (`key_repeat_rate = 0`): between two laminactl calls a slow machine may pass the
    /// repeat delay, and eventdemo would log its own repeats of the held key.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.eventDemo), "weston-eventdemo (Debian's weston) is not installed"))
    func keysReachTheAppWithLaminadsKeymap() throws {
        let daemon = try configuredDaemon("[input]\nkeyboard_layout = \"de\"\nkey_repeat_rate = 0\n", size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        // stdbuf: its lines reach the log as it prints them (a file is otherwise block-buffered).
        let app = try App(daemon, socket: path, program: "/usr/bin/stdbuf", arguments: ["-oL", Self.eventDemo, "--log-key"])
        try wait("eventdemo's window", daemon) { daemon.logText.contains("'org.freedesktop.weston.eventdemo' \"EventDemo\" mapped") }
        for (key, pressed) in [("z", true), ("z", false), ("Shift_L", true), ("z", true), ("z", false), ("Shift_L", false)] {
            let r = try daemon.laminactl(["input", "key", pressed ? "press" : "release", key])
            #expect(r.status == 0, "\(r.output)")
        }
        try wait("the keys in eventdemo's output", daemon) { daemon.logText.contains("key key: 42, unicode: 65505, state: released") }
        let lines = daemon.logText.split(separator: "\n").filter { $0.hasPrefix("key key: ") }.map(String.init)
        #expect(lines == [
            "key key: 21, unicode: 122, state: pressed, modifiers: 0x0",
            "key key: 21, unicode: 122, state: released, modifiers: 0x0",
            "key key: 42, unicode: 65505, state: pressed, modifiers: 0x0",
            "key key: 21, unicode: 90, state: pressed, modifiers: 0x1",
            "key key: 21, unicode: 90, state: released, modifiers: 0x1",
            "key key: 42, unicode: 65505, state: released, modifiers: 0x1",
        ], "\(lines)")
        app.kill()
    }

    /// `[input] key_repeat_rate` and `key_repeat_delay` reach apps: a keyboard got from the
    /// seat (wl_seat.get_keyboard, seat version 4 or later) is told them in its repeat_info.
    @Test func theKeyboardTellsAppsTheConfiguredRepeat() throws {
        let daemon = try configuredDaemon("[input]\nkey_repeat_rate = 40\nkey_repeat_delay = 250\n")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let client = try WireClient(path: path)
        let seat = try #require(try client.globalNames()["wl_seat"], "laminad offers no wl_seat")
        try #require(seat.version >= 4, "wl_seat \(seat.version) has no repeat_info")
        try client.request(2, 0, [.uint(seat.name), .string("wl_seat"), .uint(4), .uint(4)])  // bind → seat 4
        try client.request(4, 1, [5])  // wl_seat.get_keyboard → keyboard 5
        var repeatInfo: [Int32]?
        while repeatInfo == nil, let e = try client.event() {
            guard e.object == 5, e.opcode == 5, e.body.count == 8 else { continue }  // wl_keyboard.repeat_info(rate, delay)
            repeatInfo = stride(from: 0, to: 8, by: 4).map { i in
                Int32(bitPattern: UInt32(e.body[i]) | UInt32(e.body[i + 1]) << 8 | UInt32(e.body[i + 2]) << 16 | UInt32(e.body[i + 3]) << 24)
            }
        }
        #expect(repeatInfo == [40, 250], "the keyboard's repeat_info")
    }

    static let foot = "/usr/bin/foot"

    /// Kiosk mode with the unmodified foot terminal (Debian's foot): it runs a command that
    /// prints a line with a true-colour red background, then green text (letters and two full
    /// blocks, which foot draws itself, so their pixels are exactly the colour asked for). The
    /// window shows at its own size from the top left, without decorations; the colours are
    /// read in the pixels.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.foot), "foot (Debian's foot) is not installed"))
    func footShowsColouredText() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let command = #"printf '\033[48;2;255;0;0m          \033[0m\n\033[38;2;0;255;0mHELLO \342\226\210\342\226\210\033[0m\n'; sleep 600"#
        let app = try App(daemon, socket: path, program: Self.foot,
                          arguments: ["--config", "/dev/null", "-o", "font=monospace:size=20", "sh", "-c", command],
                          environment: ["XDG_RUNTIME_DIR": daemon.directory])
        try wait("foot's window", daemon) { daemon.logText.contains("'foot' \"foot\" mapped") }
        // Told its decorations are the server's (xdg-decoration), foot draws no title bar of its
        // own: its window is the whole desktop (with one it would be 26 pixels shorter).
        #expect(daemon.logText.contains("'foot' \"foot\" mapped, 640 × 480"), "\(daemon.logText.split(separator: "\n").filter { $0.contains("mapped") })")
        try wait("the red line", daemon) { try screenshot(daemon, "red").pixel(x: 10, y: 10) == (255, 0, 0, 255) }
        // The green line: the second row of cells, somewhere under y = 60.
        var green = 0, letters = 0
        try wait("the green text", daemon) {
            let shot = try screenshot(daemon, "text")
            green = 0
            letters = 0
            for y in 20..<80 {
                for x in 0..<300 {
                    let p = shot.pixel(x: x, y: y)
                    if p == (0, 255, 0, 255) { green += 1 }
                    // The letters' own pixels (before the blocks): green, antialiased at edges.
                    if x < 70, p.g > 200, p.r < 60, p.b < 60 { letters += 1 }
                }
            }
            return green > 300 && letters > 40
        }
        #expect(green > 300, "the full blocks and letters' cores: \(green) pixels exactly green")
        #expect(letters > 40, "HELLO in green: \(letters) pixels")
        app.kill()
    }

    static let westonInfo = "/usr/bin/weston-info"

    /// What the unmodified weston-info (Debian's weston) prints about the outputs.
    func outputsAsAppsSeeThem(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.westonInfo)
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = path
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.replacingOccurrences(of: "\t", with: " ")
    }

    /// laminad's outputs as apps see them: `wl_output` (mode in pixels, scale, transform,
    /// make and model) and `xdg_output` (name, logical place and size in points), following
    /// `laminactl output` changes of scale, transform and mode.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.westonInfo), "weston-info (Debian's weston) is not installed"))
    func outputsAreDescribedAndFollowChanges() throws {
        let daemon = try DaemonProcess(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        var info = try outputsAsAppsSeeThem(path)
        #expect(info.contains("interface: 'wl_output', version: 4"), "\(info)")
        #expect(info.contains("make: 'Lamina', model: 'headless'"), "\(info)")
        #expect(info.contains("width: 640 px, height: 480 px, refresh: 60.000 Hz"), "\(info)")
        #expect(info.contains("name: 'headless'") && info.contains("logical_width: 640, logical_height: 480"), "\(info)")
        #expect(info.contains("x: 0, y: 0, scale: 1,"), "\(info)")

        for change in [["scale", "2"], ["transform", "90"]] {
            let r = try daemon.laminactl(["output", "headless"] + change)
            #expect(r.status == 0, "\(r.output)")
        }
        info = try outputsAsAppsSeeThem(path)
        #expect(info.contains("scale: 2,") && info.contains("output_transform: 90"), "\(info)")
        #expect(info.contains("width: 640 px, height: 480 px"), "the panel's mode stays: \(info)")
        #expect(info.contains("logical_width: 240, logical_height: 320"), "turned and halved in points: \(info)")

        let r = try daemon.laminactl(["output", "headless", "mode", "800x600"])
        #expect(r.status == 0, "\(r.output)")
        info = try outputsAsAppsSeeThem(path)
        #expect(info.contains("width: 800 px, height: 600 px"), "\(info)")
        #expect(info.contains("logical_width: 300, logical_height: 400"), "\(info)")
    }

    static let subsurfaces = "/usr/bin/weston-subsurfaces"

    /// Subsurfaces: the unmodified weston-subsurfaces (`-n`: its main surface, green, and a
    /// translucent red subsurface over its top right) shows as a window layer holding a layer per
    /// surface, placed from the window geometry's corner (its 32-pixel shadow margin falls off
    /// the desktop), the subsurface over the main surface, which shows through it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.subsurfaces), "weston-subsurfaces (Debian's weston) is not installed"))
    func subsurfacesShowAsSublayers() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path, program: Self.subsurfaces, arguments: ["-n"])
        try wait("the red subsurface", daemon) {
            let p = try screenshot(daemon, "a").pixel(x: 520, y: 140)
            return p.r > 120 && p.g < 80
        }
        let shot = try screenshot(daemon, "b")
        let main = shot.pixel(x: 100, y: 300), red = shot.pixel(x: 520, y: 140), below = shot.pixel(x: 520, y: 300)
        #expect(main.g > 120 && main.r < 40 && main.b < 40, "the main surface, green: \(main)")
        #expect(red.r > 120 && red.g < 80 && red.b < 40, "the red subsurface: \(red)")
        #expect(below == main, "under the subsurface's bottom edge, the main surface again: \(below)")
        // The tree: one window layer holding two part layers, the main one at (-32, -32).
        let r = try daemon.laminactl(["tree"])
        #expect(r.output.contains("\"frame\":[-32,-32,704,544]"), "\(r.output)")
        #expect(r.output.components(separatedBy: "\"contents\":").count - 1 == 2, "two parts: \(r.output)")
        app.kill()
        try wait("the background back", daemon) { try screenshot(daemon, "c").pixel(x: 520, y: 140) == (0, 0, 0, 255) }
    }

    static let gtkApp = WaylandEndToEndTests.fixtures + "/gtk4_menu_app.py"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures"
    /// Whether Debian's GTK 4 introspection data and python3-gi are installed.
    static var hasGTK4: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/girepository-1.0/Gtk-4.0.typelib")
            && FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/gi/__init__.py")
    }

    /// A GTK 4 program (python3-gi, Debian's GTK 4; Fixtures/gtk4_menu_app.py): a tap on its blue
    /// button runs the button's callback, which opens a popover menu: an xdg_popup, shown as a
    /// layer of its own over the window, placed under the button; a tap on the menu's second
    /// item reaches the popup (the surface under the point) and runs that item's action.
    @Test(.enabled(if: WaylandEndToEndTests.hasGTK4, "GTK 4 for Python (python3-gi, gir1.2-gtk-4.0) is not installed"))
    func aGTKButtonTapOpensAMenuAsASublayer() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path, program: "/usr/bin/python3", arguments: [Self.gtkApp],
                          environment: ["XDG_RUNTIME_DIR": daemon.directory, "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        try wait("the GTK window's blue button", daemon) { try screenshot(daemon, "a").pixel(x: 320, y: 140) == (32, 96, 224, 255) }
        let before = try screenshot(daemon, "before")
        var r = try daemon.laminactl(["input", "touch", "down", "0", "320", "140"])
        #expect(r.status == 0, "\(r.output)")
        r = try daemon.laminactl(["input", "touch", "up", "0"])
        try wait("the button's callback and its menu", daemon) { daemon.logText.contains("clicked") && daemon.logText.contains("menu shown") }
        try wait("the menu drawn", daemon) { try screenshot(daemon, "b").pixel(x: 370, y: 252) == (255, 255, 255, 255) }
        #expect(before.pixel(x: 370, y: 252) != (255, 255, 255, 255), "the window there before the menu: \(before.pixel(x: 370, y: 252))")
        let tree = try daemon.laminactl(["tree"]).output
        #expect(tree.components(separatedBy: "\"contents\":").count - 1 == 2, "the window and its menu, two layers: \(tree)")
        // The menu's second item, on the popup surface.
        _ = try daemon.laminactl(["input", "touch", "down", "0", "320", "268"])
        _ = try daemon.laminactl(["input", "touch", "up", "0"])
        try wait("the menu item's action", daemon) { daemon.logText.contains("chose second") }
        try wait("the menu gone", daemon) { try screenshot(daemon, "c").pixel(x: 370, y: 252) == before.pixel(x: 370, y: 252) }
        app.kill()
    }

    /// Kiosk mode's default fade (`[wayland] fade_in`, 0.25 s): a new window starts transparent
    /// and fades in on laminad's clock, linearly: weston-simple-shm's white margin over the blue
    /// background is blue at first, half-way at 0.125 s of virtual time, white at 0.25 s.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func aNewWindowFadesIn() throws {
        let daemon = try DaemonProcess(size: "250x250", extra: ["--background", "#3366CC"])
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path)
        try wait("simple-shm's window", daemon) { daemon.logText.contains("simple-shm\" mapped") }
        #expect(try screenshot(daemon, "t0").pixel(x: 5, y: 5) == (0x33, 0x66, 0xCC, 255), "transparent when it appears")
        #expect(try daemon.laminactl(["advance", "0.125"]).status == 0)
        let half = try screenshot(daemon, "t1").pixel(x: 5, y: 5)
        let expected = [(0x33 + 255) / 2, (0x66 + 255) / 2, (0xCC + 255) / 2]
        for (value, want) in zip([Int(half.r), Int(half.g), Int(half.b)], expected) {
            #expect(abs(value - want) <= 3, "half-way at 0.125 s: \(half), expected about \(expected)")
        }
        #expect(try daemon.laminactl(["advance", "0.125"]).status == 0)
        #expect(try screenshot(daemon, "t2").pixel(x: 5, y: 5) == (255, 255, 255, 255), "opaque at 0.25 s")
        app.kill()
    }

    /// Hostile and broken apps, each beside a well-behaved one that must not notice: a window
    /// that never acknowledges its configure (it is never shown, and stays connected), then ten
    /// weston-simple-shm at once (all shown, newest on top; killed one by one, each layer goes
    /// and the next one shows; the last one gone, the background), one crashing (SIGKILL).
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func brokenAndManyAppsHarmNoOne() throws {
        let daemon = try kioskDaemon(size: "250x250", extra: ["--background", "#3366CC"])
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        // The window that never acks: registry, wl_compositor (4), xdg_wm_base (5), a surface (6),
        // its xdg_surface (7) and toplevel (8), a commit; then it reads its configure and stops.
        let stubborn = try WireClient(path: path)
        let globals = try stubborn.globalNames()
        guard let compositor = globals["wl_compositor"], let shell = globals["xdg_wm_base"] else {
            Issue.record("no wl_compositor or xdg_wm_base: \(globals.keys.sorted())")
            return
        }
        try stubborn.request(2, 0, [.uint(compositor.name), .string("wl_compositor"), .uint(4), .uint(4)])
        try stubborn.request(2, 0, [.uint(shell.name), .string("xdg_wm_base"), .uint(1), .uint(5)])
        try stubborn.request(4, 0, [.uint(6)])
        try stubborn.request(5, 2, [.uint(7), .uint(6)])
        try stubborn.request(7, 1, [.uint(8)])
        try stubborn.request(6, 6, [UInt32]())
        var configured = false
        while !configured, let e = try stubborn.event() { configured = e.object == 7 && e.opcode == 0 }
        #expect(configured, "the stubborn window got its configure")

        var apps: [App] = []
        for _ in 0..<10 { apps.append(try App(daemon, socket: path)) }
        try wait("ten windows mapped", daemon) {
            daemon.logText.components(separatedBy: "simple-shm\" mapped").count - 1 == 10
        }
        try wait("the top window drawing", daemon) { try screenshot(daemon, "ten").pixel(x: 5, y: 5) == (255, 255, 255, 255) }
        let stats = try statistics(daemon)
        #expect(stats["wayland.clients"] == 11, "ten apps and the stubborn one: \(stats["wayland.clients"] ?? -1)")
        let tree = try daemon.laminactl(["tree"]).output
        #expect(tree.components(separatedBy: "\"contents\":").count - 1 == 10, "ten windows shown, not the stubborn one")
        // Crashes: killed one by one, the rest drawing on.
        for (i, app) in apps.enumerated().reversed() {
            app.kill()
            if i > 0 {
                let rendered = try statistics(daemon)["framesRendered"] ?? 0
                try wait("the others drawing after \(10 - i) crashed", daemon) { (try statistics(daemon)["framesRendered"] ?? 0) > rendered + 3 }
            }
        }
        try wait("the background back", daemon) { try screenshot(daemon, "gone").pixel(x: 125, y: 125) == (0x33, 0x66, 0xCC, 255) }
        #expect(try statistics(daemon)["wayland.clients"] == 1, "the stubborn one is still connected, harming no one")
    }

    static let presentationSHM = "/usr/bin/weston-presentation-shm"

    /// `wp_presentation`: the unmodified weston-presentation-shm (feedback mode) asks for
    /// feedback on every commit and prints, for each one presented, its times and the frame
    /// sequence number; laminad answers after the frame that showed the commit, with sequence
    /// numbers that grow.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.presentationSHM), "weston-presentation-shm (Debian's weston) is not installed"))
    func presentationFeedbackFollowsEachFrame() throws {
        let daemon = try kioskDaemon(size: "320x240")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path, program: "/usr/bin/stdbuf", arguments: ["-oL", Self.presentationSHM, "-f"],
                          environment: ["XDG_RUNTIME_DIR": daemon.directory])
        // Its lines: "<commit> f2c … c2p … seq <n>" once a frame's feedback arrives.
        func sequences() -> [Int] {
            daemon.logText.split(separator: "\n").compactMap { line -> Int? in
                guard line.contains("c2p"), let r = line.range(of: "seq") else { return nil }
                return Int(line[r.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
            }
        }
        try wait("ten presented frames", daemon) { sequences().count >= 10 }
        let seq = sequences()
        #expect(zip(seq, seq.dropFirst()).allSatisfy { $0 < $1 }, "sequence numbers grow: \(seq.prefix(12))")
        #expect(!daemon.logText.contains("discarded"), "no feedback discarded while each frame shows its commit")
        app.kill()
    }

    static let simpleDamage = "/usr/bin/weston-simple-damage"

    /// A HiDPI buffer: the unmodified weston-simple-damage at buffer scale 2 commits 400 × 300
    /// pixels for a 200 × 150 surface; laminad shows them in a 200 × 150 point layer (the image
    /// keeps every pixel), so the window covers a quarter of what its pixels would.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.simpleDamage), "weston-simple-damage (Debian's weston) is not installed"))
    func aScale2BufferIsShownAtHalfItsPixelSize() throws {
        let daemon = try kioskDaemon(size: "640x480", extra: ["--background", "#3366CC"])
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let app = try App(daemon, socket: path, program: Self.simpleDamage, arguments: ["--scale=2", "--width=200", "--height=150"],
                          environment: ["XDG_RUNTIME_DIR": daemon.directory])
        try wait("its window", daemon) { try screenshot(daemon, "a").pixel(x: 100, y: 75) != (0x33, 0x66, 0xCC, 255) }
        let tree = try daemon.laminactl(["tree"]).output
        #expect(tree.contains("\"width\":400,\"height\":300"), "the image keeps the buffer's 400 × 300 pixels: \(tree)")
        #expect(tree.contains("\"bounds\":[0,0,200,150]"), "shown in 200 × 150 points: \(tree)")
        let shot = try screenshot(daemon, "b")
        #expect(shot.pixel(x: 250, y: 100) == (0x33, 0x66, 0xCC, 255), "right of the window, the background")
        #expect(shot.pixel(x: 100, y: 200) == (0x33, 0x66, 0xCC, 255), "below the window, the background")
        app.kill()
    }

    static let cog = "/usr/bin/cog"

    /// A web page in a real browser engine: Debian's cog (WPE WebKit) in kiosk mode shows a
    /// local page (a red box on blue), and a tap on the box runs the page's JavaScript, which
    /// turns it green: checked in the pixels.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: WaylandEndToEndTests.cog), "cog (Debian's WPE WebKit browser) is not installed"))
    func aWebPageInWPEWebKitTurnsATappedBoxGreen() throws {
        let daemon = try kioskDaemon(size: "640x480")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let page = "file://" + Self.fixtures + "/tap_page.html"
        let app = try App(daemon, socket: path, program: Self.cog, arguments: ["--platform=wl", page],
                          environment: ["XDG_RUNTIME_DIR": daemon.directory])
        // WebKit starts a web process and renders in software: a generous bound, polled. The
        // window may first come at cog's own size, then at the desktop's: waited for until the
        // box stands where the page puts it. WebKit paces itself by frame callbacks, and on the
        // virtual clock a frame that only answers them comes when the clock moves: each poll
        // moves it on 0.1 s, as a display would.
        let blue: (UInt8, UInt8, UInt8, UInt8) = (0x20, 0x40, 0x80, 255), red: (UInt8, UInt8, UInt8, UInt8) = (255, 0, 0, 255)
        var shot = try screenshot(daemon, "a")
        try wait("the page's red box at (100, 100)", daemon, seconds: 120) {
            try tick(daemon)
            shot = try screenshot(daemon, "a")
            return shot.pixel(x: 200, y: 175) == red && shot.pixel(x: 100, y: 175) == red && shot.pixel(x: 99, y: 175) == blue
        }
        #expect(shot.pixel(x: 50, y: 50) == blue, "the page's background")
        #expect(shot.pixel(x: 299, y: 249) == red && shot.pixel(x: 300, y: 175) == blue && shot.pixel(x: 200, y: 250) == blue,
                "the box's other edges, 200 × 150 from (100, 100)")
        #expect(try daemon.laminactl(["input", "touch", "down", "0", "200", "175"]).status == 0)
        #expect(try daemon.laminactl(["input", "touch", "up", "0"]).status == 0)
        try wait("the box turned green by the page's script", daemon, seconds: 60) {
            try tick(daemon)
            return try screenshot(daemon, "c").pixel(x: 200, y: 175) == (0, 255, 0, 255)
        }
        app.kill()
    }

    /// Pacing: a window hidden under an opaque one that covers the desktop gets no frame
    /// callbacks (its app stops drawing); when the cover goes, it is answered and draws again.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func aCoveredWindowIsThrottled() throws {
        let daemon = try kioskDaemon(size: "250x250")
        let path = daemon.directory + "/wayland-lamina-0"
        try waitForSocket(path, daemon)
        let below = try App(daemon, socket: path)
        try wait("the first window", daemon) { daemon.logText.contains("simple-shm\" mapped") }
        #expect(try statistics(daemon)["wayland.windowsCovered"] == 0)
        let above = try App(daemon, socket: path)
        try wait("the second window over it", daemon) {
            let mapped = daemon.logText.components(separatedBy: "simple-shm\" mapped").count - 1
            return try mapped == 2 && (statistics(daemon)["wayland.windowsCovered"] ?? 0) == 1
        }
        above.kill()
        try wait("the first window uncovered", daemon) { (try statistics(daemon)["wayland.windowsCovered"] ?? -1) == 0 }
        // It draws again: its picture changes as the (virtual) clock its callbacks carry moves.
        let first = try screenshot(daemon, "a")
        try wait("the uncovered window drawing", daemon) {
            try tick(daemon)
            return try screenshot(daemon, "b").bytes != first.bytes
        }
        below.kill()
    }
}
