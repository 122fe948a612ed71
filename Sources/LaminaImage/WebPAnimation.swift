import CWebP
import LaminaCore

/// Decodes animated WebP files with libwebpdemux's `WebPAnimDecoder`, which composes each
/// frame onto the canvas itself (blending and disposal as the WebP container specifies), in
/// straight-alpha RGBA. Frame durations come from its timestamps (each frame's end), with the
/// browsers' rule for tiny delays (`AnimatedImage.displayedDelay`); the loop count is the
/// file's own (the number of plays; 0 forever). A still WebP decodes as one frame.
enum WebPAnimation {
    /// The corresponding C functions are `WebPAnimDecoderNew`, `WebPAnimDecoderGetInfo` and
    /// `WebPAnimDecoderGetNext`.
    static func decode(_ bytes: [UInt8], limits: DecodingLimits, path: String?) throws(PNGError) -> AnimatedImage {
        let features = try WebP.readFeatures(bytes, path: path)
        let width = Int(features.width), height = Int(features.height)
        try limits.checkCanvas(width: width, height: height, format: "WebP", path: path)
        // The decoder allocates its canvas as it is made: the first frame's budget first.
        try limits.checkFrame(1, width: width, height: height, format: "WebP", path: path)
        if features.has_animation == 0 {
            let bitmap = try WebP.decode(bytes, path: path)
            return AnimatedImage(width: width, height: height, frames: [bitmap],
                                 delays: [AnimatedImage.displayedDelay(milliseconds: 0)], loopCount: 1)
        }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw .undecodable(format: "WebP", path: path, reason: "this libwebpdemux does not match the headers Lamina was built with")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        let result = bytes.withUnsafeBufferPointer { input in
            Result { () throws(PNGError) -> AnimatedImage in
                var data = WebPData(bytes: input.baseAddress, size: input.count)
                guard let decoder = WebPAnimDecoderNew(&data, &options) else {
                    throw .undecodable(format: "WebP", path: path,
                                       reason: "libwebpdemux could not read its frames (the file is truncated or malformed)")
                }
                defer { WebPAnimDecoderDelete(decoder) }
                return try frames(of: decoder, width: width, height: height, limits: limits, path: path)
            }
        }
        return try result.get()
    }

    private static func frames(of decoder: OpaquePointer, width: Int, height: Int,
                               limits: DecodingLimits, path: String?) throws(PNGError) -> AnimatedImage {
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw .undecodable(format: "WebP", path: path, reason: "libwebpdemux could not read its animation header")
        }
        guard Int(info.canvas_width) == width, Int(info.canvas_height) == height else {
            throw .undecodable(format: "WebP", path: path, reason: "its canvas is \(info.canvas_width)×\(info.canvas_height) pixels "
                                   + "in the animation header but \(width)×\(height) in the file header")
        }
        let count = min(Int(info.frame_count), limits.framesWanted)
        guard count > 0 else { throw .undecodable(format: "WebP", path: path, reason: "it has no frames") }
        try limits.checkFrame(count, width: width, height: height, format: "WebP", path: path)
        var frames: [Bitmap] = [], delays: [Double] = []
        frames.reserveCapacity(count)
        var previous: Int32 = 0
        let byteCount = width * height * 4
        while frames.count < count {
            var pixels: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &pixels, &timestamp) != 0, let pixels else {
                throw .undecodable(format: "WebP", path: path, reason: "libwebpdemux could not decode frame \(frames.count + 1)")
            }
            frames.append(Bitmap(width: width, height: height, bytes: Array(UnsafeBufferPointer(start: pixels, count: byteCount)))!)
            delays.append(AnimatedImage.displayedDelay(milliseconds: Int(timestamp) - Int(previous)))
            previous = timestamp
        }
        return AnimatedImage(width: width, height: height, frames: frames, delays: delays, loopCount: Int(info.loop_count))
    }
}
