import Lamina
import LaminaCore

/// The second act of the demo: what layers can look like (issue 6) and a transition (issue 5),
/// nine panels again: gradients, a shape stroking itself, text, a replicator spinner, a mask,
/// a shadow path, a 3D card flip in a transform layer, a push transition, and an image.
@MainActor
enum Showcase {
    /// A colour from a literal "#RRGGBB[AA]" (written correctly here).
    static func hex(_ text: String) -> Color { Color(hex: text) ?? .white }

    struct Act {
        let root: Layer
        /// Swaps the transition panel's content (called part-way through the act).
        let swap: () -> Void
    }

    static func build(on connection: Connection) -> Act {
        let size = connection.displaySize
        let root = Layer()
        root.name = "showcase"
        root.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        root.backgroundColor = hex("#0B0E14")
        let w = (size.width - 40) / 3, h = (size.height - 40) / 3
        func panel(_ i: Int) -> Layer {
            let p = Layer()
            p.name = "show-\(i)"
            p.frame = Rect(x: 10 + Double(i % 3) * (w + 10), y: 10 + Double(i / 3) * (h + 10), width: w, height: h)
            p.backgroundColor = hex("#1A1F2B")
            p.cornerRadius = 12
            root.addSublayer(p)
            return p
        }
        let centre = Point(x: w / 2, y: h / 2)

        // 1. Axial and conic gradients; the axial one's colours animate.
        let axial = GradientLayer()
        axial.frame = Rect(x: 16, y: 16, width: w / 2 - 24, height: h - 32)
        axial.cornerRadius = 10
        axial.colors = [hex("#E4572E"), hex("#F3A712"), hex("#29335C")]
        let conic = GradientLayer()
        conic.type = .conic
        conic.startPoint = Point(x: 0.5, y: 0.5)
        conic.endPoint = Point(x: 1, y: 0.5)
        conic.frame = Rect(x: w / 2 + 8, y: 16, width: w / 2 - 24, height: h - 32)
        conic.cornerRadius = (w / 2 - 24) / 2
        conic.colors = [hex("#669BBC"), hex("#A8C686"), hex("#F4D35E"), hex("#669BBC")]
        let p1 = panel(0)
        p1.addSublayer(axial)
        p1.addSublayer(conic)
        var shift = BasicAnimation(keyPath: "colors", from: .colors(axial.colors),
                                   to: .colors([hex("#29335C"), hex("#E4572E"), hex("#F3A712")]), duration: 2)
        shift.autoreverses = true
        shift.repeatCount = .infinity
        axial.add(.basic(shift), forKey: "colors")

        // 2. A star stroked by strokeEnd, with round caps and a dashed outline behind it.
        let star = ShapeLayer()
        star.frame = Rect(x: 0, y: 0, width: w, height: h)
        var path = Path()
        let r0 = min(w, h) * 0.42, r1 = r0 * 0.45
        for k in 0..<10 {
            let a = Double(k) * .pi / 5 - .pi / 2, r = k % 2 == 0 ? r0 : r1
            let pt = Point(x: centre.x + r * _cos(a), y: centre.y + r * _sin(a))
            if k == 0 { path.move(to: pt) } else { path.addLine(to: pt) }
        }
        path.closeSubpath()
        star.path = path
        star.fillColor = hex("#F3A71240")
        star.strokeColor = hex("#F4D35E")
        star.lineWidth = 6
        star.lineJoin = .round
        star.lineCap = .round
        panel(1).addSublayer(star)
        var draw = BasicAnimation(keyPath: "strokeEnd", from: .number(0), to: .number(1), duration: 3,
                                  timingFunction: .easeInEaseOut)
        draw.repeatCount = .infinity
        star.add(.basic(draw), forKey: "draw")

        // 3. Text, wrapped and centred, with a shadow.
        let text = TextLayer()
        text.frame = Rect(x: 16, y: 20, width: w - 32, height: h - 40)
        text.string = "Lamina draws layers the way Core Animation does."
        text.fontSize = min(30, h / 5)
        text.isWrapped = true
        text.alignmentMode = .center
        text.foregroundColor = hex("#F0F0F0")
        panel(2).addSublayer(text)

        // 4. A replicator spinner: twelve dots, each fading 1/12 s after the one before.
        let spinner = ReplicatorLayer()
        spinner.frame = Rect(x: centre.x - 60, y: centre.y - 60, width: 120, height: 120)
        spinner.instanceCount = 12
        spinner.instanceTransform = .rotation(angle: 2 * .pi / 12)
        spinner.instanceDelay = 1.0 / 12
        let dot = Layer()
        dot.frame = Rect(x: 54, y: 0, width: 12, height: 12)
        dot.cornerRadius = 6
        dot.backgroundColor = hex("#A8C686")
        spinner.addSublayer(dot)
        panel(3).addSublayer(spinner)
        var fade = BasicAnimation(keyPath: "opacity", from: .number(1), to: .number(0.15), duration: 1)
        fade.repeatCount = .infinity
        dot.add(.basic(fade), forKey: "fade")

        // 5. A gradient seen through a circular mask that breathes.
        let masked = GradientLayer()
        masked.frame = Rect(x: 0, y: 0, width: w, height: h)
        masked.colors = [hex("#7B2CBF"), hex("#C1292E")]
        masked.startPoint = Point(x: 0, y: 0)
        masked.endPoint = Point(x: 1, y: 1)
        let hole = Layer()
        let d = min(w, h) * 0.7
        hole.frame = Rect(x: centre.x - d / 2, y: centre.y - d / 2, width: d, height: d)
        hole.cornerRadius = d / 2
        hole.backgroundColor = .white
        masked.mask = hole
        panel(4).addSublayer(masked)
        var breathe = BasicAnimation(keyPath: "transform.scale", from: .number(0.6), to: .number(1.1), duration: 1.5)
        breathe.autoreverses = true
        breathe.repeatCount = .infinity
        hole.add(.basic(breathe), forKey: "breathe")

        // 6. A card with a ground shadow from a shadow path.
        let card = Layer()
        card.frame = Rect(x: centre.x - 70, y: centre.y - 55, width: 140, height: 90)
        card.cornerRadius = 14
        card.backgroundColor = hex("#EAEAEA")
        card.shadowOpacity = 0.8
        card.shadowRadius = 10
        card.shadowOffset = Size(width: 0, height: 0)
        card.shadowPath = Path(ellipseIn: Rect(x: 10, y: 95, width: 120, height: 18))
        panel(5).addSublayer(card)
        var float = BasicAnimation(keyPath: "position.y", by: .number(-12), duration: 1.2, timingFunction: .easeInEaseOut)
        float.autoreverses = true
        float.repeatCount = .infinity
        card.add(.basic(float), forKey: "float")

        // 7. A card flip in a transform layer: front and back faces, back faces hidden.
        let stage3D = Layer()
        stage3D.frame = Rect(x: 0, y: 0, width: w, height: h)
        stage3D.sublayerTransform = .perspective(distance: 500)
        let flipper = TransformLayer()
        flipper.frame = Rect(x: centre.x - 60, y: centre.y - 40, width: 120, height: 80)
        for (colour, angle) in [(hex("#E4572E"), 0.0), (hex("#29335C"), Double.pi)] {
            let face = Layer()
            face.frame = Rect(x: 0, y: 0, width: 120, height: 80)
            face.cornerRadius = 10
            face.backgroundColor = colour
            face.isDoubleSided = false
            face.transform = .rotation(angle: angle, x: 0, y: 1, z: 0)
            flipper.addSublayer(face)
        }
        stage3D.addSublayer(flipper)
        panel(6).addSublayer(stage3D)
        var turn = BasicAnimation(keyPath: "transform.rotation.y", from: .number(0), to: .number(2 * .pi), duration: 3)
        turn.repeatCount = .infinity
        flipper.add(.basic(turn), forKey: "turn")

        // 8. A push transition, started by `swap`.
        // The moving renderings are not clipped by the layer itself (as in Core Animation), so
        // a window around it clips them.
        let window = Layer()
        window.frame = Rect(x: 20, y: 20, width: w - 40, height: h - 40)
        window.cornerRadius = 8
        window.masksToBounds = true
        let slot = Layer()
        slot.frame = Rect(x: 0, y: 0, width: w - 40, height: h - 40)
        slot.backgroundColor = hex("#4CB944")
        window.addSublayer(slot)
        panel(7).addSublayer(window)

        // 9. A generated image as contents, nine-sliced into a wide frame.
        let px = 48
        var pixels = [UInt8](repeating: 0, count: px * px * 4)
        for y in 0..<px {
            for x in 0..<px {
                let edge = min(x, y, px - 1 - x, px - 1 - y)
                let v: (UInt8, UInt8, UInt8) = edge < 4 ? (244, 211, 94) : ((x / 8 + y / 8) % 2 == 0 ? (41, 51, 92) : (102, 155, 188))
                let i = (y * px + x) * 4
                pixels[i] = v.0; pixels[i + 1] = v.1; pixels[i + 2] = v.2; pixels[i + 3] = 255
            }
        }
        let framed = Layer()
        framed.frame = Rect(x: 20, y: 20, width: w - 40, height: h - 40)
        if let image = try? Image(width: px, height: px, pixels: pixels, connection: connection) {
            framed.contents = image
            framed.contentsCenter = Rect(x: 0.25, y: 0.25, width: 0.5, height: 0.5)
            framed.magnificationFilter = .nearest
        }
        panel(8).addSublayer(framed)

        return Act(root: root, swap: {
            slot.add(.transition(Transition(type: .push, subtype: .fromRight, timing: MediaTiming(duration: 0.8),
                                            timingFunction: .easeInEaseOut)), forKey: "transition")
            Transaction.begin()
            Transaction.disableActions = true
            slot.backgroundColor = slot.backgroundColor == hex("#4CB944") ? hex("#C1292E") : hex("#4CB944")
            Transaction.commit()
        })
    }
}
