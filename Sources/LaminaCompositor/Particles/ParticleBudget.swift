import LaminaCore
import LaminaProtocol

// The particle budgets checked when a commit sets an emitter's properties, before anything is
// drawn: `ParticleField.capacity` (each cell's birthRate × lifetime, through its sub-cells)
// against `max_particles_per_layer`, and all the client's emitters together against
// `max_particles_per_client`. The walk also bounds what it lists every frame, for values
// animations reach.

extension ClientTree {
    /// Refuses an emitter whose cells could have more live particles than one layer may.
    func checkParticles(_ emitter: EmitterProperties, of id: LayerID, _ i: Int, limits: ClientLimits) throws(CommitRejection) {
        let capacity = ParticleField.capacity(of: emitter)
        guard capacity <= Double(limits.maxParticlesPerLayer) else {
            throw CommitRejection(code: .limitExceeded, operationIndex: i,
                                  message: "layer \(id): its emitter cells could have \(Self.count(capacity)) live particles (birthRate × lifetime, sub-cells included) and an emitter layer may have at most \(limits.maxParticlesPerLayer) (max_particles_per_layer); lower a cell's birthRate or lifetime")
        }
    }

    /// Refuses a commit after which the client's emitters together could have more live
    /// particles than one client may.
    func checkClientParticles(limits: ClientLimits) throws(CommitRejection) {
        var total = 0.0
        for layer in layers.values where layer.properties.kind == .emitter {
            total += ParticleField.capacity(of: layer.properties.emitter)
        }
        guard total <= Double(limits.maxParticlesPerClient) else {
            throw CommitRejection(code: .limitExceeded, operationIndex: -1,
                                  message: "the client's emitter layers could have \(Self.count(total)) live particles together and a client may have at most \(limits.maxParticlesPerClient) (max_particles_per_client)")
        }
    }

    private static func count(_ x: Double) -> String { x < 1e15 ? String(Int64(x)) : "\(x)" }
}
