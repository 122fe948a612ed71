import LaminaCore
import LaminaCompositor
import LaminaTestSupport
import Testing
@testable import LaminaGLES

/// The compiled-program cache (`ProgramBinaryCache`) on llvmpipe: a second renderer over the same
/// store compiles nothing and draws the same pixels; an entry that is corrupt, made for other
/// sources or another driver, or that the driver refuses, is rejected and replaced, never used.
/// Each test installs its cache on its thread for the renderer's making only (synchronous
/// bodies: nothing else runs on the thread meanwhile).
@Suite("Program binary cache", .serialized)
struct ProgramBinaryCacheTests {
    final class MemoryStore: ProgramBinaryStore {
        var entries: [String: [UInt8]] = [:]
        func read(_ name: String) -> [UInt8]? { entries[name] }
        func write(_ name: String, _ bytes: [UInt8]) throws { entries[name] = bytes }
    }

    /// A headless display (context and renderer) made with `cache` installed, and its picture of
    /// two overlapping translucent quads.
    func draw(with cache: ProgramBinaryCache) throws -> Bitmap {
        cache.installOnThisThread()
        defer { ProgramBinaryCache.removeFromThisThread() }
        let display = try HeadlessDisplay(width: 64, height: 64)
        let a = TestLayer(bounds: Rect(0, 0, 40, 40), position: Point(24, 24), color: .red, opacity: 0.75)
        let b = TestLayer(bounds: Rect(0, 0, 40, 40), position: Point(40, 40), color: .blue, opacity: 0.5)
        try display.present(DrawList(width: 64, height: 64, background: .black, quads: a.quads() + b.quads()))
        return try display.screenshot()
    }

    /// Whether this llvmpipe offers a program binary format (not with MESA_SHADER_CACHE_DISABLE=true).
    static let hasBinaryFormats: Bool = {
        let cache = ProgramBinaryCache(store: MemoryStore(), build: "probe")
        _ = try? ProgramBinaryCacheTests().draw(with: cache)
        return cache.isWorking == true
    }()

    @Test(.enabled(if: hasBinaryFormats, "the context offers no program binary format (MESA_SHADER_CACHE_DISABLE?)"))
    func aSecondStartCompilesNothingAndDrawsTheSame() throws {
        let store = MemoryStore()
        let first = ProgramBinaryCache(store: store, build: "test")
        let cold = try draw(with: first)
        #expect(first.compiled > 10 && first.loaded == 0 && first.written == first.compiled && first.rejected == 0)
        #expect(store.entries.count == first.compiled)
        let second = ProgramBinaryCache(store: store, build: "test")
        let warm = try draw(with: second)
        #expect(second.compiled == 0, "every program came from the cache")
        #expect(second.loaded == first.compiled && second.written == 0)
        #expect(warm.bytes == cold.bytes, "programs loaded from binaries draw what compiled ones drew")
        let stats = Dictionary(uniqueKeysWithValues: second.statistics.map { ($0.name, $0.value) })
        #expect(stats["shaderCache.enabled"] == 1 && stats["shaderCache.programsCompiled"] == 0)
        #expect(stats["shaderCache.programsLoaded"] == Double(first.compiled))
    }

    @Test(.enabled(if: hasBinaryFormats, "the context offers no program binary format (MESA_SHADER_CACHE_DISABLE?)"))
    func badEntriesAreRejectedAndReplaced() throws {
        let store = MemoryStore()
        let first = ProgramBinaryCache(store: store, build: "test")
        let reference = try draw(with: first)
        let names = store.entries.keys.sorted()
        try #require(names.count >= 4)
        // 0: a flipped byte (the checksum); 1: another program's entry under its name (other
        // sources); 2: another driver's or build's (a valid envelope, another identity);
        // 3: a valid envelope whose binary the driver refuses.
        store.entries[names[0]]![store.entries[names[0]]!.count / 2] ^= 0x40
        store.entries[names[1]] = store.entries[names[2]]
        var foreign = try ProgramBinaryEntry.decode(store.entries[names[2]]!)
        let identity = foreign.identity
        foreign.identity += " (another GPU)"
        store.entries[names[2]] = foreign.encoded()
        var garbage = try ProgramBinaryEntry.decode(store.entries[names[3]]!)
        garbage.binary = [UInt8](repeating: 0x5A, count: 64)
        store.entries[names[3]] = garbage.encoded()
        let damaged = (0..<4).map { store.entries[names[$0]]! }
        let second = ProgramBinaryCache(store: store, build: "test")
        let picture = try draw(with: second)
        #expect(second.rejected == 4 && second.compiled == 4 && second.loaded == first.compiled - 4, "\(second.lastProblem ?? "")")
        #expect(picture.bytes == reference.bytes)
        for i in 0..<4 {
            #expect(store.entries[names[i]] != damaged[i], "entry \(i) was replaced")
            #expect(try ProgramBinaryEntry.decode(store.entries[names[i]]!).identity == identity)
        }
        // Replaced, they load again.
        let third = ProgramBinaryCache(store: store, build: "test")
        _ = try draw(with: third)
        #expect(third.compiled == 0 && third.rejected == 0)
        // Another laminad build names its own entries: it compiles, and uses none of these.
        let other = ProgramBinaryCache(store: store, build: "another build")
        _ = try draw(with: other)
        #expect(other.loaded == 0 && other.compiled == first.compiled)
    }

    @Test func withoutAStoreProgramsAreCompiledAndCounted() throws {
        let off = ProgramBinaryCache(store: nil, offReason: "[renderer] shader_cache is \"\"", offKey: "disabled", build: "test")
        _ = try draw(with: off)
        #expect(off.compiled > 10 && off.loaded == 0 && off.isWorking == false)
        let stats = Dictionary(uniqueKeysWithValues: off.statistics.map { ($0.name, $0.value) })
        #expect(stats["shaderCache.off.disabled"] == 1 && stats["shaderCache.enabled"] == 0)
    }

    @Test func theEntryEnvelope() throws {
        let entry = ProgramBinaryEntry(identity: "Mesa\nllvmpipe\nOpenGL ES 3.2\nlaminad", vertex: "void main() {}",
                                       fragment: "void main() { }", format: 0x8741, binary: [1, 2, 3, 4, 5])
        let bytes = entry.encoded()
        #expect(try ProgramBinaryEntry.decode(bytes) == entry)
        for cut in [0, 3, 15, bytes.count / 2, bytes.count - 1] {
            #expect(throws: ProgramBinaryEntry.Problem.self) { try ProgramBinaryEntry.decode(Array(bytes.prefix(cut))) }
        }
        for i in stride(from: 0, to: bytes.count, by: 7) {
            var flipped = bytes
            flipped[i] ^= 0x01
            #expect(throws: ProgramBinaryEntry.Problem.self) { try ProgramBinaryEntry.decode(flipped) }
        }
        #expect(ProgramBinaryEntry.name(identity: "a", vertex: "b", fragment: "c")
                != ProgramBinaryEntry.name(identity: "a", vertex: "bc", fragment: ""), "the parts' lengths are hashed too")
    }
}
