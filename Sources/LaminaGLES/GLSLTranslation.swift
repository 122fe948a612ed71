/// Rewrites the renderer's GLSL ES 3.00 shaders as GLSL ES 1.00 for the ES 2 path (pure Swift:
/// tested without GL).
///
/// The shaders are written once, in ES 3.00; what differs in ES 1.00 is mostly spelling, done
/// here line by line:
/// - `#version 300 es` becomes `#version 100`; fragment shaders enable
///   GL_OES_standard_derivatives (the antialiased edges take `dFdx`/`dFdy`);
/// - `layout(location = N) in T name;` becomes `attribute T name;` (its location bound with
///   `glBindAttribLocation` before linking: `attributeLocations`); the vertex shader's `out`
///   and the fragment shader's `in` become `varying`;
/// - `out vec4 fragColor;` becomes `#define fragColor gl_FragColor`;
/// - `texture(` becomes `texture2D(`, and `texelFetch(s, p, 0)` samples the texel's centre,
///   `texture2D(s, (vec2(p) + 0.5) * laminaTexelSize_s)`, with a uniform the renderer sets to
///   one over the texture's size (`ShaderProgram.texelSize`; ES 1.00 has no `textureSize`);
/// - `GL_OES_EGL_image_external_essl3` becomes `GL_OES_EGL_image_external`.
/// What cannot be spelled again (constant arrays) the shaders select with `#if __VERSION__`.
public enum GLSLTranslation {
    public enum Stage: Sendable { case vertex, fragment }

    /// The prefix of the uniform that holds 1 / a sampler's size where `texelFetch` reads it.
    public static let texelSizePrefix = "laminaTexelSize_"

    /// `source` (GLSL ES 3.00) in `dialect`: unchanged for ES 3.00.
    public static func translate(_ source: String, stage: Stage, to dialect: GLSLDialect) -> String {
        dialect == .es300 ? source : toES100(source, stage: stage)
    }

    /// The attribute locations `layout(location = N) in T name;` declares, for
    /// `glBindAttribLocation` (ES 1.00 has no layout qualifiers).
    public static func attributeLocations(_ vertexSource: String) -> [(name: String, location: Int)] {
        vertexSource.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            let t = line.trimmingCharacters(in: " ")
            guard t.hasPrefix("layout(location"), let eq = t.firstIndex(of: "="), let close = t.firstIndex(of: ")"),
                  let location = Int(t[t.index(after: eq)..<close].trimmingCharacters(in: " ")) else { return nil }
            let declaration = t[t.index(after: close)...].split(separator: ";")[0].split(separator: " ")
            guard declaration.count >= 3, declaration[0] == "in" else { return nil }
            return (String(declaration[2]), location)
        }
    }

    static func toES100(_ source: String, stage: Stage) -> String {
        var samplersFetched: [String] = []
        var lines: [String] = []
        for raw in source.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            let indent = String(line.prefix { $0 == " " })
            var t = line.trimmingCharacters(in: " ")
            // ES 1.00 varyings have no interpolation qualifier; a value the same at every
            // vertex of a primitive interpolates to itself.
            if t.hasPrefix("flat ") {
                t = String(t.dropFirst(5))
                line = indent + t
            }
            if t == "#version 300 es" {
                line = "#version 100"
                if stage == .fragment {
                    line += "\n#extension GL_OES_standard_derivatives : enable"
                }
            } else if t.hasPrefix("#extension GL_OES_EGL_image_external_essl3") {
                line = indent + t.replacing("GL_OES_EGL_image_external_essl3", with: "GL_OES_EGL_image_external")
            } else if t.hasPrefix("layout(location"), let close = t.firstIndex(of: ")") {
                let rest = t[t.index(after: close)...].trimmingCharacters(in: " ")
                line = indent + (rest.hasPrefix("in ") ? "attribute " + rest.dropFirst(3) : rest)
            } else if t == "out vec4 fragColor;" && stage == .fragment {
                line = indent + "#define fragColor gl_FragColor"
            } else if stage == .vertex, t.hasPrefix("out ") {
                line = indent + "varying " + t.dropFirst(4)
            } else if stage == .fragment, t.hasPrefix("in ") {
                line = indent + "varying " + t.dropFirst(3)
            }
            line = replacingWord(in: line, "texture(", with: "texture2D(")
            line = rewritingTexelFetch(line, samplers: &samplersFetched)
            lines.append(line)
        }
        // The texel-size uniforms go after the header (the #version, #extension and #define
        // lines the source and `insertingAfterVersion` put first) and after `precision`.
        if !samplersFetched.isEmpty {
            let declarations = samplersFetched.map { "uniform vec2 \(texelSizePrefix)\($0);" }
            let at = (lines.firstIndex { $0.hasPrefix("precision ") }).map { $0 + 1 } ?? 1
            lines.insert(contentsOf: declarations, at: min(at, lines.count))
        }
        return lines.joined(separator: "\n")
    }

    /// `line` with `word` replaced where it is not the tail of a longer identifier.
    private static func replacingWord(in line: String, _ word: String, with replacement: String) -> String {
        guard line.contains(word) else { return line }
        var out = ""
        var rest = Substring(line)
        while let r = rest.firstRange(of: word) {
            let before = rest[..<r.lowerBound]
            let joined = before.last.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false
            out += before + (joined ? word : replacement)
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// `texelFetch(s, p, lod)` → `texture2D(s, (vec2(p) + 0.5) * laminaTexelSize_s)`, recording s.
    private static func rewritingTexelFetch(_ line: String, samplers: inout [String]) -> String {
        guard line.contains("texelFetch(") else { return line }
        var out = ""
        var rest = Substring(line)
        while let r = rest.firstRange(of: "texelFetch(") {
            out += rest[..<r.lowerBound]
            // The arguments up to the matching parenthesis, split at top-level commas.
            var depth = 0
            var arguments: [String] = [""]
            var index = r.upperBound
            while index < rest.endIndex {
                let c = rest[index]
                if c == "(" { depth += 1 }
                if c == ")" {
                    if depth == 0 { break }
                    depth -= 1
                }
                if c == ",", depth == 0 { arguments.append("") } else { arguments[arguments.count - 1].append(c) }
                index = rest.index(after: index)
            }
            guard index < rest.endIndex, arguments.count == 3 else { return line }
            let sampler = arguments[0].trimmingCharacters(in: " ")
            let point = arguments[1].trimmingCharacters(in: " ")
            if !samplers.contains(sampler) { samplers.append(sampler) }
            out += "texture2D(\(sampler), (vec2(\(point)) + 0.5) * \(texelSizePrefix)\(sampler))"
            rest = rest[rest.index(after: index)...]
        }
        return out + rest
    }
}

extension StringProtocol {
    func trimmingCharacters(in character: Character) -> String {
        var s = Substring(self)
        while s.first == character { s = s.dropFirst() }
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}
