import Foundation

/// The GLES mode the tests run in: `LAMINA_GLES` as the test harness set it (`scripts/test.sh`
/// runs the render and pixel suites a second time with `LAMINA_GLES=vc4`, docs/gles2.md). Every
/// renderer a test makes in process, and every laminad it starts (which inherits the
/// environment), takes that path; the same references and tolerances hold in both modes. Only
/// what counts ES 3 features (blits, instanced batches) differs, and tests ask here.
public enum GLESMode {
    /// `LAMINA_GLES`, or nil where it is unset or empty.
    public static let requested: String? = {
        guard let value = ProcessInfo.processInfo.environment["LAMINA_GLES"], !value.isEmpty else { return nil }
        return value
    }()

    /// Whether the renderer takes the ES 2 path (`LAMINA_GLES` is 2 or vc4).
    public static var isES2: Bool { requested == "2" || requested == "vc4" }

    /// "ES 3 (auto)", "ES 2 (vc4)": the mode, for test output.
    public static var description: String { "\(isES2 ? "ES 2" : "ES 3") (\(requested ?? "auto"))" }

    /// The prefix of `GL_VERSION` a context made in this mode reports: "OpenGL ES 3" normally;
    /// in ES 2 mode only "OpenGL ES" (an ES 3 context runs the ES 2 path unless Mesa's
    /// MESA_GLES_VERSION_OVERRIDE=2.0 makes it an ES 2.0 one, as CI does).
    public static var versionPrefix: String { isES2 ? "OpenGL ES" : "OpenGL ES 3" }
}
