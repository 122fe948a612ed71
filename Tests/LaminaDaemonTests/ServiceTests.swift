#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LaminaDaemon
import LaminaTestSupport
import Testing

/// laminad as a systemd service, on the host with the headless backend: sd_notify READY and
/// STOPPING, socket activation with a passed descriptor, and `--backend auto` explaining its choice.
@Suite("laminad under systemd", .serialized)
struct ServiceTests {
    static var laminad: String { TestPaths.buildDirectory + "/laminad" }
    static var laminactl: String { TestPaths.buildDirectory + "/laminactl" }

    static func temporaryDirectory() throws -> String {
        let dir = NSTemporaryDirectory() + "lamina-service-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A datagram socket bound at `path`, as systemd's $NOTIFY_SOCKET.
    static func notifySocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(fd >= 0)
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in
            for (i, b) in path.utf8.enumerated() { p[i] = b }
        }
        let r = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(r == 0, "bind \(path): errno \(errno)")
        return fd
    }

    /// The next notification, or nil after `seconds`.
    static func receive(_ fd: Int32, within seconds: Double) -> String? {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(seconds * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// Spawns `arguments` with `environment` added and `passing` (if any) as descriptor 3.
    /// The corresponding C function is `posix_spawn`.
    static func spawn(_ arguments: [String], environment: [String: String], passing fd: Int32? = nil, log: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let fd { posix_spawn_file_actions_adddup2(&actions, fd, 3) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let r = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard r == 0 else { throw POSIXError(POSIXErrorCode(rawValue: r) ?? .EINVAL) }
        return pid
    }

    /// Waits until `log` contains `text`, or fails when the process exits or `seconds` pass.
    static func waitForLog(_ log: String, _ text: String, pid: pid_t, seconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let s = try? String(contentsOfFile: log, encoding: .utf8), s.contains(text) { return true }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return false }
            usleep(20_000)
        }
        return false
    }

    /// Waits until laminad's `log` contains `text` and returns the log so far; fails the test,
    /// showing the log, when laminad exits or 60 s pass first.
    static func logShowing(_ text: String, in log: String, pid: pid_t) throws -> String {
        let seen = waitForLog(log, text, pid: pid)
        let contents = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(seen, "laminad never logged '\(text)':\n\(contents)")
        return contents
    }

    /// Stops laminad (SIGTERM) and reaps it.
    static func stop(_ pid: pid_t) {
        kill(pid, SIGTERM)
        _ = waitExit(pid)
    }

    static func waitExit(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// With a watchdog (the unit's WatchdogSec), GStreamer also starts before READY=1, so a
    /// slow registry scan counts against the start timeout rather than starving the watchdog at
    /// the first video (ServiceUnitVMTests saw systemd kill laminad mid-scan); without one it
    /// waits for the first video.
    @Test(arguments: [false, true]) func notifiesReadyAndStopping(watchdog: Bool) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let notify = try Self.notifySocket(dir + "/notify")
        defer { close(notify) }
        var environment = ["NOTIFY_SOCKET": dir + "/notify"]
        // Long enough that no WATCHDOG=1 ping comes before STOPPING=1.
        if watchdog { environment["WATCHDOG_USEC"] = "600000000" }
        let pid = try Self.spawn([Self.laminad, "--backend", "auto", "--socket", dir + "/lamina.sock"],
                                 environment: environment, log: dir + "/laminad.log")
        let ready = Self.receive(notify, within: 60)
        #expect(ready?.contains("READY=1") == true, "got \(ready ?? "nothing")")
        // Logged before READY=1 was sent.
        let early = (try? String(contentsOfFile: dir + "/laminad.log", encoding: .utf8)) ?? ""
        #expect(early.contains("video: GStreamer started before READY=1") == watchdog, "\(early)")
        kill(pid, SIGTERM)
        let stopping = Self.receive(notify, within: 20)
        #expect(stopping?.contains("STOPPING=1") == true, "got \(stopping ?? "nothing")")
        #expect(Self.waitExit(pid) == 0)
        let log = (try? String(contentsOfFile: dir + "/laminad.log", encoding: .utf8)) ?? ""
        if !FileManager.default.fileExists(atPath: "/dev/dri") {
            #expect(log.contains("backend: headless (auto: no DRM device"), "auto should say why it chose headless:\n\(log)")
        }
    }

    @Test func servesOnASocketPassedBySystemd() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/activated.sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { p in for (i, b) in path.utf8.enumerated() { p[i] = b } }
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        #expect(listen(listener, 16) == 0)
        // LISTEN_PID must be laminad's own pid: the shell exports its $$ and execs in place.
        let pid = try Self.spawn(["/bin/sh", "-c", "LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" \"$@\"", Self.laminad,
                                  "--backend", "headless", "--size", "64x48", "--socket", path],
                                 environment: [:], passing: listener, log: dir + "/laminad.log")
        defer { Self.stop(pid) }
        _ = try Self.logShowing("(socket activation)", in: dir + "/laminad.log", pid: pid)
        let stats = try ChildProcess.run(Self.laminactl, ["stats", "--socket", path])
        #expect(stats.status == 0, "\(stats.output)")
        #expect(stats.output.contains("width 64"), "\(stats.output)")
    }

    /// A configuration file sets the backend, the socket's mode and the display size.
    @Test func readsTheConfigurationFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
            backend = "headless"
            log_level = "debug"
            [socket]
            path = "\(dir)/configured.sock"
            mode = "0600"
            [display]
            size = "96x64"
            """.write(toFile: dir + "/laminad.toml", atomically: true, encoding: .utf8)
        let pid = try Self.spawn([Self.laminad, "--config", dir + "/laminad.toml"], environment: [:], log: dir + "/laminad.log")
        defer { Self.stop(pid) }
        let log = try Self.logShowing("listening on \(dir)/configured.sock", in: dir + "/laminad.log", pid: pid)
        #expect(log.contains("backend headless 96x64"), "\(log)")
        var st = stat()
        #expect(stat(dir + "/configured.sock", &st) == 0)
        #expect(st.st_mode & 0o777 == 0o600)
    }
}

/// The shipped units pass `systemd-analyze verify` and score as confined by
/// `systemd-analyze security` (issue 11: a hardened unit, no root where libseat serves).
@Suite("systemd units")
struct SystemdUnitTests {
    static let analyze = "/usr/bin/systemd-analyze"

    /// The units copied beside each other, ExecStart pointing at the laminad just built.
    func stagedUnits() throws -> String {
        let dir = try ServiceTests.temporaryDirectory()
        for unit in ["laminad.service", "laminad.socket"] {
            var text = try String(contentsOfFile: TestPaths.repository + "/systemd/" + unit, encoding: .utf8)
            text = text.replacingOccurrences(of: "/usr/bin/laminad", with: ServiceTests.laminad)
            try text.write(toFile: dir + "/" + unit, atomically: true, encoding: .utf8)
        }
        return dir
    }

    @Test func unitsVerifyCleanAndAreConfined() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.analyze), "systemd-analyze (Debian's systemd package, installed by scripts/deps.sh)")
        let dir = try stagedUnits()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let verify = try ChildProcess.run(Self.analyze, ["verify", "./laminad.service", "./laminad.socket"], in: dir)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(verify.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "verify printed: \(verify.output)")
        let security = try ChildProcess.run(Self.analyze, ["security", "--offline=true", "--no-pager", "./laminad.service"], in: dir)
        let line = security.output.split(separator: "\n").first { $0.contains("Overall exposure level") } ?? ""
        let score = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Double($0) }
        #expect(score != nil, "\(security.output.suffix(800))")
        #expect((score ?? 10) <= 2.0, "exposure \(line)")
        // No root and no capabilities where libseat serves: the lamina system user (not a dynamic
        // one, whose runtime folder, and the socket in it, would move under /run/private, 0700).
        let unit = try String(contentsOfFile: dir + "/laminad.service", encoding: .utf8)
        #expect(unit.contains("User=lamina\n") && !unit.contains("DynamicUser=yes") && unit.contains("CapabilityBoundingSet=\n") && unit.contains("NoNewPrivileges=yes"))
    }
}
