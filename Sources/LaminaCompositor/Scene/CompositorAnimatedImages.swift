import LaminaCore
import LaminaProtocol

/// Animated GIF and WebP images (create-encoded-image, protocol 1.7) played on the compositor's
/// clock: each starts when the commit that made it stands, and before each frame is drawn its
/// image source is given the frame that the clock has reached (`AnimatedImageTimeline`). Frames go
/// through the tree's `ImageSource` as a video's pictures do, so every layer showing the image,
/// with all that applies to contents, follows; the render-list cache and the damage see a new
/// generation of the same source.
extension Compositor {
    /// Starts the animated images a standing commit of display entry `i` made.
    func startAnimatedImages(entry i: Int) {
        let t = now
        for image in model.entries[i].tree.encodedImages.values where image.startTime == nil {
            image.startTime = t
            if image.timeline?.nextChange(after: 0) != nil { liveAnimatedImages.append(image) }
        }
    }

    /// Whether an animated image will still change frame (a real clock then draws frame after
    /// frame while one is playing).
    var animatedImagesPlaying: Bool { !liveAnimatedImages.isEmpty }

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
