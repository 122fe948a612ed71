import Foundation
import Lamina
import LaminaCore
import LaminaPlatform
#if canImport(Glibc)
import Glibc
#endif

/// Apps laminactl runs beside laminad, as the user running laminactl (`laminactl launch`, and
/// a scene's `"app"` layers): each is a command started with `WAYLAND_DISPLAY` naming laminad's
/// Wayland socket, whose window shows in a layer (by name) of laminactl's session as its
/// `appSurface`. laminactl manages apps while it runs them: their windows are not shown full
/// screen. With `restart`, an app that exits is started again after a back-off (1 s, doubling
/// to 30 s; back to 1 s once it has run 30 s).
@MainActor
final class AppLauncher {
    /// An app a layer wants: its layer's name, its command line, whether it comes back.
    struct Wanted: Equatable {
        var layer: String
        var command: [String]
        var restart: Bool
    }

    private final class Launch {
        var wanted: Wanted
        var pid: pid_t?
        var started = 0.0
        var window: UInt32?
        var backoff = 1.0
        var nextStart: Double?
        var exitStatus: Int32?
        init(_ wanted: Wanted) { self.wanted = wanted }
    }

    let connection: Connection
    /// laminad's Wayland socket (`wayland.socket:PATH` in its stats).
    let waylandDisplay: String
    /// Makes a full-screen layer of that name where the session has none (`launch`); a scene's
    /// layers are the scene's.
    let createsMissingLayers: Bool
    private var launches: [String: Launch] = [:]
    /// Lines for the user (started, exited, restarting).
    var say: (String) -> Void = { FileHandle.standardError.write(Data("laminactl: \($0)\n".utf8)) }

    /// Connects the launcher to `connection`'s app events; `manageApps()` must follow.
    init(connection: Connection, waylandDisplay: String, createsMissingLayers: Bool) {
        self.connection = connection
        self.waylandDisplay = waylandDisplay
        self.createsMissingLayers = createsMissingLayers
        connection.onAppSurface = { [weak self] e in self?.received(e) }
    }

    private func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// The apps wanted now: new ones start, ones no longer wanted (or whose command changed)
    /// are stopped (SIGTERM), the others run on undisturbed.
    func want(_ list: [Wanted]) {
        let byLayer = Dictionary(list.map { ($0.layer, $0) }, uniquingKeysWith: { a, _ in a })
        for (name, launch) in launches where byLayer[name] != launch.wanted {
            stop(launch)
            launches[name] = nil
        }
        for w in list where launches[w.layer] == nil {
            let launch = Launch(w)
            launches[w.layer] = launch
            start(launch)
        }
    }

    /// Whether an app is running or waiting to restart.
    var isActive: Bool { launches.values.contains { $0.pid != nil || $0.nextStart != nil } }
    /// The exit status of the last app that ended and is not restarted (the command's own).
    private(set) var lastExitStatus: Int32 = 0

    /// Reaps apps that ended and restarts the ones due; call it now and then.
    func poll() {
        let t = now()
        for launch in launches.values {
            if let pid = launch.pid {
                var status: Int32 = 0
                guard waitpid(pid, &status, WNOHANG) == pid else { continue }
                launch.pid = nil
                let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                launch.exitStatus = code
                let ran = t - launch.started
                if launch.wanted.restart {
                    if ran >= 30 { launch.backoff = 1 }
                    launch.nextStart = t + launch.backoff
                    say("\(launch.wanted.command[0]) (layer '\(launch.wanted.layer)') exited with status \(code) after \(String(format: "%.1f", ran)) s; starting it again in \(Int(launch.backoff)) s")
                    launch.backoff = min(30, launch.backoff * 2)
                } else {
                    lastExitStatus = code
                    say("\(launch.wanted.command[0]) (layer '\(launch.wanted.layer)') exited with status \(code)")
                }
            } else if let due = launch.nextStart, t >= due {
                launch.nextStart = nil
                start(launch)
            }
        }
    }

    /// Stops every app (SIGTERM) and waits for them.
    func stopAll() {
        for launch in launches.values { stop(launch) }
        launches = [:]
    }

    private func stop(_ launch: Launch) {
        launch.nextStart = nil
        guard let pid = launch.pid else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        // Bounded: an app that ignores SIGTERM is killed after about 5 s.
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { launch.pid = nil; return }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        launch.pid = nil
    }

    private func start(_ launch: Launch) {
        let command = launch.wanted.command
        var environment = ProcessInfo.processInfo.environment
        environment["WAYLAND_DISPLAY"] = waylandDisplay
        launch.started = now()
        let pid: pid_t
        do { pid = try spawnProgram(command, environment: environment) } catch {
            say("cannot start \(command[0]): \(error)")
            launch.exitStatus = 127
            lastExitStatus = 127
            if launch.wanted.restart {
                launch.nextStart = now() + launch.backoff
                launch.backoff = min(30, launch.backoff * 2)
            }
            return
        }
        launch.pid = pid
        say("started \(command.joined(separator: " ")) (pid \(pid)) for layer '\(launch.wanted.layer)'")
    }

    /// Whether `pid` is `ancestor` or one of its descendants (an app started through a script).
    private static func descends(_ pid: Int32, from ancestor: pid_t) -> Bool {
        var p = pid
        for _ in 0..<64 {
            if p == ancestor { return true }
            guard p > 1, let stat = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int32(fields[1]) else { return false }
            p = parent
        }
        return false
    }

    /// A window of one of our apps appeared: its layer shows it. One gone: forgotten (the
    /// layer keeps or clears its last frame by its `appExitContents`).
    private func received(_ e: AppSurfaceEvent) {
        switch e.kind {
        case .appeared:
            guard let launch = launches.values.first(where: { l in
                guard let pid = l.pid, l.window == nil else { return false }
                return Self.descends(e.pid, from: pid)
            }) else { return }
            launch.window = e.id
            guard let layer = layer(named: launch.wanted.layer) else {
                say("session has no layer named '\(launch.wanted.layer)' to show \(launch.wanted.command[0])'s window in")
                return
            }
            layer.contents = .appSurface(e.id)
        case .gone:
            for launch in launches.values where launch.window == e.id { launch.window = nil }
        case .changed:
            break
        }
    }

    /// The session's layer named `name`, or a new full-screen one where `createsMissingLayers`.
    func layer(named name: String) -> Layer? {
        func find(_ l: Layer) -> Layer? {
            if l.name == name { return l }
            for s in l.sublayers { if let hit = find(s) { return hit } }
            return nil
        }
        if let found = find(connection.rootLayer) { return found }
        guard createsMissingLayers else { return nil }
        let layer = Layer()
        layer.name = name
        layer.frame = connection.rootLayer.bounds
        layer.autoresizingMask = [.widthSizable, .heightSizable]
        connection.rootLayer.addSublayer(layer)
        return layer
    }
}
