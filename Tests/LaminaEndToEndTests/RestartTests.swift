import Foundation
import Testing
import Lamina
import LaminaCore
#if canImport(Glibc)
import Glibc
#endif

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

    /// A kept session with a solid box that slides (position.x 50 → 150 over 10 s, linear) and
    /// a layer showing a 2×2 image.
    func makeKeptSession(_ daemon: DaemonProcess) async throws {
        let app = try Connection.connect(to: daemon.socket, name: "kiosk-app", session: "kiosk", keepLayers: true)
        let box = Layer()
        box.name = "box"
        box.bounds = Rect(x: 0, y: 0, width: 20, height: 20)
        box.position = Point(x: 50, y: 40)
        box.backgroundColor = Color(red: 1, green: 0.5, blue: 0, alpha: 1)
        let picture = Layer()
        picture.name = "picture"
        picture.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        picture.position = Point(x: 160, y: 160)
        picture.contents = try Image(width: 2, height: 2, pixels: [255, 0, 0, 255, 0, 255, 0, 255,
                                                                     0, 0, 255, 255, 255, 255, 255, 255], connection: app)
        Transaction.begin()
        Transaction.disableActions = true
        app.rootLayer.addSublayer(box)
        app.rootLayer.addSublayer(picture)
        var slide = BasicAnimation(keyPath: "position.x", fromValue: .number(50), toValue: .number(150))
        slide.duration = 10
        box.add(.basic(slide), forKey: "slide")
        Transaction.commit()
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
