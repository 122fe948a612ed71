import CGLES
import LaminaCore
import LaminaCompositor

/// Layers' rounded, bordered fills: split into flat cells and antialiased edge bands
/// (`EdgeBands`), queued in the instanced batch (`ShapeBatch`) where they can wait, or drawn
/// with the distance-field shader over the whole quad (perspective).
extension GLESRenderer {
    /// Whether `r` under `t` covers whole pixels exactly: `t` only scales and translates (no
    /// rotation, no perspective) and every edge lands on a pixel boundary. Such a rectangle
    /// needs no antialiasing ramp, so it can take the plain fill.
    static func landsOnPixels(_ r: Rect, _ t: Transform3D) -> Bool {
        guard t.m12 == 0, t.m21 == 0, t.m14 == 0, t.m24 == 0, t.m44 == 1, t.m11 > 0, t.m22 > 0 else { return false }
        func onGrid(_ v: Double) -> Bool { abs(v - v.rounded()) < 1e-4 }
        return onGrid(r.minX * t.m11 + t.m41) && onGrid(r.maxX * t.m11 + t.m41)
            && onGrid(r.minY * t.m22 + t.m42) && onGrid(r.maxY * t.m22 + t.m42)
    }

    /// Draws a `layer` command: its fill and border, or queues it in the batch.
    func drawShape(_ c: DrawCommand) {
        let fillAlpha = c.color.alpha * c.opacity
        let borderAlpha = c.borderWidth > 0 ? c.borderColor.alpha * c.opacity : 0
        // `!(x > 0)` also skips NaN.
        guard fillAlpha > 0 || borderAlpha > 0, c.bounds.width > 0, c.bounds.height > 0 else { return }
        if batches(c), let margin = c.transform.layerUnitsPerPixel {
            queue(c, margin: margin, fillAlpha: fillAlpha, borderAlpha: borderAlpha)
            return
        }
        flushBatch()
        if borderAlpha == 0, c.cornerRadii == .zero, Self.landsOnPixels(c.bounds, c.transform) {
            let program = use(programs.fill)
            setQuad(program, c.transform, c.bounds)
            setPremultiplied(program.uniforms.fillColor, c.color, c.opacity)
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            return
        }
        let b = c.bounds
        let borderWidth = borderAlpha > 0 ? c.borderWidth : 0
        let pad = antialiasingPad(c.transform, b)
        func setShapeUniforms(_ radii: CornerRadii) -> ShaderProgram<ShapeUniforms> {
            let program = use(programs.shape, continuous: radii.curve == .continuous)
            glUniform4f(program.uniforms.rect, GLfloat(b.minX), GLfloat(b.minY), GLfloat(b.width), GLfloat(b.height))
            setRadii(program.uniforms.radii, radii)
            glUniform1f(program.uniforms.borderWidth, GLfloat(borderWidth))
            setPremultiplied(program.uniforms.fillColor, c.color, c.opacity)
            setPremultiplied(program.uniforms.borderColor, c.borderColor, c.opacity)
            return program
        }
        guard usesEdgeBands, c.transform.isAffineInPlane, let margin = c.transform.layerUnitsPerPixel else {
            // Perspective: the pixel footprint varies over the layer; the shader does it all.
            let program = setShapeUniforms(c.cornerRadii)
            setQuad(program, c.transform, b.insetBy(-pad))
            glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
            return
        }
        // The edge-band split: flat cells take the plain fill, only the bands and corners
        // run the distance-field shader.
        bands.split(b, radii: c.cornerRadii, borderWidth: borderWidth, margin: margin, pad: pad)
        if !bands.shaded.isEmpty {
            drawRects(setShapeUniforms(c.cornerRadii.straightEdged), c.transform, bands.shaded)
        }
        if !bands.corners.isEmpty {
            drawRects(setShapeUniforms(c.cornerRadii), c.transform, bands.corners)
        }
        if fillAlpha > 0, !bands.fill.isEmpty {
            let fill = use(programs.fill)
            setPremultiplied(fill.uniforms.fillColor, c.color, c.opacity)
            drawRects(fill, c.transform, bands.fill)
        }
        if !bands.border.isEmpty {
            // The ring shows the border over the fill, as the shader composes them.
            let fa = c.color.alpha * c.opacity, ba = c.borderColor.alpha * c.opacity
            let k = fa * (1 - ba)
            let fill = use(programs.fill)
            glUniform4f(fill.uniforms.fillColor, GLfloat(c.borderColor.red * ba + c.color.red * k),
                        GLfloat(c.borderColor.green * ba + c.color.green * k),
                        GLfloat(c.borderColor.blue * ba + c.color.blue * k), GLfloat(ba + fa * (1 - ba)))
            drawRects(fill, c.transform, bands.border)
        }
    }

    /// Queues a layer in the batch: the same cells, colours and coverage as drawing it now.
    private func queue(_ c: DrawCommand, margin: Double, fillAlpha: Double, borderAlpha: Double) {
        func premultiplied(_ color: Color) -> SIMD4<Float> {
            let a = color.alpha * c.opacity
            return SIMD4(Float(color.red * a), Float(color.green * a), Float(color.blue * a), Float(a))
        }
        let fill = premultiplied(c.color), border = premultiplied(c.borderColor)
        let b = c.bounds
        batch.prepare(width: frame.width, height: frame.height)
        // The display box of a cell, grown by `grow`. Batched layers are affine in the plane
        // (`batches`), so each coordinate's extremes come from the extremes of its two terms.
        let t = c.transform
        func box(_ r: Rect, grow: Double) -> PixelBox {
            let xx0 = r.minX * t.m11, xx1 = r.maxX * t.m11, xy0 = r.minY * t.m21, xy1 = r.maxY * t.m21
            let yx0 = r.minX * t.m12, yx1 = r.maxX * t.m12, yy0 = r.minY * t.m22, yy1 = r.maxY * t.m22
            let x0 = min(xx0, xx1) + min(xy0, xy1) + t.m41, x1 = max(xx0, xx1) + max(xy0, xy1) + t.m41
            let y0 = min(yx0, yx1) + min(yy0, yy1) + t.m42, y1 = max(yx0, yx1) + max(yy0, yy1) + t.m42
            guard !(x0.isNaN || x1.isNaN || y0.isNaN || y1.isNaN) else { return frame.viewport }
            return PixelBox(x0: x0 - grow, y0: y0 - grow, x1: x1 + grow, y1: y1 + grow)
        }
        if borderAlpha == 0, c.cornerRadii == .zero, Self.landsOnPixels(b, c.transform) {
            // Flat cells go before the queue's shaded ones: wait if this one lies under one.
            if batch.conflicts(box(b, grow: ShapeBatch.margin)) { flushBatch() }
            batch.add([b], transform: c.transform, rect: b, radii: .zero, fill: fill, border: border, borderWidth: 0, flat: fill)
            return
        }
        let borderWidth = borderAlpha > 0 ? c.borderWidth : 0
        // Edges that stay horizontal and vertical on the display: cells can merge without seams.
        let axisAligned = c.transform.m12 == 0 && c.transform.m21 == 0
        bands.split(b, radii: c.cornerRadii, borderWidth: borderWidth, margin: margin, pad: antialiasingPad(c.transform, b),
                    merge: axisAligned, strips: axisAligned)
        if bands.fill.contains(where: { batch.conflicts(box($0, grow: ShapeBatch.margin)) })
            || bands.border.contains(where: { batch.conflicts(box($0, grow: ShapeBatch.margin)) })
            || bands.shaded.contains(where: { batch.conflictsWithCorners(box($0, grow: ShapeBatch.margin)) }) { flushBatch() }
        for cell in bands.shaded { batch.markShaded(box(cell, grow: ShapeBatch.margin)) }
        for cell in bands.corners { batch.markCorner(box(cell, grow: ShapeBatch.margin)) }
        batch.add(bands.shaded, transform: c.transform, rect: b, radii: c.cornerRadii.straightEdged, fill: fill, border: border,
                  borderWidth: borderWidth, flat: nil)
        batch.add(bands.corners, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                  borderWidth: borderWidth, flat: nil)
        if fillAlpha > 0 {
            batch.add(bands.fill, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                      borderWidth: borderWidth, flat: fill)
        }
        if !bands.border.isEmpty {
            // The ring shows the border over the fill, as the shader composes them.
            let fa = c.color.alpha * c.opacity, ba = c.borderColor.alpha * c.opacity
            let k = fa * (1 - ba)
            let ring = SIMD4(Float(c.borderColor.red * ba + c.color.red * k), Float(c.borderColor.green * ba + c.color.green * k),
                             Float(c.borderColor.blue * ba + c.color.blue * k), Float(ba + fa * (1 - ba)))
            batch.add(bands.border, transform: c.transform, rect: b, radii: c.cornerRadii, fill: fill, border: border,
                      borderWidth: borderWidth, flat: ring)
        }
    }

    /// Draws rectangles given in the layer coordinates of `t` with `program` (already in use,
    /// its own uniforms set). Neighbouring rectangles share exact vertex values, so (with
    /// `invariant gl_Position`) they meet without gaps or double-blended seams.
    private func drawRects<U>(_ program: ShaderProgram<U>, _ t: Transform3D, _ rects: [Rect]) {
        upload(t, to: program.layerToDisplay)
        glUniform4f(program.quad, 0, 0, 1, 1)
        streamVertices.removeAll(keepingCapacity: true)
        for r in rects {
            let ax = GLfloat(r.minX), ay = GLfloat(r.minY), bx = GLfloat(r.maxX), by = GLfloat(r.maxY)
            streamVertices.append(contentsOf: [ax, ay, bx, ay, ax, by, ax, by, bx, ay, bx, by])
        }
        glBindVertexArray(streamArray)
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), streamBuffer)
        // New storage every time (orphaning), so the driver never waits for earlier draws.
        glBufferData(GLenum(GL_ARRAY_BUFFER), streamVertices.count * MemoryLayout<GLfloat>.stride,
                     streamVertices, GLenum(GL_STREAM_DRAW))
        glDrawArrays(GLenum(GL_TRIANGLES), 0, GLsizei(rects.count * 6))
        glBindVertexArray(vertexArray)
    }
}

extension Rect {
    /// The rectangle grown by `-d` on every side (shrunk for positive `d`).
    func insetBy(_ d: Double) -> Rect {
        Rect(x: minX + d, y: minY + d, width: width - 2 * d, height: height - 2 * d)
    }
}
