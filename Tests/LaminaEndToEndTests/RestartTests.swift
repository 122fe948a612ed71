import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaPlatform
#if canImport(Glibc)
import Glibc
#endif

/// The scene both suites restart: a solid orange box that slides (position.x 50 → 150 over
/// 10 s, linear, added with actions disabled) and a 40×40 layer at (160, 160) showing `image`.
/// Returns the box.
@MainActor
func buildSlidingScene(on c: Connection, image: Image) throws -> Layer {
    let box = Layer()
    box.name = "box"
    box.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
    box.position = Point(x: 50, y: 40)
    box.backgroundColor = Color(red: 1, green: 0.5, blue: 0, alpha: 1)
    let picture = Layer()
    picture.name = "picture"
    picture.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
    picture.position = Point(x: 160, y: 160)
    picture.contents = image
    Transaction.begin()
    Transaction.disableActions = true
    c.rootLayer.addSublayer(box)
    c.rootLayer.addSublayer(picture)
    var slide = BasicAnimation(keyPath: "position.x", fromValue: .number(50), toValue: .number(150))
    slide.duration = 10
    box.add(.basic(slide), forKey: "slide")
    Transaction.commit()
    return box
}

/// Kept sessions survive laminad being killed: a restarted laminad in the same runtime folder
/// shows them again from its session journal, before any client returns. A torn or corrupt
/// journal is logged and set aside, never fatal.
@Suite("Restarts", .serialized)
@MainActor
struct RestartTests {
    /// Polls laminad's stats until its journal holds every change so far (the write follows a
    /// change by the journal delay, 0.5 s of real time); false after 20 s.
    func waitForJournal(_ daemon: DaemonProcess) throws -> Bool {
        for _ in 0..<200 {
            let stats = try daemon.laminactl(["stats"]).output.split(separator: "\n")
            if stats.contains("sessionJournal.pending 0"), !stats.contains("sessionJournal.writes 0") { return true }
            usleep(100_000)
        }
        return false
    }

    /// A kept session with the sliding scene and a 2×2 image.
    func makeKeptSession(_ daemon: DaemonProcess) async throws {
        let app = try Connection.connect(to: daemon.socket, name: "kiosk-app", session: "kiosk", keepLayers: true)
        _ = try buildSlidingScene(on: app, image: try Image(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 255, 0, 255,
                                                                                           0, 0, 255, 255, 255, 255, 255, 255], connection: app))
        try await app.sync()
        app.close()
    }

    @Test func killedLaminadComesBackWithItsKeptSessions() async throws {
        let first = try DaemonProcess()
        try await makeKeptSession(first)
        #expect(try first.laminactl(["advance", "2"]).status == 0)
        #expect(try first.presentedX(layer: "box") == 70)
        let before = try await Connection.connect(to: first.socket, name: "observer").screenshot()
        // The journal holds the session and where the clock took its animation.
        #expect(try waitForJournal(first), "the journal was not written: \(first.logText)")
        first.kill(SIGKILL)

        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("restored session 'kiosk' of uid 0: 3 layers, 1 images, 1 animations"), "\(second.logText)")
        // Before any client of the session returns: the same pixels, the animation where it was.
        let observer = try Connection.connect(to: second.socket, name: "observer")
        let after = try await observer.screenshot()
        let d = after.difference(from: before, tolerance: 2)
        #expect(d != nil && d!.pixelsOverTolerance == 0, "the restored screen differs: \(String(describing: d))")
        #expect(try second.presentedX(layer: "box") == 70)
        #expect(try second.laminactl(["advance", "3"]).status == 0)
        #expect(try second.presentedX(layer: "box") == 100)
        // The app comes back to its session and finds its layers.
        let app = try Connection.connect(to: second.socket, name: "kiosk-app", session: "kiosk", keepLayers: true)
        #expect(app.rootLayer.sublayers.map(\.name) == ["box", "picture"])
        app.close()
        observer.close()
    }

    /// The journal is written on a thread of its own, in order: an image taken off a layer and
    /// put back, each change journalled, is still on disk after a kill, and comes back.
    @Test func anImageTakenOffAndPutBackSurvivesAKill() async throws {
        let first = try DaemonProcess()
        let app = try Connection.connect(to: first.socket, name: "kiosk-app", session: "kiosk", keepLayers: true)
        let image = try Image(width: 1, height: 1, pixels: [0, 255, 0, 255], connection: app)
        _ = try buildSlidingScene(on: app, image: image)
        try await app.sync()
        #expect(try waitForJournal(first))
        let picture = app.rootLayer.sublayers.first { $0.name == "picture" }!
        picture.contents = nil
        try await app.sync()
        #expect(try waitForJournal(first))
        picture.contents = image
        try await app.sync()
        #expect(try waitForJournal(first))
        let writes = try first.laminactl(["stats"]).output.split(separator: "\n").first { $0.hasPrefix("sessionJournal.writes ") }
        #expect(writes.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0 >= 3, "\(String(describing: writes))")
        first.kill(SIGKILL)
        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("restored session 'kiosk' of uid 0: 3 layers, 1 images"), "\(second.logText)")
        let shot = try await Connection.connect(to: second.socket, name: "observer").screenshot()
        let i = (160 * shot.width + 160) * 4
        #expect(Array(shot.bytes[i..<i + 3]) == [0, 255, 0], "the picture after the restart: \(Array(shot.bytes[i..<i + 4]))")
    }

    /// A kept session's SVG image (create-encoded-image) is journalled as its file's bytes: a
    /// killed laminad draws it again, still at the layer's scale.
    @Test func anSVGImageSurvivesAKill() async throws {
        let first = try DaemonProcess()
        let app = try Connection.connect(to: first.socket, name: "kiosk-app", session: "kiosk", keepLayers: true)
        let logo = Layer()
        logo.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        logo.position = Point(x: 160, y: 120)
        logo.transform = .scale(x: 3, y: 3, z: 1)
        logo.contents = try Image(svg: EncodedImageEndToEndTests.circle, connection: app)
        app.rootLayer.addSublayer(logo)
        try await app.sync()
        #expect(try waitForJournal(first))
        first.kill(SIGKILL)
        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("restored session 'kiosk' of uid 0: 2 layers, 1 images"), "\(second.logText)")
        let shot = try await Connection.connect(to: second.socket, name: "observer").screenshot()
        #expect(shot.pixel(x: 160, y: 120).r > 240 && shot.pixel(x: 160, y: 64).r > 200 && shot.pixel(x: 160, y: 56).r < 20,
                "the circle, 120 pixels across, after the restart")
        #expect(DrawingEndToEndTests.edgeWidth(shot, y: 80, from: 90, to: 230) <= 4, "still drawn at the layer's scale")
    }

    /// Acknowledged means kept: laminactl's `applied` line comes only once the journal holds
    /// the scene (group commit), so killing laminad the moment laminactl returns loses nothing.
    /// Before, the journal was written 0.5 s after the change and such a kill lost the scene.
    /// Twenty rounds, no sleeps: each applies a scene naming its round, kills laminad with
    /// SIGKILL at once, restarts it on the same journal and finds that round's layer.
    @Test func anAppliedSceneSurvivesAKillTheMomentTheReplyArrives() throws {
        var daemons = [try DaemonProcess()]  // kept until the end: each removes the folder as it goes
        let scene = daemons[0].directory + "/scene.json"
        for round in 0..<20 {
            let daemon = daemons.last!
            try ##"{"sublayers": [{"name": "round-\##(round)", "frame": [0, 0, 40, 40], "backgroundColor": "#00FF00"}]}"##
                .write(toFile: scene, atomically: true, encoding: .utf8)
            let applied = try daemon.laminactl(["apply", scene])
            daemon.kill(SIGKILL)
            #expect(applied.status == 0, "round \(round): \(applied.output)")
            let next = try DaemonProcess(directory: daemon.directory)
            daemons.append(next)
            let tree = try next.laminactl(["tree"]).output
            #expect(tree.contains("round-\(round)"), "round \(round): the applied scene did not survive the kill:\n\(tree)\n\(next.logText)")
            if !tree.contains("round-\(round)") { break }
        }
    }

    /// The journal is fsynced only off memory: in a tmpfs (/dev/shm here, /run on a system)
    /// `stats` says 0 fsyncs after an apply; on a disk (the temporary folder, where it is not a
    /// tmpfs) the file and its folder are fsynced, counted and timed.
    @Test(.enabled(if: Files.isInMemory("/dev/shm"), "/dev/shm is not a tmpfs here"))
    func aJournalInMemoryIsNeverFsynced() throws { try checkFsync(base: "/dev/shm", inMemory: true) }

    @Test(.enabled(if: !Files.isInMemory(NSTemporaryDirectory()), "the temporary folder is a tmpfs here: no disk to fsync"))
    func aJournalOnADiskIsFsyncedAndItsCostReported() throws { try checkFsync(base: NSTemporaryDirectory(), inMemory: false) }

    func checkFsync(base: String, inMemory: Bool) throws {
        let journal = base + "/lamina-journal-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: journal) }
        let daemon = try DaemonProcess(extra: ["--session-journal", journal])
        let scene = daemon.directory + "/scene.json"
        try ##"{"sublayers": [{"name": "kept", "frame": [0, 0, 40, 40], "backgroundColor": "#00FF00"}]}"##
            .write(toFile: scene, atomically: true, encoding: .utf8)
        #expect(try daemon.laminactl(["apply", scene]).status == 0)
        let stats = try daemon.laminactl(["stats"]).output.split(separator: "\n")
        func value(_ name: String) -> Double? {
            stats.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        #expect(value("sessionJournal.writes") ?? 0 >= 1, "\(stats)")
        #expect(value("sessionJournal.acknowledgementsHeld") ?? 0 >= 1, "\(stats)")
        #expect(value("sessionJournal.fsync") == (inMemory ? 0 : 1), "\(stats)")
        if inMemory {
            #expect(value("sessionJournal.fsyncs") == 0 && value("sessionJournal.fsyncSeconds") == 0, "\(stats)")
        } else {
            // The index and its folder at least, for each write.
            #expect(value("sessionJournal.fsyncs") ?? 0 >= 2 * (value("sessionJournal.writes") ?? 1), "\(stats)")
            #expect(value("sessionJournal.fsyncSeconds") ?? 0 > 0, "\(stats)")
        }
    }

    @Test func aCleanStopWritesTheJournalAndItSurvivesTwoRestarts() async throws {
        let first = try DaemonProcess()
        try await makeKeptSession(first)
        first.kill(SIGTERM)  // writes at exit, whatever the delay
        let second = try DaemonProcess(directory: first.directory)
        #expect(try second.presentedX(layer: "box") == 50)
        #expect(try second.laminactl(["advance", "1"]).status == 0)
        second.kill(SIGTERM)
        let third = try DaemonProcess(directory: first.directory)
        #expect(third.logText.contains("restored session 'kiosk'"), "\(third.logText)")
        #expect(try third.presentedX(layer: "box") == 60)
    }

    @Test(arguments: ["torn", "corrupt", "garbage"])
    func aDamagedJournalIsSetAsideNeverFatal(_ damage: String) async throws {
        let first = try DaemonProcess()
        try await makeKeptSession(first)
        first.kill(SIGTERM)
        let index = first.directory + "/lamina.sessions/index"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: index)))
        switch damage {
        case "torn": bytes.removeLast(bytes.count / 2)
        case "corrupt": bytes[bytes.count - 7] ^= 0x5A
        default: bytes = Array("not a journal at all".utf8)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: index))
        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("is unreadable"), "\(second.logText)")
        #expect(FileManager.default.fileExists(atPath: index + ".corrupt"))
        #expect(try second.presentedX(layer: "box") == nil)
        // It still serves: a new kept session is journalled afresh.
        try await makeKeptSession(second)
        #expect(try second.presentedX(layer: "box") == 50)
    }

    @Test func aMissingImageFileLeavesTheLayersWithoutIt() async throws {
        let first = try DaemonProcess()
        try await makeKeptSession(first)
        first.kill(SIGTERM)
        let dir = first.directory + "/lamina.sessions"
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name.hasSuffix(".rgba") {
            try FileManager.default.removeItem(atPath: dir + "/" + name)
        }
        let second = try DaemonProcess(directory: first.directory)
        #expect(second.logText.contains("images 1 missing or short, left out"), "\(second.logText)")
        #expect(try second.presentedX(layer: "box") == 50)
    }
}

/// The Swift client library comes back when laminad does: it keeps its model, reconnects with
/// backoff, and replays its tree, images and animations, re-timed.
@Suite("Reconnection", .serialized)
@MainActor
struct ReconnectionTests {
    final class Events {
        var list: [Connection.ConnectionEvent] = []
    }

    @Test(arguments: [false, true])
    func theClientReplaysItsTreeOnARestartedLaminad(keptSession: Bool) async throws {
        let first = try DaemonProcess()
        let c = try Connection.connect(to: first.socket, name: "app", session: keptSession ? "app" : "",
                                       keepLayers: keptSession, reconnect: .init(initialDelay: 0.02, maximumDelay: 0.2))
        let events = Events()
        c.onConnectionEvent = { events.list.append($0) }
        let box = try buildSlidingScene(on: c, image: try Image(width: 1, height: 1, pixels: [0, 0, 255, 255], connection: c))
        try await c.sync()
        try await c.advanceClock(by: 2)
        #expect(try first.presentedX(layer: "box") == 70)
        // Another client moves the shared clock on 3 s: laminad tells this one (protocol 1.5
        // `clock`), so the replay below re-times the animation from 5 s, not from the 2 s this
        // client last moved it to.
        #expect(try first.laminactl(["advance", "3"]).status == 0)
        #expect(try await eventually { c.currentMediaTime == 5 }, "the client did not hear the clock move: \(c.currentMediaTime)")
        #expect(try first.presentedX(layer: "box") == 100)
        if keptSession {
            // laminad journals the kept session, so the restarted one shows it before the client returns.
            #expect(try RestartTests().waitForJournal(first))
        }
        first.kill(SIGKILL)
        #expect(try await eventually { !c.isConnected }, "the client did not notice laminad going away")
        #expect(events.list.count == 1)
        if case .disconnected? = events.list.first {} else { Issue.record("first event: \(events.list)") }
        // Changes while disconnected stay in the model and go with the replay; a sync made now
        // waits for the reconnection.
        box.opacity = 0.5
        let second = try DaemonProcess(directory: first.directory)
        try await c.sync()
        #expect(c.isConnected)
        if case .reconnected(let n)? = events.list.last { #expect(n >= 1) } else { Issue.record("events: \(events.list)") }
        // One copy of the tree (a restored kept session was replaced, not doubled), the change
        // made while away, the image, and the animation where it was.
        let tree = try await c.treeJSON()
        #expect(tree.components(separatedBy: "\"name\":\"box\"").count == 2, "\(tree)")
        #expect(try second.presentedX(layer: "box") == 100)
        try await c.advanceClock(by: 1)
        #expect(try second.presentedX(layer: "box") == 110)
        let shot = try await c.screenshot()
        let blue = shot.pixel(x: 160, y: 160)
        #expect(blue.b > 250 && blue.r < 5, "the image's pixel: \(blue)")
        let orange = shot.pixel(x: 110, y: 40)
        #expect(orange.r > 120 && orange.r < 135 && orange.g > 55 && orange.g < 70, "the box at half opacity: \(orange)")
        c.close()
    }

    /// laminad back on a bigger display: the client's root is fitted to it (the replay carries
    /// the new bounds) and its delegate's layout runs again before the next commit.
    @Test func aClientBackOnAnotherDisplaySizeFitsItsRootAndLaysOut() async throws {
        final class Layout: LayerDelegate {
            var sizes: [Size] = []
            func layoutSublayers(of layer: Layer) {
                sizes.append(layer.bounds.size)
                for s in layer.sublayers { s.frame = Rect(x: 10, y: 10, width: layer.bounds.width - 20, height: 20) }
            }
        }
        let first = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: first.socket, name: "app", reconnect: .init(initialDelay: 0.02, maximumDelay: 0.2))
        let layout = Layout()
        c.rootLayer.delegate = layout
        let bar = Layer()
        bar.name = "bar"
        c.rootLayer.addSublayer(bar)
        c.rootLayer.setNeedsLayout()
        try await c.sync()
        #expect(bar.frame == Rect(x: 10, y: 10, width: 300, height: 20))
        first.kill(SIGKILL)
        #expect(try await eventually { !c.isConnected })
        let second = try DaemonProcess(size: "640x480", directory: first.directory)
        try await c.sync()
        #expect(c.displaySize == Size(width: 640, height: 480))
        #expect(c.rootLayer.bounds == Rect(x: 0, y: 0, width: 640, height: 480))
        try await c.sync()
        #expect(layout.sizes.last == Size(width: 640, height: 480), "\(layout.sizes)")
        #expect(bar.frame == Rect(x: 10, y: 10, width: 620, height: 20))
        let tree = try await c.treeJSON()
        #expect(tree.contains("\"bounds\":[0,0,640,480]"), "laminad has the fitted root: \(tree.prefix(400))")
        _ = second
        c.close()
    }

    @Test func withoutAPolicyTheConnectionEnds() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "app")
        var errors: [LaminaError] = []
        c.onError = { errors.append($0) }
        daemon.kill(SIGKILL)
        #expect(try await eventually { !errors.isEmpty })
        if case .connectionClosed? = errors.first {} else { Issue.record("\(errors)") }
        await #expect(throws: LaminaError.self) { try await c.sync() }
    }

    @Test func givingUpFailsTheWaitingCalls() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "app", reconnect: .init(initialDelay: 0.01, maximumDelay: 0.02, maximumAttempts: 3))
        let events = Events()
        c.onConnectionEvent = { events.list.append($0) }
        daemon.kill(SIGKILL)
        try? FileManager.default.removeItem(atPath: daemon.socket)
        #expect(try await eventually { !c.isConnected })
        await #expect(throws: LaminaError.self) { try await c.sync() }
        #expect(try await eventually { events.list.count == 2 })
        if case .gaveUp? = events.list.last {} else { Issue.record("\(events.list)") }
    }
}
