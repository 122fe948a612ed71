#if canImport(Glibc)
import Glibc
#endif
import LaminaCore

/// Compares a rendering with a reference PNG, as weston's `verify_screen_content` does: a
/// per-channel tolerance, and a count of pixels allowed past it (edges rasterised without
/// antialiasing may round differently on another rasteriser).
///
/// With `LAMINA_UPDATE_REFERENCES=1` in the environment the rendering is written as the new
/// reference and the check still fails, so a reference is never regenerated silently.
public enum ReferenceImage {
    /// Returns nil when `image` matches the reference at `path`, else a message saying how it
    /// differs (and where the rendering was saved for a look).
    public static func mismatch(_ image: Bitmap, reference path: String, tolerance: Int = 3, allowedPixels: Int = 80) -> String? {
        if let update = getenv("LAMINA_UPDATE_REFERENCES"), String(cString: update) == "1" {
            do {
                try PNG.write(image, toFile: path)
                return "wrote the reference \(path); check it, then rerun without LAMINA_UPDATE_REFERENCES"
            } catch {
                return "cannot write the reference \(path): \(error)"
            }
        }
        let reference: Bitmap
        do {
            reference = try PNG.read(fromFile: path)
        } catch {
            return "cannot read the reference (\(error)); run with LAMINA_UPDATE_REFERENCES=1 to create it"
        }
        guard let d = image.difference(from: reference, tolerance: tolerance) else {
            return "rendered \(image.width)×\(image.height) but the reference is \(reference.width)×\(reference.height)"
        }
        guard d.pixelsOverTolerance > allowedPixels else { return nil }
        let base = path.split(separator: "/").last.map(String.init) ?? "image.png"
        let actual = "/tmp/lamina-actual-" + base
        try? PNG.write(image, toFile: actual)
        return "\(d.pixelsOverTolerance) pixels differ from \(path) by more than \(tolerance) (largest difference \(d.maxChannelDelta)); the rendering is in \(actual)"
    }
}
