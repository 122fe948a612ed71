import LaminaCore
import LaminaCompositor

/// A layer and its sublayers, flattened into draw quads the way the server's render pass does:
/// each layer's transform to the display is its `transformToSuperlayer`, then its superlayer's
/// `sublayerTransformAboutAnchor`, then the superlayer's own transform to the display.
struct TestLayer {
    var properties = LayerProperties()
    var sublayers: [TestLayer] = []

    init(bounds: Rect, position: Point, color: Color = .clear, opacity: Double = 1,
         transform: Transform3D = .identity, sublayerTransform: Transform3D = .identity,
         sublayers: [TestLayer] = []) {
        properties.bounds = bounds
        properties.position = position
        properties.backgroundColor = color
        properties.opacity = opacity
        properties.transform = transform
        properties.sublayerTransform = sublayerTransform
        self.sublayers = sublayers
    }

    func quads(superlayerToDisplay: Transform3D = .identity, superlayerOpacity: Double = 1) -> [DrawQuad] {
        let toDisplay = properties.transformToSuperlayer.concatenating(superlayerToDisplay)
        let opacity = properties.opacity * superlayerOpacity
        var quads = [DrawQuad(transform: toDisplay, bounds: properties.bounds,
                              color: properties.backgroundColor, opacity: opacity)]
        let sublayersToDisplay = properties.sublayerTransformAboutAnchor.concatenating(toDisplay)
        for sublayer in sublayers {
            quads += sublayer.quads(superlayerToDisplay: sublayersToDisplay, superlayerOpacity: opacity)
        }
        return quads
    }
}

/// A colour from 8-bit components, so expected pixel values are exact.
func rgb(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) -> Color {
    Color(red: Double(r) / 255, green: Double(g) / 255, blue: Double(b) / 255, alpha: Double(a) / 255)
}

/// A pixel as plain integers, for readable expectations.
struct Pixel: Equatable, CustomStringConvertible {
    var r: Int, g: Int, b: Int, a: Int
    init(_ r: Int, _ g: Int, _ b: Int, _ a: Int = 255) { self.r = r; self.g = g; self.b = b; self.a = a }
    init(_ bitmap: Bitmap, _ x: Int, _ y: Int) {
        let p = bitmap.pixel(x: x, y: y)
        self.init(Int(p.r), Int(p.g), Int(p.b), Int(p.a))
    }
    func isClose(to other: Pixel, tolerance: Int) -> Bool {
        abs(r - other.r) <= tolerance && abs(g - other.g) <= tolerance
            && abs(b - other.b) <= tolerance && abs(a - other.a) <= tolerance
    }
    var description: String { "(\(r), \(g), \(b), \(a))" }
}
