import ArgumentParser
import LaminaDaemon
import LaminaKMS
import LaminaPlatform
import LaminaCompositor
import Logging

/// laminad: owns the display and composites clients' layer trees.
///
/// Settings come from the command line, then `--config` (laminad.toml), then the defaults;
/// `LaminadConfiguration.keys` declares each one, with its flag.
struct Laminad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "laminad",
        abstract: "The Lamina compositor daemon: owns the display and draws clients' layer trees.")

    @Option(help: "laminad.toml to read (config/laminad.toml documents every key); settings given here win over it.")
    var config: String?

    @Option(name: .customLong("frames-dir"), help: "Write every presented frame as a numbered PNG into this folder.")
    var framesDir: String?

    @Option(name: .customLong("output"), help: "KMS: an output's settings, NAME[:mode=WxH[@HZ]][:pos=X,Y][:transform=T][:scale=S][:off]; repeatable, replaces the file's [[output]] of that name.")
    var outputSpecs: [String] = []

    @Flag(name: .customLong("list-keys"), help: "Print every laminad.toml key, what it takes and its flag, and exit.")
    var listKeys = false

    /// The settings below (`--size 1920x1080`), read by `LaminadConfiguration.apply(arguments:)`.
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp(
        "Settings, such as --backend kms or --size 1920x1080; each is also a laminad.toml key, and the command line wins over the file:",
        discussion: LaminadConfiguration.commandLineHelp, valueName: "setting"))
    var settingArguments: [String] = []

    func run() throws {
        if listKeys {
            print(LaminadConfiguration.keyList, terminator: "")
            return
        }
        let startTime = monotonicSeconds()
        var settings = LaminadConfiguration()
        do {
            if let config { settings = try LaminadConfiguration.load(path: config) }
            try settings.apply(arguments: settingArguments)
        } catch {
            throw ValidationError("\(error)")
        }
        for spec in outputSpecs {
            let output = try OutputConfiguration(parsing: spec)
            settings.kms.outputs.removeAll { $0.name == output.name }
            settings.kms.outputs.append(output)
        }
        let level = settings.logLevel
        let journal = JournalLogHandler.stderrIsJournal
        LoggingSystem.bootstrap { label in
            if journal {
                var h = JournalLogHandler(label: label)
                h.logLevel = level
                return h
            }
            var h = StreamLogHandler.standardError(label: label)
            h.logLevel = level
            return h
        }
        let logger = Logger(label: "laminad")
        if let config { logger.info("configuration: \(config)") }

        // GL programs linked on this thread (the renderer's, made as the display opens) go
        // through the program cache (ProgramBinaryCache.swift).
        ShaderCacheFolder.install(configured: settings.shaderCache, logger: logger)
        let display: FramePresenter
        do {
            let size = settings.headlessSize
            display = try openDisplay(settings.backend, width: size.width, height: size.height, buffers: settings.headlessBuffers,
                                      kms: settings.kms, gles: try resolvedGLESRequest(settings.glesRequest), logger: logger)
            display.backend.damageTracking = settings.damageTracking
            ShaderCacheFolder.logPrograms(logger: logger)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(2)
        }
        var options = settings.daemonOptions
        options.framesDirectory = framesDir
        options.configurationFile = config
        options.outputs = settings.kms.outputs
        options.startTime = startTime
        options.cursor = settings.kms.cursor && display.backend is KMSBackend
        let passed = ServiceManager.listenDescriptors()
        if let fd = passed.first {
            guard ServiceManager.isListeningUnixSocket(fd) else {
                throw ValidationError("socket activation passed descriptor \(fd), which is not a listening Unix stream socket")
            }
            options.listenerDescriptor = fd
        }
        // Tree walks recurse on this thread, as deep as the depth budget allows (64 by default,
        // 256 at most): 64 MiB is several times what 256 levels take in a debug build.
        let stack = reserveMainStack(64 << 20)
        if stack < 64 << 20 { logger.warning("the main thread's stack is limited to \(stack) bytes (RLIMIT_STACK); deep layer trees may not fit") }
        let daemon = try Daemon(display: display, options: options, logger: logger)
        try daemon.run()
    }
}

Laminad.main()

extension OutputConfiguration {
    /// Parses `--output NAME[:mode=WxH[@HZ]][:pos=X,Y][:transform=T][:scale=S][:off]`.
    init(parsing spec: String) throws {
        let fields = spec.split(separator: ":").map(String.init)
        guard let name = fields.first, !name.isEmpty else { throw ValidationError("--output needs a connector name first (got '\(spec)')") }
        self.init(name: name)
        for field in fields.dropFirst() {
            let kv = field.split(separator: "=", maxSplits: 1).map(String.init)
            switch (kv[0], kv.count == 2 ? kv[1] : nil) {
            case ("off", nil): enabled = false
            case ("mode", let v?):
                guard let m = ModeRequest(parsing: v) else { throw ValidationError("--output \(name): mode must be WxH or WxH@HZ (got '\(v)')") }
                mode = m
            case ("pos", let v?):
                let xy = v.split(separator: ",").compactMap { Int($0) }
                guard xy.count == 2 else { throw ValidationError("--output \(name): pos must be X,Y (got '\(v)')") }
                position = (xy[0], xy[1])
            case ("transform", let v?):
                guard let t = OutputTransform(rawValue: v) else {
                    throw ValidationError("--output \(name): transform must be one of \(OutputTransform.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(v)')")
                }
                transform = t
            case ("scale", let v?):
                guard let s = Double(v), s > 0, s <= 8 else { throw ValidationError("--output \(name): scale must be in (0, 8] (got '\(v)')") }
                scale = s
            default:
                throw ValidationError("--output \(name): unknown setting '\(field)' (mode=, pos=, transform=, scale=, off)")
            }
        }
    }
}
