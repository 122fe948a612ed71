import LaminaCore
import LaminaProtocol

/// The boot handoff in the frame loop: the pictures the outputs showed at start (KMS imports
/// them, `Output.takeBootPicture`) are textures drawn with every frame, as `BootHandoff`
/// decides from the clock and from whether the clients' layers draw anything.
extension Compositor {
    /// Takes the outputs' pictures from start (once, at construction).
    func takeBootPictures() {
        var pictures: [BootPicture] = []
        for output in backend.outputs {
            guard let (bitmap, origin) = output.takeBootPicture() else { continue }
            let rect = output.layoutRect
            pictures.append(BootPicture(output: output.name, rect: rect, source: ImageSource(bitmap: bitmap, alpha: .premultiplied), origin: origin))
        }
        guard configuration.boot.handoff != .off, let handoff = BootHandoff(settings: configuration.boot, pictures: pictures) else { return }
        bootHandoff = handoff
        let how = handoff.handoff == .keep ? "kept under the scene" : "crossfaded to the scene over \(handoff.fadeSeconds) s"
        logger.notice("boot handoff: \(pictures.map { "\($0.output) shows \($0.origin)" }.joined(separator: "; ")) until the first client frame, then \(how)")
    }

    /// Whether the boot pictures are fading out (the picture changes with the clock alone).
    var bootFading: Bool { bootHandoff?.isFading ?? false }

    /// Adds the boot pictures to the frame being built at clock time `time` (under the scene,
    /// or over it while they fade); notes the first client frame and the fade's end.
    func drawBootPictures(into list: inout DrawList, at time: Double) {
        guard var handoff = bootHandoff else { return }
        let before = handoff.phase
        handoff.advance(sceneDraws: !list.commands.isEmpty, at: time)
        handoff.decorate(&list, at: time)
        bootHandoff = handoff
        guard handoff.phase != before else { return }
        switch handoff.phase {
        case .kept: logger.notice("boot handoff: the first client frame; the boot picture stays under the scene")
        case .fading: logger.notice("boot handoff: the first client frame; the boot picture fades out over \(handoff.fadeSeconds) s")
        case .finished: logger.notice("boot handoff: the boot picture has faded out; its texture is freed")
        case .waiting: break
        }
    }

    /// `boot.*` for `stats`: outputs lit without a modeset, pictures taken over, and the fade.
    func bootStatistics() -> [Statistic] {
        let phase: Double
        var progress = 0.0
        let t = now
        switch bootHandoff?.phase {
        case nil: phase = 0
        case .waiting?: phase = 1
        case .kept?: phase = 2
        case .fading?:
            phase = 3
            progress = 1 - (bootHandoff?.opacity(at: t) ?? 0)
        case .finished?:
            phase = 4
            progress = 1
        }
        return [
            Statistic(name: "boot.outputsTakenOver", value: Double(backend.outputs.filter(\.tookOverWithoutModeset).count)),
            Statistic(name: "boot.pictures", value: Double(bootHandoff?.pictureCount ?? 0)),
            Statistic(name: "boot.phase", value: phase),
            Statistic(name: "boot.fade", value: progress),
        ]
    }
}
