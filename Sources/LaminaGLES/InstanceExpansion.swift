import CGLES

/// Instancing without instanced draws (the ES 2 path: no `glDrawArraysInstanced` or
/// `glVertexAttribDivisor`): each instance becomes two triangles whose six vertices each carry
/// its corner of the unit square and then the instance's values, so the same vertex shader reads
/// the same attributes (a `flat` varying, plain in GLSL ES 1.00, interpolates equal values to
/// themselves). The shape batch and the particles draw this way there, in one `glDrawArrays`.
enum InstanceExpansion {
    /// The unit square's corners for two triangles (the strip 0 1 2, 2 1 3).
    static let corners: [(GLfloat, GLfloat)] = [(0, 0), (1, 0), (0, 1), (0, 1), (1, 0), (1, 1)]

    /// Floats in an expanded vertex of instances of `stride` floats.
    static func vertexStride(_ stride: Int) -> Int { 2 + stride }

    /// Points the bound vertex array's attributes at the instance values in `instanceBuffer`
    /// (`stride` floats an instance, each attribute `size` floats from `offset`): with
    /// `instanced`, one value per instance beside the unit square's corners from `unitSquare`;
    /// without, the expanded vertices (`draw`), the corner first.
    /// The corresponding C functions are `glVertexAttribPointer`, `glEnableVertexAttribArray`
    /// and `glVertexAttribDivisor`.
    static func setUpAttributes(_ attributes: [(location: GLuint, size: GLint, offset: Int)], stride: Int,
                                instanced: Bool, unitSquare: GLuint, instanceBuffer: GLuint) {
        let float = MemoryLayout<GLfloat>.stride
        let vertexFloats = instanced ? stride : vertexStride(stride)
        let first = instanced ? 0 : 2
        if instanced {
            glBindBuffer(GLenum(GL_ARRAY_BUFFER), unitSquare)
            glVertexAttribPointer(Shaders.unitVertexLocation, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 0, nil)
        }
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), instanceBuffer)
        if !instanced {
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

    /// Writes instances `start ..< start + count` of `instances` (`stride` floats each) expanded
    /// into `out` (grown as needed, never shrunk), uploads them to the bound array buffer and
    /// draws them as triangles.
    /// The corresponding C functions are `glBufferData` and `glDrawArrays`.
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
        glDrawArrays(GLenum(GL_TRIANGLES), 0, GLsizei(count * corners.count))
    }
}
