import CGLES

/// Instancing without instanced draws (the ES 2 path: no `glDrawArraysInstanced` or
/// `glVertexAttribDivisor`): each instance becomes the unit square's four corners, each vertex
/// carrying its corner and then the instance's values, drawn as two indexed triangles from a
/// shared index buffer (`quadIndices`), so the same vertex shader reads the same attributes (a
/// `flat` varying, plain in GLSL ES 1.00, interpolates equal values to themselves). The shape
/// batch and the particles draw this way there, in one `glDrawElements` per `maximumInstances`.
enum InstanceExpansion {
    /// The unit square's corners, in the order of the strip the instanced draws use.
    static let corners: [(GLfloat, GLfloat)] = [(0, 0), (1, 0), (0, 1), (1, 1)]
    /// The most instances one expanded draw takes: their vertices are numbered by 16 bits.
    static let maximumInstances = 16384

    /// The index buffer's contents: for each instance's four vertices from `4i`, the triangles
    /// 0 1 2 and 2 1 3 (the strip's), `maximumInstances` of them.
    static func quadIndices() -> [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(maximumInstances * 6)
        for i in 0..<maximumInstances {
            let v = UInt16(i * 4)
            out += [v, v + 1, v + 2, v + 2, v + 1, v + 3]
        }
        return out
    }

    /// Floats in an expanded vertex of instances of `stride` floats.
    static func vertexStride(_ stride: Int) -> Int { 2 + stride }

    /// Points the bound vertex array's attributes at the instance values in `instanceBuffer`
    /// (`stride` floats an instance, each attribute `size` floats from `offset`): with
    /// `instanced`, one value per instance beside the unit square's corners from `unitSquare`;
    /// without, the expanded vertices (`draw`), the corner first, with `quadIndices` (a buffer
    /// holding `quadIndices()`) the vertex array's index buffer.
    /// The corresponding C functions are `glVertexAttribPointer`, `glEnableVertexAttribArray`
    /// and `glVertexAttribDivisor`.
    static func setUpAttributes(_ attributes: [(location: GLuint, size: GLint, offset: Int)], stride: Int,
                                instanced: Bool, unitSquare: GLuint, instanceBuffer: GLuint, quadIndices: GLuint) {
        let float = MemoryLayout<GLfloat>.stride
        let vertexFloats = instanced ? stride : vertexStride(stride)
        let first = instanced ? 0 : 2
        if instanced {
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), unitSquare)
            glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), instanceBuffer)
        if !instanced {
            glBindBuffer(GLenum(GL_ELEMENT_ARRAY_BUFFER), quadIndices)
            glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE),
                                  GLsizei(vertexFloats * float), nil)
        }
        glEnableVertexAttribArray(Shaders.unitVertexLocation)
        for a in attributes {
            glVertexAttribPointer(a.location, a.size, GLenum(GL_FLOAT), GLboolean(GL_FALSE), GLsizei(vertexFloats * float),
                                  UnsafeRawPointer(bitPattern: (first + a.offset) * float))
            glEnableVertexAttribArray(a.location)
            if instanced { glVertexAttribDivisor(a.location, 1) }
        }
    }

    /// Writes instances `start ..< start + count` of `instances` (`stride` floats each, `count`
    /// at most `maximumInstances`) expanded into `out` (grown as needed, never shrunk), uploads
    /// them to the bound array buffer and draws them as indexed triangles (the bound vertex
    /// array's index buffer holds `quadIndices()`).
    /// The corresponding C functions are `glBufferData` and `glDrawElements`.
    static func draw(_ instances: UnsafeBufferPointer<GLfloat>, start: Int, count: Int, stride: Int, scratch out: inout [GLfloat]) {
        let expanded = vertexStride(stride)
        let needed = count * corners.count * expanded
        if out.count < needed { out = [GLfloat](repeating: 0, count: needed) }
        out.withUnsafeMutableBufferPointer { o in
            var at = 0
            for i in start..<(start + count) {
                let base = i * stride
                for (x, y) in corners {
                    o[at] = x
                    o[at + 1] = y
                    for k in 0..<stride { o[at + 2 + k] = instances[base + k] }
                    at += expanded
                }
            }
            // New storage every time (orphaning), so the driver never waits for earlier draws.
            glBufferData(GLenum(GL_ARRAY_BUFFER), needed * MemoryLayout<GLfloat>.stride, o.baseAddress, GLenum(GL_STREAM_DRAW))
        }
        glDrawElements(GLenum(GL_TRIANGLES), GLsizei(count * 6), GLenum(GL_UNSIGNED_SHORT), nil)
    }
}
