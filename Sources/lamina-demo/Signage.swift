import Foundation
import Lamina
import LaminaCore

/// Act three, digital signage: a generated clip playing in a rounded, shadowed frame beside a
/// headline, a pulsing "LIVE" badge and a ticker sliding across the bottom. laminad decodes the
/// clip (GStreamer) and keeps it in step with its clock; the demo only makes the clip.
@MainActor
struct Signage {
    let root: Layer
    let video: VideoSource

    /// Makes a 3-second clip with GStreamer's test source in `directory` (VP8 in WebM); nil,
    /// with the reason, where gst-launch-1.0 or an element is missing.
    static func makeClip(in directory: String) -> (path: String?, problem: String?) {
        let path = directory + "/signage.webm"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = ["-q", "videotestsrc", "num-buffers=90", "pattern=ball", "motion=sweep", "!",
                       "video/x-raw,width=640,height=360,framerate=30/1", "!", "vp8enc", "deadline=1", "!",
                       "webmmux", "!", "filesink", "location=\(path)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return (nil, "gst-launch-1.0 cannot run (\(error)); scripts/deps.sh installs it") }
        p.waitUntilExit()
        guard p.terminationStatus == 0, FileManager.default.fileExists(atPath: path) else {
            return (nil, "gst-launch-1.0 could not make the clip (status \(p.terminationStatus))")
        }
        return (path, nil)
    }

    static func build(on c: Connection, clip: String) throws -> Signage {
        let size = c.displaySize
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        root.backgroundColor = Color(hex: "#0B0E14")

        // The clip, 16:9, in a rounded frame with a shadow.
        let w = size.width * 0.55, h = w * 9 / 16
        let screen = Layer()
        screen.frame = Rect(x: size.width * 0.04, y: (size.height - h) / 2 - size.height * 0.05, width: w, height: h)
        screen.cornerRadius = 18
        screen.masksToBounds = true
        screen.backgroundColor = .black
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        video.loops = true
        video.play()
        screen.video = video
        let frame = Layer()
        frame.frame = screen.frame
        frame.cornerRadius = 18
        frame.backgroundColor = .black
        frame.shadowOpacity = 0.6
        frame.shadowRadius = 14
        frame.shadowOffset = Size(width: 0, height: 8)
        root.addSublayer(frame)
        root.addSublayer(screen)

        // The headline and the LIVE badge beside it.
        let x = screen.frame.maxX + size.width * 0.04
        let headline = TextLayer()
        headline.frame = Rect(x: x, y: screen.frame.minY, width: size.width - x - size.width * 0.04, height: h * 0.6)
        headline.string = "Video beside layers: decoded by laminad, in step with its clock."
        headline.fontSize = min(34, h / 8)
        headline.isWrapped = true
        headline.foregroundColor = Color(hex: "#F2F2F2") ?? .white
        root.addSublayer(headline)
        let badge = Layer()
        badge.frame = Rect(x: x, y: screen.frame.maxY - 44, width: 96, height: 36)
        badge.cornerRadius = 18
        badge.backgroundColor = Color(hex: "#E4572E")
        let live = TextLayer()
        live.frame = Rect(x: 0, y: 6, width: 96, height: 30)
        live.string = "LIVE"
        live.fontSize = 20
        live.alignmentMode = .center
        live.foregroundColor = .white
        badge.addSublayer(live)
        var pulse = BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0.35))
        pulse.duration = 0.8
        pulse.autoreverses = true
        pulse.repeatCount = .infinity
        badge.add(.basic(pulse), forKey: "pulse")
        root.addSublayer(badge)

        // The ticker: a band at the bottom with text sliding right to left, forever.
        let band = Layer()
        band.frame = Rect(x: 0, y: size.height - 56, width: size.width, height: 56)
        band.backgroundColor = Color(hex: "#1E2430")
        band.masksToBounds = true
        let ticker = TextLayer()
        ticker.bounds = Rect(x: 0, y: 0, width: size.width * 1.6, height: 40)
        ticker.position = Point(x: size.width * 1.8, y: 30)
        ticker.string = "Kiosks · dashboards · signage — smooth, animated, touchable UI on Linux, straight to the screen with DRM/KMS"
        ticker.fontSize = 24
        ticker.foregroundColor = Color(hex: "#F4D35E") ?? .white
        var slide = BasicAnimation(keyPath: "position.x", fromValue: .number(size.width * 1.8), toValue: .number(-size.width * 0.8))
        slide.duration = 8
        slide.repeatCount = .infinity
        ticker.add(.basic(slide), forKey: "ticker")
        band.addSublayer(ticker)
        root.addSublayer(band)
        return Signage(root: root, video: video)
    }
}
