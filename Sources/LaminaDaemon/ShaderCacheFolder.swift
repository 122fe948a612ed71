#if canImport(Glibc)
import Glibc
#endif
import LaminaGLES
import LaminaPlatform
import LaminaProtocol
import Logging

/// The program cache's folder (`[renderer] shader_cache`): one file per program binary
/// (`ProgramBinaryCache`), replaced whole by a rename. Nothing is fsynced: a lost entry is
/// compiled again.
public final class ShaderCacheFolder: ProgramBinaryStore {
    let path: String
    /// The largest entry read: a program binary is tens of kilobytes.
    static let entryLimit = 64 << 20

    /// Makes the folder (and those above it) where it is missing; throws where laminad cannot
    /// write in it.
    init(path: String) throws(SystemError) {
        self.path = path
        var made = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            made += "/" + part
            if mkdir(made, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir \(made)", errno: errno) }
        }
        guard access(path, W_OK | X_OK) == 0 else { throw SystemError("access \(path) (to write)", errno: errno) }
    }

    public func read(_ name: String) -> [UInt8]? { try? Files.read(path + "/" + name, limit: Self.entryLimit) }

    public func write(_ name: String, _ bytes: [UInt8]) throws {
        var cost = Files.SyncCost()
        try Files.writeAtomically(path + "/" + name, bytes, sync: false, syncDirectory: false, cost: &cost)
    }

    /// The cache laminad installs (`cacheDirectory`: systemd's $CACHE_DIRECTORY): in `configured` (`[renderer] shader_cache`; "" for none), else
    /// in $CACHE_DIRECTORY/shaders (systemd sets it from the unit's CacheDirectory), else none.
    /// Why there is none is logged, and `stats` says it (`shaderCache.off.*`).
    public static func programCache(configured: String?, cacheDirectory: String? = getenv("CACHE_DIRECTORY").map { String(cString: $0) },
                                    logger: Logger) -> ProgramBinaryCache {
        let build = laminadBuild()
        let path: String
        if let configured {
            guard !configured.isEmpty else {
                logger.info("shader cache: off ([renderer] shader_cache is \"\")")
                return ProgramBinaryCache(store: nil, offReason: "[renderer] shader_cache is \"\"", offKey: "disabled", build: build)
            }
            path = configured
        } else if let cache = cacheDirectory?.split(separator: ":").first {
            path = cache + "/shaders"
        } else {
            let why = "no [renderer] shader_cache and no $CACHE_DIRECTORY (the unit's CacheDirectory): programs are compiled at every start"
            logger.info("shader cache: off (\(why))")
            return ProgramBinaryCache(store: nil, offReason: why, offKey: "notConfigured", build: build)
        }
        do {
            let folder = try ShaderCacheFolder(path: path)
            logger.info("shader cache: \(path)")
            return ProgramBinaryCache(store: folder, build: build)
        } catch {
            logger.warning("shader cache: off (\(error)): programs are compiled at every start")
            return ProgramBinaryCache(store: nil, offReason: "\(path): \(error)", offKey: "unwritable", build: build)
        }
    }

    /// laminad's build, as far as its program binaries go: the protocol version and the
    /// executable's size and modification time (a rebuilt or upgraded laminad compiles afresh).
    static func laminadBuild() -> String {
        var st = stat()
        let exe = stat("/proc/self/exe", &st) == 0 ? "\(st.st_size)-\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)" : "unknown"
        return "laminad \(ProtocolVersion.major).\(ProtocolVersion.minor) \(exe)"
    }

    /// Installs the program cache (`programCache`) on this thread, where laminad opens its
    /// display: the renderer's programs, linked as it opens, go through it.
    public static func install(configured: String?, logger: Logger) {
        programCache(configured: configured, logger: logger).installOnThisThread()
    }

    /// Logs what the thread's program cache did so far (after the display opened).
    public static func logPrograms(logger: Logger) {
        guard let c = ProgramBinaryCache.onThisThread else { return }
        var line = "shader programs: \(c.loaded) loaded from the cache, \(c.compiled) compiled"
        if c.rejected > 0 { line += "; \(c.rejected) cache entries refused and replaced (the last: \(c.lastProblem ?? "?"))" }
        if c.writeFailures > 0 { line += "; \(c.writeFailures) not stored (\(c.lastProblem ?? "?"))" }
        if c.store != nil, c.isWorking == false { line += " (the context offers no program binary format: nothing is cached)" }
        logger.info("\(line)")
    }
}
