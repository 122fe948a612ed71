import Foundation
import Testing
import LaminaPlatform

/// laminad's Wayland server (docs/architecture.md, "Wayland clients"), through its socket with
/// the Wayland wire protocol written by hand, and with unmodified Wayland programs.
@Suite("Wayland clients", .serialized)
struct WaylandEndToEndTests {
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

    /// Waits for laminad's Wayland socket (bound a moment after the Lamina socket).
    func waitForSocket(_ path: String, _ daemon: DaemonProcess) throws {
        for _ in 0..<400 where !FileManager.default.fileExists(atPath: path) { usleep(25_000) }
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
        let directory = NSTemporaryDirectory() + "lamina-wl-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config = directory + "/laminad.toml"
        try "[wayland]\nenabled = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(extra: ["--config", config])
        let stats = try statistics(daemon)
        #expect(stats["framesRendered"] != nil)
        #expect(!stats.keys.contains { $0.hasPrefix("wayland.") })
        #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/wayland-lamina-0"))
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
        // 64 KiB of seeded noise, written without blocking (and without SIGPIPE once laminad
        // has closed its end): a message header may claim more bytes than follow, so the stream
        // goes on until libwayland's buffer overflows, when it is not refused before.
        var garbage = [UInt8](repeating: 0, count: 64 << 10)
        var seed: UInt32 = 12345
        for i in garbage.indices { seed = seed &* 1_103_515_245 &+ 12345; garbage[i] = UInt8(truncatingIfNeeded: seed >> 16) }
        var offset = 0
        while offset < garbage.count {
            let n = garbage[offset...].withUnsafeBytes { send(hostile.fd.rawValue, $0.baseAddress, min($0.count, 4096), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n <= 0 { break }
            offset += n
        }
        // libwayland answers with wl_display.error at most, then closes the connection.
        var closed = false
        for _ in 0..<100 {
            guard try hostile.event(within: 5) != nil else { closed = true; break }
        }
        #expect(closed, "laminad kept the garbage writer")
        // The first client still works: a sync (callback 4) is answered.
        try good.request(1, 0, [4])
        var answered = false
        while !answered, let e = try good.event() { answered = e.object == 4 }
        #expect(answered)
        #expect(try WireClient(path: path).globals()["wl_seat"] != nil)
        #expect(try statistics(daemon)["wayland.clientsConnected"] == 3)
        #expect(daemon.logText.contains("disconnected"), "no log line about the dropped client:\n\(daemon.logText)")
    }
}
