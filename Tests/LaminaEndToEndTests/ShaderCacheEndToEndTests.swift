import Foundation
import Testing
import LaminaTestSupport

/// laminad's program cache (`[renderer] shader_cache`) across a restart: the first start
/// compiles every program and stores it, the second loads them all and compiles nothing, and
/// both draw the same scene. Mesa's own disk cache is pointed at a fresh folder of the test's
/// (MESA_SHADER_CACHE_DIR), so what another run left there plays no part; with Mesa's cache
/// disabled (MESA_SHADER_CACHE_DISABLE=true) llvmpipe offers no program binary format, and
/// laminad says so in stats (`shaderCache.off.noBinaryFormats`): the test is then skipped.
@Suite("Shader cache end to end", .serialized)
struct ShaderCacheEndToEndTests {
    static var mesaCacheDisabled: Bool { ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["MESA_SHADER_CACHE_DISABLE"] ?? "") }

    func stats(_ daemon: DaemonProcess) throws -> [String: Double] {
        var values: [String: Double] = [:]
        for line in try daemon.laminactl(["stats"]).output.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let v = Double(parts[1]) { values[String(parts[0])] = v }
        }
        return values
    }

    @Test(.enabled(if: !mesaCacheDisabled, "MESA_SHADER_CACHE_DISABLE is set: llvmpipe then offers no program binary format"))
    func aSecondStartCompilesNothing() throws {
        let folder = NSTemporaryDirectory() + "lamina-shader-cache-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cache = folder + "/programs", environment = ["MESA_SHADER_CACHE_DIR": folder + "/mesa"]
        let scene = folder + "/scene.json"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ##"{"sublayers": [{"name": "card", "frame": [20, 20, 120, 80], "backgroundColor": "#3366CC", "cornerRadius": 12, "borderWidth": 2, "borderColor": "#FFFFFF", "shadowOpacity": 0.5}]}"##
            .write(toFile: scene, atomically: true, encoding: .utf8)

        let first = try DaemonProcess(extra: ["--shader-cache", cache], environment: environment)
        #expect(try first.laminactl(["apply", scene]).status == 0)
        let before = try first.laminactl(["screenshot", folder + "/first.png"])
        let cold = try stats(first)
        first.kill(SIGTERM)
        #expect(cold["shaderCache.enabled"] == 1, "\(cold)")
        let compiled = cold["shaderCache.programsCompiled"] ?? 0
        #expect(compiled > 10 && cold["shaderCache.programsLoaded"] == 0 && cold["shaderCache.entriesWritten"] == compiled, "\(cold)")
        #expect(first.logText.contains("shader programs: 0 loaded from the cache, \(Int(compiled)) compiled"), "\(first.logText)")

        let second = try DaemonProcess(extra: ["--shader-cache", cache], environment: environment)
        #expect(try second.laminactl(["apply", scene]).status == 0)
        let after = try second.laminactl(["screenshot", folder + "/second.png"])
        let warm = try stats(second)
        #expect(warm["shaderCache.programsCompiled"] == 0, "a second start compiles nothing: \(warm)")
        #expect(warm["shaderCache.programsLoaded"] == compiled && warm["shaderCache.entriesRejected"] == 0, "\(warm)")
        #expect(second.logText.contains("shader programs: \(Int(compiled)) loaded from the cache, 0 compiled"), "\(second.logText)")
        #expect(before.status == 0 && after.status == 0)
        #expect(FileManager.default.contentsEqual(atPath: folder + "/first.png", andPath: folder + "/second.png"),
                "the scene drawn with cached programs is the one drawn with compiled ones")
    }

    /// No folder configured and no $CACHE_DIRECTORY: no cache, and stats says why.
    @Test func withoutAFolderTheCacheIsOffAndStatsSaysWhy() throws {
        let daemon = try DaemonProcess()
        let s = try stats(daemon)
        #expect(s["shaderCache.enabled"] == 0 && s["shaderCache.off.notConfigured"] == 1, "\(s)")
        #expect((s["shaderCache.programsCompiled"] ?? 0) > 10)
        let unwritable = try DaemonProcess(extra: ["--shader-cache", "/proc/lamina-shaders"])
        let u = try stats(unwritable)
        #expect(u["shaderCache.enabled"] == 0 && u["shaderCache.off.unwritable"] == 1, "\(u)")
    }
}
