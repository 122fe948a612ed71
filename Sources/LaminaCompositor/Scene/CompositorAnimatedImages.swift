import LaminaCore
import LaminaProtocol

/// Animated GIF and WebP images (create-encoded-image, protocol 1.7) played on the compositor's
/// clock: each starts when the commit that made it stands, and before each frame is drawn its
/// image source is given the frame that the clock has reached (`AnimatedImageTimeline`). Frames go
/// through the tree's `ImageSource` as a video's pictures do, so every layer showing the image,
/// with all that applies to contents, follows; the render-list cache and the damage see a new
/// generation of the same source. On a real clock the repaint loop sleeps until the next
/// frame of any image is due (`nextAnimatedImageChange`), so a 10 fps GIF costs 10 frames a
/// second, not the display's refresh rate.
extension Compositor {
    /// Starts the animated images a standing commit of display entry `i` made.
    func startAnimatedImages(entry i: Int) {
        let t = now
        for image in model.entries[i].tree.encodedImages.values where image.startTime == nil {
            image.startTime = t
            if image.timeline?.nextChange(after: 0) != nil { liveAnimatedImages.append(image) }
        }
    }

    /// Whether an animated image will still change frame.
    var animatedImagesPlaying: Bool { !liveAnimatedImages.isEmpty }

    /// When the next animated image changes frame after compositor time `t`: a real clock
    /// wakes the repaint loop then (`RepaintLoop.request(_:at:)`), and draws nothing between.
    func nextAnimatedImageChange(after t: Double) -> Double? {
        var next: Double?
        for image in liveAnimatedImages where !image.isDestroyed {
            guard let start = image.startTime, let change = image.timeline?.nextChange(after: t - start) else { continue }
            next = min(next ?? .infinity, start + change)
        }
        return next
    }

    /// Gives each playing image the frame the clock reached at `t`; those whose last loop has
    /// ended, or that were destroyed, stop being looked at.
    func updateAnimatedImages(at t: Double) {
        guard !liveAnimatedImages.isEmpty else { return }
        liveAnimatedImages.removeAll { image in
            guard !image.isDestroyed, let timeline = image.timeline, let start = image.startTime, let source = image.source else { return true }
            let elapsed = t - start
            let frame = timeline.frame(at: elapsed)
            if frame != image.shownFrame {
                let frames = image.frames
                if frames.indices.contains(frame) { source.replace(frames[frame]) }
                image.shownFrame = frame
            }
            return timeline.nextChange(after: elapsed) == nil
        }
    }
}
