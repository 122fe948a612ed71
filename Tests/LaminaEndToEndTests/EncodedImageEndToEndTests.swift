import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol
import LaminaTestSupport

/// Images laminad makes from encoded files (create-encoded-image, protocol 1.7): SVG documents
/// drawn at the scale they are shown, animated GIF and WebP played on its clock.
@Suite("Encoded images end to end")
@MainActor
struct EncodedImageEndToEndTests {
    /// A white circle filling a 40 × 40 document.
    static let circle = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="20" fill="#fff"/></svg>"##.utf8)

    // An SVG under transform.scale 4 is as sharp as the same circle drawn 4× as large by a
    // drawing (edge widths on a row that crosses both), and sits where its layer says.
    @Test func svgUnderScaleFourIsSharp() async throws {
        let daemon = try DaemonProcess(size: "400x240")
        let c = try Connection.connect(to: daemon.socket, name: "svg")
        let svg = try Image(svg: Self.circle, connection: c)
        #expect(svg.width == 0 && svg.encoding?.format == .svg)
        let scaled = Layer()
        scaled.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        scaled.position = Point(x: 100, y: 120)
        scaled.transform = .scale(x: 4, y: 4, z: 1)
        scaled.contents = svg
        let large = Layer()
        large.bounds = Rect(x: 0, y: 0, width: 160, height: 160)
        large.position = Point(x: 300, y: 120)
        let big = DrawingContext(bounds: large.bounds)
        big.setFillColor(.white)
        big.fillEllipse(in: Rect(x: 0, y: 0, width: 160, height: 160))
        large.drawing = big.drawing
        c.rootLayer.sublayers = [scaled, large]
        try await c.sync()
        let shot = try await c.screenshot()
        // Row 80 crosses each circle 40 points above its centre.
        let svgEdge = DrawingEndToEndTests.edgeWidth(shot, y: 80, from: 15, to: 195)
        let drawnEdge = DrawingEndToEndTests.edgeWidth(shot, y: 80, from: 215, to: 395)
        #expect(drawnEdge <= 4)
        #expect(svgEdge <= drawnEdge + 1, "SVG edge \(svgEdge) px under scale 4 vs drawn at 4× \(drawnEdge) px")
        // The circle covers its layer's frame (20…180 × 40…200) and nothing outside it.
        #expect(shot.pixel(x: 100, y: 120).r > 240, "the centre is white")
        #expect(shot.pixel(x: 100, y: 42).r > 200 && shot.pixel(x: 100, y: 36).r < 20, "the top edge at y 40")
        #expect(shot.pixel(x: 22, y: 120).r > 200 && shot.pixel(x: 16, y: 120).r < 20, "the left edge at x 20")
        // The same SVG at 1×: a 1× raster magnified 4× would blur each edge over 4 pixels.
        print("SVG edge widths on row 80: under transform.scale 4: \(svgEdge) px, drawing at 4x: \(drawnEdge) px")
        c.close()
    }

    // Layout by the intrinsic size: center gravity shows the 40-point document at 40 × 40 in a
    // 100 × 100 layer; resizeAspect fills the height of a 200 × 100 layer, centred.
    @Test func svgIsLaidOutByItsIntrinsicSize() async throws {
        let daemon = try DaemonProcess(size: "320x240")
        let c = try Connection.connect(to: daemon.socket, name: "svg gravity")
        let svg = try Image(svg: Self.circle, connection: c)
        let centred = Layer()
        centred.frame = Rect(x: 0, y: 0, width: 100, height: 100)
        centred.contents = svg
        centred.contentsGravity = .center
        let aspect = Layer()
        aspect.frame = Rect(x: 100, y: 120, width: 200, height: 100)
        aspect.contents = svg
        aspect.contentsGravity = .resizeAspect
        c.rootLayer.sublayers = [centred, aspect]
        try await c.sync()
        let shot = try await c.screenshot()
        func white(_ x: Int, _ y: Int) -> Bool { shot.pixel(x: x, y: y).r > 200 }
        #expect(white(50, 50) && white(50, 32) && !white(50, 28) && white(32, 50) && !white(28, 50), "40 × 40 in the middle")
        #expect(white(200, 170) && white(200, 123) && white(152, 170) && !white(148, 170) && !white(130, 125), "100 × 100, centred")
        c.close()
    }

    // Bad SVG documents are refused with the reason; what the client had stays.
    @Test func badSVGIsRefused() async throws {
        let daemon = try DaemonProcess(size: "160x120")
        let c = try Connection.connect(to: daemon.socket, name: "bad svg")
        let good = try Image(svg: Self.circle, connection: c)
        let layer = Layer()
        layer.frame = Rect(x: 0, y: 0, width: 40, height: 40)
        layer.contents = good
        c.rootLayer.addSublayer(layer)
        try await c.sync()
        // (Each kept until the commit is sent: a released image's create is dropped unsent.)
        var bad = try Image(svg: Array("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect".utf8), connection: c)
        await #expect { try await c.sync() } throws: { "\($0)".contains("could not be parsed") }
        bad = try Image(svg: Array("<svg xmlns='http://www.w3.org/2000/svg'><rect width='5' height='5'/></svg>".utf8), connection: c)
        await #expect { try await c.sync() } throws: { "\($0)".contains("has no size") }
        bad = try Image(svg: Array("<svg xmlns='http://www.w3.org/2000/svg' width='99999' height='10'/>".utf8), connection: c)
        await #expect { try await c.sync() } throws: { "\($0)".contains("may exceed") }
        withExtendedLifetime(bad) {}
        let shot = try await c.screenshot()
        #expect(shot.pixel(x: 20, y: 20).r > 240, "the good SVG still shows")
        c.close()
    }

    // A scene file's "contents" may name an SVG file: laminactl sends it as it is, and laminad
    // draws it at the layer's scale (here 2×, 80 × 80 pixels with a sharp edge).
    @Test func sceneFileContentsMayBeAnSVG() async throws {
        let daemon = try DaemonProcess(size: "200x120")
        try Data(Self.circle).write(to: URL(fileURLWithPath: daemon.directory + "/logo.svg"))
        let scene = daemon.directory + "/scene.json"
        try Data(Self.trafficLight(loop: nil)).write(to: URL(fileURLWithPath: daemon.directory + "/light.gif"))
        try Data(contentsOf: URL(fileURLWithPath: TestPaths.repository + "/Tests/LaminaImageTests/Fixtures/still-lossless.webp"))
            .write(to: URL(fileURLWithPath: daemon.directory + "/photo.webp"))
        try #"""
        {"sublayers": [{"name": "logo", "frame": [20, 20, 40, 40], "transform": {"scale": 2}, "contents": "logo.svg"},
                       {"name": "light", "frame": [100, 0, 40, 40], "contents": "light.gif", "magnificationFilter": "nearest"},
                       {"name": "photo", "frame": [150, 0, 40, 30], "contents": "photo.webp", "magnificationFilter": "nearest"}]}
        """#.write(toFile: scene, atomically: true, encoding: .utf8)
        let r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        let c = try Connection.connect(to: daemon.socket, name: "viewer")
        let shot = try await c.screenshot()
        // The 40-point frame centred at (40, 40), scaled 2× about its centre: 0…80 on each axis.
        #expect(shot.pixel(x: 40, y: 40).r > 240 && shot.pixel(x: 40, y: 2).r > 150 && shot.pixel(x: 2, y: 40).r > 150)
        #expect(shot.pixel(x: 40, y: 84).r < 20 && shot.pixel(x: 84, y: 40).r < 20, "nothing outside")
        #expect(DrawingEndToEndTests.edgeWidth(shot, y: 20, from: 0, to: 100) <= 4)
        // The GIF plays on laminad's clock from the apply: red, then green at 0.1 s.
        #expect(shot.pixel(x: 120, y: 20).r > 200 && shot.pixel(x: 120, y: 20).g < 50, "the GIF's first frame")
        _ = try await c.advanceClock(by: 0.1)
        let later = try await c.screenshot()
        #expect(later.pixel(x: 120, y: 20).g > 200 && later.pixel(x: 120, y: 20).r < 50, "its second frame at 0.1 s")
        // The still WebP, decoded by laminactl: its pixel (3, 0) is (180, 0, 90), 10 × 10 on screen.
        let p = shot.pixel(x: 185, y: 5)
        #expect(abs(Int(p.r) - 180) <= 2 && p.g <= 2 && abs(Int(p.b) - 90) <= 2, "the WebP's pixel (3, 0): \(p)")
        c.close()
    }

    /// A 4 × 4 GIF of three flat frames, red 100 ms, green 200 ms, blue 300 ms; `loop` nil
    /// (no NETSCAPE2.0 extension: it plays once) or 0 (for ever).
    static func trafficLight(loop: Int?) -> [UInt8] {
        var gif = GIFWriter(width: 4, height: 4, colors: [(255, 0, 0), (0, 255, 0), (0, 0, 255)], loop: loop)
        for (index, delay) in [(UInt8(0), 10), (1, 20), (2, 30)] {
            gif.frame(width: 4, height: 4, indices: [UInt8](repeating: index, count: 16), delay: delay)
        }
        return gif.finished()
    }

    // GIF frames at exact virtual times: each frame from the sum of the delays before it (a time
    // exactly on a boundary shows the new frame), from the commit that made the image; played
    // once it keeps its last frame, looping it starts again. Both layers of one image agree.
    @Test func gifFramesAtExactVirtualTimes() async throws {
        let daemon = try DaemonProcess(size: "160x60")
        let c = try Connection.connect(to: daemon.socket, name: "gif")
        let once = try Image(encoded: Self.trafficLight(loop: nil), format: .gif, connection: c)
        let forever = try Image(encoded: Self.trafficLight(loop: 0), format: .gif, connection: c)
        #expect(once.width == 4 && once.height == 4)
        var layers: [Layer] = []
        for (i, image) in [once, forever, forever].enumerated() {
            let l = Layer()
            l.frame = Rect(x: Double(i) * 50, y: 0, width: 40, height: 40)
            l.contents = image
            l.magnificationFilter = .nearest
            layers.append(l)
        }
        c.rootLayer.sublayers = layers
        try await c.sync()
        func colours() async throws -> [String] {
            let shot = try await c.screenshot()
            return [20, 70, 120].map { x in
                let p = shot.pixel(x: x, y: 20)
                return p.r > 200 && p.g < 50 ? "red" : p.g > 200 && p.r < 50 ? "green" : p.b > 200 && p.r < 50 ? "blue" : "\(p)"
            }
        }
        var seen: [String] = []
        for step in [0, 0.099, 0.001, 0.199, 0.001, 0.3, 0.15, 0.5] {
            if step > 0 { _ = try await c.advanceClock(by: step) }
            seen.append(try await colours().joined(separator: "/"))
        }
        // t = 0, 0.099, 0.1, 0.299, 0.3, 0.6, 0.75, 1.25 (the looping one: 0.05 into its third play).
        #expect(seen == ["red/red/red", "red/red/red", "green/green/green", "green/green/green", "blue/blue/blue",
                         "blue/red/red", "blue/green/green", "blue/red/red"], "\(seen)")
        c.close()
    }
}
