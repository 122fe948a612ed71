#if canImport(Glibc)
import Glibc
#endif
import CGLES

/// Where a `ProgramBinaryCache` keeps its entries: laminad's is a folder
/// (`[renderer] shader_cache`); tests keep them in memory.
public protocol ProgramBinaryStore: AnyObject {
    /// The entry called `name`, or nil when there is none (or it cannot be read).
    func read(_ name: String) -> [UInt8]?
    /// Replaces the entry called `name` (whole or not at all).
    func write(_ name: String, _ bytes: [UInt8]) throws
}

/// Compiled GL programs kept between starts: after a program is compiled and linked, its
/// driver binary (`glGetProgramBinary`, GL_OES_get_program_binary on ES 2) is stored; the next
/// start loads it with `glProgramBinary` instead of compiling. On llvmpipe this skips the GLSL
/// front end and linking of every program; on a GPU, the driver's compiler too.
///
/// An entry is named by a hash of what it depends on: the driver (GL_VENDOR, GL_RENDERER,
/// GL_VERSION), laminad's build (`build`) and the program's two sources; and it holds all of
/// them in full, with the binary and a checksum (`ProgramBinaryEntry`). Nothing is trusted
/// blindly: an entry that is torn, corrupt, from another driver or build, or for other sources
/// is counted as rejected and ignored, as is one the driver refuses (its link status after
/// `glProgramBinary`); the program is then compiled and its entry replaced.
///
/// GL works on the thread where its context is current, and so does the cache: laminad installs
/// one on its main thread before it opens its display (`installOnThisThread`), and every program
/// linked there goes through it (`Shaders.link`). Without a store (none configured, or its
/// folder unwritable: `offReason`) or where the context offers no binary format, programs are
/// compiled as before, and still counted.
public final class ProgramBinaryCache {
    /// Where entries are kept; nil: the cache is off, for `offReason`.
    public let store: (any ProgramBinaryStore)?
    /// Why there is no store (nil: there is one), and the word `stats` says it with
    /// (`shaderCache.off.<word>`: notConfigured, disabled, unwritable).
    public let offReason: String?
    public let offKey: String
    /// laminad's build: a program binary from another build is not used.
    public let build: String
    /// Programs compiled from source, loaded from the cache, and entries refused (corrupt,
    /// foreign, or refused by the driver) since start; entries written, and writes that failed.
    public private(set) var compiled = 0
    public private(set) var loaded = 0
    public private(set) var rejected = 0
    public private(set) var written = 0
    public private(set) var writeFailures = 0
    /// Seconds spent loading programs from the cache (reading, checking, `glProgramBinary`)
    /// and storing compiled ones (`glGetProgramBinary`, writing): the cache's own cost.
    public private(set) var loadSeconds = 0.0
    public private(set) var storeSeconds = 0.0
    /// Why the last entry was refused or the last write failed, for the log.
    public private(set) var lastProblem: String?
    /// The driver's identity and whether it offers a binary format: read once, from the first
    /// context a program is linked in.
    private var driver: (identity: String, hasBinaryFormats: Bool)?

    public init(store: (any ProgramBinaryStore)?, offReason: String? = nil, offKey: String = "noStore", build: String) {
        self.store = store
        self.offReason = store == nil ? offReason ?? "no store" : nil
        self.offKey = offKey
        self.build = build
    }

    /// Whether programs are loaded and stored: a store, and a context that offers a binary
    /// format (nil until a program was linked).
    public var isWorking: Bool? { store == nil ? false : driver.map(\.hasBinaryFormats) }

    /// Counters for `stats`, under `shaderCache.`.
    public var statistics: [(name: String, value: Double)] {
        var list: [(name: String, value: Double)] = [
            ("shaderCache.enabled", isWorking == true ? 1 : 0),
            ("shaderCache.programsCompiled", Double(compiled)),
            ("shaderCache.programsLoaded", Double(loaded)),
            ("shaderCache.entriesRejected", Double(rejected)),
            ("shaderCache.entriesWritten", Double(written)),
            ("shaderCache.writeFailures", Double(writeFailures)),
            ("shaderCache.loadSeconds", loadSeconds),
            ("shaderCache.storeSeconds", storeSeconds),
        ]
        if store == nil {
            list.append(("shaderCache.off.\(offKey)", 1))
        } else if driver?.hasBinaryFormats == false {
            list.append(("shaderCache.off.noBinaryFormats", 1))
        }
        return list
    }

    /// The driver's identity in the current context (its vendor, renderer and version, and
    /// laminad's build), and whether it offers a program binary format.
    private func currentDriver() -> (identity: String, hasBinaryFormats: Bool) {
        if let driver { return driver }
        func string(_ name: Int32) -> String { glGetString(GLenum(name)).map { String(cString: $0) } ?? "" }
        var formats: GLint = 0
        glGetIntegerv(GLenum(GL_NUM_PROGRAM_BINARY_FORMATS), &formats)
        _ = glGetError()  // an ES 2 context without GL_OES_get_program_binary: INVALID_ENUM, 0 formats
        let d = ([string(GL_VENDOR), string(GL_RENDERER), string(GL_VERSION), build].joined(separator: "\n"), formats > 0)
        driver = d
        return d
    }

    /// The program for `vertex` and `fragment` from the cache, linked; nil when it has none
    /// that the checks and the driver accept (the caller compiles it, then calls `compiledProgram`).
    /// The context must be current.
    func load(vertex: String, fragment: String) -> GLuint? {
        guard let store else { return nil }
        let driver = currentDriver()
        guard driver.hasBinaryFormats else { return nil }
        let start = Self.seconds()
        defer { loadSeconds += Self.seconds() - start }
        let name = ProgramBinaryEntry.name(identity: driver.identity, vertex: vertex, fragment: fragment)
        guard let bytes = store.read(name) else { return nil }
        let entry: ProgramBinaryEntry
        do {
            entry = try ProgramBinaryEntry.decode(bytes)
        } catch {
            return refuse("\(name): \(error)")
        }
        guard entry.identity == driver.identity else { return refuse("\(name): made by another driver or laminad build") }
        guard entry.vertex == vertex, entry.fragment == fragment else { return refuse("\(name): made for other shader sources") }
        let program = glCreateProgram()
        entry.binary.withUnsafeBytes { glProgramBinary(program, entry.format, $0.baseAddress, GLsizei($0.count)) }
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked == GL_TRUE else {
            glDeleteProgram(program)
            while glGetError() != GLenum(GL_NO_ERROR) {}
            return refuse("\(name): the driver refused the binary")
        }
        loaded += 1
        return program
    }

    private func refuse(_ why: String) -> GLuint? {
        rejected += 1
        lastProblem = why
        return nil
    }

    /// `program` was just compiled and linked from `vertex` and `fragment`: counted, and its
    /// binary stored where the cache works (a failed write is counted, never fatal).
    func compiledProgram(_ program: GLuint, vertex: String, fragment: String) {
        compiled += 1
        guard let store else { return }
        let driver = currentDriver()
        guard driver.hasBinaryFormats else { return }
        let start = Self.seconds()
        defer { storeSeconds += Self.seconds() - start }
        var length: GLint = 0
        glGetProgramiv(program, GLenum(GL_PROGRAM_BINARY_LENGTH), &length)
        guard length > 0 else { return }
        var binary = [UInt8](repeating: 0, count: Int(length))
        var written: GLsizei = 0
        var format: GLenum = 0
        binary.withUnsafeMutableBytes { glGetProgramBinary(program, GLsizei(length), &written, &format, $0.baseAddress) }
        guard written > 0, glGetError() == GLenum(GL_NO_ERROR) else { return }
        let entry = ProgramBinaryEntry(identity: driver.identity, vertex: vertex, fragment: fragment, format: format,
                                       binary: Array(binary.prefix(Int(written))))
        do {
            try store.write(ProgramBinaryEntry.name(identity: driver.identity, vertex: vertex, fragment: fragment), entry.encoded())
            self.written += 1
        } catch {
            writeFailures += 1
            lastProblem = "writing a program binary: \(error)"
        }
    }

    private static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    // MARK: The thread's cache

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The cache programs linked on this thread go through (nil: none, they are compiled).
    public static var onThisThread: ProgramBinaryCache? {
        pthread_getspecific(key).map { Unmanaged<ProgramBinaryCache>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Programs linked on this thread from now on go through this cache (it stays installed,
    /// and alive, until another replaces it).
    public func installOnThisThread() {
        let previous = pthread_getspecific(Self.key)
        pthread_setspecific(Self.key, Unmanaged.passRetained(self).toOpaque())
        if let previous { Unmanaged<ProgramBinaryCache>.fromOpaque(previous).release() }
    }

    /// Programs linked on this thread are compiled again, with no cache (tests).
    public static func removeFromThisThread() {
        guard let previous = pthread_getspecific(key) else { return }
        pthread_setspecific(key, nil)
        Unmanaged<ProgramBinaryCache>.fromOpaque(previous).release()
    }
}
