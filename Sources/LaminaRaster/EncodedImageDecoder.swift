import LaminaCore
import LaminaProtocol
import LaminaCompositor

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
            throw ImageDecodingFailure("this laminad cannot decode \(format) files yet")
        }
    }
}

extension SVGDocument: VectorDocument {
    public func rasterize(pixelsPerPoint: Double, maximumSide: Int) -> (bitmap: Bitmap, pixelsPerPoint: Double)? {
        rasterize(scale: pixelsPerPoint, maximumSide: maximumSide).map { ($0.bitmap, $0.scale) }
    }
}
