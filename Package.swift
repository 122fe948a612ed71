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
        .executable(name: "lamina-demo", targets: ["lamina-demo"]),
        // The server's modules, for the nested Benchmarks/ package (a package reaches another's
        // targets only through a product). Not a stable API: clients import `Lamina`.
        .library(name: "LaminaInternals", targets: [
            "LaminaProtocol", "LaminaCompositor", "LaminaPlatform", "LaminaGLES", "LaminaHeadless", "LaminaRaster",
            "LaminaTestSupport",
        ]),
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
        .target(name: "LaminaCompositor", dependencies: [
            "LaminaCore", "LaminaProtocol", .product(name: "Logging", package: "swift-log"),
        ]),
        // The event loop, descriptors, sockets, files, shared memory, and the systemd service
        // protocol (notify, watchdog, socket activation) through libsystemd.
        .target(name: "LaminaPlatform", dependencies: ["CLinux", "CSystemd"]),
        .target(name: "Lamina", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaPlatform", "LaminaImage"]),
        .target(name: "LaminaScene", dependencies: ["LaminaCore", "LaminaProtocol", "Lamina"]),

        // MARK: C libraries (thin module maps; the apt package is named for each)
        .target(name: "CLinux", cSettings: [.define("_GNU_SOURCE")]),
        .systemLibrary(name: "CEGL", pkgConfig: "egl", providers: [.apt(["libegl-dev", "libegl-mesa0"])]),
        .systemLibrary(name: "CGLES", pkgConfig: "glesv2", providers: [.apt(["libgles-dev", "libgl1-mesa-dri"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        // libwebp and libwebpdemux: still and animated WebP images (WebPAnimDecoder composes frames).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // giflib: GIF images; Debian ships no .pc for it, so the module map links libgif itself.
        .systemLibrary(name: "CGif", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CDRM", pkgConfig: "libdrm", providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(name: "CGBM", pkgConfig: "gbm", providers: [.apt(["libgbm-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CSeat", pkgConfig: "libseat", providers: [.apt(["libseat-dev"])]),
        // libinput (udev backend) and xkbcommon: input devices and keymaps; xkb-data holds the layouts.
        .systemLibrary(name: "CInput", pkgConfig: "libinput", providers: [.apt(["libinput-dev"])]),
        .systemLibrary(name: "CXkb", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev", "xkb-data"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // wlroots 0.15's protocol types over libwayland-server (Wayland clients); the .pc adds the
        // generated xdg-shell header wlroots' headers include (scripts/deps.sh writes both).
        .systemLibrary(name: "CWlroots", pkgConfig: "lamina-wlroots", providers: [.apt(["libwlroots-dev", "libwayland-dev", "wayland-protocols"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        // librsvg: SVG images, parsed and drawn with cairo (flags without -pthread; scripts/deps.sh writes the .pc).
        .systemLibrary(name: "CRsvg", pkgConfig: "lamina-rsvg", providers: [.apt(["librsvg2-dev"])]),
        // fonts-dejavu-core: the fonts text layers are drawn with (fontconfig's default sans-serif);
        // fonts-noto-cjk: Chinese, Japanese and Korean, which DejaVu lacks.
        // pangocairo's flags without -pthread, which SwiftPM refuses (scripts/deps.sh writes the .pc).
        .systemLibrary(name: "CPango", pkgConfig: "lamina-pangocairo", providers: [.apt(["libpango1.0-dev", "libfontconfig-dev", "fonts-dejavu-core", "fonts-noto-cjk"])]),
        // GStreamer with its app sink and video library: video layers. gstreamer-app's and
        // gstreamer-video's flags without -pthread (scripts/deps.sh writes the .pc); the plugins
        // decode (base: playbin, videoconvert; good: WebM, VP8; libav: H.264 and the rest).
        .systemLibrary(name: "CGStreamer", pkgConfig: "lamina-gstreamer", providers: [.apt([
            "libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev", "gstreamer1.0-plugins-base",
            "gstreamer1.0-plugins-good", "gstreamer1.0-libav",
        ])]),

        // MARK: Rendering and display
        .target(name: "LaminaImage", dependencies: ["LaminaCore", "LaminaPlatform", "CPNG", "CJPEG", "CWebP", "CGif"]),
        .target(name: "LaminaRaster", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaImage", "CCairo", "CPango", "CRsvg", "CLinux"]),
        // Video decoding (GStreamer) for video layers: frames into ImageSources, no GL.
        .target(name: "LaminaVideo", dependencies: ["LaminaCore", "LaminaCompositor", "LaminaPlatform", "CGStreamer"]),
        .target(name: "LaminaGLES", dependencies: ["LaminaCore", "LaminaCompositor", "CEGL", "CGLES"]),
        // No GL here: the output's buffers come from the renderer's side (a RenderTargetAllocator).
        .target(name: "LaminaHeadless", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaCompositor"]),
        .target(name: "LaminaKMS", dependencies: [
            // No GL here: the renderer's side makes the surfaces (ScanoutGraphics, from LaminaGLES).
            "LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaPlatform", "CLinux", "CDRM", "CGBM", "CUdev", "CSeat",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "LaminaInput", dependencies: [
            "LaminaCore", "LaminaCompositor", "LaminaPlatform", "CInput", "CXkb", "CUdev",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // laminad's Wayland server (wlroots' protocol types); client buffers reach the scene as
        // ImageSources, drawn by laminad's own renderer. No GL here.
        .target(name: "LaminaWayland", dependencies: [
            "LaminaCore", "LaminaCompositor", "CWlroots", .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "LaminaDaemon", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaPlatform",
            "LaminaGLES", "LaminaHeadless", "LaminaImage", "LaminaKMS", "LaminaRaster", "LaminaInput", "LaminaVideo", "LaminaWayland",
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
            "Lamina", "LaminaScene", "LaminaImage", "LaminaCore", "LaminaProtocol", "LaminaPlatform",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "lamina-demo", dependencies: [
            "Lamina", "LaminaCore", "LaminaImage", "LaminaPlatform",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Test tool: a uinput multi-touch screen that replays touches read from stdin (the KMS VM tests).
        .executableTarget(name: "lamina-uinput", dependencies: ["CLinux"]),
        // The README's client example, exactly as printed (LaminaEndToEndTests/ReadmeExampleTests
        // checks the two agree and runs it): it depends on the Lamina product's module alone.
        .executableTarget(name: "lamina-readme-example", dependencies: ["Lamina"], path: "Examples/ReadmeExample"),
        // Test tool: a client that measures a running laminad from outside (commits/s while animating,
        // input latency), run by the KMS VM tests in the guest. Benchmarks live in Benchmarks/.
        .executableTarget(name: "lamina-probe", dependencies: ["Lamina", "LaminaCore", "LaminaProtocol", "LaminaPlatform", "CDRM", "CLinux"]),
        // Test tool: the renderer's GPU-only paths (dma-buf import in place, YUV in a shader)
        // checked by pixels on a machine with a GPU (docs/testing.md); the test suite runs the
        // same checks (LaminaGPUChecks) and skips what a software renderer cannot do.
        .executableTarget(name: "lamina-gpu-check", dependencies: ["LaminaGPUChecks"]),

        // MARK: Tests
        // Helpers every test target shares (a seeded generator, image differences, the headless
        // backend wired to the GLES renderer as laminad wires them): one copy.
        .target(name: "LaminaTestSupport", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaGLES", "LaminaHeadless",
        ], path: "Tests/LaminaTestSupport"),
        // The GPU checks the test suite and lamina-gpu-check share (dma-bufs of several origins,
        // YUV shader vs CPU), through a real headless renderer.
        .target(name: "LaminaGPUChecks", dependencies: [
            "CDRM", "CEGL", "CGBM", "CGLES", "CLinux", "LaminaCore", "LaminaCompositor", "LaminaGLES", "LaminaTestSupport",
        ], path: "Tests/LaminaGPUChecks"),
        .testTarget(name: "LaminaCoreTests", dependencies: ["LaminaCore"]),
        .testTarget(name: "LaminaRasterTests", dependencies: ["LaminaCore", "LaminaRaster", "LaminaImage", "LaminaCompositor", "CCairo"],
                    exclude: ["Reference"]),
        .testTarget(name: "LaminaVideoTests", dependencies: ["LaminaCore", "LaminaCompositor", "LaminaVideo", "LaminaTestSupport", "CGStreamer", "CLinux"]),
        .testTarget(name: "LaminaProtocolTests", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaTestSupport"]),
        .testTarget(name: "LaminaGLESTests", dependencies: [
            "CEGL", "CGLES", "LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaGLES", "LaminaHeadless", "LaminaImage",
            "LaminaRaster", "LaminaTestSupport", "LaminaGPUChecks",
        ], exclude: ["Reference"]),
        .testTarget(name: "LaminaCompositorTests", dependencies: [
            "LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaHeadless", "LaminaRaster", "LaminaTestSupport",
        ]),
        .testTarget(name: "LaminaSceneTests", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaScene", "Lamina"]),
        .testTarget(name: "LaminaInputTests", dependencies: ["LaminaInput", "LaminaCompositor", "LaminaKMS", "LaminaCore"]),
        // KMS values (modes, cursor placement) and the KMS suites in a QEMU guest.
        .testTarget(name: "LaminaKMSTests", dependencies: ["LaminaKMS", "LaminaCompositor", "LaminaCore", "LaminaImage"]),
        // The event loop, Unix sockets with descriptor passing, system call errors.
        .testTarget(name: "LaminaPlatformTests", dependencies: ["LaminaPlatform"]),
        // PNG, JPEG, WebP and GIF files (still and animated), reference-image comparison.
        .testTarget(name: "LaminaImageTests", dependencies: ["LaminaCore", "LaminaImage", "LaminaTestSupport"], exclude: ["Fixtures"]),
        // The client library against a scripted peer (no laminad): the commits its layers,
        // transactions, animations and images turn into.
        .testTarget(name: "LaminaClientTests", dependencies: ["Lamina", "LaminaCore", "LaminaProtocol", "LaminaPlatform"]),
        // laminad's own code: laminad.toml and its key table, the input host, the systemd service.
        .testTarget(name: "LaminaDaemonTests", dependencies: [
            "LaminaDaemon", "LaminaInput", "LaminaKMS", "LaminaCompositor", "LaminaCore", "LaminaTestSupport", "LaminaWayland",
        ]),
        .testTarget(name: "LaminaEndToEndTests", dependencies: [
            "Lamina", "LaminaCore", "LaminaProtocol", "LaminaImage", "LaminaPlatform", "LaminaTestSupport",
        ], exclude: ["Reference", "Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (scripts/fuzz.sh): only with LAMINA_FUZZ=1 and `--sanitize fuzzer`, which
// links libFuzzer's main into them; an ordinary build has no such product.
if Context.environment["LAMINA_FUZZ"] == "1" {
    package.products.append(.executable(name: "lamina-fuzz", targets: ["lamina-fuzz"]))
    package.targets.append(.executableTarget(
        name: "lamina-fuzz", dependencies: ["LaminaCore", "LaminaProtocol", "LaminaCompositor", "LaminaImage", "LaminaRaster", "LaminaTestSupport", .product(name: "Logging", package: "swift-log")],
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
}
