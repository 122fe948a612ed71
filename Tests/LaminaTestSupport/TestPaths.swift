import Foundation

/// Where the tests find the repository's files and the programs built beside them: one copy
/// for every test target that reads config/, docs/ or a fixture, or runs laminad.
public enum TestPaths {
    /// The repository root, two folders above this file.
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The folder the test binaries were built into: laminad and laminactl sit next to the test
    /// bundle. `LAMINA_BUILD_DIR` overrides it.
    public static var buildDirectory: String {
        if let env = ProcessInfo.processInfo.environment["LAMINA_BUILD_DIR"] { return env }
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        // On Linux the test runner is <build>/debug/LaminaPackageTests.xctest.
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.path
    }
}
