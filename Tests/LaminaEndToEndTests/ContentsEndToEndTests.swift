import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaImage
import LaminaPlatform
import LaminaProtocol
import LaminaTestSupport

/// Layer contents over a real laminad: images in shared memory (memfd, SCM_RIGHTS), partial
/// updates, texture accounting, and bad image messages from a raw socket.
@Suite("contents end to end", .serialized)
@MainActor
struct ContentsEndToEndTests {
    func stat(_ c: Connection, _ name: String) async throws -> Double? {
        try await c.stats().first { $0.name == name }?.value
    }

    @Test("the client rewrites a sub-rectangle of shared memory and only that changes on screen")
    func subRectangleUpdate() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "contents")
        // A 64×64 gradient so every pixel differs from its neighbours.
        var pixels: [UInt8] = []
        for y in 0..<64 { for x in 0..<64 { pixels += [UInt8(x * 4), UInt8(y * 4), 128, 255] } }
        let image = try Image(width: 64, height: 64, pixels: pixels, connection: c)
        let layer = Layer()
        layer.frame = Rect(x: 20, y: 30, width: 64, height: 64)
        layer.contents = image
        layer.magnificationFilter = .nearest
        layer.minificationFilter = .nearest
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        let before = try await c.screenshot()
        #expect(before.pixel(x: 20 + 10, y: 30 + 5) == (40, 20, 128, 255))

        // Rewrite a 20×10 rectangle at (16, 8) in red.
        let rect = PixelRect(x: 16, y: 8, width: 20, height: 10)
        try image.update(rect: rect, pixels: [UInt8]((0..<200).flatMap { _ in [255, 0, 0, 255] as [UInt8] }))
        try await c.sync()
        let after = try await c.screenshot()
        var changed = 0
        for y in 0..<after.height {
            for x in 0..<after.width {
                let inside = x >= 20 + 16 && x < 20 + 36 && y >= 30 + 8 && y < 30 + 18
                let a = after.pixel(x: x, y: y), b = before.pixel(x: x, y: y)
                if inside {
                    #expect(a == (255, 0, 0, 255), "(\(x), \(y)) inside the update")
                } else if a != b {
                    changed += 1
                }
            }
        }
        #expect(changed == 0, "\(changed) pixels outside the updated rectangle changed")
        #expect(try await stat(c, "textureBytes.client.\(c.clientID)") == 64 * 64 * 4)
        c.close()
    }

    @Test("a 256×256 contents layer holds 262 144 texture bytes; disconnecting frees them")
    func disconnectFreesTextures() async throws {
        let daemon = try DaemonProcess()
        let observer = try Connection.connect(to: daemon.socket, name: "observer")
        let c = try Connection.connect(to: daemon.socket, name: "images")
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 256, height: 256)
        layer.contents = try Image(width: 256, height: 256, pixels: [UInt8](repeating: 200, count: 256 * 256 * 4), connection: c)
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        #expect(try await stat(observer, "textureBytes") == 262_144)
        #expect(try await stat(observer, "textures") == 1)
        #expect(try await stat(observer, "images") == 1)
        c.close()
        // The daemon sees the hang-up when it next reads; each stats request is one round trip.
        var bytes: Double? = -1
        for _ in 0..<500 {
            bytes = try await stat(observer, "textureBytes")
            if bytes == 0 { break }
        }
        #expect(bytes == 0)
        #expect(try await stat(observer, "images") == 0)
        #expect(try await stat(observer, "textures") == 0)
        observer.close()
    }

    @Test("a layer drawing a destroyed image shows no contents; an image from a PNG and a JPEG file")
    func destroyAndFiles() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "files")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lamina-contents-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try PNG.write(Bitmap(width: 4, height: 4, fill: (0, 200, 0, 255)), toFile: directory + "/green.png")
        let png = try Image(contentsOfFile: directory + "/green.png", connection: c)
        let jpeg = try Image(contentsOfFile: fixturePath("orange.jpg"), connection: c)
        #expect(jpeg.width == 16 && jpeg.height == 8)
        let a = Layer(), b = Layer()
        a.frame = Rect(x: 10, y: 10, width: 40, height: 40)
        a.backgroundColor = Color(red: 0.2, green: 0.2, blue: 0.2, alpha: 1)
        a.contents = png
        b.frame = Rect(x: 60, y: 10, width: 32, height: 16)
        b.contents = jpeg
        c.rootLayer.addSublayer(a)
        c.rootLayer.addSublayer(b)
        try await c.sync()
        var shot = try await c.screenshot()
        #expect(shot.pixel(x: 30, y: 30) == (0, 200, 0, 255))
        let orange = shot.pixel(x: 76, y: 18)
        #expect(abs(Int(orange.r) - 255) < 8 && abs(Int(orange.g) - 128) < 8 && orange.b < 8, "\(orange)")
        png.destroy()
        try await c.sync()
        shot = try await c.screenshot()
        #expect(shot.pixel(x: 30, y: 30) == (51, 51, 51, 255), "the background shows once the image is destroyed")
        c.close()
    }

    @Test("images from WebP and GIF files: a lossy WebP, an animated WebP's and an animated GIF's first frames")
    func webpAndGIFFiles() async throws {
        let daemon = try DaemonProcess()
        let c = try Connection.connect(to: daemon.socket, name: "files")
        let fixtures = TestPaths.repository + "/Tests/LaminaImageTests/Fixtures/"
        // Frame 1 blue | green, frame 2 red | red: the first frame shows.
        var gif = GIFWriter(width: 2, height: 1, colors: [(0, 0, 255), (0, 255, 0), (255, 0, 0)], loop: 0)
        gif.frame(width: 2, height: 1, indices: [0, 1], delay: 10)
        gif.frame(width: 2, height: 1, indices: [2, 2], delay: 10)
        let gifPath = daemon.directory + "/two-frames.gif"
        try Data(gif.finished()).write(to: URL(fileURLWithPath: gifPath))
        let images = [
            try Image(contentsOfFile: fixtures + "animated-loop3.webp", connection: c),  // red, green, blue frames
            try Image(contentsOfFile: fixtures + "still-lossy.webp", connection: c),  // red, green / blue, white
            try Image(contentsOfFile: gifPath, connection: c),
        ]
        #expect(images.map { [$0.width, $0.height] } == [[4, 4], [16, 16], [2, 1]])
        for (image, frame) in zip(images, [Rect(x: 10, y: 10, width: 40, height: 40), Rect(x: 60, y: 10, width: 32, height: 32),
                                          Rect(x: 100, y: 10, width: 20, height: 10)]) {
            let layer = Layer()
            layer.frame = frame
            layer.contents = image
            layer.magnificationFilter = .nearest
            c.rootLayer.addSublayer(layer)
        }
        try await c.sync()
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 30, y: 30) == (255, 0, 0, 255), "the animated WebP's first frame")
        for (x, y, rgb) in [(68, 18, [255, 0, 0]), (84, 18, [0, 255, 0]), (68, 34, [0, 0, 255]), (84, 34, [255, 255, 255])] {
            let p = shot.pixel(x: x, y: y)
            #expect(zip([Int(p.r), Int(p.g), Int(p.b)], rgb).allSatisfy { abs($0 - $1) <= 12 }, "lossy WebP at (\(x), \(y)): \(p)")
        }
        #expect(shot.pixel(x: 105, y: 15) == (0, 0, 255, 255) && shot.pixel(x: 115, y: 15) == (0, 255, 0, 255), "the GIF's first frame")
        c.close()
    }

    @Test("scene files give contents as a file relative to the scene; laminactl contents sets a named layer's")
    func laminactlContents() async throws {
        let daemon = try DaemonProcess()
        try FileManager.default.createDirectory(atPath: daemon.directory + "/art", withIntermediateDirectories: true)
        try PNG.write(Bitmap(width: 2, height: 2, fill: (0, 0, 255, 255)), toFile: daemon.directory + "/art/blue.png")
        let scene = daemon.directory + "/scene.json"
        try #"""
        {"sublayers": [
          {"name": "picture", "frame": [10, 10, 40, 40], "contents": "art/blue.png", "magnificationFilter": "nearest"},
          {"name": "frame", "frame": [60, 10, 64, 32], "backgroundColor": "#333333"}
        ]}
        """#.write(toFile: scene, atomically: true, encoding: .utf8)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        r = try daemon.laminactl(["contents", "frame", fixturePath("orange.jpg"), "--gravity", "left"])
        #expect(r.status == 0, "\(r.output)")
        let png = daemon.directory + "/shot.png"
        r = try daemon.laminactl(["screenshot", png])
        let shot = try PNG.read(fromFile: png)
        #expect(shot.pixel(x: 30, y: 30) == (0, 0, 255, 255), "the scene's PNG, kept after laminactl exits")
        let orange = shot.pixel(x: 65, y: 26)
        #expect(abs(Int(orange.r) - 255) < 8 && abs(Int(orange.g) - 128) < 8, "the JPEG at the left of 'frame': \(orange)")
        #expect(shot.pixel(x: 100, y: 26) == (0x33, 0x33, 0x33, 255), "gravity left: 16 points wide, the background beside it")
        r = try daemon.laminactl(["stats"])
        #expect(r.output.contains("images 2"), "\(r.output)")
        #expect(r.output.contains("textureBytes.session.laminactl 528"), "2×2 + 16×8 pixels × 4 bytes: \(r.output)")
        // Mistakes are named.
        r = try daemon.laminactl(["contents", "nosuch", fixturePath("orange.jpg")])
        #expect(r.status != 0 && r.output.contains("no layer named 'nosuch'"), "\(r.output)")
        r = try daemon.laminactl(["contents", "frame", scene])
        #expect(r.status != 0 && r.output.contains("not a PNG, JPEG, SVG, GIF or WebP file"), "\(r.output)")
        r = try daemon.laminactl(["contents", "frame", fixturePath("orange.jpg"), "--gravity", "middle"])
        #expect(r.status != 0 && r.output.contains("--gravity takes one of"), "\(r.output)")
        // Applying the scene again resumes the session: the image only 'frame' showed is gone
        // (the scene does not name it), and the scene's picture is made again.
        r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        r = try daemon.laminactl(["stats"])
        #expect(r.output.contains("images 1"), "\(r.output)")
    }

    // MARK: Raw protocol

    /// A raw client: hello, then frames with or without descriptors, and the answers.
    final class RawClient {
        let fd: FileDescriptor
        var decoder = FrameDecoder(limit: 1 << 26)
        init(socket: String) throws {
            fd = try UnixSocket.connect(path: socket)
            try fd.writeAll(ClientMessage.hello(Hello(clientName: "raw")).encoded())
            guard case .welcome = try next() else { throw DaemonError("no welcome") }
        }
        func send(_ bytes: [UInt8], descriptors: [Int32] = []) throws {
            let n = try bytes.withUnsafeBytes { p in
                try Result { () throws(SystemError) -> Int in try UnixSocket.send(fd.rawValue, bytes: p, descriptors: descriptors) }.get()
            }
            try fd.writeAll(Array(bytes[n...]))
        }
        func next() throws -> ServerMessage {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let frame = try decoder.next() { return try ServerMessage.decode(type: frame.type, body: frame.body) }
                let n = try buffer.withUnsafeMutableBytes { try fd.read(into: $0) } ?? 0
                guard n > 0 else { throw DaemonError("connection closed") }
                decoder.append(Array(buffer[0..<n]))
            }
        }
        /// The error answering the last commit.
        func error() throws -> ErrorMessage? {
            if case .error(let e) = try next() { return e }
            return nil
        }
    }

    func memfd(bytes: Int, sealed: Bool = true) throws -> FileDescriptor {
        try SharedMemoryFile(name: "test", byteCount: bytes, sealed: sealed).fd
    }

    @Test("bad image messages get clear errors and the daemon keeps serving other clients")
    func malformedImages() async throws {
        let daemon = try DaemonProcess()
        let good = try Connection.connect(to: daemon.socket, name: "good")
        let raw = try RawClient(socket: daemon.socket)
        func openDescriptors() throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.processIdentifier)/fd").count
        }
        let descriptorsBefore = try openDescriptors()
        let create = ClientMessage.commit(Commit(serial: 1, operations: [.createImage(image: 1, ImageFormat(width: 8, height: 8))])).encoded()

        // No descriptor with a create-image.
        try raw.send(create)
        var e = try raw.error()
        #expect(e?.code == .invalidImage)
        #expect(e?.message.contains("carried 0 file descriptors") == true, "\(String(describing: e))")

        // A memory file smaller than the image.
        let small = try memfd(bytes: 100)
        try raw.send(create, descriptors: [small.rawValue])
        e = try raw.error()
        #expect(e?.code == .invalidImage)
        #expect(e?.message.contains("past the end of the 100-byte memory file") == true, "\(String(describing: e))")

        // Two descriptors for one create.
        let big1 = try memfd(bytes: 256), big2 = try memfd(bytes: 256)
        try raw.send(create, descriptors: [big1.rawValue, big2.rawValue])
        e = try raw.error()
        #expect(e?.message.contains("carried 2 file descriptors") == true, "\(String(describing: e))")

        // An unknown pixel format (byte 33 of the frame).
        var unknown = create
        unknown[33] = 7
        try raw.send(unknown, descriptors: [big1.rawValue])
        e = try raw.error()
        #expect(e?.code == .malformedMessage)
        #expect(e?.message.contains("unknown pixel format 7") == true, "\(String(describing: e))")

        // A memory file not sealed against shrinking.
        let unsealed = try memfd(bytes: 256, sealed: false)
        try raw.send(create, descriptors: [unsealed.rawValue])
        e = try raw.error()
        #expect(e?.message.contains("not sealed against shrinking") == true, "\(String(describing: e))")

        // Not a memory file at all: a socket.
        try raw.send(create, descriptors: [raw.fd.rawValue])
        e = try raw.error()
        #expect(e?.code == .invalidImage, "\(String(describing: e))")

        // A descriptor with a request, which takes none.
        try raw.send(ClientMessage.request(id: 9, .stats).encoded(), descriptors: [big1.rawValue])
        var sawReply = false, sawError = false
        for _ in 0..<2 {
            switch try raw.next() {
            case .reply: sawReply = true
            case .error(let m): sawError = m.code == .invalidImage && m.message.contains("takes none")
            default: break
            }
        }
        #expect(sawReply && sawError)

        // Every descriptor laminad received was closed on every error path (mappings hold no descriptor).
        #expect(try openDescriptors() == descriptorsBefore)

        // Finally a good one on the same connection.
        try raw.send(create, descriptors: [big1.rawValue])
        guard case .applied(serial: 1) = try raw.next() else { Issue.record("the good create was not applied"); return }

        // The well-behaved client never noticed.
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 10, height: 10)
        layer.backgroundColor = .white
        good.rootLayer.addSublayer(layer)
        try await good.sync()
        #expect(try await good.screenshot().pixel(x: 5, y: 5) == (255, 255, 255, 255))
        #expect(try await stat(good, "clientsDropped") == 0)
        good.close()
    }
}

func fixturePath(_ name: String, filePath: String = #filePath) -> String {
    filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/Fixtures/" + name
}
