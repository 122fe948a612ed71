#if canImport(Glibc)
import Glibc
#endif
import CDRM
import CLinux
import LaminaCore
import LaminaPlatform
import LaminaCompositor
import Logging

/// The configured cursor (`[display] cursor`): on a CRTC's cursor plane where there is one
/// (moved at once, no page flip), else drawn by the renderer on that output (`KMSOutput.softwareCursor`).
extension KMSBackend {
    /// Shows the cursor with its hot spot at `position` (desktop points; moved into the nearest
    /// output where it is outside them all), or hides it (nil). Only where a cursor is
    /// configured (`[display] cursor`). On an output with a cursor plane (or legacy SetCursor2)
    /// the plane moves at once, without a modeset or a page flip; where the renderer draws the
    /// cursor, returns true: a frame must be drawn to show the change.
    @discardableResult
    public func setCursor(_ position: Point?) -> Bool {
        guard configuration.cursor else { return false }
        if let position {
            guard position.x.isFinite, position.y.isFinite else { return false }
            cursorPoint = position
            cursorHidden = false
        } else {
            cursorHidden = true
        }
        return placeCursor()
    }

    /// Puts the configured cursor on the output whose rectangle holds its position (the last
    /// `setCursor` point, else `cursor_position`, else the first output's centre), in that
    /// panel's pixels through the output's scale and transform, with the arrow turned like the
    /// output's picture: on that CRTC's cursor plane (atomic), through SetCursor2 (legacy), or,
    /// where neither can show it, drawn by the renderer as the top-most item. Every other
    /// output's cursor is hidden. Returns true when a frame must be drawn (the drawn cursor
    /// changed, or a plane update failed and the output modesets instead).
    @discardableResult
    func placeCursor() -> Bool {
        let wasDrawn = drawnCursor
        drawnCursor = nil
        var needsFrame = false
        var spot: CursorSpot?
        if configuration.cursor, !cursorHidden, let first = lit.first {
            let at = cursorPoint
                ?? configuration.cursorPosition.map { Point(x: Double($0.x), y: Double($0.y)) }
                ?? Point(x: Double(first.origin.x + first.logicalSize.width / 2), y: Double(first.origin.y + first.logicalSize.height / 2))
            spot = CursorGeometry.spot(at, on: lit.map(\.cursorGeometry))
        }
        var shownOn: String?
        var detail = ""
        let legacy = committer is LegacyCommitter
        var placements: [CursorPlacement?] = []
        for (i, output) in lit.enumerated() {
            var placement: CursorPlacement?
            if let spot, spot.output == i {
                let transform = output.configuration.transform
                if output.hasCursorPlane(legacy: legacy), let buffer = cursorBuffer(for: transform) {
                    placement = CursorPlacement(framebuffer: buffer.framebuffer, handle: buffer.handle, width: buffer.width, height: buffer.height,
                                                x: spot.pixelX - buffer.hotX, y: spot.pixelY - buffer.hotY, hotX: buffer.hotX, hotY: buffer.hotY)
                    shownOn = "\(output.name) (\(output.target.cursorPlane.map { "cursor plane \($0.id)" } ?? "legacy SetCursor2"))"
                    detail = "at \(spot.pixelX),\(spot.pixelY)"
                    logger.debug("kms: cursor at \(spot.pixelX),\(spot.pixelY) on \(output.name): plane at \(spot.pixelX - buffer.hotX),\(spot.pixelY - buffer.hotY), hot spot \(buffer.hotX),\(buffer.hotY) (\(transform.rawValue))")
                } else {
                    drawnCursor = (output.target.crtc, Int(spot.point.x.rounded(.down)), Int(spot.point.y.rounded(.down)))
                    shownOn = "\(output.name) (drawn)"
                    detail = "at \(spot.pixelX),\(spot.pixelY)"
                    logger.debug("kms: cursor at \(spot.pixelX),\(spot.pixelY) on \(output.name), drawn by the renderer")
                }
            }
            placements.append(placement)
        }
        // Off the old CRTC before onto the new one, so it never shows twice.
        for i in lit.indices.sorted(by: { placements[$0] == nil && placements[$1] != nil }) {
            do {
                try lit[i].setCursor(placements[i], drm: drm, now: isActive)
            } catch {
                logger.warning("kms: \(lit[i].name): \(error); the cursor is set with a modeset instead")
                lit[i].invalidate()
                needsFrame = true
            }
        }
        if shownOn != cursorShownOn {
            if let shownOn, let spot {
                let name = lit[spot.output].name
                if shownOn.hasSuffix("(drawn)") {
                    logger.info("kms: cursor on \(name) \(detail), drawn by the renderer (no cursor plane)")
                } else {
                    logger.info("kms: cursor on \(name) \(detail) \(shownOn.dropFirst(name.count + 1))")
                }
            } else if configuration.cursor {
                logger.info("kms: cursor hidden")
            }
            cursorShownOn = shownOn
        }
        return needsFrame || wasDrawn?.crtc != drawnCursor?.crtc || wasDrawn?.x != drawnCursor?.x || wasDrawn?.y != drawnCursor?.y
    }

    /// The cursor's buffer for outputs turned by `transform`, made on first use; nil (logged
    /// once) where the device cannot make one, and the renderer draws the cursor instead.
    func cursorBuffer(for transform: OutputTransform) -> CursorBuffer? {
        if let buffer = cursorBuffers[transform] { return buffer }
        guard !cursorBufferFailed.contains(transform) else { return nil }
        do {
            let buffer = try CursorBuffer(drm: drm, transform: transform)
            cursorBuffers[transform] = buffer
            return buffer
        } catch {
            cursorBufferFailed.insert(transform)
            logger.warning("kms: no cursor buffer (\(error)); the renderer draws the cursor")
            return nil
        }
    }

    /// The arrow as filled rectangles, one per run of equal pixels in a row, with its tip at `at`.
    static func cursorCommands(at: (x: Int, y: Int)) -> [DrawCommand] {
        var commands: [DrawCommand] = []
        for (y, row) in CursorSprite.rows.enumerated() {
            let chars = Array(row)
            var x = 0
            while x < chars.count {
                var end = x
                while end < chars.count, chars[end] == chars[x] { end += 1 }
                if chars[x] != " " {
                    commands.append(DrawCommand(transform: .translation(x: Double(at.x + x), y: Double(at.y + y)),
                                                bounds: Rect(x: 0, y: 0, width: Double(end - x), height: 1),
                                                color: chars[x] == "X" ? .black : .white, opacity: 1))
                }
                x = end
            }
        }
        return commands
    }
}
