import LaminaCore
import LaminaProtocol
import LaminaCompositor

/// The draw list at `time` of one client's tree on a `width` × `height` display: image 1 made of
/// `pixels` (premultiplied RGBA, `imageWidth` × `imageHeight`), a plain layer at the root set as
/// `holder` says, and in it an emitter layer set as `emitter` says (its cells may show image 1).
/// What the particle suites share: the compositor's own (DrawParticlesTests) and the pixels'
/// (ParticleCullTests).
public func emitterDrawList(width: Int, height: Int, background: Color = .black,
                            imageWidth: Int, imageHeight: Int, pixels: [UInt8],
                            holder: LayerProperties, emitter: LayerProperties, at time: Double) throws -> DrawList {
    var tree = ModelTree(width: width, height: height, background: background)
    let client = ClientID(rawValue: 1)
    _ = try tree.attach(client, hello: Hello(clientName: "emitter-scene"))
    let (outer, inner) = (LayerID(rawValue: 1), LayerID(rawValue: 2))
    var ops: [Operation] = [.createImage(image: 1, ImageFormat(width: UInt32(imageWidth), height: UInt32(imageHeight))),
                            .create(outer), .create(inner, kind: emitter.kind)]
    for key in holder.changedKeys(from: LayerProperties()) { ops.append(.set(outer, key, holder[key])) }
    for key in emitter.changedKeys(from: LayerProperties(kind: emitter.kind)) { ops.append(.set(inner, key, emitter[key])) }
    ops += [.insert(parent: .root, child: outer, index: .max), .insert(parent: outer, child: inner, index: .max)]
    _ = try tree.apply(ops, attachments: [.memory(HeapPixelMemory(pixels))], from: client, limits: ClientLimits())
    return tree.drawList(at: time)
}

extension DrawList {
    /// The particles its particle draws hold, all cells together.
    public var particlesDrawn: Int { commands.compactMap(\.particles).reduce(0) { $0 + $1.count } }
}
