import Foundation
import Testing
import LaminaCore
import LaminaImage

/// `laminactl launch` and a scene's `"app"` layers: laminactl runs a real Wayland program with
/// laminad's socket, shows its window in the named layer, and stops or restarts it.
@Suite("laminactl launch and scene apps", .serialized)
struct LaunchEndToEndTests {
    let wayland = WaylandEndToEndTests()

    /// Lines of `laminactl tree` naming the layer, whether it shows an app window.
    func showsApp(_ daemon: DaemonProcess, layer: String) throws -> Bool {
        let tree = try daemon.laminactl(["tree"]).output
        return tree.contains("\"name\":\"\(layer)\",") && tree.range(of: #""appSurface":[0-9]+"#, options: .regularExpression) != nil
    }

    /// The pid in laminactl's "started … (pid N)" line number `index`.
    func pid(_ line: String) -> pid_t? {
        guard let r = line.range(of: "(pid ") else { return nil }
        return pid_t(line[r.upperBound...].prefix { $0.isNumber })
    }

    /// `launch --layer web`: a full-screen layer named web is made in the session and shows
    /// weston-simple-shm's window (stretched over it: the app keeps its 250 × 250); the app
    /// killed, laminactl exits with the app's status (128 + 9).
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func launchShowsTheAppInANewFullScreenLayer() throws {
        let daemon = try wayland.kioskDaemon(size: "500x500", extra: ["--background", "#3366CC"])
        try wayland.waitForSocket(daemon.directory + "/wayland-lamina-0", daemon)
        let launch = try ProcessLines(DaemonProcess.tool("laminactl"),
                                      ["launch", "--socket", daemon.socket, "--layer", "web", "--", WaylandEndToEndTests.simpleSHM])
        guard let started = launch.waitForLine({ $0.contains("started ") }), let app = pid(launch.lines[started]) else {
            Issue.record("no start line: \(launch.lines)")
            return
        }
        try wayland.wait("the layer showing the app", daemon) { try showsApp(daemon, layer: "web") }
        // 250 × 250 stretched over 500 × 500: the 20-pixel white margin is 40 pixels wide.
        try wayland.wait("the app's margin, stretched", daemon) {
            let shot = try wayland.screenshot(daemon, "a")
            return shot.pixel(x: 30, y: 30) == (255, 255, 255, 255) && shot.pixel(x: 470, y: 250) == (255, 255, 255, 255)
        }
        kill(app, SIGKILL)
        #expect(launch.waitForLine(after: started, { $0.contains("exited with status 137") }) != nil, "\(launch.lines)")
        launch.process.waitUntilExit()
        #expect(launch.process.terminationStatus == 137)
    }

    /// `--restart`: the app killed is started again (a new process, a new window in the same
    /// layer); SIGTERM stops laminactl and the app with it.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func restartBringsTheAppBack() throws {
        let daemon = try wayland.kioskDaemon(size: "300x300")
        try wayland.waitForSocket(daemon.directory + "/wayland-lamina-0", daemon)
        let launch = try ProcessLines(DaemonProcess.tool("laminactl"),
                                      ["launch", "--socket", daemon.socket, "--restart", "--", WaylandEndToEndTests.simpleSHM])
        guard let first = launch.waitForLine({ $0.contains("started ") }), let app = pid(launch.lines[first]) else {
            Issue.record("no start line: \(launch.lines)")
            return
        }
        try wayland.wait("the first window", daemon) { try wayland.screenshot(daemon, "a").pixel(x: 10, y: 10) == (255, 255, 255, 255) }
        kill(app, SIGKILL)
        guard launch.waitForLine(after: first, { $0.contains("starting it again in 1 s") }) != nil,
              let second = launch.waitForLine(after: first + 1, { $0.contains("started ") }), let again = pid(launch.lines[second]) else {
            Issue.record("no restart: \(launch.lines)")
            return
        }
        #expect(again != app)
        try wayland.wait("the second window in the layer", daemon) {
            guard daemon.logText.components(separatedBy: "mapped, 250 × 250").count == 3 else { return false }
            return try wayland.screenshot(daemon, "b").pixel(x: 10, y: 10) == (255, 255, 255, 255)
        }
        #expect(launch.stop(SIGTERM) == 0, "\(launch.lines)")
        #expect(kill(again, 0) != 0, "the app outlived laminactl")
    }

    /// A scene's `"app"` layer: `laminactl apply` starts the app, shows it in that layer (with
    /// the layer's rounded corners), and stays; SIGTERM stops both.
    @Test(.enabled(if: WaylandEndToEndTests.hasSimpleSHM, "weston-simple-shm (Debian's weston) is not installed"))
    func aSceneAppRunsInItsLayer() throws {
        let daemon = try wayland.kioskDaemon(size: "400x300", extra: ["--background", "#3366CC"])
        try wayland.waitForSocket(daemon.directory + "/wayland-lamina-0", daemon)
        let file = daemon.directory + "/kiosk.json"
        try #"{"sublayers": [{"name": "app", "frame": [100, 25, 250, 250], "cornerRadius": 30, "masksToBounds": true, "app": ["\#(WaylandEndToEndTests.simpleSHM)"], "appRestart": true}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let apply = try ProcessLines(DaemonProcess.tool("laminactl"), ["apply", "--socket", daemon.socket, file])
        #expect(apply.waitForLine({ $0.hasPrefix("applied ") }) != nil, "\(apply.lines)")
        try wayland.wait("the scene's app in its layer", daemon) { try wayland.screenshot(daemon, "a").pixel(x: 110, y: 35) == (255, 255, 255, 255) }
        let shot = try wayland.screenshot(daemon, "b")
        #expect(shot.pixel(x: 101, y: 26) == (0x33, 0x66, 0xCC, 255), "the rounded corner")
        #expect(shot.pixel(x: 50, y: 150) == (0x33, 0x66, 0xCC, 255), "outside the layer")
        #expect(apply.process.isRunning, "apply stays while the scene's app runs")
        #expect(apply.stop(SIGTERM) == 0, "\(apply.lines)")
    }
}
