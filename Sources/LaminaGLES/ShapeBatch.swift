import CGLES
import LaminaCore
import LaminaCompositor

/// Layers' rounded rectangles batched into one instanced draw.
///
/// On llvmpipe most of a frame of many small layers went to fixed costs per draw call: state
/// validation, copying the uniform block, triangle setup and binning, run on the calling
/// thread. Consecutive `layer` commands outside any clip, under affine transforms, are queued
/// here instead: every cell of their edge-band split (`EdgeBands`) is one instance of the unit
/// square carrying its layer's rectangle, corners, colours and transform, and the queue is
/// drawn in one `glDrawArraysInstanced` when anything else must be drawn (painter's order is
/// kept: the queue is in list order and nothing is drawn between). The fragment shader is the
/// `shape` program's, reading per-instance values instead of uniforms, so pixels are the same.
struct ShapeBatch {
    /// Floats per instance: cell (4), linear part of the transform (4), translation (2), rect (4),
    /// radii (4), fill colour (4), border colour (4), border width and display pixels per layer
    /// unit (2; 0 where the shape needs the general distance field, `similarityScale`).
    static let stride = 28
    /// Instance attribute locations 1…8 (0 is the unit square).
    static let attributes: [(location: GLuint, size: GLint, offset: Int)] = [
        (1, 4, 0), (2, 4, 4), (3, 2, 8), (4, 4, 10), (5, 4, 14), (6, 4, 18), (7, 4, 22), (8, 2, 26),
    ]
    /// The most instances drawn at once; a longer queue is drawn in parts.
    static let maximumInstances = InstanceExpansion.maximumInstances

    /// Cells of one flat colour, and cells that run the distance field. They are drawn by
    /// different programs (llvmpipe runs both sides of a branch for every pixel, so one
    /// program with a flat/shaded switch cost the full distance field everywhere): all flat
    /// cells, then all shaded ones, which paints every pixel in list order as long as no flat
    /// cell lies over a shaded cell queued before it (`conflicts`).
    var flat: [GLfloat] = []
    var shaded: [GLfloat] = []
    /// The cells of continuous corners (`EdgeBands.corners`), drawn last by the general
    /// program's variant with them (`batchShaded(continuous: true)`), so that the shaded cells
    /// of every other edge keep the cheaper programs.
    var corners: [GLfloat] = []
    var isEmpty: Bool { flat.isEmpty && shaded.isEmpty && corners.isEmpty }
    /// Whether some queued shaded cell needs the general program (`batchShaded`); while none
    /// does, the queue is drawn by the cheaper `batchShadedSimilar`.
    var shadedNeedsGeneral = false

    /// Where the queued shaded cells lie, and the queued continuous corners (`TileBoxes`): a
    /// flat cell queued over either would be drawn under it (flat cells go first), and a shaded
    /// cell over a queued corner likewise (corners go last), so such a layer waits for the queue
    /// to be drawn. Only those conflicts end a batch; layers that merely overlap (flat over
    /// flat, shaded over shaded or flat, anything over a corner...) keep their order within it.
    private var shadedTiles = TileBoxes()
    private var cornerTiles = TileBoxes()
    /// How far cells' display boxes are grown for the conflict test. A cell's triangles cover
    /// the pixels whose centres lie inside it, so two cells conflict only where their boxes
    /// overlap; the margin absorbs the float rounding of the vertex shader (the rasteriser
    /// snaps to 1/256 pixel).
    static let margin = 1.0 / 16

    /// Sizes the tile grids for a `width` × `height` output.
    mutating func prepare(width: Int, height: Int) {
        shadedTiles.prepare(width: width, height: height)
        cornerTiles.prepare(width: width, height: height)
    }

    /// Whether a flat cell over `box` would lie under a queued shaded cell or corner.
    func conflicts(_ box: PixelBox) -> Bool { shadedTiles.overlaps(box) || cornerTiles.overlaps(box) }

    /// Whether a shaded cell over `box` would lie under a queued continuous corner.
    func conflictsWithCorners(_ box: PixelBox) -> Bool { cornerTiles.overlaps(box) }

    /// Notes a queued shaded cell over `box`.
    mutating func markShaded(_ box: PixelBox) { shadedTiles.mark(box) }

    /// Notes a queued continuous corner over `box`.
    mutating func markCorner(_ box: PixelBox) { cornerTiles.mark(box) }

    /// Queues `cells` of a layer: with `flat`, one colour as they are; without, the distance
    /// field (continuous corners in their own queue).
    mutating func add(_ cells: [Rect], transform t: Transform3D, rect: Rect, radii: CornerRadii,
                      fill: SIMD4<Float>, border: SIMD4<Float>, borderWidth: Double, flat colour: SIMD4<Float>?) {
        guard !cells.isEmpty else { return }
        if colour != nil {
            Self.append(cells, to: &flat, t, rect, radii, colour!, border, borderWidth, 0)
        } else if radii.curve == .continuous {
            Self.append(cells, to: &corners, t, rect, radii, fill, border, borderWidth, 0)
        } else {
            let scale = Self.similarityScale(t, radii: radii, borderWidth: borderWidth)
            if scale == 0 { shadedNeedsGeneral = true }
            Self.append(cells, to: &shaded, t, rect, radii, fill, border, borderWidth, scale)
        }
    }

    /// The display pixels per layer unit where `batchShadedSimilar` draws the layer's shape as
    /// the general program does, else 0. That needs (1) a similarity transform (rotation,
    /// uniform scale, reflection): one pixel spans 1 / scale layer units in every direction,
    /// which is what the general program finds from the derivatives, and (2) every corner
    /// radius at least the border width (or no border): the border's inner edge is then the
    /// outer shape's distance field shifted by the width, so one distance serves both edges.
    static func similarityScale(_ t: Transform3D, radii: CornerRadii, borderWidth: Double) -> Float {
        let a = t.m11, b = t.m12, c = t.m21, d = t.m22
        let squared = a * a + b * b
        let tolerance = 1e-9 * squared.squareRoot()
        let rotation = abs(a - d) <= tolerance && abs(b + c) <= tolerance
        let reflection = abs(a + d) <= tolerance && abs(b - c) <= tolerance
        // (Its distance field is the circular one: continuous corners take the general program.)
        guard rotation || reflection, squared > 1e-8, squared.isFinite, radii.curve == .circular else { return 0 }
        if borderWidth > 0 {
            let smallest = min(min(radii.minXMinY, radii.maxXMinY), min(radii.maxXMaxY, radii.minXMaxY))
            guard smallest >= borderWidth else { return 0 }
        }
        return Float(squared.squareRoot())
    }

    private static func append(_ cells: [Rect], to data: inout [GLfloat], _ t: Transform3D, _ rect: Rect, _ radii: CornerRadii,
                               _ color: SIMD4<Float>, _ border: SIMD4<Float>, _ borderWidth: Double, _ scale: Float) {
        // Written in place: a temporary array per cell would be an allocation per instance.
        let shared: (GLfloat, GLfloat, GLfloat, GLfloat, GLfloat, GLfloat) =
            (GLfloat(t.m11), GLfloat(t.m12), GLfloat(t.m21), GLfloat(t.m22), GLfloat(t.m41), GLfloat(t.m42))
        let r = (GLfloat(rect.minX), GLfloat(rect.minY), GLfloat(rect.width), GLfloat(rect.height))
        let shaderRadii = radii.shaderRadii
        let k = (shaderRadii.x, shaderRadii.y, shaderRadii.z, shaderRadii.w)
        let start = data.count
        data.append(contentsOf: repeatElement(0, count: cells.count * stride))
        data.withUnsafeMutableBufferPointer { buffer in
            var i = start
            for c in cells {
                buffer[i] = GLfloat(c.minX); buffer[i + 1] = GLfloat(c.minY); buffer[i + 2] = GLfloat(c.width); buffer[i + 3] = GLfloat(c.height)
                buffer[i + 4] = shared.0; buffer[i + 5] = shared.1; buffer[i + 6] = shared.2; buffer[i + 7] = shared.3
                buffer[i + 8] = shared.4; buffer[i + 9] = shared.5
                buffer[i + 10] = r.0; buffer[i + 11] = r.1; buffer[i + 12] = r.2; buffer[i + 13] = r.3
                buffer[i + 14] = k.0; buffer[i + 15] = k.1; buffer[i + 16] = k.2; buffer[i + 17] = k.3
                buffer[i + 18] = color.x; buffer[i + 19] = color.y; buffer[i + 20] = color.z; buffer[i + 21] = color.w
                buffer[i + 22] = border.x; buffer[i + 23] = border.y; buffer[i + 24] = border.z; buffer[i + 25] = border.w
                buffer[i + 26] = GLfloat(borderWidth); buffer[i + 27] = scale
                i += stride
            }
        }
    }

    mutating func removeAll() {
        flat.removeAll(keepingCapacity: true)
        shaded.removeAll(keepingCapacity: true)
        corners.removeAll(keepingCapacity: true)
        shadedNeedsGeneral = false
        shadedTiles.clear()
        cornerTiles.clear()
    }
}

extension Shaders {
    /// The vertex shader of `ShapeBatch`: the unit square stretched over the instance's cell,
    /// carried to the display by its affine transform, with the layer's values passed flat.
    static let batchVertex = """
        #version 300 es
        layout(location = 0) in vec2 unitVertex;
        layout(location = 1) in vec4 cell;
        layout(location = 2) in vec4 linear;      // m11, m12, m21, m22 (row vectors)
        layout(location = 3) in vec2 translation; // m41, m42
        layout(location = 4) in vec4 rectIn;
        layout(location = 5) in vec4 radiiIn;
        layout(location = 6) in vec4 fillIn;
        layout(location = 7) in vec4 borderIn;
        layout(location = 8) in vec2 paramsIn;    // border width, display pixels per layer unit (or 0)
        uniform vec2 pointsToClip;
        out vec2 local;
        flat out vec4 rect;
        flat out vec4 radii;
        flat out vec4 fillColor;
        flat out vec4 borderColor;
        flat out vec2 params;
        invariant gl_Position;
        void main() {
            local = cell.xy + unitVertex * cell.zw;
            vec2 d = vec2(local.x * linear.x + local.y * linear.z + translation.x,
                          local.x * linear.y + local.y * linear.w + translation.y);
            gl_Position = vec4(d.x * pointsToClip.x - 1.0, 1.0 - d.y * pointsToClip.y, 0.0, 1.0);
            rect = rectIn;
            radii = radiiIn;
            fillColor = fillIn;
            borderColor = borderIn;
            params = paramsIn;
        }
        """

    /// `shape` with per-instance values: the coverage of the rounded rectangle and its border.
    static func batchShaded(continuous: Bool) -> String {
        fragmentCommon.insertingAfterVersion("#define HAS_CLIPS 0" + (continuous ? "\n#define CONTINUOUS_CORNERS 1" : ""))
            + shapeColor + batchShadedMain
    }

    /// `batchShaded`'s per-instance inputs and main.
    static let batchShadedMain = """
        in vec2 local;
        flat in vec4 rect;
        flat in vec4 radii;
        flat in vec4 fillColor;
        flat in vec4 borderColor;
        flat in vec2 params;
        void main() {
            fragColor = shapeColor(local, rect, radii, params.x, fillColor, borderColor);
        }
        """

    /// `batchShaded` for shapes under a similarity transform whose corner radii are at least
    /// the border width (`ShapeBatch.similarityScale`, in `params.y`): one distance, no
    /// derivatives. The pixel footprint is the constant 1 / scale, and the border's inner edge
    /// lies where the outer distance is -borderWidth (the inner shape is the bounds inset by
    /// the width with each radius shrunk by it). What is the same over a layer is worked out
    /// once a vertex (`similarVertex`), in display pixels; on llvmpipe this is a fraction of the
    /// general program's cost, which evaluates two distance fields and their derivatives.
    static let batchShadedSimilar = """
        #version 300 es
        precision highp float;
        out vec4 fragColor;
        in vec2 offset;                 // from the centre, display pixels along the layer's axes
        flat in vec2 halfSize;          // display pixels
        flat in vec4 radii;             // display pixels
        flat in vec4 fillColor;
        flat in vec4 ringColor;         // the border over the fill
        flat in float inset;            // border width in display pixels (huge without an inner edge)
        void main() {
            vec2 row = offset.y < 0.0 ? radii.xy : radii.wz;
            float r = offset.x < 0.0 ? row.x : row.y;
            vec2 e = abs(offset) - halfSize + r;
            float d = min(max(e.x, e.y), 0.0) + length(max(e, 0.0)) - r;
            float outer = clamp(0.5 - d, 0.0, 1.0);
            // Without a border (width 0) inner is outer and the ring is empty: the fill alone.
            float inner = clamp(0.5 - (d + inset), 0.0, 1.0);
            fragColor = fillColor * inner + ringColor * (outer - inner);
        }
        """

    /// The vertex shader of `batchShadedSimilar`: `batchVertex`'s position, and the layer's
    /// values in display pixels.
    static let similarVertex = """
        #version 300 es
        layout(location = 0) in vec2 unitVertex;
        layout(location = 1) in vec4 cell;
        layout(location = 2) in vec4 linear;
        layout(location = 3) in vec2 translation;
        layout(location = 4) in vec4 rectIn;
        layout(location = 5) in vec4 radiiIn;
        layout(location = 6) in vec4 fillIn;
        layout(location = 7) in vec4 borderIn;
        layout(location = 8) in vec2 paramsIn;    // border width, display pixels per layer unit
        uniform vec2 pointsToClip;
        out vec2 offset;
        flat out vec2 halfSize;
        flat out vec4 radii;
        flat out vec4 fillColor;
        flat out vec4 ringColor;
        flat out float inset;
        invariant gl_Position;
        void main() {
            vec2 local = cell.xy + unitVertex * cell.zw;
            vec2 d = vec2(local.x * linear.x + local.y * linear.z + translation.x,
                          local.x * linear.y + local.y * linear.w + translation.y);
            gl_Position = vec4(d.x * pointsToClip.x - 1.0, 1.0 - d.y * pointsToClip.y, 0.0, 1.0);
            float scale = paramsIn.y, w = paramsIn.x;
            vec2 halfExtent = rectIn.zw * 0.5;
            offset = (local - (rectIn.xy + halfExtent)) * scale;
            halfSize = halfExtent * scale;
            radii = radiiIn * scale;
            fillColor = fillIn;
            ringColor = borderIn + fillIn * (1.0 - borderIn.a);
            inset = rectIn.z > 2.0 * w && rectIn.w > 2.0 * w ? w * scale : 1e30;
        }
        """

    /// Flat cells: their colour as it is (the `fill` program with a per-instance colour).
    static let batchFlat = """
        #version 300 es
        precision highp float;
        out vec4 fragColor;
        flat in vec4 fillColor;
        void main() {
            fragColor = fillColor;
        }
        """
}

/// The batch program and its vertex array (the unit square, and the instance buffer).
struct BatchProgram {
    let program: GLuint
    let pointsToClip: GLint
    var vertexArray: GLuint = 0
    var instanceBuffer: GLuint = 0
    /// Instances of the unit square (ES 3), or without instancing (the ES 2 path) two
    /// triangles each in `instanceBuffer` (`InstanceExpansion`).
    let instanced: Bool

    /// Compiles and links the batch shaders with `fragment`; `unitSquare` is the renderer's
    /// unit-square buffer.
    init(name: String, vertex: String = Shaders.batchVertex, fragment: String, unitSquare: GLuint, quadIndices: GLuint,
         instanced: Bool = true) throws(GLESError) {
        self.instanced = instanced
        program = try Shaders.link(name: name, vertex: vertex, fragment: fragment)
        pointsToClip = glGetUniformLocation(program, "pointsToClip")
        glGenVertexArrays(1, &vertexArray)
        glBindVertexArray(vertexArray)
        glGenBuffers(1, &instanceBuffer)
        InstanceExpansion.setUpAttributes(ShapeBatch.attributes, stride: ShapeBatch.stride, instanced: instanced,
                                          unitSquare: unitSquare, instanceBuffer: instanceBuffer, quadIndices: quadIndices)
        glBindVertexArray(0)
        try GLESError.check("creating the shape batch vertex array")
    }

    mutating func delete() {
        glDeleteBuffers(1, &instanceBuffer)
        glDeleteVertexArrays(1, &vertexArray)
        glDeleteProgram(program)
    }
}

extension GLESRenderer {
    /// Whether `c` can wait in the batch: a layer outside any clip under an affine transform
    /// that the edge-band split handles.
    func batches(_ c: DrawCommand) -> Bool {
        usesBatching && batchPrograms != nil && usesEdgeBands && !hasActiveClips && c.transform.isAffineInPlane && c.transform.layerUnitsPerPixel != nil
    }

    /// Draws what waits in the batch: the flat cells, then the shaded ones, then continuous
    /// corners, each in one instanced draw per `maximumInstances`.
    func flushBatch() {
        guard !batch.isEmpty, let programs = batchPrograms else { return }
        draw(batch.flat, with: programs.flat)
        if !batch.shaded.isEmpty && !batch.shadedNeedsGeneral { similarBatchDraws += 1 }
        draw(batch.shaded, with: batch.shadedNeedsGeneral ? programs.shaded : programs.shadedSimilar)
        draw(batch.corners, with: programs.shadedContinuous)
        glBindVertexArray(vertexArray)
        batch.removeAll()
        batchDraws += 1
    }

    private func draw(_ data: [GLfloat], with b: BatchProgram) {
        guard !data.isEmpty else { return }
        glUseProgram(b.program)
        frame.currentProgram = b.program
        glUniform2f(b.pointsToClip, GLfloat(2 / Double(frame.width)), GLfloat(2 / Double(frame.height)))
        glBindVertexArray(b.vertexArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), b.instanceBuffer)
        let stride = ShapeBatch.stride
        let total = data.count / stride
        var start = 0
        data.withUnsafeBufferPointer { all in
            while start < total {
                let n = min(ShapeBatch.maximumInstances, total - start)
                if !b.instanced {
                    InstanceExpansion.draw(all, start: start, count: n, stride: stride, scratch: &batchVertices)
                    start += n
                    continue
                }
                // New storage every time (orphaning), so the driver never waits for earlier draws.
                glBufferData(GLenum(GL_ARRAY_BUFFER), n * stride * MemoryLayout<GLfloat>.stride,
                             all.baseAddress! + start * stride, GLenum(GL_STREAM_DRAW))
                glDrawArraysInstanced(GLenum(GL_TRIANGLE_STRIP), 0, 4, GLsizei(n))
                start += n
            }
        }
    }
}
