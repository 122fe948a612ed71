import ArgumentParser
import Foundation
import Lamina
import LaminaCore
import LaminaImage

/// A small kiosk dashboard: three cards swing in with perspective, a progress bar fills and a
/// status light pulses.
///
/// Until laminad runs animations itself (the transactions-and-actions issue), the demo moves
/// the layers frame by frame from the client. With a virtual clock it advances laminad's clock
/// one refresh at a time, so every frame is exact; with a real clock it paces itself at 60 Hz.
@main
struct LaminaDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lamina-demo", abstract: "Play the Lamina demo on a running laminad.")

    @Option(help: "laminad's socket.") var socket: String?
    @Option(help: "Seconds of animation.") var seconds: Double = 2
    @Flag(name: .customLong("real-time"), help: "Pace frames by the wall clock instead of advancing a virtual clock.") var realTime = false
    @Option(name: .customLong("contact-sheet"), help: "Write a contact sheet of the frames to this PNG (virtual clock only).") var contactSheet: String?

    @MainActor
    func run() async throws {
        let c = try Connection.connect(to: socket, name: "lamina-demo")
        let size = c.displaySize
        let scale = min(size.width / 1280, size.height / 720)

        let backdrop = Layer()
        backdrop.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        backdrop.backgroundColor = Color(hex: "#10131A")
        backdrop.sublayerTransform = .perspective(distance: 900 * scale)
        c.rootLayer.addSublayer(backdrop)

        let colours = ["#E4572E", "#29335C", "#F3A712"].compactMap { Color(hex: $0) }
        var cards: [Layer] = []
        for (i, colour) in colours.enumerated() {
            let card = Layer()
            card.name = "card-\(i)"
            card.bounds = Rect(x: 0, y: 0, width: 300 * scale, height: 380 * scale)
            card.position = Point(x: size.width * (0.25 + 0.25 * Double(i)), y: size.height * 0.45)
            card.backgroundColor = colour
            let stripe = Layer()
            stripe.frame = Rect(x: 24 * scale, y: 24 * scale, width: 252 * scale, height: 40 * scale)
            stripe.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.85)
            card.addSublayer(stripe)
            backdrop.addSublayer(card)
            cards.append(card)
        }
        let track = Layer()
        track.frame = Rect(x: size.width * 0.15, y: size.height * 0.85, width: size.width * 0.7, height: 16 * scale)
        track.backgroundColor = Color(hex: "#2A2F3A")
        backdrop.addSublayer(track)
        let bar = Layer()
        bar.anchorPoint = Point(x: 0, y: 0.5)
        bar.bounds = Rect(x: 0, y: 0, width: 0, height: 16 * scale)
        bar.position = Point(x: 0, y: 8 * scale)
        bar.backgroundColor = Color(hex: "#4CB944")
        track.addSublayer(bar)
        let light = Layer()
        light.bounds = Rect(x: 0, y: 0, width: 28 * scale, height: 28 * scale)
        light.position = Point(x: size.width * 0.9, y: size.height * 0.1)
        light.backgroundColor = Color(hex: "#4CB944")
        backdrop.addSublayer(light)

        let fps = 60.0
        let frames = Int(seconds * fps)
        var sheet: [Bitmap] = []
        for f in 0...frames {
            let t = Double(f) / fps
            for (i, card) in cards.enumerated() {
                // Each card swings in from edge-on, 0.2 s after the one before, with an ease-out.
                let p = max(0, min(1, (t - 0.2 * Double(i)) / 1.0))
                let eased = 1 - (1 - p) * (1 - p) * (1 - p)
                card.transform = .rotation(angle: (1 - eased) * .pi / 2, x: 0, y: 1, z: 0)
                card.opacity = 0.3 + 0.7 * eased
            }
            bar.bounds = Rect(x: 0, y: 0, width: track.bounds.width * min(1, t / seconds), height: bar.bounds.height)
            light.opacity = 0.5 + 0.5 * _cos(t * 2 * .pi)
            Transaction.flush()
            if realTime {
                try await Task.sleep(for: .milliseconds(Int(1000 / fps)))
            } else {
                try await c.advanceClock(by: f == 0 ? 0 : 1 / fps)
                if contactSheet != nil, f % (frames / 11 == 0 ? 1 : frames / 11) == 0, sheet.count < 12 {
                    sheet.append(try await c.screenshot())
                }
            }
        }
        try await c.sync()
        if let contactSheet, !sheet.isEmpty {
            try PNG.write(ContactSheet.make(sheet, columns: 4, shrink: 4), toFile: contactSheet)
        }
        c.close()
    }
}

/// Tiles frames, each shrunk by an integer factor (box filter), into one image.
enum ContactSheet {
    static func make(_ frames: [Bitmap], columns: Int, shrink: Int) -> Bitmap {
        let w = frames[0].width / shrink, h = frames[0].height / shrink, gap = 4
        let rows = (frames.count + columns - 1) / columns
        var out = Bitmap(width: columns * (w + gap) + gap, height: rows * (h + gap) + gap, fill: (40, 40, 40, 255))
        for (n, f) in frames.enumerated() {
            let ox = gap + (n % columns) * (w + gap), oy = gap + (n / columns) * (h + gap)
            for y in 0..<h {
                for x in 0..<w {
                    var sum = (0, 0, 0)
                    for dy in 0..<shrink {
                        for dx in 0..<shrink {
                            let p = f.pixel(x: x * shrink + dx, y: y * shrink + dy)
                            sum.0 += Int(p.r); sum.1 += Int(p.g); sum.2 += Int(p.b)
                        }
                    }
                    let k = shrink * shrink, i = ((oy + y) * out.width + ox + x) * 4
                    out.bytes[i] = UInt8(sum.0 / k); out.bytes[i + 1] = UInt8(sum.1 / k); out.bytes[i + 2] = UInt8(sum.2 / k); out.bytes[i + 3] = 255
                }
            }
        }
        return out
    }
}
