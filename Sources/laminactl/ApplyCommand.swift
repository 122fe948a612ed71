import ArgumentParser
import Foundation
import Lamina
import LaminaCore
import LaminaImage
import LaminaPlatform
import LaminaScene
#if canImport(Glibc)
import Glibc
#endif

struct Apply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Commit a scene file as one transaction.",
        discussion: """
        Layers are matched by name: applying a changed file updates those layers in place, creates \
        new ones and removes the ones that are gone. The layers stay on screen after laminactl exits; \
        they belong to the session named by --session.

        A layer with "app" (a command line) shows that Wayland app's window: laminactl starts \
        the app as its user and stays while apps run (see `laminactl launch`); with --watch, apps \
        whose layer and command are unchanged keep running across applies.

        With --watch, laminactl stays and applies the file again whenever it or an image it names \
        is saved, animating the differences. A broken edit is reported (on standard error) and the \
        last good scene stays on screen; each apply prints an `applied` line. SIGINT or SIGTERM \
        stops it (exit 0); the layers stay.
        """)

    @OptionGroup var connection: ConnectionOptions

    @Option(help: "The session that owns the scene's layers; applying again to the same session updates them.")
    var session: String = "laminactl"

    @Argument(help: "The scene file (JSON, see docs/scene-format.md).")
    var scene: String

    @Option(help: "The transaction's animationDuration in seconds: changed properties animate this long (default 0.25).")
    var duration: Double?

    @Option(name: .customLong("timing-function"), help: "The transaction's timing function: linear, easeIn, easeOut, easeInEaseOut, default, or x1,y1,x2,y2.")
    var timingFunction: String?

    @Flag(name: .customLong("disable-actions"), help: "Apply the changes without implicit animations.")
    var disableActions = false

    @Flag(help: "Keep running: apply again whenever the scene file or an image, font or video it names changes.")
    var watch = false

    /// The transaction's timing function from `--timing-function`.
    func parsedTimingFunction() throws -> TimingFunction? {
        guard let name = self.timingFunction else { return nil }
        let parts = name.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        if let tf = TimingFunction(name: name) { return tf }
        if parts.count == 4, (0...1).contains(parts[0]), (0...1).contains(parts[2]) {
            return TimingFunction(controlPoints: parts[0], parts[1], parts[2], parts[3])
        }
        throw ValidationError("--timing-function takes linear, easeIn, easeOut, easeInEaseOut, default or x1,y1,x2,y2 with x in [0, 1] (got '\(name)')")
    }

    func validate() throws {
        _ = try parsedTimingFunction()
        if let duration, !(duration >= 0 && duration.isFinite) {
            throw ValidationError("--duration must be a finite number of seconds ≥ 0 (got \(duration))")
        }
    }

    @MainActor
    func run() async throws {
        if watch { return try await runWatching() }
        let parsed = try load()
        let c = try connection.connect(session: session, keepLayers: true)
        defer { c.close() }
        var images = ImageCache()
        let summary = try await apply(parsed, on: c, images: &images, rootIsNew: !c.isResumedSession)
        print(summary)
        guard !parsed.appLayers.isEmpty else { return }
        // The scene's apps: laminactl runs them and stays until they end (or a signal).
        fflush(nil)
        let signals: SignalPipe
        do { signals = try SignalPipe(signals: [SIGINT, SIGTERM]) } catch {
            throw CommandFailure(ExitStatus.software, "cannot catch signals: \(error)")
        }
        let launcher = try await startApps(parsed, on: c)
        while true {
            if !signals.drain().isEmpty {
                launcher.stopAll()
                return
            }
            launcher.poll()
            if !launcher.isActive { throw ExitCode(launcher.lastExitStatus) }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
    }

    /// The launcher of a scene's apps, managing apps on `c`, with the scene's apps wanted.
    @MainActor
    func startApps(_ parsed: Scene, on c: Connection, launcher existing: AppLauncher? = nil) async throws -> AppLauncher {
        if let existing {
            existing.want(Self.wantedApps(parsed))
            return existing
        }
        guard let display = try await c.waylandSocket() else {
            throw CommandFailure(ExitStatus.unavailable, "\(scene): the scene runs apps, but laminad serves no Wayland socket ([wayland] enabled = false)")
        }
        let launcher = AppLauncher(connection: c, waylandDisplay: display, createsMissingLayers: false)
        try await c.manageApps()
        launcher.want(Self.wantedApps(parsed))
        return launcher
    }

    static func wantedApps(_ parsed: Scene) -> [AppLauncher.Wanted] {
        parsed.appLayers.compactMap { l in l.name.map { AppLauncher.Wanted(layer: $0, command: l.app ?? [], restart: l.appRestart) } }
    }

    func load() throws(CommandFailure) -> Scene {
        do { return try Scene.load(path: scene) } catch {
            throw CommandFailure(ExitStatus.dataError, "\(scene): \(error)")
        }
    }

    /// Applies `parsed` in one transaction and waits until laminad has it; returns the line to print.
    @MainActor
    func apply(_ parsed: Scene, on c: Connection, images: inout ImageCache, rootIsNew: Bool) async throws -> String {
        var loaded: [String: Image] = [:]
        for file in parsed.contentsFiles {
            do { loaded[file] = try images.image(file, connection: c) } catch {
                throw CommandFailure(ExitStatus.dataError, "\(scene): contents \(file): \(error)")
            }
        }
        var fonts: [String: String] = [:]
        for file in parsed.fontFiles {
            fonts[file] = try await images.fontFamily(file, connection: c, scene: scene)
        }
        // Each layer's video, made anew by every apply (laminad drops a resumed session's
        // videos that no layer shows any more); how it plays is sent with it.
        var videos: [String: VideoSource] = [:]
        for layer in parsed.videoLayers {
            guard let file = layer.videoFile else { continue }
            do {
                let v = SceneLayer.isURI(file) ? try VideoSource(uri: file, connection: c)
                    : try VideoSource(contentsOfFile: file, connection: c)
                v.loops = layer.video.loops
                v.rate = layer.video.rate
                v.volume = layer.video.volume
                v.isMuted = layer.video.muted
                if layer.video.playing { v.play() }
                videos[layer.path] = v
            } catch {
                throw CommandFailure(ExitStatus.dataError, "\(scene): video \(file): \(error)")
            }
        }
        Transaction.begin()
        if let duration { Transaction.animationDuration = duration }
        if let timingFunction = try parsedTimingFunction() { Transaction.animationTimingFunction = timingFunction }
        Transaction.disableActions = disableActions
        let summary = SceneApplier.apply(parsed, to: c.rootLayer, images: loaded, fonts: fonts, videos: videos,
                                         mediaTime: c.currentMediaTime, rootIsNew: rootIsNew)
        Transaction.commit()
        try await c.sync()
        return "applied \(scene): \(summary.created) created, \(summary.updated) updated, \(summary.removed) removed, \(summary.propertiesSet) properties set, \(summary.animationsAdded) animations added"
    }

    enum WatchEvent: Sendable {
        case changed(Set<String>)
        /// Time to look after the scene's apps (every 0.1 s while some run).
        case tick
        case stop(Int32)
        case connectionLost(String)
    }

    /// `--watch`: apply, then again on every change, until a signal; errors in the files are
    /// reported and waited out, the last good scene staying on screen.
    @MainActor
    func runWatching() async throws {
        let watcher: FileWatcher, signals: SignalPipe
        do {
            watcher = try FileWatcher()
            signals = try SignalPipe(signals: [SIGINT, SIGTERM])
            try watcher.watch([scene])
        } catch {
            throw CommandFailure(ExitStatus.dataError, "\(scene): cannot watch: \(error)")
        }
        let c = try connection.connect(session: session, keepLayers: true)
        let (events, sink) = AsyncStream<WatchEvent>.makeStream()
        c.onError = { error in
            if case .connectionClosed(let why) = error { sink.yield(.connectionLost(why)) }
        }
        // Waits on the descriptors on a thread of its own; the applies happen on the main actor.
        Thread.detachNewThread {
            while true {
                guard let ready = try? waitReadable([watcher.descriptor, signals.descriptor]) else { break }
                if ready.contains(signals.descriptor) {
                    sink.yield(.stop(signals.drain().first ?? SIGTERM))
                    break
                }
                let changed = watcher.readChanges()
                if !changed.isEmpty { sink.yield(.changed(changed)) }
            }
            sink.finish()
        }

        // Apps are looked after between file changes.
        let ticker = Task { @MainActor in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
                sink.yield(.tick)
            }
        }
        defer { ticker.cancel() }
        var launcher: AppLauncher?
        var images = ImageCache()
        var watched = [scene]
        var applied = false
        /// One attempt; false when laminad has gone.
        func attempt() async -> Bool {
            var line: String?
            do {
                let parsed = try load()
                watched = [scene] + parsed.contentsFiles + parsed.fontFiles + parsed.videoLayers.compactMap(\.videoFile).filter { !SceneLayer.isURI($0) }
                line = try await apply(parsed, on: c, images: &images, rootIsNew: !c.isResumedSession && !applied)
                applied = true
                if launcher != nil || !parsed.appLayers.isEmpty { launcher = try await startApps(parsed, on: c, launcher: launcher) }
            } catch let e as LaminaError {
                if case .connectionClosed = e { return false }
                report(CommandFailure.classify(e)?.message ?? "\(e)")
            } catch {
                report(CommandFailure.classify(error)?.message ?? "\(error)")
            }
            // Watch before saying so: a change made after the line is seen is caught.
            do { try watcher.watch(watched) } catch {
                report("cannot watch \(watched.joined(separator: ", ")): \(error)")
            }
            if let line { say(line) }
            return true
        }

        guard await attempt() else { throw LaminaError.connectionClosed("laminad went away") }
        for await event in events {
            switch event {
            case .changed:
                images.forgetChanged()
                guard await attempt() else { throw LaminaError.connectionClosed("laminad went away") }
            case .tick:
                launcher?.poll()
            case .stop(let signal):
                launcher?.stopAll()
                c.close()
                report("signal \(signal): stopped watching \(scene); the layers stay in session '\(session)'")
                return
            case .connectionLost(let why):
                throw LaminaError.connectionClosed(why)
            }
        }
    }

    /// A line on standard output, written at once (stdout is block-buffered into a pipe).
    func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    func report(_ message: String) { FileHandle.standardError.write(Data("laminactl: \(message)\n".utf8)) }
}

/// Images by file, kept while the file is unchanged (same inode, size and modification time), so
/// applying again does not send unchanged images again or count them as changed.
struct ImageCache {
    private struct Stamp: Equatable {
        var device: UInt64, inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
    }
    private var entries: [String: (stamp: Stamp, image: Image)] = [:]

    private static func stamp(_ path: String) -> Stamp? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return Stamp(device: UInt64(s.st_dev), inode: UInt64(s.st_ino), size: Int64(s.st_size),
                     seconds: s.st_mtim.tv_sec, nanoseconds: s.st_mtim.tv_nsec)
    }

    @MainActor
    mutating func image(_ path: String, connection c: Connection) throws -> Image {
        let stamp = Self.stamp(path)
        if let stamp, let hit = entries[path], hit.stamp == stamp { return hit.image }
        let image = try Image(contentsOfFile: path, connection: c)
        if let stamp { entries[path] = (stamp, image) }
        return image
    }

    /// Drops the entries whose files changed (their images go when no layer shows them).
    mutating func forgetChanged() {
        entries = entries.filter { Self.stamp($0.key) == $0.value.stamp }
        families = families.filter { Self.stamp($0.key) == $0.value.stamp }
    }

    private var families: [String: (stamp: Stamp, family: String)] = [:]

    /// The family laminad registered the font file as (sending its bytes once per version of
    /// the file; laminad also knows bytes it has seen).
    @MainActor
    mutating func fontFamily(_ path: String, connection c: Connection, scene: String) async throws -> String {
        let stamp = Self.stamp(path)
        if let stamp, let hit = families[path], hit.stamp == stamp { return hit.family }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(ExitStatus.dataError, "\(scene): font \(path): cannot read the file")
        }
        let registered: [String]
        do { registered = try await c.registerFont(bytes: [UInt8](data)) } catch let e as LaminaError {
            guard case .server(let refusal) = e else { throw e }
            throw CommandFailure(ExitStatus.dataError, "\(scene): font \(path): laminad refused it: \(refusal.message)")
        }
        guard let family = registered.first else {
            throw CommandFailure(ExitStatus.dataError, "\(scene): font \(path): laminad found no family in it")
        }
        if let stamp { families[path] = (stamp, family) }
        return family
    }
}
