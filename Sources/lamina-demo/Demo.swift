import ArgumentParser
import Foundation
import Lamina
import LaminaCore
import LaminaImage

/// The seeds' listings, played by laminad: each panel runs one of them, and laminad animates
/// everything on its own once the transactions are committed.
///
/// With a virtual clock the demo advances laminad's clock one frame at a time, so every frame is
/// exact (and, headless, written as a PNG by laminad); with a real clock it just waits.
@main
struct LaminaDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lamina-demo", abstract: "Play the Core Animation listings on a running laminad.")

    @Option(help: "laminad's socket.") var socket: String?
    @Option(help: "Seconds to play.") var seconds: Double = 6
    @Option(help: "Frames per second when stepping a virtual clock.") var fps: Double = 30
    @Flag(name: .customLong("real-time"), help: "Wait in real time instead of advancing a virtual clock.") var realTime = false
    @Option(name: .customLong("contact-sheet"), help: "Write a contact sheet of 12 frames of the listings, 8 of the second act, 4 of the third, 4 of the fourth and 4 of the fifth to this PNG (virtual clock only).") var contactSheet: String?
    @Option(name: .customLong("showcase-seconds"), help: "Seconds of the second act (layer kinds, masks, shadows, 3D, a transition); 0 skips it.") var showcaseSeconds: Double = 4
    @Option(name: .customLong("signage-seconds"), help: "Seconds of the third act (signage: a generated clip beside animated layers); 0 skips it.") var signageSeconds: Double = 4
    @Option(name: .customLong("winter-seconds"), help: "Seconds of the fourth act (snow over a frosted panel and a scrolling board); 0 skips it.") var winterSeconds: Double = 4
    @Option(name: .customLong("kiosk-seconds"), help: "Seconds of the fifth act (a web page in WPE WebKit in a layer, a ticker over it; needs cog); 0 skips it.") var kioskSeconds: Double = 5

    @MainActor
    func run() async throws {
        let c = try Connection.connect(to: socket, name: "lamina-demo")
        let stage = Stage(connection: c)
        Transaction.begin()
        Transaction.disableActions = true  // build the scene without animating it in
        let panels = stage.layout()
        Transaction.commit()
        try await c.sync()
        let start = c.currentMediaTime

        // Each listing starts its animations now (time 0 of the demo).
        Listings.implicitFade(panels[0])
        Listings.explicitFade(panels[1])
        Listings.bouncePath(panels[2])
        Listings.pacedBorder(panels[3])
        Listings.implicitAndExplicit(panels[4])
        Listings.positionWithControlPoints(panels[5])
        let stopped = Listings.stoppedEarly(panels[6])
        let paused = Listings.pauseResume(panels[7])
        Listings.chained(panels[8], mediaTime: c.currentMediaTime)
        try await c.sync()

        let frames = Int(seconds * fps)
        var sheet: [Bitmap] = []
        let every = max(1, frames / 12)
        for f in 1...frames {
            let t = Double(f) / fps
            if realTime {
                try await Task.sleep(for: .milliseconds(Int(1000 / fps)))
            } else {
                try await c.advanceClock(by: start + t - c.currentMediaTime)
            }
            // Client actions on the timeline: stop one animation early, pause and resume another.
            if abs(t - 2) < 0.5 / fps { stopped.removeAnimation(forKey: "slide") }
            if abs(t - 1.5) < 0.5 / fps { Listings.pause(paused, at: c.currentMediaTime) }
            if abs(t - 3) < 0.5 / fps { Listings.resume(paused, at: c.currentMediaTime) }
            if !realTime, contactSheet != nil, f % every == 0, sheet.count < 12 {
                sheet.append(try await c.screenshot())
            }
        }
        try await c.sync()

        // Act two: what layers can look like, on a fresh stage over the first.
        if showcaseSeconds > 0 {
            Transaction.begin()
            Transaction.disableActions = true
            let act = Showcase.build(on: c)
            c.rootLayer.addSublayer(act.root)
            Transaction.commit()
            try await c.sync()
            sheet += try await play(on: c, seconds: showcaseSeconds, sheetFrames: 8) { t in
                if abs(t.truncatingRemainder(dividingBy: 1.5) - 0.75) < 0.5 / fps { act.swap() }
            }
        }
        // Act three: signage, a clip laminad decodes, beside animated layers.
        if signageSeconds > 0 {
            let directory = NSTemporaryDirectory() + "lamina-demo-\(getpid())"
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let clip = Signage.makeClip(in: directory)
            if let path = clip.path {
                Transaction.begin()
                Transaction.disableActions = true
                let act = try Signage.build(on: c, clip: path)
                c.rootLayer.addSublayer(act.root)
                Transaction.commit()
                try await c.sync()
                sheet += try await play(on: c, seconds: signageSeconds, sheetFrames: 4) { _ in }
            } else {
                print("lamina-demo: no signage act: \(clip.problem ?? "no clip")")
            }
        }
        // Act four: winter, an emitter's snow over a frosted panel beside a scrolling board.
        if winterSeconds > 0 {
            Transaction.begin()
            Transaction.disableActions = true
            let act = try Winter.build(on: c)
            c.rootLayer.addSublayer(act.root)
            Transaction.commit()
            try await c.sync()
            var shown = 0
            sheet += try await play(on: c, seconds: winterSeconds, sheetFrames: 4) { t in
                let row = Int(t) * 6
                if row != shown {
                    shown = row
                    act.show(row: row)
                }
            }
        }
        // Act five: a kiosk, a web page in a real browser engine as a layer, a native ticker over it.
        if kioskSeconds > 0 {
            if let problem = try await Kiosk.problem(on: c) {
                print("lamina-demo: no kiosk act: \(problem)")
            } else {
                let directory = NSTemporaryDirectory() + "lamina-kiosk-\(getpid())"
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(atPath: directory) }
                let act = try await Kiosk.start(on: c, in: directory, size: c.displaySize)
                Transaction.begin()
                Transaction.disableActions = true
                c.rootLayer.addSublayer(act.root)
                Transaction.commit()
                try await c.sync()
                // WebKit starts a web process and renders in software: waited for (at most two
                // minutes), the clock moving as a display's would.
                var window: UInt32?
                for _ in 0..<1200 {
                    if let id = c.appSurfaces.keys.min() { window = id; break }
                    if realTime { try await Task.sleep(for: .milliseconds(100)) } else { try await c.advanceClock(by: 0.1) }
                }
                if let window {
                    // A moment for the page's first paint at the layer's size, then the push.
                    for _ in 0..<10 {
                        if realTime { try await Task.sleep(for: .milliseconds(100)) } else { try await c.advanceClock(by: 0.1) }
                    }
                    Kiosk.show(window, in: act)
                    sheet += try await play(on: c, seconds: kioskSeconds, sheetFrames: 4) { _ in }
                } else {
                    print("lamina-demo: no kiosk act: cog showed no window")
                }
                await Kiosk.stop(act, on: c)
            }
        }
        if let contactSheet, !sheet.isEmpty {
            try PNG.write(ContactSheet.make(sheet, columns: 4, shrink: 4), toFile: contactSheet)
        }
        c.close()
    }

    /// Plays an act for `seconds` from now: frame by frame on a virtual clock (or waiting in real
    /// time), calling `step` with each frame's time into the act; returns `sheetFrames` evenly
    /// spaced screenshots for the contact sheet (none in real time or without a sheet).
    @MainActor
    func play(on c: Connection, seconds: Double, sheetFrames: Int, step: (Double) -> Void) async throws -> [Bitmap] {
        let start = c.currentMediaTime
        let frames = max(1, Int(seconds * fps))
        let every = max(1, frames / sheetFrames)
        var shots: [Bitmap] = []
        for f in 1...frames {
            let t = Double(f) / fps
            if realTime {
                try await Task.sleep(for: .milliseconds(Int(1000 / fps)))
            } else {
                try await c.advanceClock(by: start + t - c.currentMediaTime)
            }
            step(t)
            if !realTime, contactSheet != nil, f % every == 0, shots.count < sheetFrames { shots.append(try await c.screenshot()) }
        }
        try await c.sync()
        return shots
    }
}

/// Nine panels in a 3×3 grid, each with a title bar colour and a ball.
@MainActor
struct Stage {
    let connection: Connection

    struct Panel {
        let box: Layer
        let ball: Layer
        let size: Size
    }

    func layout() -> [Panel] {
        let size = connection.displaySize
        let backdrop = Layer()
        backdrop.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        backdrop.backgroundColor = Color(hex: "#10131A")
        connection.rootLayer.addSublayer(backdrop)
        let w = (size.width - 40) / 3, h = (size.height - 40) / 3
        let accents = ["#E4572E", "#29335C", "#F3A712", "#A8C686", "#669BBC", "#C1292E", "#F4D35E", "#7B2CBF", "#4CB944"]
        var panels: [Panel] = []
        for i in 0..<9 {
            let box = Layer()
            box.name = "panel-\(i)"
            box.frame = Rect(x: 10 + Double(i % 3) * (w + 10), y: 10 + Double(i / 3) * (h + 10), width: w, height: h)
            box.backgroundColor = Color(hex: "#1E2430")
            let bar = Layer()
            bar.frame = Rect(x: 0, y: 0, width: w, height: 6)
            bar.backgroundColor = Color(hex: accents[i])
            box.addSublayer(bar)
            let ball = Layer()
            ball.name = "ball-\(i)"
            ball.bounds = Rect(x: 0, y: 0, width: 28, height: 28)
            ball.position = Point(x: 30, y: h / 2)
            ball.backgroundColor = Color(hex: accents[i])
            ball.borderColor = .white
            box.addSublayer(ball)
            backdrop.addSublayer(box)
            panels.append(Panel(box: box, ball: ball, size: Size(width: w, height: h)))
        }
        return panels
    }
}

/// The listings of "Animating Layer Content" and "Property-Based Animations", on Lamina's API.
@MainActor
enum Listings {
    /// Listing 3-1: an implicit fade; the change alone animates (0.25 s, the default curve).
    static func implicitFade(_ p: Stage.Panel) {
        Transaction.begin()
        Transaction.animationDuration = 2  // long enough to see; the listing's is the default 0.25 s
        p.ball.opacity = 0
        Transaction.commit()
    }

    /// Listing 3-2: an explicit 3 s fade; the model value is set without an implicit action.
    static func explicitFade(_ p: Stage.Panel) {
        var fade = BasicAnimation(keyPath: "opacity", fromValue: .number(1), toValue: .number(0))
        fade.duration = 3
        p.ball.add(.basic(fade), forKey: "opacity")
        Transaction.begin()
        Transaction.disableActions = true
        p.ball.opacity = 0
        Transaction.commit()
    }

    /// Listing 3-3: the two-arc bounce path over 5 s, scaled into the panel.
    static func bouncePath(_ p: Stage.Panel) {
        let sx = (p.size.width - 40) / (566 - 74), sy = (p.size.height - 30) / (500 - 74)
        func pt(_ x: Double, _ y: Double) -> Point { Point(x: 20 + (x - 74) * sx, y: p.size.height - 15 - (y - 74) * sy) }
        var path = Path()
        path.move(to: pt(74, 74))
        path.addCurve(to: pt(320, 74), control1: pt(74, 500), control2: pt(320, 500))
        path.addCurve(to: pt(566, 74), control1: pt(320, 500), control2: pt(566, 500))
        var bounce = KeyframeAnimation(keyPath: "position", path: path)
        bounce.duration = 5
        p.ball.add(.keyframe(bounce), forKey: "position")
    }

    /// Listing 3-4: paced border width and colour keyframes in one 5 s group.
    static func pacedBorder(_ p: Stage.Panel) {
        p.ball.bounds = Rect(x: 0, y: 0, width: 100, height: 60)
        p.ball.position = Point(x: p.size.width / 2, y: p.size.height / 2)
        var widths = KeyframeAnimation(keyPath: "borderWidth", values: [1, 10, 5, 30, 0.5, 15, 2, 50, 0].map { .number($0 * 0.5) })
        widths.calculationMode = .paced
        var colours = KeyframeAnimation(keyPath: "borderColor", values: [Color.green, .red, .blue].map { .color($0) })
        colours.calculationMode = .paced
        var group = AnimationGroup(animations: [.keyframe(widths), .keyframe(colours)])
        group.duration = 5
        p.ball.add(.group(group), forKey: "BorderChanges")
    }

    /// Listing 3-5's idea: an implicit opacity change and an explicit position animation with a
    /// different duration, at once.
    static func implicitAndExplicit(_ p: Stage.Panel) {
        Transaction.begin()
        Transaction.animationDuration = 4
        p.ball.opacity = 0.2
        var move = BasicAnimation(keyPath: "position.x", toValue: .number(p.size.width - 30))
        move.duration = 2
        move.autoreverses = true
        p.ball.add(.basic(move), forKey: "move")
        Transaction.commit()
    }

    /// Property-Based Animations, Listing 1: position over 3 s with control points (0.25, 0.1, 0.25, 1).
    static func positionWithControlPoints(_ p: Stage.Panel) {
        var move = BasicAnimation(keyPath: "position", fromValue: .point(Point(x: 30, y: 30)),
                                  toValue: .point(Point(x: p.size.width - 30, y: p.size.height - 30)))
        move.duration = 3
        move.timingFunction = TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)
        p.ball.add(.basic(move), forKey: "position")
    }

    /// An animation stopped early (at 2 s of 5): the layer jumps back to its model value.
    static func stoppedEarly(_ p: Stage.Panel) -> Layer {
        var slide = BasicAnimation(keyPath: "position.x", toValue: .number(p.size.width - 30))
        slide.duration = 5
        p.ball.add(.basic(slide), forKey: "slide")
        return p.ball
    }

    /// A rotation paused at 1.5 s and resumed at 3 s ("Listing 5-4"'s technique).
    static func pauseResume(_ p: Stage.Panel) -> Layer {
        p.ball.bounds = Rect(x: 0, y: 0, width: 60, height: 60)
        p.ball.position = Point(x: p.size.width / 2, y: p.size.height / 2)
        var spin = BasicAnimation(keyPath: "transform.rotation.z", fromValue: .number(0), toValue: .number(4 * .pi))
        spin.duration = 6
        p.ball.add(.basic(spin), forKey: "spin")
        return p.ball
    }

    static func pause(_ layer: Layer, at mediaTime: Double) {
        let paused = layer.convertTime(mediaTime, from: nil)
        layer.speed = 0
        layer.timeOffset = paused
    }

    static func resume(_ layer: Layer, at mediaTime: Double) {
        let paused = layer.timeOffset
        layer.speed = 1
        layer.timeOffset = 0
        layer.beginTime = 0
        layer.beginTime = layer.convertTime(mediaTime, from: nil) - paused
    }

    /// Two animations chained with beginTime: across, then down.
    static func chained(_ p: Stage.Panel, mediaTime: Double) {
        let now = p.ball.convertTime(mediaTime, from: nil)
        var across = BasicAnimation(keyPath: "position.x", fromValue: .number(30), toValue: .number(p.size.width - 30))
        across.duration = 2
        across.fillMode = .forwards
        across.isRemovedOnCompletion = false
        var down = BasicAnimation(keyPath: "position", fromValue: .point(Point(x: p.size.width - 30, y: p.size.height / 2)),
                                  toValue: .point(Point(x: p.size.width - 30, y: p.size.height - 20)))
        down.duration = 2
        down.beginTime = now + 2
        down.fillMode = .forwards
        down.isRemovedOnCompletion = false
        p.ball.add(.basic(across), forKey: "across")
        p.ball.add(.basic(down), forKey: "down")
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
