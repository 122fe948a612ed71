import Foundation
import Testing
import LaminaCore
@testable import LaminaProtocol

/// protocol/lamina-protocol.json, the machine-readable description other clients are built
/// from, agrees with the Swift definitions both ways: every number and name in the file is the
/// codec's, and everything the codec knows is in the file.
///
/// The helpers that name a Swift case switch over it exhaustively, so a new message, operation,
/// request, reply or injection fails to compile here until it is described (and then this test
/// fails until the JSON has it too).
@Suite("Protocol description (protocol/lamina-protocol.json)")
struct ProtocolDescriptionTests {
    typealias Object = [String: Any]

    // Read once, never written.
    nonisolated(unsafe) static let json: Object = {
        let url = repositoryRoot.appendingPathComponent("protocol/lamina-protocol.json")
        guard let data = FileManager.default.contents(atPath: url.path),
              let object = try? JSONSerialization.jsonObject(with: data) as? Object else { return [:] }
        return object
    }()

    static func object(_ path: String...) -> Object {
        var o: Any = json
        for p in path { o = (o as? Object)?[p] ?? [:] }
        return o as? Object ?? [:]
    }

    static func list(_ path: String...) -> [Object] {
        var o: Any = json
        for p in path.dropLast() { o = (o as? Object)?[p] ?? [:] }
        return (o as? Object)?[path.last!] as? [Object] ?? []
    }

    /// A `name → number` table in the JSON, from a list of objects or an object of numbers.
    static func table(_ entries: [Object], number: String) -> [String: Int] {
        var t: [String: Int] = [:]
        for e in entries { if let n = e["name"] as? String, let v = e[number] as? Int { t[n] = v } }
        return t
    }

    static func numbers(_ o: Object) -> [String: Int] { o.compactMapValues { $0 as? Int } }

    @Test func theFileIsThere() {
        #expect(!Self.json.isEmpty, "protocol/lamina-protocol.json is missing or not a JSON object")
    }

    // MARK: Version, frames, hello

    @Test func versionFrameAndHello() {
        #expect(Self.object("version")["major"] as? Int == Int(ProtocolVersion.major))
        #expect(Self.object("version")["minor"] as? Int == Int(ProtocolVersion.minor))
        #expect(Self.json["byteOrder"] as? String == "little-endian")
        #expect(Self.object("frame")["headerSize"] as? Int == Frame.headerSize)
        let header = Self.list("frame", "header").map { "\($0["offset"] as? Int ?? -1) \($0["type"] as? String ?? "") \($0["name"] as? String ?? "")" }
        #expect(header == ["0 u32 length", "4 u16 type", "6 u16 reserved"])
        // The header as the codec writes it: length, type, zero.
        #expect(Array(ClientMessage.request(id: 1, .stats).encoded()[0..<8]) == [6, 0, 0, 0, 3, 0, 0, 0])
        #expect(Self.object("hello")["magic"] as? Int == Int(ProtocolVersion.magic))
        #expect(Self.object("hello")["magicText"] as? String == "LAMN")
        #expect(Array(ClientMessage.hello(Hello(clientName: "")).encoded()[8..<12]) == Array("LAMN".utf8))
        #expect(Self.numbers(Self.object("hello", "flags")) == ["keepLayers": Int(HelloFlags.keepLayers.rawValue)])
        #expect(Self.numbers(Self.object("clocks")) == Dictionary(uniqueKeysWithValues: [ClockKind.real, .virtual].map { ($0.description, Int($0.rawValue)) }))
        #expect(Self.numbers(Self.object("errorSubjects")) == ["none": 0, "commit": 1, "request": 2])
        for (name, n) in Self.numbers(Self.object("errorSubjects")) {
            #expect(ErrorMessage.Subject(rawValue: UInt8(n)).map { "\($0)" } == name)
        }
    }

    // MARK: Messages

    static func name(_ m: ClientMessage) -> String {
        switch m {
        case .hello: "hello"
        case .commit: "commit"
        case .request: "request"
        }
    }

    static func name(_ m: ServerMessage) -> String {
        switch m {
        case .welcome: "welcome"
        case .applied: "applied"
        case .error: "error"
        case .reply: "reply"
        case .animationEvent: "animationEvent"
        case .transactionCompleted: "transactionCompleted"
        case .watch: "watch"
        case .input: "input"
        case .clock: "clock"
        case .video: "video"
        case .scroll: "scroll"
        case .displayChanged: "displayChanged"
        case .frame: "frame"
        case .tilesWanted: "tilesWanted"
        case .appSurface: "appSurface"
        }
    }

    @Test func messageTypes() {
        let client: [ClientMessage] = [.hello(Hello(clientName: "")), .commit(Commit(serial: 0, operations: [])), .request(id: 0, .stats)]
        #expect(Self.table(Self.list("messages", "client"), number: "type")
                == Dictionary(uniqueKeysWithValues: client.map { (Self.name($0), Int($0.type)) }))
        let server: [ServerMessage] = [
            .welcome(Welcome(clientID: 0, displayWidth: 0, displayHeight: 0, clock: .real, time: 0)), .applied(serial: 0),
            .error(ErrorMessage(code: .cycle, message: "")), .reply(id: 0, .done),
            .animationEvent(AnimationNotice(layer: .root, tag: 0, started: true, finished: false)),
            .transactionCompleted(group: 0), .watch(""), .input(InputEvent(kind: .focusIn)), .clock(time: 0),
            .video(image: 1, .playing), .scroll(ScrollEvent(layer: .root, phase: .began, offset: .zero)),
            .displayChanged(DisplayLayout(width: 1, height: 1, outputs: [])),
            .frame(DisplayLinkFrame(links: [1], timestamp: 0, targetTimestamp: 1, duration: 1)),
            .tilesWanted(TilesWanted(layer: LayerID(1), level: 0, tiles: [])),
            .appSurface(AppSurfaceEvent(kind: .appeared, id: 1, appID: "", title: "", pid: 0, width: 1, height: 1)),
        ]
        #expect(Self.table(Self.list("messages", "server"), number: "type")
                == Dictionary(uniqueKeysWithValues: server.map { (Self.name($0), Int($0.type)) }))
        // Every frame the codec writes carries the type the JSON gives it.
        for m in server { #expect(Int(m.encoded()[4]) | Int(m.encoded()[5]) << 8 == Int(m.type)) }
    }

    // MARK: Operations

    static func name(_ op: LaminaProtocol.Operation) -> String {
        switch op {
        case .create(_, let kind): kind == .layer ? "create" : "createKind"
        case .destroy: "destroy"
        case .set: "set"
        case .insert: "insert"
        case .remove: "remove"
        case .addAnimation: "addAnimation"
        case .removeAnimation: "removeAnimation"
        case .removeAllAnimations: "removeAllAnimations"
        case .setAction: "setAction"
        case .settings: "settings"
        case .createImage: "createImage"
        case .updateImage: "updateImage"
        case .destroyImage: "destroyImage"
        case .createVideo: "createVideo"
        case .controlVideo: "controlVideo"
        case .supplyTile: "supplyTile"
        case .dropTiles: "dropTiles"
        case .createEncodedImage: "createEncodedImage"
        }
    }

    static let everyOperation: [LaminaProtocol.Operation] = [
        .create(LayerID(1)), .create(LayerID(1), kind: .text), .destroy(LayerID(1)), .set(LayerID(1), .opacity, .number(1)),
        .insert(parent: .root, child: LayerID(1), index: 0), .remove(LayerID(1)),
        .addAnimation(LayerID(1), key: "", tag: 0, .basic(BasicAnimation(keyPath: "opacity"))),
        .removeAnimation(LayerID(1), key: ""), .removeAllAnimations(LayerID(1)),
        .setAction(LayerID(1), dictionary: .actions, key: "opacity", .noAnimation), .settings(.default),
        .createImage(image: 1, ImageFormat(width: 1, height: 1)), .updateImage(image: 1, PixelRect(x: 0, y: 0, width: 1, height: 1)),
        .destroyImage(image: 1), .createVideo(image: 2, uri: "/v.webm"), .controlVideo(image: 2, .play),
        .supplyTile(LayerID(1), level: -1, column: 2, row: 3, image: 4), .dropTiles(LayerID(1)),
        .createEncodedImage(image: 5, .svg, byteCount: 1234),
    ]

    @Test func operationOpcodes() {
        let described = Self.table(Self.list("operations"), number: "opcode")
        #expect(described == Dictionary(uniqueKeysWithValues: Self.everyOperation.map { (Self.name($0), Int($0.opcode)) }))
        for op in Self.everyOperation {
            var w = ByteWriter()
            w.operation(op)
            #expect(Int(w.bytes[0]) == described[Self.name(op)], "the first byte of \(Self.name(op)) is its opcode")
        }
        // Fields: the sizes the JSON lists add up to what the codec writes for fixed-size operations.
        let sizes = ["u8": 1, "u16": 2, "u32": 4, "i32": 4, "u64": 8, "f64": 8]
        for op in Self.everyOperation {
            guard let entry = Self.list("operations").first(where: { $0["name"] as? String == Self.name(op) }),
                  let fields = entry["fields"] as? [[String]] else { Issue.record("no fields for \(Self.name(op))"); continue }
            let fixed = fields.compactMap { sizes[$0[0]] }
            guard fixed.count == fields.count else { continue }
            var w = ByteWriter()
            w.operation(op)
            #expect(w.bytes.count == 1 + fixed.reduce(0, +), "the fields of \(Self.name(op))")
        }
        #expect((Self.json["reservedOpcodes"] as? [Int]) == [15])
        #expect(!Self.everyOperation.contains { $0.opcode == 15 })
        #expect(Self.list("operations").first { $0["name"] as? String == "createImage" }?["descriptors"] as? Int
                == LaminaProtocol.Operation.createImage(image: 1, ImageFormat(width: 1, height: 1)).descriptorCount)
    }

    @Test func settingsActionsAndImages() {
        func settingsFlags(_ s: TransactionSettings) -> UInt8 {
            var w = ByteWriter()
            w.operation(.settings(s))
            return w.bytes[9]
        }
        #expect(Self.numbers(Self.object("settingsFlags"))
                == ["disableActions": Int(settingsFlags(TransactionSettings(disableActions: true))),
                    "timingFunction": Int(settingsFlags(TransactionSettings(timingFunction: .linear)))])
        #expect(Self.numbers(Self.object("actionDictionaries")) == ["actions": Int(ActionDictionary.actions.rawValue), "style": Int(ActionDictionary.style.rawValue)])
        func actionKind(_ a: Action) -> Int {
            var w = ByteWriter()
            w.operation(.setAction(LayerID(1), dictionary: .actions, key: "", a))
            return Int(w.bytes[10])
        }
        #expect(Self.numbers(Self.object("actionKinds"))
                == ["inherit": actionKind(.inherit), "none": actionKind(.noAnimation), "animation": actionKind(.animation(.basic(BasicAnimation(keyPath: ""))))])
        #expect(Self.numbers(Self.object("pixelFormats"))
                == Dictionary(uniqueKeysWithValues: ImageFormat.PixelOrder.allCases.map { ($0.description.lowercased(), Int($0.rawValue)) }))
        #expect(Self.numbers(Self.object("alphaModes"))
                == Dictionary(uniqueKeysWithValues: ImageFormat.AlphaMode.allCases.map { ($0.description, Int($0.rawValue)) }))
        #expect(Self.object("imageLimits")["maxDimension"] as? Int == Int(ImageFormat.maximumDimension))
        #expect(Self.numbers(Self.object("encodedImageFormats"))
                == Dictionary(uniqueKeysWithValues: EncodedImageFormat.allCases.map { ($0.description.lowercased(), Int($0.rawValue)) }))
        let controls: [(String, VideoControl)] = [("play", .play), ("pause", .pause), ("seek", .seek(seconds: 0)), ("rate", .rate(1)), ("loop", .loop(true)),
                                                ("volume", .volume(1)), ("muted", .muted(true))]
        #expect(Self.numbers(Self.object("videoControls")) == Dictionary(uniqueKeysWithValues: controls.map { ($0.0, Int($0.1.kind)) }))
        let events: [(String, VideoEvent)] = [("ready", .ready(width: 1, height: 1, duration: nil)), ("playing", .playing),
                                              ("paused", .paused), ("ended", .ended), ("error", .error(""))]
        #expect(Self.numbers(Self.object("videoEventKinds")) == Dictionary(uniqueKeysWithValues: events.map { ($0.0, Int($0.1.kind)) }))
        let actions: [(String, AppsRequest)] = [("stop", .stop), ("manage", .manage), ("focus", .focus(app: 1)), ("close", .close(app: 1))]
        #expect(Self.numbers(Self.object("appsActions")) == Dictionary(uniqueKeysWithValues: actions.map { ($0.0, Int($0.1.opcode)) }))
        let kinds: [AppSurfaceEvent.Kind] = [.appeared, .changed, .gone]
        #expect(Self.numbers(Self.object("appSurfaceKinds")) == Dictionary(uniqueKeysWithValues: kinds.map { ($0.description, Int($0.rawValue)) }))
        let reasons: [AppSurfaceEvent.GoneReason] = [.closed, .exited, .dropped]
        #expect(Self.numbers(Self.object("appGoneReasons")) == Dictionary(uniqueKeysWithValues: reasons.map { ($0.description, Int($0.rawValue)) }))
        #expect(Self.numbers(Self.object("scrollPhases"))
                == ["began": 0, "moved": 1, "ended": 2, "interrupted": 3])
        #expect(ScrollEvent.Phase.allCases.map { Int($0.rawValue) } == [0, 1, 2, 3])
        #expect(Self.numbers(Self.object("scrollSources"))
                == Dictionary(uniqueKeysWithValues: ScrollEvent.Source.allCases.map { ($0.description, Int($0.rawValue)) }))
        #expect(Self.table(Self.list("layerKinds"), number: "kind")
                == Dictionary(uniqueKeysWithValues: LayerKind.allCases.map { ($0.name, Int($0.rawValue)) }))
        let defaults = Self.object("transactionDefaults")
        #expect(defaults["duration"] as? Double == TransactionSettings.default.duration)
        #expect(defaults["timingFunction"] is NSNull && TransactionSettings.default.timingFunction == nil)
        #expect(defaults["disableActions"] as? Bool == TransactionSettings.default.disableActions)
        #expect(Self.numbers(Self.object("cornerMask"))
                == ["minXMinY": Int(CornerMask.minXMinY.rawValue), "maxXMinY": Int(CornerMask.maxXMinY.rawValue),
                    "minXMaxY": Int(CornerMask.minXMaxY.rawValue), "maxXMaxY": Int(CornerMask.maxXMaxY.rawValue)])
        #expect(Self.numbers(Self.object("autoresizingMask"))
                == Dictionary(uniqueKeysWithValues: AutoresizingMask.names.map { ($0.name, Int($0.bit.rawValue)) }))
        #expect(Self.numbers(Self.object("constraintAttributes"))
                == Dictionary(uniqueKeysWithValues: ConstraintAttribute.allCases.map { ($0.name, Int($0.rawValue)) }))
    }

    // MARK: Properties and values

    static func name(_ t: PropertyValueType) -> String {
        switch t {
        case .number: "number"
        case .point: "point"
        case .size: "size"
        case .rect: "rect"
        case .color: "color"
        case .transform: "transform"
        case .bool: "bool"
        case .string: "string"
        case .numbers: "numberList"
        case .colors: "colorList"
        case .path: "path"
        case .image: "image"
        case .layer: "layer"
        case .constraints: "constraintList"
        case .emitterCells: "emitterCells"
        case .filters: "filterList"
        case .drawing: "drawing"
        case .attributedString: "attributedString"
        }
    }

    @Test func valueTypes() {
        let swift = (0...255).compactMap { PropertyValueType(rawValue: UInt8($0)) }
        #expect(Self.table(Self.list("valueTypes"), number: "tag") == Dictionary(uniqueKeysWithValues: swift.map { (Self.name($0), Int($0.rawValue)) }))
        let elements: [PathElement] = [.moveTo(.zero), .lineTo(.zero), .quadCurveTo(control: .zero, end: .zero),
                                       .curveTo(control1: .zero, control2: .zero, end: .zero), .closeSubpath]
        let names = ["moveTo", "lineTo", "quadCurveTo", "curveTo", "closeSubpath"]
        var described: [String: Int] = [:]
        for (i, e) in elements.enumerated() {
            var w = ByteWriter()
            w.value(.path(Path([e])))
            described[names[i]] = Int(w.bytes[4])
            let points = Self.list("pathElements").first { $0["name"] as? String == names[i] }?["points"] as? Int
            #expect(points.map { 5 + 16 * $0 } == w.bytes.count, "\(names[i]) points")
        }
        #expect(Self.table(Self.list("pathElements"), number: "type") == described)
    }

    @Test func everyPropertyBothWays() throws {
        let described = Self.list("properties")
        #expect(described.map { $0["id"] as? Int ?? -1 } == PropertyKey.allCases.map { Int($0.rawValue) },
                "the JSON lists every property, in order, and no other")
        let defaults = LayerProperties()
        for (entry, key) in zip(described, PropertyKey.allCases) {
            #expect(entry["name"] as? String == key.name, "property \(key.rawValue)")
            #expect(entry["type"] as? String == Self.name(key.valueType), "type of \(key)")
            #expect(entry["animatable"] as? Bool == key.isAnimatable, "animatable \(key)")
            #expect(entry["since"] as? String == "1.\(key.minorVersion)", "since \(key)")
            #expect(entry["names"] as? [String] == key.allowedNames, "names of \(key)")
            let value = try #require(Self.value(entry["default"] as Any, key.valueType), "default of \(key)")
            #expect(value == defaults[key], "default of \(key): \(value) in the JSON, \(defaults[key]) in LayerProperties")
        }
    }

    @Test func emitterCellFieldsBothWays() throws {
        let table = Self.object("emitterCells")
        #expect(table["maxCellsPerList"] as? Int == EmitterCell.maximumCells)
        #expect(table["maxDepth"] as? Int == EmitterCell.maximumDepth)
        let fields = try #require(table["fields"] as? [[String: Any]])
        #expect(fields.map { $0["id"] as? Int ?? -1 } == EmitterCellField.allCases.map { Int($0.rawValue) },
                "the JSON lists every cell field, in order, and no other")
        let defaults = EmitterCell()
        for (entry, field) in zip(fields, EmitterCellField.allCases) {
            #expect(entry["name"] as? String == field.name, "cell field \(field.rawValue)")
            #expect(entry["type"] as? String == Self.name(field.valueType), "type of \(field)")
            #expect(entry["animatable"] as? Bool == field.isAnimatable, "animatable \(field)")
            #expect(entry["names"] as? [String] == field.allowedNames, "names of \(field)")
            #expect((entry["minimum"] as? Int == 0) == field.mustNotBeNegative, "minimum of \(field)")
            let value = try #require(Self.value(entry["default"] as Any, field.valueType), "default of \(field)")
            #expect(value == defaults[field], "default of \(field)")
        }
    }

    @Test func filterTypesBothWays() throws {
        let table = Self.object("filters")
        #expect(table["maxFilters"] as? Int == LayerFilter.maximumCount)
        #expect(table["maxBlurRadius"] as? Int == Int(LayerFilter.maximumRadius))
        let types = try #require(table["types"] as? [[String: Any]])
        #expect(types.map { $0["name"] as? String ?? "" } == FilterType.allCases.map(\.rawValue))
        for (entry, type) in zip(types, FilterType.allCases) {
            #expect(entry["tag"] as? Int == Int(type.wireTag), "tag of \(type)")
            #expect(entry["input"] as? String == type.input?.rawValue, "input of \(type)")
            #expect(entry["count"] as? Int == (type.input?.count ?? 0), "count of \(type)")
            let defaults = (entry["default"] as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue }
            #expect(defaults == type.defaultValues, "default of \(type)")
        }
    }

    @Test func drawingOpsBothWays() throws {
        let table = Self.object("drawing")
        #expect(table["maxCommands"] as? Int == Drawing.maximumCommands)
        #expect(table["maxPathPoints"] as? Int == Drawing.maximumPathPoints)
        #expect(table["maxDashEntries"] as? Int == Drawing.maximumDashEntries)
        #expect(table["maxNesting"] as? Int == Drawing.maximumNesting)
        #expect(table["maxGradientStops"] as? Int == Drawing.maximumGradientStops)
        #expect(table["maxStringBytes"] as? Int == Drawing.maximumStringBytes)
        let names = try #require(table["names"] as? [String: [String]])
        #expect(names["fillRule"] == DrawingOp.fillRules && names["lineCap"] == DrawingOp.lineCaps)
        #expect(names["lineJoin"] == DrawingOp.lineJoins && names["blendMode"] == DrawingOp.blendModes)
        #expect(names["gradientOptions"] == DrawingOp.gradientExtends)
        let ops = try #require(table["ops"] as? [[String: Any]])
        #expect(ops.map { $0["name"] as? String ?? "" } == DrawingOp.allCases.map(\.name))
        for (entry, op) in zip(ops, DrawingOp.allCases) {
            #expect(entry["opcode"] as? Int == Int(op.rawValue), "opcode of \(op)")
            let args = (entry["arguments"] as? [[String: String]]) ?? []
            #expect(args.map { $0["name"] ?? "" } == op.arguments.map(\.name), "arguments of \(op)")
            let kinds: [String] = op.arguments.map { a in
                switch a.kind {
                case .name(let n) where n == DrawingOp.fillRules: "fillRule"
                case .name(let n) where n == DrawingOp.lineCaps: "lineCap"
                case .name(let n) where n == DrawingOp.lineJoins: "lineJoin"
                case .name(let n) where n == DrawingOp.blendModes: "blendMode"
                case .name: "gradientOptions"
                case .number: "number"
                case .image: "image"
                case .point: "point"
                case .size: "size"
                case .rect: "rect"
                case .color: "color"
                case .bool: "bool"
                case .affine: "affine"
                case .string: "string"
                case .numbers: "numbers"
                case .stops: "stops"
                }
            }
            #expect(args.map { $0["kind"] ?? "" } == kinds, "argument kinds of \(op)")
        }
    }

    @Test func attributedStringLimits() throws {
        let table = Self.object("attributedString")
        #expect(table["maxRuns"] as? Int == TextRun.maximumRuns)
        #expect(table["maxTextBytes"] as? Int == TextRun.maximumTextBytes)
        #expect(table["maxFontNameBytes"] as? Int == TextRun.maximumFontNameBytes)
        let weights = (table["weights"] as? [String: Any])?.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        #expect(weights == TextRun.weightNames)
    }

    /// A JSON value in the form lamina-protocol.json gives defaults in.
    static func value(_ v: Any, _ type: PropertyValueType) -> PropertyValue? {
        let numbers = (v as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue }
        func color(_ a: Any) -> Color? {
            guard let c = (a as? [Any])?.compactMap({ ($0 as? NSNumber)?.doubleValue }), c.count == 4 else { return nil }
            return Color(red: c[0], green: c[1], blue: c[2], alpha: c[3])
        }
        switch type {
        case .number: return (v as? NSNumber).map { .number($0.doubleValue) }
        case .point: return numbers.flatMap { $0.count == 2 ? .point(Point(x: $0[0], y: $0[1])) : nil }
        case .size: return numbers.flatMap { $0.count == 2 ? .size(Size(width: $0[0], height: $0[1])) : nil }
        case .rect: return numbers.flatMap { $0.count == 4 ? .rect(Rect(x: $0[0], y: $0[1], width: $0[2], height: $0[3])) : nil }
        case .color: return color(v).map { .color($0) }
        case .transform: return numbers.flatMap { Transform3D(rowMajor: $0) }.map { .transform($0) }
        case .bool: return (v as? Bool).map { .bool($0) }
        case .string: return (v as? String).map { .string($0) }
        case .numbers: return numbers.map { .numbers($0) }
        case .colors: return (v as? [Any]).map { .colors($0.compactMap(color)) }
        case .path: return (v as? [Any])?.isEmpty == true ? .path(Path()) : nil
        case .image: return (v as? Int).map { .image(UInt32($0)) }
        case .layer: return (v as? Int).map { .layer(UInt32($0)) }
        case .constraints: return (v as? [Any])?.isEmpty == true ? .constraints([]) : nil
        case .emitterCells: return (v as? [Any])?.isEmpty == true ? .emitterCells([]) : nil
        case .filters: return (v as? [Any])?.isEmpty == true ? .filters([]) : nil
        case .drawing: return (v as? [Any])?.isEmpty == true ? .drawing(Drawing()) : nil
        case .attributedString: return (v as? [Any])?.isEmpty == true ? .attributedString([]) : nil
        }
    }

    // MARK: Requests and replies

    static func name(_ r: Request) -> String {
        switch r {
        case .screenshot: "screenshot"
        case .tree: "tree"
        case .advanceClock: "advanceClock"
        case .stats: "stats"
        case .presentation: "presentation"
        case .presentationTree: "presentationTree"
        case .watch: "watch"
        case .displayPower: "displayPower"
        case .snapshot: "snapshot"
        case .injectInput: "injectInput"
        case .takeKeyboardFocus: "takeKeyboardFocus"
        case .listen: "listen"
        case .registerFont: "registerFont"
        case .output: "output"
        case .displayLink: "displayLink"
        case .manageApps: "manageApps"
        }
    }

    static func name(_ r: Reply) -> String {
        switch r {
        case .screenshot: "screenshot"
        case .tree: "tree"
        case .advanced: "advanced"
        case .stats: "stats"
        case .presentation: "presentation"
        case .watching: "watching"
        case .displayPower: "displayPower"
        case .snapshot: "snapshot"
        case .done: "done"
        case .fontRegistered: "fontRegistered"
        case .outputs: "outputs"
        }
    }

    static let everyRequest: [Request] = [
        .screenshot, .tree, .advanceClock(seconds: 0), .stats, .presentation(.root), .presentationTree, .watch,
        .displayPower(on: true, output: ""), .snapshot, .injectInput(.touchUp(id: 0)), .takeKeyboardFocus, .listen(session: ""),
        .registerFont(byteCount: 0), .output(name: "", .none), .displayLink(link: 1, .remove), .manageApps(.manage),
    ]

    @Test func requestKindsAndPrivilege() {
        let described = Self.list("requests")
        #expect(Self.table(described, number: "kind") == Dictionary(uniqueKeysWithValues: Self.everyRequest.map { (Self.name($0), Int($0.kind)) }))
        for r in Self.everyRequest {
            let entry = described.first { $0["name"] as? String == Self.name(r) }
            #expect(entry?["privileged"] as? Bool == (r.privilegedPurpose != nil), "privileged \(Self.name(r))")
        }
        // The argument sizes of fixed-size requests add up to what the codec writes.
        let sizes = ["u8": 1, "bool": 1, "u16": 2, "u32": 4, "i32": 4, "u64": 8, "f64": 8]
        for r in Self.everyRequest {
            guard let args = described.first(where: { $0["name"] as? String == Self.name(r) })?["arguments"] as? [[String]] else { continue }
            let fixed = args.compactMap { sizes[$0[0]] }
            guard fixed.count == args.count else { continue }
            let expected: Int = 8 + 6 + fixed.reduce(0, +)
            #expect(ClientMessage.request(id: 0, r).encoded().count == expected, "arguments of \(Self.name(r))")
        }
    }

    @Test func replyKinds() {
        let replies: [Reply] = [
            .screenshot(Bitmap(width: 1, height: 1)), .tree(""), .advanced(time: 0, framesRendered: 0), .stats([]),
            .presentation(LayerProperties()), .watching, .displayPower(backend: "", outputs: []), .snapshot([]), .done,
            .fontRegistered(families: []), .outputs(backend: "", []),
        ]
        let described = Self.list("replies")
        #expect(Self.table(described, number: "kind") == Dictionary(uniqueKeysWithValues: replies.map { (Self.name($0), Int($0.kind)) }))
        // Each request names the reply kind it is answered with.
        let replyNames = Dictionary(uniqueKeysWithValues: replies.map { (Int($0.kind), Self.name($0)) })
        let answers: [String: String] = [
            "screenshot": "screenshot", "tree": "tree", "advanceClock": "advanced", "stats": "stats", "presentation": "presentation",
            "presentationTree": "tree", "watch": "watching", "displayPower": "displayPower", "snapshot": "snapshot",
            "injectInput": "done", "takeKeyboardFocus": "done", "listen": "watching", "registerFont": "fontRegistered",
            "output": "outputs", "displayLink": "done", "manageApps": "done",
        ]
        for entry in Self.list("requests") {
            let name = entry["name"] as? String ?? "?"
            #expect((entry["reply"] as? Int).flatMap { replyNames[$0] } == answers[name], "reply to \(name)")
        }
    }

    static func name(_ i: InputInjection) -> String {
        switch i {
        case .touchDown: "touchDown"
        case .touchMotion: "touchMotion"
        case .touchUp: "touchUp"
        case .touchCancel: "touchCancel"
        case .pointerMotion: "pointerMotion"
        case .pointerButton: "pointerButton"
        case .pointerAxis: "scroll"
        case .key: "key"
        }
    }

    @Test func inputKinds() {
        let injections: [InputInjection] = [
            .touchDown(id: 0, at: .zero), .touchMotion(id: 0, to: .zero), .touchUp(id: 0), .touchCancel(id: 0),
            .pointerMotion(to: .zero), .pointerButton(code: 0, pressed: true), .pointerAxis(horizontal: 0, vertical: 0),
            .key(name: "", pressed: true),
        ]
        #expect(Self.table(Self.list("injections"), number: "kind") == Dictionary(uniqueKeysWithValues: injections.map { (Self.name($0), Int($0.opcode)) }))
        #expect(Self.table(Self.list("inputEventKinds"), number: "kind")
                == Dictionary(uniqueKeysWithValues: InputEvent.Kind.allCases.map { ($0.description, Int($0.rawValue)) }))
        // The input layout's fields add up to an input frame's body with empty strings.
        let sizes = ["u8": 1, "u32": 4, "i32": 4, "f64": 8, "string": 4]
        let fields = Self.object("layouts")["input"] as? [[String]] ?? []
        #expect(8 + fields.compactMap { sizes[$0[0]] }.reduce(0, +) == ServerMessage.input(InputEvent(kind: .focusIn)).encoded().count)
    }

    // MARK: Errors

    @Test func errorCodesBothWays() {
        let swift = (0...1024).compactMap { ErrorCode(rawValue: UInt16($0)) }
        #expect(Self.table(Self.list("errors"), number: "code") == Dictionary(uniqueKeysWithValues: swift.map { ($0.description, Int($0.rawValue)) }))
    }

    // MARK: Animations

    static func encode(_ a: Animation) -> [UInt8] {
        var w = ByteWriter()
        w.animation(a)
        return w.bytes
    }

    @Test func animationNumbers() {
        let a = Self.object("animations")
        let kinds: [(String, Animation)] = [
            ("basic", .basic(BasicAnimation(keyPath: "opacity"))), ("keyframe", .keyframe(KeyframeAnimation(keyPath: "opacity"))),
            ("spring", .spring(SpringAnimation(keyPath: "opacity"))), ("group", .group(AnimationGroup([], duration: 0))),
            ("transition", .transition(Transition())),
        ]
        #expect(Self.table(a["kinds"] as? [Object] ?? [], number: "kind") == Dictionary(uniqueKeysWithValues: kinds.map { ($0.0, Int(Self.encode($0.1)[0])) }))

        // Offsets as in AnimationCodecTests.wireNumbersMatchTheDocumentation.
        let fill = Dictionary(uniqueKeysWithValues: FillMode.allCases.map {
            ($0.rawValue, Int(Self.encode(.basic(BasicAnimation(keyPath: "opacity", timing: MediaTiming(fillMode: $0))))[50]))
        })
        #expect(Self.numbers(a["fillModes"] as? Object ?? [:]) == fill)
        var functions = Dictionary(uniqueKeysWithValues: ValueFunction.allCases.map {
            ($0.rawValue, Int(Self.encode(.basic(BasicAnimation(keyPath: "transform", valueFunction: $0))).last!))
        })
        functions["none"] = Int(Self.encode(.basic(BasicAnimation(keyPath: "transform"))).last!)
        #expect(Self.numbers(a["valueFunctions"] as? Object ?? [:]) == functions)
        let modeOffset = 53 + 12 + 4 + 3
        let modes = Dictionary(uniqueKeysWithValues: CalculationMode.allCases.map {
            ($0.rawValue, Int(Self.encode(.keyframe(KeyframeAnimation(keyPath: "position", calculationMode: $0)))[modeOffset]))
        })
        #expect(Self.numbers(a["calculationModes"] as? Object ?? [:]) == modes)
        var rotations = Dictionary(uniqueKeysWithValues: RotationMode.allCases.map {
            ($0.rawValue, Int(Self.encode(.keyframe(KeyframeAnimation(keyPath: "position", rotationMode: $0)))[modeOffset + 1]))
        })
        rotations["none"] = Int(Self.encode(.keyframe(KeyframeAnimation(keyPath: "position")))[modeOffset + 1])
        #expect(Self.numbers(a["rotationModes"] as? Object ?? [:]) == rotations)
        let types = Dictionary(uniqueKeysWithValues: Transition.Kind.allCases.map { ($0.rawValue, Int(Self.encode(.transition(Transition(type: $0)))[53])) })
        #expect(Self.numbers(a["transitionTypes"] as? Object ?? [:]) == types)
        var subtypes = Dictionary(uniqueKeysWithValues: Transition.Direction.allCases.map {
            ($0.rawValue, Int(Self.encode(.transition(Transition(subtype: $0)))[54]))
        })
        subtypes["none"] = Int(Self.encode(.transition(Transition()))[54])
        #expect(Self.numbers(a["transitionSubtypes"] as? Object ?? [:]) == subtypes)
        #expect(a["maxGroupNesting"] as? Int == AnimationWire.maxGroupNesting)
        #expect(a["keyPathLimit"] as? Int == AnimationWire.keyPathLimit)
        // The header's fields add up to the 53 bytes every animation starts with (no timing function).
        let sizes = ["u8": 1, "bool": 1, "f64": 8, "timingFunction?": 1]
        let header = a["header"] as? [[String]] ?? []
        #expect(header.compactMap { sizes[$0[0]] }.reduce(0, +) == 53)
        #expect(Self.encode(.transition(Transition())).count == 53 + 2 + 16)
    }

    @Test func keyPathComponents() {
        let described = Self.object("animations", "keyPathComponents")
        let swift: [(String, PropertyValueType)] = [("point", .point), ("size", .size), ("rect", .rect), ("transform", .transform)]
        #expect(Set(described.keys) == Set(swift.map(\.0)))
        for (name, type) in swift {
            #expect(described[name] as? [String] == AnimationKeyPath.components(of: type).map(\.rawValue), "\(name)")
        }
        let types = Self.object("animations", "keyPathComponentTypes") as? [String: String] ?? [:]
        for component in AnimationKeyPath.Component.allCases where component != .whole {
            let property: PropertyKey = switch component {
            case .x, .y: .position
            case .width, .height: .shadowOffset
            case .origin, .originX, .originY, .size, .sizeWidth, .sizeHeight: .bounds
            default: .transform
            }
            let expected = types[component.rawValue] ?? types["*"]
            #expect(expected == Self.name(AnimationKeyPath(property, component).valueType), "type of \(property).\(component.rawValue)")
        }
    }

    @Test func timingFunctions() {
        let described = Self.object("timingFunctions")
        let swift: [String: TimingFunction] = [
            "linear": .linear, "easeIn": .easeIn, "easeOut": .easeOut, "easeInEaseOut": .easeInEaseOut, "default": .default,
        ]
        #expect(Set(described.keys) == Set(swift.keys))
        for (name, f) in swift {
            #expect((described[name] as? [NSNumber])?.map(\.doubleValue) == [f.c1x, f.c1y, f.c2x, f.c2y], "\(name)")
        }
    }
}
