import CGif
import LaminaCore

/// Decodes GIF files, still or animated, with giflib, compositing each frame onto the canvas
/// in Swift as browsers do:
/// - a frame draws its sub-rectangle (clipped to the canvas) with its own colour table or the
///   global one; its transparent index leaves the canvas as it was;
/// - interlaced frames are read in GIF's four passes (giflib's line reader does not reorder);
/// - disposal 0 and 1 keep the frame, 2 clears its rectangle to transparent (what browsers do,
///   rather than painting the background colour), 3 restores the canvas from before the frame;
/// - delays: see `AnimatedImage.displayedDelay(milliseconds:)` (0 and 1 cs show for 100 ms);
/// - the NETSCAPE2.0 (or ANIMEXTS1.0) loop count N repeats the animation N times after the
///   first play, as browsers play it (Chromium's cc/paint/image_animation_count.h: "plays n + 1
///   cycles"): `loopCount` N + 1; 0 is forever; without the extension it plays once. (WebP's
///   loop count is already the number of plays.)
/// A file cut off between two frames (no trailer) keeps the frames before the cut, as browsers
/// show them; one cut off inside a frame is refused.
public enum GIF {
    /// Decodes GIF bytes into whole-canvas frames; see `AnimatedImage.decode` for the limits.
    /// The corresponding C functions are giflib's `DGifOpen`, `DGifGetRecordType`,
    /// `DGifGetImageDesc`, `DGifGetLine` and `DGifGetExtension`.
    public static func decode(_ bytes: [UInt8], maximumBytes: Int, path: String? = nil) throws(PNGError) -> AnimatedImage {
        try decode(bytes, limits: DecodingLimits(maximumBytes: maximumBytes), path: path)
    }

    static func hasSignature(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
    }

    static func decode(_ bytes: [UInt8], limits: DecodingLimits, path: String?) throws(PNGError) -> AnimatedImage {
        let input = Unmanaged.passRetained(Input(bytes))
        defer { input.release() }
        var code: Int32 = 0
        guard let gif = DGifOpen(input.toOpaque(), { gif, out, count in
            guard let gif, let out, count > 0, let user = gif.pointee.UserData else { return 0 }
            return Unmanaged<Input>.fromOpaque(user).takeUnretainedValue().read(into: out, count: Int(count))
        }, &code) else {
            throw .undecodable(format: "GIF", path: path, reason: describe(code, at: "its header"))
        }
        defer { DGifCloseFile(gif, &code) }
        var decoder = Decoder(gif: gif, limits: limits, path: path)
        return try decoder.run()
    }

    /// giflib's message for `code`, with a truncated file said plainly.
    static func describe(_ code: Int32, at place: String) -> String {
        // DGifOpen reports a short logical screen descriptor as "no screen descriptor".
        if code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_NO_SCRN_DSCR { return "the file ends inside \(place) (truncated)" }
        let text = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        return "giflib says \"\(text)\" reading \(place)"
    }

    /// The bytes giflib reads through its input callback.
    private final class Input {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func read(into out: UnsafeMutablePointer<GifByteType>, count: Int) -> Int32 {
            let n = min(count, bytes.count - offset)
            guard n > 0 else { return 0 }
            bytes.withUnsafeBufferPointer { out.update(from: $0.baseAddress! + offset, count: n) }
            offset += n
            return Int32(n)
        }
    }

    /// One pass over the records: extensions set the next frame's control block and the loop
    /// count; each image is composited and copied out.
    private struct Decoder {
        let gif: UnsafeMutablePointer<GifFileType>
        let limits: DecodingLimits
        let path: String?
        let width: Int, height: Int
        var canvas: [UInt8] = []
        var frames: [Bitmap] = []
        var delays: [Double] = []
        var loopCount = 1
        var control = Decoder.noControl
        /// A frame's row of colour indices, reused.
        var line: [GifPixelType] = []

        static let noControl = GraphicsControlBlock(DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false,
                                                     DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)

        init(gif: UnsafeMutablePointer<GifFileType>, limits: DecodingLimits, path: String?) {
            self.gif = gif
            self.limits = limits
            self.path = path
            width = Int(gif.pointee.SWidth)
            height = Int(gif.pointee.SHeight)
        }

        func failure(_ reason: String) -> PNGError { .undecodable(format: "GIF", path: path, reason: reason) }

        mutating func run() throws(PNGError) -> AnimatedImage {
            try limits.checkCanvas(width: width, height: height, format: "GIF", path: path)
            records: while frames.count < limits.framesWanted {
                var record = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &record) == GIF_OK else {
                    if !frames.isEmpty && gif.pointee.Error == D_GIF_ERR_READ_FAILED { break records }
                    throw failure(describe(gif.pointee.Error, at: "the record after frame \(frames.count)"))
                }
                switch record {
                case IMAGE_DESC_RECORD_TYPE: try readFrame()
                case EXTENSION_RECORD_TYPE: try readExtension()
                default: break records
                }
            }
            guard !frames.isEmpty else { throw failure("it has no frames") }
            return AnimatedImage(width: width, height: height, frames: frames, delays: delays, loopCount: loopCount)
        }

        mutating func readExtension() throws(PNGError) {
            var function: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            guard DGifGetExtension(gif, &function, &block) == GIF_OK else {
                throw failure(describe(gif.pointee.Error, at: "an extension after frame \(frames.count)"))
            }
            if function == GRAPHICS_EXT_FUNC_CODE, let b = block, b[0] == 4 {
                _ = DGifExtensionToGCB(4, b + 1, &control)
            }
            var looping = false
            if function == APPLICATION_EXT_FUNC_CODE, let b = block, b[0] == 11 {
                let name = Array(UnsafeBufferPointer(start: b + 1, count: 11))
                looping = name == Array("NETSCAPE2.0".utf8) || name == Array("ANIMEXTS1.0".utf8)
            }
            while block != nil {
                guard DGifGetExtensionNext(gif, &block) == GIF_OK else {
                    throw failure(describe(gif.pointee.Error, at: "an extension after frame \(frames.count)"))
                }
                // The looping sub-block: [3][1][count, little-endian]; N repeats after the first play.
                if looping, let b = block, b[0] >= 3, b[1] == 1 {
                    let repeats = Int(b[2]) | Int(b[3]) << 8
                    loopCount = repeats == 0 ? 0 : repeats + 1
                    looping = false
                }
            }
        }

        mutating func readFrame() throws(PNGError) {
            let number = frames.count + 1
            guard DGifGetImageDesc(gif) == GIF_OK else {
                throw failure(describe(gif.pointee.Error, at: "frame \(number)'s descriptor"))
            }
            let image = gif.pointee.Image
            let left = Int(image.Left), top = Int(image.Top)
            let frameWidth = Int(image.Width), frameHeight = Int(image.Height)
            try limits.checkFrame(number, width: width, height: height, format: "GIF", path: path)
            guard frameWidth <= limits.maximumSide, frameHeight <= limits.maximumSide else {
                throw failure("frame \(number) is \(frameWidth)×\(frameHeight) pixels, over the limit of \(limits.maximumSide) a side")
            }
            guard let map = image.ColorMap ?? gif.pointee.SColorMap else {
                throw failure("frame \(number) has no colour table (neither its own nor a global one)")
            }
            let palette = Self.palette(map, transparent: Int(control.TransparentColor))
            if canvas.isEmpty { canvas = [UInt8](repeating: 0, count: width * height * 4) }
            let before = control.DisposalMode == DISPOSE_PREVIOUS ? canvas : nil
            if line.count < frameWidth { line = [GifPixelType](repeating: 0, count: frameWidth) }

            if frameWidth == 0 || frameHeight == 0 {
                try skipPixels(number)
            } else {
                for pass in Self.passes(interlaced: image.Interlace) {
                    for y in stride(from: pass.first, to: frameHeight, by: pass.step) {
                        guard DGifGetLine(gif, &line, Int32(frameWidth)) == GIF_OK else {
                            throw failure(describe(gif.pointee.Error, at: "frame \(number)'s pixels"))
                        }
                        guard top + y < height else { continue }
                        draw(row: top + y, left: left, count: frameWidth, palette: palette)
                    }
                }
            }
            frames.append(Bitmap(width: width, height: height, bytes: canvas)!)
            delays.append(AnimatedImage.displayedDelay(milliseconds: Int(control.DelayTime) * 10))
            switch control.DisposalMode {
            case DISPOSE_BACKGROUND: clear(left: left, top: top, width: frameWidth, height: frameHeight)
            case DISPOSE_PREVIOUS: if let before { canvas = before }
            default: break
            }
            // A control block applies to the one image after it.
            control = Self.noControl
        }

        /// A frame with no pixels still carries its LZW blocks; read past them.
        mutating func skipPixels(_ number: Int) throws(PNGError) {
            var size: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            guard DGifGetCode(gif, &size, &block) == GIF_OK else {
                throw failure(describe(gif.pointee.Error, at: "frame \(number)'s pixels"))
            }
            while block != nil {
                guard DGifGetCodeNext(gif, &block) == GIF_OK else {
                    throw failure(describe(gif.pointee.Error, at: "frame \(number)'s pixels"))
                }
            }
        }

        /// Colour index → RGBA for all 256 indices: the transparent one has alpha 0 (and is not
        /// drawn); indices past the table are opaque black, as Firefox pads the table.
        static func palette(_ map: UnsafeMutablePointer<ColorMapObject>, transparent: Int) -> [UInt8] {
            var rgba = [UInt8](repeating: 0, count: 256 * 4)
            let count = min(256, max(0, Int(map.pointee.ColorCount)))
            for i in 0..<256 {
                if i < count, let colors = map.pointee.Colors {
                    rgba[i * 4] = colors[i].Red
                    rgba[i * 4 + 1] = colors[i].Green
                    rgba[i * 4 + 2] = colors[i].Blue
                }
                rgba[i * 4 + 3] = i == transparent ? 0 : 255
            }
            return rgba
        }

        /// The rows a frame's lines arrive in: one pass, or GIF's four interlaced passes
        /// (rows 0, 8, 16…; 4, 12…; 2, 6…; 1, 3…).
        static func passes(interlaced: Bool) -> [(first: Int, step: Int)] {
            interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        }

        mutating func draw(row y: Int, left: Int, count: Int, palette: [UInt8]) {
            let end = min(count, width - left)
            guard end > 0 else { return }
            line.withUnsafeBufferPointer { indices in
                palette.withUnsafeBufferPointer { colours in
                    canvas.withUnsafeMutableBufferPointer { out in
                        var o = (y * width + left) * 4
                        for x in 0..<end {
                            let c = Int(indices[x]) * 4
                            if colours[c + 3] != 0 {
                                out[o] = colours[c]; out[o + 1] = colours[c + 1]; out[o + 2] = colours[c + 2]; out[o + 3] = 255
                            }
                            o += 4
                        }
                    }
                }
            }
        }

        /// Disposal 2: the frame's rectangle (clipped to the canvas) becomes transparent.
        mutating func clear(left: Int, top: Int, width frameWidth: Int, height frameHeight: Int) {
            let right = min(width, left + frameWidth), bottom = min(height, top + frameHeight)
            guard left < right, top < bottom else { return }
            canvas.withUnsafeMutableBufferPointer { out in
                for y in top..<bottom {
                    let start = (y * width + left) * 4
                    (out.baseAddress! + start).update(repeating: 0, count: (right - left) * 4)
                }
            }
        }
    }
}
