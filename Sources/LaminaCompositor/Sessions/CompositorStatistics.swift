import LaminaCore
import LaminaProtocol

/// The counters a `stats` request reports (docs/protocol.md, "stats").
extension Compositor {
    /// The counters a `stats` request reports.
    public func statistics() -> [Statistic] {
        [
            Statistic(name: "framesRendered", value: Double(stats.framesRendered)),
            Statistic(name: "commitsApplied", value: Double(stats.commitsApplied)),
            Statistic(name: "commitsRejected", value: Double(stats.commitsRejected)),
            Statistic(name: "clientsDropped", value: Double(stats.clientsDropped)),
            Statistic(name: "clients", value: Double(sessions.count)),
            Statistic(name: "sessions", value: Double(model.entries.count)),
            Statistic(name: "layers", value: Double(model.layerCount)),
            Statistic(name: "keptSessions", value: Double(model.entries.filter(\.isKept).count)),
            Statistic(name: "keptLayers", value: Double(model.keptLayerCount)),
            Statistic(name: "budget.maxKeptLayers", value: Double(configuration.limits.maxKeptLayers)),
            Statistic(name: "budget.maxTotalLayers", value: Double(configuration.limits.maxTotalLayers)),
            Statistic(name: "budget.maxClients", value: Double(configuration.limits.maxClients)),
            Statistic(name: "budget.maxClientsPerUser", value: Double(configuration.limits.maxClientsPerUser)),
            Statistic(name: "budget.maxKeptSessions", value: Double(configuration.limits.maxKeptSessions)),
            Statistic(name: "budget.maxTreeDepth", value: Double(configuration.limits.maxDepth)),
            Statistic(name: "budget.maxLayerDrawsPerFrame", value: Double(RenderWalkBudget.maximumVisits)),
            Statistic(name: "truncatedFrames", value: Double(stats.truncatedFrames)),
            Statistic(name: "animations", value: Double(animationStates.values.reduce(0) { $0 + $1.animated.values.reduce(0) { $0 + $1.animations.entries.count } })),
            Statistic(name: "lastFrameMilliseconds", value: stats.lastFrameSeconds * 1000),
            Statistic(name: "time", value: now),
            Statistic(name: "width", value: Double(model.width)),
            Statistic(name: "height", value: Double(model.height)),
            Statistic(name: "images", value: Double(model.entries.reduce(0) { $0 + $1.tree.images.count })),
            Statistic(name: "imageBytes", value: Double(model.entries.reduce(0) { $0 + $1.tree.images.values.reduce(0) { $0 + $1.byteCount } })),
            Statistic(name: "tiles", value: Double(model.entries.reduce(0) { $0 + $1.tree.tiles.count })),
            Statistic(name: "tileBytes", value: Double(model.entries.reduce(0) { $0 + $1.tree.tiles.bytes })),
            Statistic(name: "tileEvictions", value: Double(model.entries.reduce(0) { $0 + $1.tree.tiles.evictions })),
            Statistic(name: "tilesRequested", value: Double(stats.tilesRequested)),
            Statistic(name: "budget.maxTileBytes", value: Double(configuration.limits.tiles.maxBytes)),
            Statistic(name: "budget.maxImageBytes", value: Double(configuration.limits.maxImageBytes)),
            Statistic(name: "budget.maxTotalImageBytes", value: Double(configuration.limits.maxTotalImageBytes)),
            Statistic(name: "videos", value: Double(videoCount)),
            Statistic(name: "videoFrameBytes", value: Double(videoFrameBytes)),
            Statistic(name: "videosPlaying", value: Double(liveVideos.filter { $0.isPlaying && !$0.isDestroyed && $0.decoder != nil }.count)),
            Statistic(name: "video.overlayPlanes", value: Double(backend.outputs.reduce(0) { $0 + $1.overlayPlanes.count })),
            Statistic(name: "video.overlayEligibleFrames", value: Double(presenter.overlayEligibleFrames)),
            Statistic(name: "video.overlayScanoutFrames", value: Double(presenter.overlayScanoutFrames)),
            Statistic(name: "video.overlayCompositedFrames", value: Double(presenter.overlayCompositedFrames)),
            Statistic(name: "budget.maxVideos", value: Double(configuration.maxVideos)),
            Statistic(name: "commitsStaged", value: Double(stats.commitsStaged)),
            Statistic(name: "stagedSteps", value: Double(stats.stagedSteps)),
            Statistic(name: "budget.commitStepOperations", value: Double(configuration.commitStepOperations)),
            Statistic(name: "input.events", value: Double(input.routed)),
            Statistic(name: "input.delivered", value: Double(input.delivered)),
            Statistic(name: "input.unclaimed", value: Double(input.unclaimed)),
            Statistic(name: "input.touches", value: Double(input.state.touches.count)),
            // What the display shows has caught up with the tree when no frame is owed (0):
            // nothing changed since the last frame, none is due, no flip is pending. Tests wait
            // on these instead of sleeping (docs/testing.md).
            Statistic(name: "display.framesPresented", value: Double(framesPresented)),
            Statistic(name: "display.frameOwed", value: repaint.isArmed || repaint.wantsFrame || backend.isFramePending ? 1 : 0),
            // The repaint loop's wake-ups (timer armings) and the display links: with no link
            // running and nothing changing, neither frames nor wake-ups happen.
            Statistic(name: "repaint.wakeups", value: Double(timerArmings)),
            Statistic(name: "displayLink.links", value: Double(displayLinks.linkCount)),
            Statistic(name: "displayLink.running", value: Double(displayLinks.runningCount)),
            Statistic(name: "displayLink.frames", value: Double(displayLinks.framesSent)),
            Statistic(name: "displayLink.coalesced", value: Double(displayLinks.coalesced)),
            Statistic(name: "budget.maxDisplayLinksPerClient", value: Double(configuration.limits.maxDisplayLinks)),
        ] + damageStatistics() + bootStatistics() + presenter.renderer.cacheStatistics.map { Statistic(name: $0.name, value: $0.value) }
            + renderCache.statistics.map { Statistic(name: $0.name, value: $0.value) } + textureStatistics() + (layerRasters?.statistics ?? [])
            + (videoDecoding?.statistics.map { Statistic(name: $0.name, value: $0.value) } ?? []) + audioStatistics + (host?.platformStatistics() ?? [])
    }

    /// `damage.*`: whether frames redraw only what changed, and how much of the output they drew.
    private func damageStatistics() -> [Statistic] {
        let d = backend.damageStatistics
        return [Statistic(name: "damage.tracking", value: backend.damageTracking ? 1 : 0),
                Statistic(name: "damage.frames", value: Double(d.frames)),
                Statistic(name: "damage.fullFrames", value: Double(d.fullFrames)),
                Statistic(name: "damage.emptyFrames", value: Double(d.emptyFrames)),
                Statistic(name: "damage.lastFraction", value: d.lastFraction),
                Statistic(name: "damage.meanFraction", value: d.meanFraction),
                Statistic(name: "damage.lastBoxes", value: Double(d.lastBoxes))]
    }

    /// `textureBytes` and `textures` in all, then `textureBytes.client.N` for each connected
    /// client (by its client id), `textureBytes.session.NAME` for a kept session whose client
    /// has gone, and `textureBytes.server` for server rasters.
    private func textureStatistics() -> [Statistic] {
        let usage = presenter.renderer.textureUsage
        var list = [Statistic(name: "textureBytes", value: Double(usage.totalBytes)),
                    Statistic(name: "textures", value: Double(usage.totalTextures))]
        for (owner, bytes) in usage.bytes.sorted(by: { $0.key.description < $1.key.description }) {
            let name: String
            switch owner {
            case .server: name = "server"
            case .session(let serial):
                if let e = model.entries.first(where: { $0.serial == serial }) {
                    name = e.client.map { "client.\($0.rawValue)" } ?? "session.\(e.session)"
                } else {
                    name = "gone.\(serial)"
                }
            }
            list.append(Statistic(name: "textureBytes." + name, value: Double(bytes)))
        }
        return list
    }
}
