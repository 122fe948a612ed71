// swift-tools-version: 6.0
import PackageDescription

/// Lamina: a Core Animation–style compositor for Linux.
///
/// The dependency arrows point one way, from the executables down to `LaminaCore`.
/// `LaminaCore` knows nothing about GL, sockets or KMS.
let package = Package(
    name: "Lamina",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Lamina", targets: ["Lamina"]),
        .library(name: "LaminaCore", targets: ["LaminaCore"]),
        .executable(name: "laminad", targets: ["laminad"]),
        .executable(name: "laminactl", targets: ["laminactl"]),
        .executable(name: "lamina-bench", targets: ["lamina-bench"]),
        .executable(name: "lamina-demo", targets: ["lamina-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    ],
    targets: [
        // MARK: Pure Swift
        .target(name: "LaminaCore"),
        .target(name: "LaminaProtocol", dependencies: ["LaminaCore"]),
        .target(name: "LaminaServer", dependencies: [
            "LaminaCore", "LaminaProtocol", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "LaminaPlatform", dependencies: ["CLinux"]),
        .target(name: "Lamina", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaPlatform"]),
        .target(name: "LaminaScene", dependencies: ["LaminaCore", "LaminaProtocol", "Lamina"]),

        // MARK: C libraries (thin module maps; the apt package is named for each)
        .target(name: "CLinux", cSettings: [.define("_GNU_SOURCE")]),
        .systemLibrary(name: "CEGL", pkgConfig: "egl", providers: [.apt(["libegl-dev", "libegl-mesa0"])]),
        .systemLibrary(name: "CGLES", pkgConfig: "glesv2", providers: [.apt(["libgles-dev", "libgl1-mesa-dri"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CGBM", pkgConfig: "gbm", providers: [.apt(["libgbm-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CSeat", pkgConfig: "libseat", providers: [.apt(["libseat-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // MARK: Rendering and display
        .target(name: "LaminaImage", dependencies: ["LaminaCore", "CPNG"]),
        .target(name: "LaminaGLES", dependencies: ["LaminaCore", "LaminaServer", "CEGL", "CGLES"]),
        .target(name: "LaminaHeadless", dependencies: ["LaminaCore", "LaminaServer", "LaminaGLES"]),
        .target(name: "LaminaKMS", dependencies: [
            "LaminaCore", "LaminaServer", "LaminaGLES", "LaminaPlatform", "CLinux", "CDRM", "CGBM", "CEGL", "CGLES", "CUdev", "CSeat",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "LaminaDaemon", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaServer", "LaminaPlatform",
            "LaminaGLES", "LaminaHeadless", "LaminaImage", "LaminaKMS", "CSystemd",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),

        // MARK: Executables
        .executableTarget(name: "laminad", dependencies: [
            "LaminaDaemon",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "laminactl", dependencies: [
            "Lamina", "LaminaScene", "LaminaImage", "LaminaCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "lamina-demo", dependencies: [
            "Lamina", "LaminaCore", "LaminaImage",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "lamina-bench", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaServer", "LaminaGLES", "LaminaHeadless", "Lamina", "LaminaPlatform",
        ]),

        // MARK: Tests
        .testTarget(name: "LaminaCoreTests", dependencies: ["LaminaCore"]),
        .testTarget(name: "LaminaProtocolTests", dependencies: ["LaminaCore", "LaminaProtocol"]),
        .testTarget(name: "LaminaGLESTests", dependencies: [
            "CEGL", "LaminaCore", "LaminaProtocol", "LaminaServer", "LaminaGLES", "LaminaHeadless", "LaminaImage",
        ], exclude: ["Reference"]),
        .testTarget(name: "LaminaServerTests", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaServer", "LaminaHeadless",
        ]),
        .testTarget(name: "LaminaSceneTests", dependencies: ["LaminaCore", "LaminaScene"]),
        .testTarget(name: "LaminaKMSTests", dependencies: ["LaminaDaemon", "LaminaKMS", "LaminaCore", "LaminaImage"]),
        .testTarget(name: "LaminaEndToEndTests", dependencies: [
            "Lamina", "LaminaCore", "LaminaProtocol", "LaminaImage", "LaminaPlatform",
        ], exclude: ["Reference"]),
    ],
    swiftLanguageModes: [.v6]
)
