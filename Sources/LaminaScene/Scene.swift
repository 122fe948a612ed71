import Foundation
import LaminaCore
import LaminaProtocol

/// One layer of a scene file: its name, the properties it sets, its sublayers.
public struct SceneLayer: Sendable, Equatable {
    /// Layers are matched by name when a scene is applied again; nil for an unnamed layer.
    public var name: String?
    /// The layer's class (`"class": "gradient"` in the file); a plain layer by default.
    public var kind: LayerKind = .layer
    /// Every property the file sets; the others take Core Animation's defaults.
    public var properties: [PropertyKey: PropertyValue] = [:]
    public var sublayers: [SceneLayer] = []
    /// The layer's mask (`"mask": { a layer }`): a layer outside the tree whose alpha masks
    /// this one's subtree. Held in an array only because a struct cannot hold itself.
    var maskStorage: [SceneLayer] = []
    public var mask: SceneLayer? {
        get { maskStorage.first }
        set { maskStorage = newValue.map { [$0] } ?? [] }
    }
    /// Animations attached when the scene is applied, by key, in key order.
    public var animations: [SceneAnimation] = []
    /// The layer's `actions` dictionary (`"actions": {"opacity": null}`): `.noAnimation` for a key
    /// whose changes do not animate, or the animation to run instead of the default.
    public var actions: [String: Action] = [:]
    /// The JSON path of this layer in the file, for messages.
    public var path: String = "$"
    /// `"contents": "file.png"`: an image file (PNG, JPEG, WebP, SVG, GIF) shown as the layer's contents. Relative to
    /// the scene file once loaded with `Scene.load(path:)`.
    public var contentsFile: String?
    /// `"video": "clip.webm"`: a video file shown as the layer's contents (protocol 1.6),
    /// relative to the scene file once loaded, or a URI laminad opens (`v4l2:///dev/video0`, a
    /// camera; `https://…`); `"loop"`, `"playing"`, `"rate"`, `"volume"`, `"muted"` say how it plays.
    public var videoFile: String?
    public var video = SceneVideo()
    /// `"app": ["cog", "https://…"]`: a Wayland app laminactl runs (as its user) whose window
    /// is the layer's contents (`appSurface`); `"appRestart": true` starts it again when it
    /// exits. The command's first word is looked up on PATH, or is relative to the scene file
    /// when it holds a "/". The layer needs a name.
    public var app: [String]?
    public var appRestart = false
    /// `"font": "fonts/Inter.ttf"`: a font file (by its extension) that laminactl registers
    /// with laminad (`Connection.registerFont`); the layer's `font` becomes the file's family.
    /// Relative to the scene file once loaded with `Scene.load(path:)`.
    public var fontFile: String?
    /// An emitter layer's cells' `"contents"` files, by the cell's index path (relative to the
    /// scene file once loaded); the cells in `properties[.emitterCells]` hold 0 there.
    public var cellContentsFiles: [[Int]: String] = [:]

    public init(name: String? = nil, properties: [PropertyKey: PropertyValue] = [:], sublayers: [SceneLayer] = [], path: String = "$") {
        self.name = name
        self.properties = properties
        self.sublayers = sublayers
        self.path = path
    }

    /// Whether this layer or any below it has animations.
    public var containsAnimations: Bool {
        !animations.isEmpty || sublayers.contains { $0.containsAnimations } || mask?.containsAnimations == true
    }

    /// The full model values this layer asks for: defaults, overridden by the file.
    public var resolvedProperties: LayerProperties {
        var p = LayerProperties(kind: kind)
        // Values were validated while parsing; a failure here would be a parser bug.
        for key in PropertyKey.allCases { if let v = properties[key] { try? p.set(key, v) } }
        if let name { p.name = name }
        return p
    }
}

/// How a scene's video plays (`"loop"`, `"playing"`, `"rate"`, `"volume"`, `"muted"` beside `"video"`).
public struct SceneVideo: Sendable, Hashable {
    public var loops = false
    public var playing = false
    public var rate = 1.0
    /// The sound's gain, 0…1, and whether it is muted (protocol 1.7).
    public var volume = 1.0
    public var muted = false
    public init(loops: Bool = false, playing: Bool = false, rate: Double = 1, volume: Double = 1, muted: Bool = false) {
        self.loops = loops
        self.playing = playing
        self.rate = rate
        self.volume = volume
        self.muted = muted
    }
}

/// An animation a scene attaches to a layer under a key.
public struct SceneAnimation: Sendable, Hashable {
    public var key: String
    public var animation: Animation
    public init(key: String, animation: Animation) { self.key = key; self.animation = animation }
}

/// A scene file (docs/scene-format.md): the client's root layer and the tree under it.
public struct Scene: Sendable, Equatable {
    /// The root object: its properties apply to the client's root layer, its `sublayers` are
    /// the top-level layers.
    public var root: SceneLayer

    public init(root: SceneLayer) { self.root = root }

    /// Parses a scene from JSON text.
    public static func parse(_ data: Data) throws(SceneError) -> Scene {
        let json = try JSONValue.parse(data)
        return Scene(root: try SceneParser.layer(json, path: "$", isRoot: true))
    }

    /// Reads and parses a scene file.
    public static func load(path: String) throws(SceneError) -> Scene {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SceneError(path: path, message: "cannot read the file")
        }
        var scene = try parse(data)
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        scene.root.resolveContentsFiles(relativeTo: directory)
        return scene
    }

    /// Every font file the scene names, each once, in tree order.
    public var fontFiles: [String] {
        var seen: Set<String> = [], out: [String] = []
        func walk(_ l: SceneLayer) {
            if let f = l.fontFile, seen.insert(f).inserted { out.append(f) }
            if let m = l.mask { walk(m) }
            l.sublayers.forEach(walk)
        }
        walk(root)
        return out
    }

    /// Every layer with an app (`"app"`), in tree order.
    public var appLayers: [SceneLayer] {
        var out: [SceneLayer] = []
        func walk(_ l: SceneLayer) {
            if l.app != nil { out.append(l) }
            l.sublayers.forEach(walk)
        }
        walk(root)
        return out
    }

    /// Every layer with a video, in tree order (each makes its own video: two layers naming one
    /// file play it independently).
    public var videoLayers: [SceneLayer] {
        var out: [SceneLayer] = []
        func walk(_ l: SceneLayer) {
            if l.videoFile != nil { out.append(l) }
            if let m = l.mask { walk(m) }
            l.sublayers.forEach(walk)
        }
        walk(root)
        return out
    }

    /// Every contents file the scene names, each once, in tree order.
    public var contentsFiles: [String] {
        var seen: Set<String> = [], out: [String] = []
        func walk(_ l: SceneLayer) {
            if let f = l.contentsFile, seen.insert(f).inserted { out.append(f) }
            for (_, f) in l.cellContentsFiles.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) where seen.insert(f).inserted {
                out.append(f)
            }
            if let m = l.mask { walk(m) }
            l.sublayers.forEach(walk)
        }
        walk(root)
        return out
    }
}

extension SceneLayer {
    /// Whether a `"video"` names a URI (`v4l2:///dev/video0`, `https://…`: a scheme and "://")
    /// rather than a file: it is passed to laminad as it is.
    public static func isURI(_ text: String) -> Bool {
        guard let r = text.range(of: "://"), r.lowerBound > text.startIndex else { return false }
        let scheme = text[..<r.lowerBound]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+.-".contains($0) }
    }

    mutating func resolveContentsFiles(relativeTo directory: String) {
        if let f = contentsFile, !f.hasPrefix("/") { contentsFile = directory + "/" + f }
        if let f = fontFile, !f.hasPrefix("/") { fontFile = directory + "/" + f }
        for (k, f) in cellContentsFiles where !f.hasPrefix("/") { cellContentsFiles[k] = directory + "/" + f }
        if let f = videoFile, !f.hasPrefix("/"), !SceneLayer.isURI(f) { videoFile = directory + "/" + f }
        if let first = app?.first, first.contains("/"), !first.hasPrefix("/") { app![0] = directory + "/" + first }
        if var m = mask {
            m.resolveContentsFiles(relativeTo: directory)
            mask = m
        }
        for i in sublayers.indices { sublayers[i].resolveContentsFiles(relativeTo: directory) }
    }
}

/// Turns JSON into scene layers, naming the JSON path of every mistake.
enum SceneParser {
    static func layer(_ json: JSONValue, path: String, isRoot: Bool) throws(SceneError) -> SceneLayer {
        guard case .object(let fields) = json else {
            throw SceneError(path: path, message: "a layer must be an object, not \(json.typeName)")
        }
        var layer = SceneLayer(path: path)
        for key in fields.keys.sorted() {
            let value = fields[key]!
            let p = path + "." + key
            switch key {
            case "name":
                guard case .string(let s) = value else { throw SceneError(path: p, message: "expected a string") }
                layer.name = s
            case "class":
                guard case .string(let s) = value, let kind = LayerKind(name: s) else {
                    let names = LayerKind.allCases.map(\.name)
                    let hint = if case .string(let s) = value { Suggestion.phrase(for: s, among: names) } else { "" }
                    throw SceneError(path: p, message: "expected one of \(names.map { "\"\($0)\"" }.joined(separator: ", "))\(hint)")
                }
                guard !isRoot || kind == .layer else { throw SceneError(path: p, message: "the root layer is a plain layer") }
                layer.kind = kind
            case "sublayers":
                guard case .array(let items) = value else { throw SceneError(path: p, message: "expected an array of layers") }
                for (i, item) in items.enumerated() {
                    layer.sublayers.append(try self.layer(item, path: "\(p)[\(i)]", isRoot: false))
                }
                var seen: [String: Int] = [:]
                for (i, s) in layer.sublayers.enumerated() {
                    guard let n = s.name else { continue }
                    if let j = seen[n] {
                        throw SceneError(path: "\(p)[\(i)].name", message: "'\(n)' is also the name of \(p)[\(j)]; sibling names must be unique so the layers can be matched")
                    }
                    seen[n] = i
                }
                try SceneLayoutParser.checkSiblings(layer.sublayers, path: p)
            case "contents":
                switch value {
                case .null: layer.contentsFile = nil
                case .string(let f) where !f.isEmpty:
                    guard layer.videoFile == nil else { throw SceneError(path: p, message: "a layer shows either \"contents\" or \"video\", not both") }
                    layer.contentsFile = f
                default: throw SceneError(path: p, message: "expected the path of a PNG, JPEG, WebP, GIF or SVG file (relative to the scene file), or null")
                }
            case "video":
                switch value {
                case .null: layer.videoFile = nil
                case .string(let f) where !f.isEmpty:
                    guard layer.contentsFile == nil else { throw SceneError(path: p, message: "a layer shows either \"contents\" or \"video\", not both") }
                    layer.videoFile = f
                default: throw SceneError(path: p, message: "expected the path of a video file (relative to the scene file), or null")
                }
            case "app":
                guard case .array(let items) = value, !items.isEmpty, items.count <= 256 else {
                    throw SceneError(path: p, message: "expected the app's command line: an array of 1 to 256 strings, the program first")
                }
                var words: [String] = []
                for (i, item) in items.enumerated() {
                    guard case .string(let w) = item, w.utf8.count <= 4096, !w.contains("\0"), i > 0 || !w.isEmpty else {
                        throw SceneError(path: "\(p)[\(i)]", message: "expected a string of at most 4096 bytes (the program's name must not be empty)")
                    }
                    words.append(w)
                }
                guard !isRoot else { throw SceneError(path: p, message: "the root layer cannot show an app; give the app a layer of its own") }
                layer.app = words
            case "appRestart":
                guard case .bool(let b) = value else { throw SceneError(path: p, message: "expected true or false (whether the app is started again when it exits)") }
                layer.appRestart = b
            case "loop":
                guard case .bool(let b) = value else { throw SceneError(path: p, message: "expected true or false (whether the video starts again at its end)") }
                layer.video.loops = b
            case "playing":
                guard case .bool(let b) = value else { throw SceneError(path: p, message: "expected true or false (whether the video plays)") }
                layer.video.playing = b
            case "rate":
                guard case .number(let r) = value, r.isFinite, r > 0, r <= 16 else {
                    throw SceneError(path: p, message: "expected a video rate > 0 and ≤ 16 (media seconds per second)")
                }
                layer.video.rate = r
            case "volume":
                guard case .number(let v) = value, v.isFinite, v >= 0, v <= 1 else {
                    throw SceneError(path: p, message: "expected a video volume from 0 (silent) to 1 (as recorded)")
                }
                layer.video.volume = v
            case "muted":
                guard case .bool(let b) = value else { throw SceneError(path: p, message: "expected true or false (whether the video's sound is off)") }
                layer.video.muted = b
            case "font" where isFontFile(value):
                guard case .string(let f) = value else { break }
                layer.fontFile = f
            case "emitterCells":
                let cells = try SceneEmitterCellParser.cells(value, path: p, files: &layer.cellContentsFiles)
                layer.properties[.emitterCells] = .emitterCells(cells)
            case "mask":
                // null: no mask; an object: the mask layer, in this layer's coordinates.
                if case .null = value { break }
                layer.mask = try self.layer(value, path: p, isRoot: false)
            case "actions":
                layer.actions = try actions(value, path: p)
            case "animations":
                layer.animations = try SceneAnimationParser.animations(value, path: p).map { SceneAnimation(key: $0.key, animation: $0.animation) }
            case "frame":
                let r = try rect(value, path: p)
                guard r.size.width >= 0, r.size.height >= 0 else { throw SceneError(path: p, message: "width and height must not be negative") }
                layer.properties[.bounds] = .rect(Rect(x: 0, y: 0, width: r.size.width, height: r.size.height))
                // The anchor point may be set too; position is finished after the loop.
                layer.properties[.position] = .point(r.origin)
            default:
                guard let pk = PropertyKey(name: key), pk != .name else {
                    throw SceneError(path: p, message: unknownKey(key, fields: fields, isRoot: isRoot))
                }
                if pk == .bounds, fields["frame"] != nil {
                    throw SceneError(path: p, message: "give either frame or bounds/position, not both")
                }
                if pk == .position, fields["frame"] != nil {
                    throw SceneError(path: p, message: "give either frame or bounds/position, not both")
                }
                let v = pk == .autoresizingMask ? try SceneLayoutParser.autoresizingMask(value, path: p)
                    : try self.value(value, type: pk.valueType, key: pk, path: p)
                var scratch = LayerProperties()
                do throws(PropertyError) { try scratch.set(pk, v) } catch {
                    // A misspelt name ("verticaly") gets the nearest one it could have meant.
                    let hint = if case .string(let s) = v, let names = pk.allowedNames { Suggestion.phrase(for: s, among: names) } else { "" }
                    throw SceneError(path: p, message: error.description + hint)
                }
                layer.properties[pk] = v
            }
        }
        if fields["frame"] != nil, case .point(let origin)? = layer.properties[.position], case .rect(let b)? = layer.properties[.bounds] {
            // frame origin = position − anchorPoint × size, so position = origin + anchorPoint × size.
            var a = Point(x: 0.5, y: 0.5)
            if case .point(let ap)? = layer.properties[.anchorPoint] { a = ap }
            layer.properties[.position] = .point(Point(x: origin.x + a.x * b.width, y: origin.y + a.y * b.height))
        }
        if layer.app != nil {
            guard layer.name != nil else { throw SceneError(path: path + ".app", message: "a layer showing an app needs a \"name\" (laminactl finds it by name)") }
            guard layer.contentsFile == nil, layer.videoFile == nil else {
                throw SceneError(path: path + ".app", message: "a layer shows one of \"contents\", \"video\" or \"app\"")
            }
        } else if layer.appRestart {
            throw SceneError(path: path + ".appRestart", message: "\"appRestart\" goes with \"app\" (the command to run)")
        }
        return layer
    }

    /// File extensions that make a `font` value a font file to register rather than a family name.
    static let fontFileExtensions = [".ttf", ".otf", ".ttc", ".otc"]

    static func isFontFile(_ value: JSONValue) -> Bool {
        guard case .string(let s) = value else { return false }
        let lower = s.lowercased()
        return fontFileExtensions.contains { lower.hasSuffix($0) }
    }

    /// The keys an `actions` object may have besides the animatable properties.
    static let eventActionKeys = ["onOrderIn", "onOrderOut", "transition"]

    /// `"actions": {"opacity": null, "position": {"type": "basic", "duration": 1}}`: null is
    /// Core Animation's NSNull (the change does not animate); an animation object runs instead
    /// of the default one, its `keyPath` defaulting to the key.
    static func actions(_ json: JSONValue, path: String) throws(SceneError) -> [String: Action] {
        guard case .object(let items) = json else {
            throw SceneError(path: path, message: "expected an object of actions by key, like {\"opacity\": null}")
        }
        let known = PropertyKey.allCases.filter(\.isAnimatable).map(\.name) + eventActionKeys
        var out: [String: Action] = [:]
        for key in items.keys.sorted() {
            let p = "\(path).\(key)"
            let property = PropertyKey(name: key)
            guard property?.isAnimatable == true || eventActionKeys.contains(key) else {
                let hint = Suggestion.phrase(for: key, among: known)
                throw SceneError(path: p, message: "'\(key)' has no action: not an animatable property or one of \(eventActionKeys.joined(separator: ", "))\(hint)")
            }
            // Actions are keyed by the property's own name, as laminad looks them up.
            let name = property?.name ?? key
            switch items[key]! {
            case .null:
                out[name] = Action.noAnimation
            case .object(var fields):
                if fields["keyPath"] == nil, case .string(let type)? = fields["type"], ["basic", "keyframe", "spring"].contains(type) {
                    fields["keyPath"] = .string(property != nil ? name : "opacity")
                }
                out[name] = .animation(try SceneAnimationParser.animation(.object(fields), path: p))
            case let other:
                throw SceneError(path: p, message: "expected null (no animation) or an animation object, not \(other.typeName)")
            }
        }
        return out
    }

    /// The keys a layer object may have besides its properties.
    static let structuralKeys = ["name", "class", "frame", "sublayers", "contents", "mask", "animations", "actions", "video", "loop", "playing", "rate", "volume", "muted", "app", "appRestart"]

    /// "unknown property 'cornerRadious' on layer 'card'; did you mean 'cornerRadius'?"
    static func unknownKey(_ key: String, fields: [String: JSONValue], isRoot: Bool) -> String {
        let which = if case .string(let n)? = fields["name"] { "layer '\(n)'" } else if isRoot { "the root layer" } else { "an unnamed layer" }
        let known = PropertyKey.allNames + structuralKeys
        if let near = Suggestion.closest(to: key, among: known) {
            return "unknown property '\(key)' on \(which); did you mean '\(near)'?"
        }
        return "unknown property '\(key)' on \(which) (docs/scene-format.md lists a layer's keys)"
    }

    static func numbers(_ json: JSONValue, count: Int, path: String, what: String) throws(SceneError) -> [Double] {
        guard case .array(let items) = json, items.count == count else {
            throw SceneError(path: path, message: "expected \(count) numbers \(what)")
        }
        var out: [Double] = []
        for (i, item) in items.enumerated() {
            guard case .number(let d) = item else { throw SceneError(path: "\(path)[\(i)]", message: "expected a number, not \(item.typeName)") }
            out.append(d)
        }
        return out
    }

    static func rect(_ json: JSONValue, path: String) throws(SceneError) -> Rect {
        let n = try numbers(json, count: 4, path: path, what: "[x, y, width, height]")
        return Rect(x: n[0], y: n[1], width: n[2], height: n[3])
    }

    static func value(_ json: JSONValue, type: PropertyValueType, key: PropertyKey, path: String) throws(SceneError) -> PropertyValue {
        switch type {
        case .number:
            guard case .number(let d) = json else { throw SceneError(path: path, message: "expected a number, not \(json.typeName)") }
            return .number(d)
        case .bool:
            guard case .bool(let b) = json else { throw SceneError(path: path, message: "expected true or false, not \(json.typeName)") }
            return .bool(b)
        case .string:
            // A name whose empty form is nil (compositingFilter): null is none.
            if case .null = json, key.allowedNames?.contains("") == true { return .string("") }
            guard case .string(let s) = json else { throw SceneError(path: path, message: "expected a string") }
            if let names = key.allowedNames, !names.contains(s) {
                let hint = Suggestion.phrase(for: s, amongNames: names)
                throw SceneError(path: path, message: "'\(s)' is not a \(key.name) name\(hint) (one of \(PropertyKey.listed(names)))")
            }
            return .string(s)
        case .point:
            let n = try numbers(json, count: 2, path: path, what: "[x, y]")
            return .point(Point(x: n[0], y: n[1]))
        case .size:
            let n = try numbers(json, count: 2, path: path, what: "[width, height]")
            return .size(Size(width: n[0], height: n[1]))
        case .rect:
            return .rect(try rect(json, path: path))
        case .color:
            return .color(try color(json, path: path))
        case .transform:
            return .transform(try transform(json, path: path))
        case .numbers:
            guard case .array(let items) = json else { throw SceneError(path: path, message: "expected an array of numbers, not \(json.typeName)") }
            return .numbers(try numbers(json, count: items.count, path: path, what: ""))
        case .colors:
            guard case .array(let items) = json else { throw SceneError(path: path, message: "expected an array of colours, not \(json.typeName)") }
            var out: [Color] = []
            for (i, item) in items.enumerated() { out.append(try color(item, path: "\(path)[\(i)]")) }
            return .colors(out)
        case .path:
            if case .null = json { return .path(Path()) }
            return .path(try ScenePathParser.path(json, path: path))
        case .constraints:
            return try SceneLayoutParser.constraints(json, path: path)
        case .filters:
            return try SceneFilterParser.filters(json, path: path, key: key)
        case .drawing:
            return try SceneDrawingParser.drawing(json, path: path)
        case .attributedString:
            return try SceneTextRunParser.runs(json, path: path)
        case .image, .layer, .emitterCells:
            throw SceneError(path: path, message: "'\(key)' cannot be set from a scene file yet")
        }
    }

    /// `"#RRGGBB"`, `"#RRGGBBAA"` (also `#RGB`, `#RGBA`) or `[r, g, b, a]` with components in [0, 1].
    static func color(_ json: JSONValue, path: String) throws(SceneError) -> Color {
        switch json {
        case .string(let s):
            guard let c = Color(hex: s) else { throw SceneError(path: path, message: "'\(s)' is not a colour; use \"#RRGGBB\", \"#RRGGBBAA\" or [r, g, b, a]") }
            return c
        case .array:
            let n = try numbers(json, count: 4, path: path, what: "[red, green, blue, alpha], each in [0, 1]")
            for (i, c) in n.enumerated() where !(c >= 0 && c <= 1) {
                throw SceneError(path: "\(path)[\(i)]", message: "colour components must be in [0, 1], got \(c)")
            }
            return Color(red: n[0], green: n[1], blue: n[2], alpha: n[3])
        default:
            throw SceneError(path: path, message: "expected a colour (\"#RRGGBBAA\" or [r, g, b, a]), not \(json.typeName)")
        }
    }

    /// 16 numbers (m11…m44, row-major), or `{"scale", "rotation", "rotationX", "rotationY",
    /// "translation", "perspective"}` applied in that order (angles in radians).
    static func transform(_ json: JSONValue, path: String) throws(SceneError) -> Transform3D {
        switch json {
        case .array:
            return Transform3D(rowMajor: try numbers(json, count: 16, path: path, what: "m11…m44 in row-major order"))!
        case .object(let f):
            var t = Transform3D.identity
            let known = ["scale", "rotation", "rotationX", "rotationY", "translation", "perspective"]
            for k in f.keys.sorted() where !known.contains(k) {
                throw SceneError(path: "\(path).\(k)", message: "unknown transform part '\(k)'\(Suggestion.phrase(for: k, among: known)) (known: \(known.joined(separator: ", ")))")
            }
            func number(_ k: String) throws(SceneError) -> Double? {
                guard let v = f[k] else { return nil }
                guard case .number(let d) = v else { throw SceneError(path: "\(path).\(k)", message: "expected a number") }
                return d
            }
            if let s = f["scale"] {
                switch s {
                case .number(let d): t = t.concatenating(.scale(x: d, y: d, z: 1))
                case .array(let a) where a.count == 2:
                    let n = try numbers(s, count: 2, path: path + ".scale", what: "[sx, sy]")
                    t = t.concatenating(.scale(x: n[0], y: n[1]))
                default:
                    let n = try numbers(s, count: 3, path: path + ".scale", what: "[sx, sy, sz] (or one number, or [sx, sy])")
                    t = t.concatenating(.scale(x: n[0], y: n[1], z: n[2]))
                }
            }
            if let r = try number("rotation") { t = t.concatenating(.rotation(angle: r, x: 0, y: 0, z: 1)) }
            if let r = try number("rotationX") { t = t.concatenating(.rotation(angle: r, x: 1, y: 0, z: 0)) }
            if let r = try number("rotationY") { t = t.concatenating(.rotation(angle: r, x: 0, y: 1, z: 0)) }
            if let tr = f["translation"] {
                if case .array(let a) = tr, a.count == 2 {
                    let n = try numbers(tr, count: 2, path: path + ".translation", what: "[tx, ty]")
                    t = t.concatenating(.translation(x: n[0], y: n[1]))
                } else {
                    let n = try numbers(tr, count: 3, path: path + ".translation", what: "[tx, ty, tz] (or [tx, ty])")
                    t = t.concatenating(.translation(x: n[0], y: n[1], z: n[2]))
                }
            }
            if let d = try number("perspective") {
                guard d > 0 else { throw SceneError(path: path + ".perspective", message: "the eye distance must be > 0") }
                t = t.concatenating(.perspective(distance: d))
            }
            return t
        default:
            throw SceneError(path: path, message: "expected 16 numbers or an object like {\"rotation\": 0.5, \"scale\": 2}, not \(json.typeName)")
        }
    }
}
