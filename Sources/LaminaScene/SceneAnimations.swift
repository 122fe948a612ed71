import LaminaCore

/// Turns a scene file's `"animations"` objects into `Animation`s, naming the JSON path of every
/// mistake (docs/scene-format.md, "Animations").
enum SceneAnimationParser {
    static let timingKeys = ["beginTime", "duration", "speed", "timeOffset", "repeatCount", "repeatDuration",
                             "autoreverses", "fillMode", "removedOnCompletion", "timingFunction"]
    static let propertyKeys = ["keyPath", "additive", "cumulative", "valueFunction"]
    static let fieldsByType: [String: [String]] = [
        "basic": propertyKeys + ["fromValue", "toValue", "byValue"],
        "spring": propertyKeys + ["fromValue", "toValue", "byValue", "mass", "stiffness", "damping", "initialVelocity"],
        "keyframe": propertyKeys + ["values", "path", "keyTimes", "timingFunctions", "calculationMode", "rotationMode",
                                    "tensionValues", "continuityValues", "biasValues"],
        "group": ["animations"],
        "transition": ["transitionType", "subtype", "startProgress", "endProgress"],
    ]

    static func animations(_ json: JSONValue, path: String) throws(SceneError) -> [(key: String, animation: Animation)] {
        guard case .object(let items) = json else {
            throw SceneError(path: path, message: "expected an object of animations by key, like {\"fade\": {\"type\": \"basic\", …}}")
        }
        var out: [(String, Animation)] = []
        for key in items.keys.sorted() {
            out.append((key, try animation(items[key]!, path: "\(path).\(key)")))
        }
        return out
    }

    static func animation(_ json: JSONValue, path: String) throws(SceneError) -> Animation {
        guard case .object(let f) = json else { throw SceneError(path: path, message: "an animation must be an object, not \(json.typeName)") }
        guard case .string(let type)? = f["type"] else {
            throw SceneError(path: path + ".type", message: "missing or not a string; one of basic, keyframe, spring, group, transition")
        }
        guard let allowed = fieldsByType[type] else {
            let hint = Suggestion.phrase(for: type, among: fieldsByType.keys)
            throw SceneError(path: path + ".type", message: "unknown animation type '\(type)'\(hint.isEmpty ? "; one of basic, keyframe, spring, group, transition" : hint)")
        }
        for k in f.keys.sorted() where k != "type" && !allowed.contains(k) && !timingKeys.contains(k) {
            let hint = Suggestion.phrase(for: k, among: allowed + timingKeys)
            throw SceneError(path: "\(path).\(k)", message: "not a field of a \(type) animation\(hint.isEmpty ? " (fields: \((allowed + timingKeys).joined(separator: ", ")))" : hint)")
        }
        let r = Reader(fields: f, path: path)
        let timing = try r.timing()
        let timingFunction = try r.timingFunction("timingFunction")
        let removed = try r.bool("removedOnCompletion") ?? true
        let animation: Animation
        switch type {
        case "basic", "spring":
            let (keyPath, valueTypes, valueFunction) = try r.keyPath()
            var values: [PropertyValue?] = []
            for name in ["fromValue", "toValue", "byValue"] {
                values.append(try f[name].map { v throws(SceneError) in try value(v, types: valueTypes, path: "\(path).\(name)") })
            }
            if type == "basic" {
                animation = .basic(BasicAnimation(keyPath: keyPath, fromValue: values[0], toValue: values[1], byValue: values[2],
                                                  timing: timing, timingFunction: timingFunction, isRemovedOnCompletion: removed,
                                                  isAdditive: try r.bool("additive") ?? false, isCumulative: try r.bool("cumulative") ?? false,
                                                  valueFunction: valueFunction))
            } else {
                var s = SpringAnimation(keyPath: keyPath, fromValue: values[0], toValue: values[1], byValue: values[2])
                s.timing = timing
                s.timingFunction = timingFunction
                s.isRemovedOnCompletion = removed
                s.isAdditive = try r.bool("additive") ?? false
                s.isCumulative = try r.bool("cumulative") ?? false
                s.valueFunction = valueFunction
                if let m = try r.number("mass") { s.mass = m }
                if let k = try r.number("stiffness") { s.stiffness = k }
                if let d = try r.number("damping") { s.damping = d }
                if let v = try r.number("initialVelocity") { s.initialVelocity = v }
                animation = .spring(s)
            }
        case "keyframe":
            let (keyPath, valueTypes, valueFunction) = try r.keyPath()
            var k = KeyframeAnimation(keyPath: keyPath)
            if let vs = f["values"] {
                guard case .array(let items) = vs else { throw SceneError(path: path + ".values", message: "expected an array of values") }
                for (i, item) in items.enumerated() { k.values.append(try value(item, types: valueTypes, path: "\(path).values[\(i)]")) }
            }
            if let p = f["path"] { k.path = try ScenePathParser.path(p, path: path + ".path") }
            k.keyTimes = try r.numbers("keyTimes")
            if let tfs = f["timingFunctions"] {
                guard case .array(let items) = tfs else { throw SceneError(path: path + ".timingFunctions", message: "expected an array of timing functions") }
                var list: [TimingFunction] = []
                for (i, item) in items.enumerated() { list.append(try timingFunctionValue(item, path: "\(path).timingFunctions[\(i)]")) }
                k.timingFunctions = list
            }
            if let m = try r.string("calculationMode") {
                guard let mode = CalculationMode(rawValue: m) else {
                    throw SceneError(path: path + ".calculationMode", message: "'\(m)' is not one of \(CalculationMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                k.calculationMode = mode
            }
            if let m = try r.string("rotationMode") {
                guard let mode = RotationMode(rawValue: m) else {
                    throw SceneError(path: path + ".rotationMode", message: "'\(m)' is not one of \(RotationMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                k.rotationMode = mode
            }
            k.tensionValues = try r.numbers("tensionValues")
            k.continuityValues = try r.numbers("continuityValues")
            k.biasValues = try r.numbers("biasValues")
            k.timing = timing
            k.timingFunction = timingFunction
            k.isRemovedOnCompletion = removed
            k.isAdditive = try r.bool("additive") ?? false
            k.isCumulative = try r.bool("cumulative") ?? false
            k.valueFunction = valueFunction
            animation = .keyframe(k)
        case "group":
            guard case .array(let items)? = f["animations"] else {
                throw SceneError(path: path + ".animations", message: "a group needs an array of animations")
            }
            var children: [Animation] = []
            for (i, item) in items.enumerated() { children.append(try self.animation(item, path: "\(path).animations[\(i)]")) }
            animation = .group(AnimationGroup(animations: children, timing: timing, timingFunction: timingFunction, isRemovedOnCompletion: removed))
        default:  // transition
            var t = Transition()
            if let k = try r.string("transitionType") {
                guard let kind = Transition.Kind(rawValue: k) else {
                    throw SceneError(path: path + ".transitionType", message: "'\(k)' is not one of \(Transition.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                t.type = kind
            }
            if let s = try r.string("subtype") {
                guard let d = Transition.Direction(rawValue: s) else {
                    throw SceneError(path: path + ".subtype", message: "'\(s)' is not one of \(Transition.Direction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                t.subtype = d
            }
            if let s = try r.number("startProgress") { t.startProgress = s }
            if let e = try r.number("endProgress") { t.endProgress = e }
            t.timing = timing
            t.timingFunction = timingFunction
            t.isRemovedOnCompletion = removed
            animation = .transition(t)
        }
        if let problem = animation.validate().first {
            throw SceneError(path: path, message: problem.description)
        }
        return animation
    }

    /// A timing function: a name (`linear`, `easeIn`, `easeOut`, `easeInEaseOut`, `default`) or
    /// four control-point numbers `[x1, y1, x2, y2]`.
    static func timingFunctionValue(_ json: JSONValue, path: String) throws(SceneError) -> TimingFunction {
        switch json {
        case .string(let name):
            guard let tf = TimingFunction(name: name) else {
                throw SceneError(path: path, message: "'\(name)' is not a timing function; use linear, easeIn, easeOut, easeInEaseOut, default or [x1, y1, x2, y2]")
            }
            return tf
        default:
            let n = try SceneParser.numbers(json, count: 4, path: path, what: "[x1, y1, x2, y2] (or a name)")
            guard (0...1).contains(n[0]), (0...1).contains(n[2]) else {
                throw SceneError(path: path, message: "control point x values must be in [0, 1]")
            }
            return TimingFunction(controlPoints: n[0], n[1], n[2], n[3])
        }
    }

    /// A value for a key path whose values have one of `types`: numbers, `[x, y]`, `[w, h]`,
    /// `[x, y, w, h]`, colours, transforms (as for layer properties), booleans.
    static func value(_ json: JSONValue, types: [PropertyValueType], path: String) throws(SceneError) -> PropertyValue {
        var firstError: SceneError?
        for t in types {
            do throws(SceneError) {
                return try SceneParser.value(json, type: t, key: .opacity, path: path)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        throw firstError ?? SceneError(path: path, message: "no value type fits")
    }

    /// Reads optional fields of one animation object.
    struct Reader {
        let fields: [String: JSONValue]
        let path: String

        func number(_ k: String) throws(SceneError) -> Double? {
            guard let v = fields[k] else { return nil }
            switch v {
            case .number(let d): return d
            case .string(let s) where s == "infinity" || s == "inf": return .infinity
            default: throw SceneError(path: "\(path).\(k)", message: "expected a number, not \(v.typeName)")
            }
        }
        func bool(_ k: String) throws(SceneError) -> Bool? {
            guard let v = fields[k] else { return nil }
            guard case .bool(let b) = v else { throw SceneError(path: "\(path).\(k)", message: "expected true or false, not \(v.typeName)") }
            return b
        }
        func string(_ k: String) throws(SceneError) -> String? {
            guard let v = fields[k] else { return nil }
            guard case .string(let s) = v else { throw SceneError(path: "\(path).\(k)", message: "expected a string, not \(v.typeName)") }
            return s
        }
        func numbers(_ k: String) throws(SceneError) -> [Double]? {
            guard let v = fields[k] else { return nil }
            guard case .array(let items) = v else { throw SceneError(path: "\(path).\(k)", message: "expected an array of numbers") }
            return try SceneParser.numbers(v, count: items.count, path: "\(path).\(k)", what: "")
        }
        func timingFunction(_ k: String) throws(SceneError) -> TimingFunction? {
            guard let v = fields[k] else { return nil }
            return try SceneAnimationParser.timingFunctionValue(v, path: "\(path).\(k)")
        }

        func timing() throws(SceneError) -> MediaTiming {
            var t = MediaTiming()
            if let v = try number("beginTime") { t.beginTime = v }
            if let v = try number("duration") { t.duration = v }
            if let v = try number("speed") { t.speed = v }
            if let v = try number("timeOffset") { t.timeOffset = v }
            if let v = try number("repeatCount") { t.repeatCount = v }
            if let v = try number("repeatDuration") { t.repeatDuration = v }
            if let v = try bool("autoreverses") { t.autoreverses = v }
            if let m = try string("fillMode") {
                guard let fill = FillMode(rawValue: m) else {
                    throw SceneError(path: path + ".fillMode", message: "'\(m)' is not one of \(FillMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                t.fillMode = fill
            }
            return t
        }

        /// The key path, the value types its values take (after any value function), and the value function.
        func keyPath() throws(SceneError) -> (String, [PropertyValueType], ValueFunction?) {
            guard let kp = try string("keyPath") else { throw SceneError(path: path + ".keyPath", message: "missing; e.g. \"position\" or \"transform.rotation.z\"") }
            let parsed: AnimationKeyPath
            do { parsed = try AnimationKeyPath.parse(kp) } catch {
                throw SceneError(path: path + ".keyPath", message: error.description)
            }
            var vf: ValueFunction?
            if let name = try string("valueFunction") {
                guard let f = ValueFunction(rawValue: name) else {
                    throw SceneError(path: path + ".valueFunction", message: "'\(name)' is not one of \(ValueFunction.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                vf = f
            }
            return (kp, vf?.inputTypes ?? [parsed.valueType], vf)
        }
    }
}

/// Paths for keyframe animations: an SVG-like string (`"M 0 0 L 10 0 Q 20 0 20 10 C … Z"`,
/// upper case absolute, lower case relative; M, L, H, V, Q, C, Z) or a list of elements
/// `[{"move": [x, y]}, {"line": [x, y]}, {"quad": [cx, cy, x, y]}, {"curve": [c1x, c1y, c2x, c2y, x, y]}, {"close": true}]`.
enum ScenePathParser {
    static func path(_ json: JSONValue, path p: String) throws(SceneError) -> Path {
        switch json {
        case .string(let s): return try svg(s, path: p)
        case .array(let items):
            var out = Path()
            for (i, item) in items.enumerated() {
                let ip = "\(p)[\(i)]"
                guard case .object(let f) = item, f.count == 1, let (name, v) = f.first else {
                    throw SceneError(path: ip, message: "expected one of {\"move\": [x, y]}, {\"line\": [x, y]}, {\"quad\": [cx, cy, x, y]}, {\"curve\": [c1x, c1y, c2x, c2y, x, y]}, {\"close\": true}")
                }
                switch name {
                case "move": let n = try SceneParser.numbers(v, count: 2, path: ip + ".move", what: "[x, y]"); out.move(to: Point(x: n[0], y: n[1]))
                case "line": let n = try SceneParser.numbers(v, count: 2, path: ip + ".line", what: "[x, y]"); out.addLine(to: Point(x: n[0], y: n[1]))
                case "quad":
                    let n = try SceneParser.numbers(v, count: 4, path: ip + ".quad", what: "[cx, cy, x, y]")
                    out.addQuadCurve(to: Point(x: n[2], y: n[3]), control: Point(x: n[0], y: n[1]))
                case "curve":
                    let n = try SceneParser.numbers(v, count: 6, path: ip + ".curve", what: "[c1x, c1y, c2x, c2y, x, y]")
                    out.addCurve(to: Point(x: n[4], y: n[5]), control1: Point(x: n[0], y: n[1]), control2: Point(x: n[2], y: n[3]))
                case "close": out.closeSubpath()
                default: throw SceneError(path: "\(ip).\(name)", message: "unknown path element '\(name)' (move, line, quad, curve, close)")
                }
            }
            return out
        default:
            throw SceneError(path: p, message: "expected an SVG-like path string or an array of path elements")
        }
    }

    static func svg(_ text: String, path p: String) throws(SceneError) -> Path {
        do { return try Path(svgData: text) } catch { throw SceneError(path: p, message: error.message) }
    }
}
