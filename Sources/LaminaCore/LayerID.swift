/// A layer's number, chosen by the client that owns it. Numbers are per client: client A's
/// layer 5 and client B's layer 5 are different layers, and no client can name another's.
/// (In LaminaCore, so that hit testing, input and the renderer can name layers without the wire
/// protocol.)
public struct LayerID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ v: UInt32) { rawValue = v }

    /// Every client's own root layer, created by the server at hello and attached to the
    /// display's root in connection order. A client's top-level layers are its sublayers.
    public static let root = LayerID(0)

    public static func < (a: LayerID, b: LayerID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "#\(rawValue)" }
}
