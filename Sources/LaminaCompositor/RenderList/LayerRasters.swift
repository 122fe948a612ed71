import LaminaCore
import LaminaProtocol

/// Draws shape and text layers on the CPU for the render list (LaminaRaster's
/// `ServerRasterizer`, with cairo and pango): what a `CAShapeLayer` or `CATextLayer` shows in
/// place of contents. The render list builder asks once per frame for each visible shape or
/// text layer; the rasterizer keeps each layer's pixels while they look the same.
public protocol LayerRasterizing: AnyObject {
    /// The textured draw of layer `layer` of the client tree with serial `tree`, a shape or
    /// text layer with presentation values `p`, mapped to the display by `toDisplay` (whose
    /// magnification decides how finely a shape is drawn). `images` are the client tree's, for a
    /// drawing's `drawImage`. Nil when the layer draws nothing.
    func contents(tree: EntrySerial, layer: LayerID, _ p: LayerProperties, toDisplay: Transform3D,
                  images: [UInt32: ImageSource]) -> DrawContents?
    /// An SVG image shown by layer `layer` of tree `tree`, drawn at `pixelsPerPoint` (or less,
    /// where the raster's size bound lowers it), with the scale it was drawn at; kept while the
    /// layer shows the same document at the same scale. Nil when it cannot be drawn.
    func vectorContents(tree: EntrySerial, layer: LayerID, document: any VectorDocument,
                        pixelsPerPoint: Double) -> (source: ImageSource, pixelsPerPoint: Double)?
    /// The frame's list is built: rasters of layers not asked for since the last call may go.
    func endFrame()
    /// The rasters of these layers of tree `tree` are still shown (drawn from commands the
    /// render-list cache kept, so not asked for this frame): keep them.
    func keep(tree: EntrySerial, layers: [LayerID])
    /// Bytes held and budgets, for `stats`.
    var statistics: [Statistic] { get }
}

extension LayerRasterizing {
    public var statistics: [Statistic] { [] }
    public func vectorContents(tree: EntrySerial, layer: LayerID, document: any VectorDocument,
                               pixelsPerPoint: Double) -> (source: ImageSource, pixelsPerPoint: Double)? { nil }
    public func keep(tree: EntrySerial, layers: [LayerID]) {}
}

/// Makes font files that clients send (`register-font`, protocol 1.5) available to text layers
/// by their family names. laminad sets LaminaRaster's `FontconfigRegistry`.
public protocol FontRegistry: AnyObject {
    /// Registers the font file in `bytes` (copied; the memory may go afterwards) and returns the
    /// families it provides. The same bytes again return the same families.
    func register(_ bytes: UnsafeRawBufferPointer) throws(FontRegistrationError) -> [String]
}

/// Why a font was refused, with the error code the client gets.
public struct FontRegistrationError: Error, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public init(_ code: ErrorCode, _ message: String) { self.code = code; self.message = message }
    public var description: String { message }
}
