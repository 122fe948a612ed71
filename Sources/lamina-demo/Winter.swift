import Lamina
import LaminaCore

/// Act four, winter (issue 25): snow falling over a departures board. The board is a scroll
/// layer that scrolls on its own (and by touch: `scrollsOnTouch`), beside a frosted panel whose
/// background filters blur and brighten the drifting lights behind it; an emitter layer lets
/// 600 flakes fall over everything. laminad animates all of it: the demo only scrolls the list
/// now and then.
@MainActor
struct Winter {
    let root: Layer
    let board: ScrollLayer
    let rowHeight: Double
    let rows: Int

    static func build(on c: Connection) throws -> Winter {
        let size = c.displaySize
        let root = Layer()
        root.frame = Rect(x: 0, y: 0, width: size.width, height: size.height)
        root.backgroundColor = Color(hex: "#0A1A2F")

        // Lights drifting behind the glass: big soft discs sliding back and forth.
        let colours = ["#FF5A5F", "#FFB400", "#00A699", "#7B61FF", "#FF7AB6"]
        for (i, hex) in colours.enumerated() {
            let light = Layer()
            let d = size.height * 0.28
            light.bounds = Rect(x: 0, y: 0, width: d, height: d)
            light.cornerRadius = d / 2
            light.backgroundColor = Color(hex: hex)
            let y = size.height * (0.2 + 0.15 * Double(i))
            light.position = Point(x: size.width * 0.55, y: y)
            var slide = BasicAnimation(keyPath: "position.x", from: .number(size.width * 0.45), to: .number(size.width * 0.95),
                                       duration: 3 + Double(i) * 0.7)
            slide.timing.autoreverses = true
            slide.repeatCount = .infinity
            light.add(.basic(slide), forKey: "drift")
            root.addSublayer(light)
        }

        // The departures board: a scroll layer of 40 rows.
        let rowHeight = (size.height * 0.08).rounded()
        let rows = 40
        let board = ScrollLayer()
        board.frame = Rect(x: size.width * 0.04, y: size.height * 0.1, width: size.width * 0.38, height: size.height * 0.8)
        board.scrollMode = .vertically
        board.scrollsOnTouch = true
        board.masksToBounds = true
        board.cornerRadius = 14
        board.cornerCurve = .continuous
        board.backgroundColor = Color(hex: "#111B2B")
        board.scrollContentSize = Size(width: board.bounds.width, height: rowHeight * Double(rows))
        let cities = ["Oslo", "Kyiv", "Lyon", "Porto", "Riga", "Graz", "Turku", "Bergen", "Malmö", "Gdańsk"]
        for r in 0..<rows {
            let row = TextLayer()
            row.frame = Rect(x: 0, y: rowHeight * Double(r), width: board.bounds.width, height: rowHeight)
            row.backgroundColor = r % 2 == 0 ? Color(hex: "#16233A") : Color(hex: "#111B2B")
            func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
            row.string = "  \(two(6 + r / 3)):\(two((r * 20) % 60))   \(cities[r % cities.count])"
            row.fontSize = rowHeight * 0.45
            row.foregroundColor = Color(hex: r % 7 == 3 ? "#FFB400" : "#E8EEF7") ?? .white
            board.addSublayer(row)
        }
        root.addSublayer(board)

        // The frosted panel: what lies behind it blurred and brightened, then a thin white veil.
        let panel = Layer()
        panel.frame = Rect(x: size.width * 0.5, y: size.height * 0.18, width: size.width * 0.44, height: size.height * 0.64)
        panel.cornerRadius = 28
        panel.cornerCurve = .continuous
        panel.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.14)
        panel.borderWidth = 1
        panel.borderColor = Color(red: 1, green: 1, blue: 1, alpha: 0.35)
        panel.backgroundFilters = [.gaussianBlur("frost", radius: 18), .amount("light", .brightness, 0.08)]
        let title = TextLayer()
        title.frame = Rect(x: 24, y: 24, width: panel.bounds.width - 48, height: size.height * 0.1)
        title.string = "Snow expected"
        title.fontSize = size.height * 0.06
        title.foregroundColor = .white
        panel.addSublayer(title)
        let detail = TextLayer()
        detail.frame = Rect(x: 24, y: 24 + size.height * 0.12, width: panel.bounds.width - 48, height: size.height * 0.3)
        detail.string = "Trains may run late this evening. Check the board before you travel."
        detail.fontSize = size.height * 0.035
        detail.isWrapped = true
        detail.foregroundColor = Color(red: 1, green: 1, blue: 1, alpha: 0.85)
        panel.addSublayer(detail)
        root.addSublayer(panel)

        // Snow: a soft white flake, born along the top edge, falling and drifting.
        let side = 16
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        for y in 0..<side {
            for x in 0..<side {
                let dx = Double(x) + 0.5 - Double(side) / 2, dy = Double(y) + 0.5 - Double(side) / 2
                let a = max(0, min(1, (Double(side) / 2 - (dx * dx + dy * dy).squareRoot()) / 3))
                let v = UInt8((a * 255).rounded())
                let i = (y * side + x) * 4
                pixels[i] = v; pixels[i + 1] = v; pixels[i + 2] = v; pixels[i + 3] = v  // premultiplied white
            }
        }
        let flake = try Image(width: side, height: side, pixels: pixels, connection: c)
        let snow = EmitterLayer()
        snow.frame = root.bounds
        snow.emitterShape = .line
        snow.emitterPosition = Point(x: size.width / 2, y: -10)
        snow.emitterSize = Size(width: size.width * 1.2, height: 0)
        snow.seed = 2026
        var cell = EmitterCell()
        cell.name = "flake"
        cell.birthRate = 80
        cell.lifetime = 8
        cell.velocity = size.height * 0.12
        cell.velocityRange = size.height * 0.05
        cell.emissionLongitude = .pi / 2
        cell.emissionRange = 0.4
        cell.yAcceleration = 6
        cell.xAcceleration = 4
        cell.scale = 0.6
        cell.scaleRange = 0.4
        cell.spinRange = 2
        cell.alphaRange = 0.3
        cell.setContents(flake)
        snow.setEmitterCells([cell], images: [flake])
        root.addSublayer(snow)
        return Winter(root: root, board: board, rowHeight: rowHeight, rows: rows)
    }

    /// Scrolls the board to row `n` (animated by the bounds' implicit action).
    func show(row n: Int) {
        board.scroll(to: Point(x: 0, y: Double(min(max(0, n), rows)) * rowHeight))
    }
}
