import LaminaCore
import LaminaImage
import LaminaProtocol
import LaminaRaster
import LaminaCompositor
import LaminaTestSupport
import Testing

/// A layer tree for appearance tests. It is committed to a real `ModelTree`, so the pixels
/// come through the server's render-list builder exactly as laminad draws them.
struct SceneLayer {
    var properties = LayerProperties()
    var sublayers: [SceneLayer] = []
    /// The layer's mask (`mask`): created outside the tree, in the layer's coordinates.
    var mask: [SceneLayer] = []

    /// A layer at `frame` (anchor in the centre), with `color` as its background; `configure`
    /// sets anything else.
    init(_ kind: LayerKind = .layer, frame: Rect, color: Color = .clear, sublayers: [SceneLayer] = [],
         mask: SceneLayer? = nil, _ configure: (inout LayerProperties) -> Void = { _ in }) {
        properties = LayerProperties(kind: kind)
        self.mask = mask.map { [$0] } ?? []
        properties.frame = frame
        properties.backgroundColor = color
        configure(&properties)
        self.sublayers = sublayers
    }

    /// The operations that create this subtree under `parent`, numbering layers from `next`.
    func operations(parent: LayerID, next: inout UInt32, into ops: inout [Operation]) {
        let id = LayerID(rawValue: next)
        next += 1
        ops.append(.create(id, kind: properties.kind))
        for key in properties.changedKeys(from: LayerProperties(kind: properties.kind)) { ops.append(.set(id, key, properties[key])) }
        if parent != LayerID(rawValue: UInt32.max) { ops.append(.insert(parent: parent, child: id, index: .max)) }
        for s in sublayers { s.operations(parent: id, next: &next, into: &ops) }
        if let m = mask.first {
            let maskID = LayerID(rawValue: next)
            // Created without a superlayer, then set as the mask.
            m.operations(parent: LayerID(rawValue: UInt32.max), next: &next, into: &ops)
            ops.append(.set(id, .mask, .layer(maskID.rawValue)))
        }
    }
}

/// The draw list laminad would build for `layers` on a display of the given size.
func drawList(_ layers: [SceneLayer], width: Int, height: Int, background: Color,
              rasters: (any LayerRasterizing)? = nil) throws -> DrawList {
    var display = ModelTree(width: width, height: height, background: background)
    let client = ClientID(rawValue: 1)
    _ = try display.attach(client, hello: Hello(clientName: "appearance-tests"))
    var ops: [Operation] = []
    var next: UInt32 = 1
    for layer in layers { layer.operations(parent: .root, next: &next, into: &ops) }
    _ = try display.apply(ops, from: client, limits: ClientLimits())
    return display.drawList(rasters: rasters)
}

/// Renders `layers` on the headless backend and reads the frame back.
/// Shape and text layers are rasterised by a fresh `ServerRasterizer`, as laminad does.
func render(_ layers: [SceneLayer], width: Int, height: Int, background: Color = .black) throws -> Bitmap {
    let backend = try HeadlessDisplay(width: width, height: height)
    try backend.present(try drawList(layers, width: width, height: height, background: background, rasters: ServerRasterizer()))
    return try backend.screenshot()
}

/// Compares `image` with `Reference/<name>.png` (LAMINA_UPDATE_REFERENCES=1 rewrites it and fails).
func expectReference(_ image: Bitmap, _ name: String, tolerance: Int = 3, allowedPixels: Int = 20,
                     filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
    if let problem = ReferenceImage.mismatch(image, reference: "\(directory)/Reference/\(name).png",
                                             tolerance: tolerance, allowedPixels: allowedPixels) {
        Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation)
    }
}

extension Bitmap {
    /// The sum of one channel over a box, in units of full intensity (255 → 1): for white on
    /// black, the area covered in pixels.
    func ink(x: Range<Int>, y: Range<Int>, channel: Int = 0) -> Double {
        var sum = 0
        for row in y { for column in x { sum += Int(bytes[(row * width + column) * 4 + channel]) } }
        return Double(sum) / 255
    }
}
