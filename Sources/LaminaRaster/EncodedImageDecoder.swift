import LaminaCore
import LaminaProtocol
import LaminaCompositor
import LaminaImage

/// laminad's `EncodedImageDecoding`: SVG documents parsed by librsvg (`SVGDocument`) and kept
/// to be drawn at the scale they are shown; GIF and WebP files decoded to their frames.
public final class EncodedImageDecoder: EncodedImageDecoding {
    public init() {}

    public func decode(_ format: EncodedImageFormat, _ bytes: UnsafeRawBufferPointer, maximumFileBytes: Int,
                       maximumPixelBytes: Int) throws(ImageDecodingFailure) -> DecodedImage {
        switch format {
        case .svg:
            do throws(SVGDocument.Failure) {
                return .vector(try SVGDocument(data: Array(bytes), maximumBytes: maximumFileBytes))
            } catch {
                throw ImageDecodingFailure(error.description)
            }
        case .gif, .webp:
            let data = Array(bytes)
            guard ImageFile.encodedKind(of: data) == (format == .gif ? .gif : .webp) else { throw ImageDecodingFailure("the file is not a \(format) file (its first bytes say otherwise)") }
            do throws(PNGError) {
                let image = try AnimatedImage.decode(data, maximumBytes: maximumPixelBytes)
                return .frames(image.frames, delays: image.delays, loopCount: image.loopCount)
            } catch {
                throw ImageDecodingFailure("\(error)")
            }
        }
    }
}

extension SVGDocument: VectorDocument {
    public func rasterize(pixelsPerPoint: Double, maximumSide: Int) -> (bitmap: Bitmap, pixelsPerPoint: Double)? {
        rasterize(scale: pixelsPerPoint, maximumSide: maximumSide).map { ($0.bitmap, $0.scale) }
    }
}
