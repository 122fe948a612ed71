import CLinux
import CPango
import LaminaProtocol
import LaminaCompositor
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Font files that clients send (`register-font`), added to fontconfig's application fonts so
/// text layers can name their families.
///
/// Why bytes and not a path: laminad may run as another user, in another mount namespace, or
/// with files the client cannot read; a path would let a client make the daemon open files on
/// its behalf. The client sends the bytes in a sealed memory file (as it sends images); laminad
/// copies them into a memory file of its own and hands fontconfig `/proc/self/fd/N`, so nothing
/// is written to disk and nothing is read from the client's filesystem.
///
/// Bounded: a font may be at most `maximumFontBytes`, and all registered fonts together at most
/// `maximumTotalBytes` in at most `maximumFonts` files; they stay until laminad exits (fontconfig
/// cannot take one application font back). The same bytes sent again are recognised and cost
/// nothing. A font whose family is already installed (or registered from other bytes) is
/// refused, so no client can change how another's text is drawn.
public final class FontconfigRegistry: FontRegistry {
    public static let maximumFontBytes = 32 << 20
    public static let maximumTotalBytes = 128 << 20
    public static let maximumFonts = 32

    /// Counts registrations; text rasters made before one are drawn again (`TextStyle`), and
    /// each thread's Pango font map is made afresh to see the new fonts.
    static let generation = Atomic<UInt64>(0)

    private struct Key: Hashable { var size: Int; var hash: UInt64 }
    private var registered: [Key: [String]] = [:]
    private var descriptors: [Int32] = []
    private var totalBytes = 0

    public init() {}

    deinit { for fd in descriptors { close(fd) } }

    /// The number of fonts registered and their bytes, for `stats`.
    public var statistics: [Statistic] {
        [Statistic(name: "fonts.registered", value: Double(registered.count)),
         Statistic(name: "fonts.bytes", value: Double(totalBytes))]
    }

    public func register(_ bytes: UnsafeRawBufferPointer) throws(FontRegistrationError) -> [String] {
        guard !bytes.isEmpty else { throw FontRegistrationError(.invalidRequest, "the font file is empty") }
        guard bytes.count <= Self.maximumFontBytes else {
            throw FontRegistrationError(.limitExceeded, "the font file has \(bytes.count) bytes; a font may have at most \(Self.maximumFontBytes)")
        }
        let key = Key(size: bytes.count, hash: Self.fnv1a(bytes))
        if let families = registered[key] { return families }
        guard registered.count < Self.maximumFonts else {
            throw FontRegistrationError(.limitExceeded, "laminad holds \(registered.count) registered fonts, the most it takes (restart it to start afresh)")
        }
        guard totalBytes + bytes.count <= Self.maximumTotalBytes else {
            throw FontRegistrationError(.limitExceeded, "the font (\(bytes.count) bytes) would take the registered fonts to \(totalBytes + bytes.count) bytes; they may hold \(Self.maximumTotalBytes)")
        }

        let fd = CLinux_memfd_create("lamina-font")
        guard fd >= 0 else { throw FontRegistrationError(.internalError, "memfd_create: \(String(cString: strerror(errno)))") }
        var written = 0
        while written < bytes.count {
            let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                close(fd)
                throw FontRegistrationError(.internalError, "writing the font's memory file: \(String(cString: strerror(errno)))")
            }
            written += n
        }
        let path = "/proc/self/fd/\(fd)"

        let families = Self.families(inFile: path)
        guard !families.isEmpty else {
            close(fd)
            throw FontRegistrationError(.invalidRequest, "not a font file fontconfig can read (TrueType, OpenType or a collection of them)")
        }
        for family in families where Self.isInstalled(family) {
            close(fd)
            throw FontRegistrationError(.invalidRequest, "the font's family '\(family)' is installed already (or was registered from a different file); name it in `font` without registering, or give the font a family of its own")
        }
        let added = path.withCString { p in FcConfigAppFontAddFile(nil, UnsafeRawPointer(p).assumingMemoryBound(to: FcChar8.self)) }
        guard added == FcTrue else {
            close(fd)
            throw FontRegistrationError(.invalidRequest, "fontconfig refused the font file")
        }
        descriptors.append(fd)
        totalBytes += bytes.count
        registered[key] = families
        Self.generation.add(1, ordering: .releasing)
        return families
    }

    /// The family names of every face in the file, each once, in order.
    static func families(inFile path: String) -> [String] {
        guard let set = FcFontSetCreate() else { return [] }
        defer { FcFontSetDestroy(set) }
        _ = path.withCString { p in
            FcFreeTypeQueryAll(UnsafeRawPointer(p).assumingMemoryBound(to: FcChar8.self), UInt32.max, nil, nil, set)
        }
        var out: [String] = []
        for i in 0..<Int(set.pointee.nfont) {
            guard let pattern = set.pointee.fonts[i] else { continue }
            var value: UnsafeMutablePointer<FcChar8>?
            // The first family name is the font's own (later ones are localised names).
            if FcPatternGetString(pattern, "family", 0, &value) == FcResultMatch, let value {
                let name = String(cString: UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
                if !out.contains(name) { out.append(name) }
            }
        }
        return out
    }

    /// Whether fontconfig knows a font of this family already (system or application fonts).
    static func isInstalled(_ family: String) -> Bool {
        guard let pattern = FcPatternCreate(), let objects = FcObjectSetCreate() else { return false }
        defer {
            FcPatternDestroy(pattern)
            FcObjectSetDestroy(objects)
        }
        _ = family.withCString { FcPatternAddString(pattern, "family", UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }
        _ = FcObjectSetAdd(objects, "file")
        guard let list = FcFontList(nil, pattern, objects) else { return false }
        defer { FcFontSetDestroy(list) }
        return list.pointee.nfont > 0
    }

    static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01B3
        }
        return h
    }

    /// Makes this thread's Pango font map afresh when fonts were registered since it was made
    /// (Pango caches fontconfig's font sets per map).
    /// DejaVu stays the family `sans-serif`, `serif` and `monospace` name, whatever else is
    /// installed (fonts-noto-core prefers its Noto Sans): the broad Noto fonts then only fill in
    /// the scripts DejaVu lacks, character by character, and Latin text is drawn the same
    /// everywhere. Loaded into fontconfig's current configuration once, before the first layout.
    static let pinnedDefaults: Bool = {
        let rules = """
        <?xml version="1.0"?>
        <!DOCTYPE fontconfig SYSTEM "fonts.dtd">
        <fontconfig>
          <alias binding="strong"><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
          <alias binding="strong"><family>serif</family><prefer><family>DejaVu Serif</family></prefer></alias>
          <alias binding="strong"><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
        </fontconfig>
        """
        return rules.withCString { FcConfigParseAndLoadFromMemory(FcConfigGetCurrent(), UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self), FcTrue) } == FcTrue
    }()

    static func refreshFontMap() {
        _ = pinnedDefaults
        let g = generation.load(ordering: .acquiring)
        guard g > 0 else { return }
        let key = "lamina-font-generation"
        func seen(_ map: UnsafeMutablePointer<PangoFontMap>) -> UInt {
            UInt(bitPattern: g_object_get_data(UnsafeMutableRawPointer(map).assumingMemoryBound(to: GObject.self), key))
        }
        guard let map = pango_cairo_font_map_get_default(), seen(map) != UInt(g) else { return }
        pango_cairo_font_map_set_default(nil)
        guard let fresh = pango_cairo_font_map_get_default() else { return }
        g_object_set_data(UnsafeMutableRawPointer(fresh).assumingMemoryBound(to: GObject.self), key, UnsafeMutableRawPointer(bitPattern: UInt(g)))
    }
}
