import Testing
import LaminaCore
@testable import LaminaProtocol

@Suite("Wire protocol v1")
struct ProtocolTests {
    /// A cell with fields of every type and a sub-cell.
    static let sparkCell: EmitterCell = {
        var c = EmitterCell(name: "spark")
        c.birthRate = 20
        c.lifetime = 1.5
        c.color = Color(red: 1, green: 0.5, blue: 0, alpha: 1)
        c.contents = 3
        c.contentsRect = Rect(x: 0, y: 0, width: 0.5, height: 0.5)
        c.magnificationFilter = .nearest
        c.autoreverses = true
        var trail = EmitterCell(name: "trail")
        trail.velocity = -4
        c.emitterCells = [trail]
        return c
    }()

    static let everyValue: [Operation] = PropertyKey.allCases.map { key in
        let v: PropertyValue = switch key.valueType {
        case .number: .number(0.25)
        case .point: .point(Point(x: 1.5, y: -2))
        case .size: .size(Size(width: 3, height: 4))
        case .rect: .rect(Rect(x: 1, y: 2, width: 3, height: 4))
        case .color: .color(Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4))
        case .transform: .transform(.rotation(angle: 0.5, x: 0, y: 1, z: 0).concatenating(.perspective(distance: 500)))
        case .bool: .bool(true)
        case .string: .string(key.allowedNames?.last ?? "naïve ✓")
        case .numbers: .numbers([0, 0.25, 1])
        case .colors: .colors([.black, Color(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.4)])
        case .path: .path(Path(ellipseIn: Rect(x: 0, y: 0, width: 10, height: 20)))
        case .image: .image(9)
        case .layer: .layer(8)
        case .constraints: .constraints([LayoutConstraint(attribute: .midX),
                                         LayoutConstraint(attribute: .minY, relativeTo: "title", sourceAttribute: .maxY, scale: 0.5, offset: -8)])
        case .emitterCells: .emitterCells([ProtocolTests.sparkCell])
        case .filters: .filters([.gaussianBlur("soft", radius: 8), LayerFilter(name: "neg", type: .invert),
                                 .colorMatrix("m", ColorMatrix.identity.coefficients)])
        case .drawing: .drawing(Drawing([DrawingCommand(.setFillColor, [1, 0, 0, 0.5]),
                                         DrawingCommand(.fillRect, [0, 0, 10, 20]),
                                         DrawingCommand(.addPath, [], ["M 0 0 L 10 10 Z"]),
                                         DrawingCommand(.showText, [2, 14, 12], ["naïve ✓", "Helvetica"])]))
        case .attributedString: .attributedString([TextRun("Sale ", weight: 700, color: .red),
                                                   TextRun("اليوم today", font: "DejaVu Serif", fontSize: 12, italic: true,
                                                           backgroundColor: .blue, underline: true, kerning: 1, baselineOffset: 2)])
        }
        return .set(LayerID(7), key, v)
    }

    static let clientMessages: [ClientMessage] = [
        .hello(Hello(clientName: "test", session: "kiosk", flags: .keepLayers)),
        .commit(Commit(serial: 42, operations: [
            .create(LayerID(1)), .create(LayerID(3), kind: .shape), .destroy(LayerID(2)), .insert(parent: .root, child: LayerID(1), index: .max), .remove(LayerID(1)),
        ] + everyValue)),
        .commit(Commit(serial: 0, operations: [])),
        .request(id: 1, .screenshot), .request(id: 2, .tree), .request(id: 3, .advanceClock(seconds: 0.125)), .request(id: 4, .stats),
        .request(id: 5, .displayPower(on: false, output: "Virtual-1")), .request(id: 6, .displayPower(on: true, output: "")),
        .request(id: 7, .snapshot),
        .request(id: 8, .injectInput(.touchDown(id: -3, at: Point(x: 1.5, y: 2)))),
        .request(id: 9, .injectInput(.touchMotion(id: 3, to: Point(x: 0, y: 720)))),
        .request(id: 10, .injectInput(.touchUp(id: 3))), .request(id: 11, .injectInput(.touchCancel(id: 4))),
        .request(id: 12, .injectInput(.pointerMotion(to: Point(x: 5, y: 6)))),
        .request(id: 13, .injectInput(.pointerButton(code: 0x111, pressed: true))),
        .request(id: 14, .injectInput(.pointerAxis(horizontal: -1, vertical: 15))),
        .request(id: 15, .injectInput(.key(name: "Return", pressed: false))),
        .request(id: 16, .takeKeyboardFocus), .request(id: 17, .listen(session: "laminactl")),
        .request(id: 18, .registerFont(byteCount: 1 << 33)),
        .commit(Commit(serial: 43, operations: [
            .createVideo(image: 5, uri: "file:///srv/clip.webm"), .controlVideo(image: 5, .play), .controlVideo(image: 5, .pause),
            .controlVideo(image: 5, .seek(seconds: 1.25)), .controlVideo(image: 5, .rate(2)), .controlVideo(image: 5, .loop(true)),
            .controlVideo(image: 5, .loop(false)), .destroyImage(image: 5),
        ])),
    ]

    static let serverMessages: [ServerMessage] = [
        .welcome(Welcome(clientID: 3, displayWidth: 1280, displayHeight: 720, clock: .virtual, time: 12.5,
                         snapshot: [.create(LayerID(4)), .set(LayerID(4), .opacity, .number(0.5))])),
        .applied(serial: 9),
        .error(ErrorMessage(code: .cycle, subject: .commit, serial: 9, operationIndex: 3, message: "bad")),
        .reply(id: 1, .screenshot(Bitmap(width: 2, height: 1, bytes: [1, 2, 3, 4, 5, 6, 7, 8])!)),
        .reply(id: 2, .tree("{\"a\":1}")),
        .reply(id: 3, .advanced(time: 1.5, framesRendered: 77)),
        .reply(id: 4, .stats([Statistic(name: "frames", value: 3), Statistic(name: "layers", value: 10)])),
        .reply(id: 5, .displayPower(backend: "kms", outputs: [OutputPower(name: "Virtual-1", isOn: false), OutputPower(name: "Virtual-2", isOn: true)])),
        .reply(id: 6, .displayPower(backend: "headless", outputs: [])),
        .reply(id: 7, .snapshot([.create(LayerID(2)), .set(LayerID(2), .opacity, .number(0.25)),
                                 .insert(parent: .root, child: LayerID(2), index: 0)])),
        .reply(id: 8, .done),
        .reply(id: 9, .fontRegistered(families: ["Noto Sans CJK JP", "Noto Sans CJK KR"])), .reply(id: 10, .fontRegistered(families: [])),
        .video(image: 5, .ready(width: 640, height: 360, duration: 3.5)), .video(image: 5, .ready(width: 1, height: 1, duration: nil)),
        .video(image: 5, .playing), .video(image: 5, .paused), .video(image: 5, .ended), .video(image: 6, .error("no such file")),
        .input(InputEvent(kind: .keyPress, injected: true, id: 30, time: 2, keysym: 0x61, keyName: "a", text: "a")),
        .input(InputEvent(kind: .scroll, layer: LayerID(9), location: Point(x: 1, y: 2), screen: Point(x: 3, y: 4),
                          time: 5, deviceTime: 6, delta: Point(x: 0, y: -15))),
    ] + InputEvent.Kind.allCases.map { .input(InputEvent(kind: $0, layer: LayerID(2), id: 7)) }

    static func split(_ frame: [UInt8]) -> (UInt16, ArraySlice<UInt8>) {
        var d = FrameDecoder(limit: 1 << 30)
        d.append(frame)
        let f = try! d.next()!
        return (f.type, f.body)
    }

    @Test(arguments: clientMessages)
    func clientMessagesRoundTrip(_ m: ClientMessage) throws {
        let (type, body) = Self.split(m.encoded())
        #expect(try ClientMessage.decode(type: type, body: body) == m)
    }

    @Test(arguments: serverMessages)
    func serverMessagesRoundTrip(_ m: ServerMessage) throws {
        let (type, body) = Self.split(m.encoded())
        #expect(try ServerMessage.decode(type: type, body: body) == m)
    }

    // docs/protocol.md shows these bytes as its worked example; the two must agree.
    @Test func goldenBytesOfASampleCommit() {
        let commit = ClientMessage.commit(Commit(serial: 1, operations: [
            .create(LayerID(1)),
            .set(LayerID(1), .opacity, .number(0.5)),
            .insert(parent: .root, child: LayerID(1), index: 0xFFFF_FFFF),
        ]))
        let expected: [UInt8] = [
            0x29, 0x00, 0x00, 0x00,  0x02, 0x00,  0x00, 0x00,  // frame: body length 41, type 2 (commit), reserved 0
            0x01, 0x00, 0x00, 0x00,                              // serial 1
            0x03, 0x00, 0x00, 0x00,                              // 3 operations
            0x01, 0x01, 0x00, 0x00, 0x00,                        // create #1
            0x03, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00,            // set #1 opacity (key 8) …
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x3F,      // … = 0.5 (f64)
            0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF,  // insert #1 into root at end
        ]
        #expect(commit.encoded() == expected)
    }

    // docs/protocol.md, "input", shows these bytes: a touch down on layer 3, and its injection.
    @Test func goldenBytesOfInput() throws {
        let event = ServerMessage.input(InputEvent(kind: .touchDown, injected: true, layer: LayerID(3), id: 1,
                                                   location: Point(x: 10, y: 20), screen: Point(x: 110, y: 220), time: 1.5))
        var expected: [UInt8] = [
            0x56, 0x00, 0x00, 0x00,  0x88, 0x00,  0x00, 0x00,  // frame: body length 86, type 0x88 (input), reserved 0
            0x01, 0x01,                                          // kind 1 (touch down), flags: injected
            0x03, 0x00, 0x00, 0x00,                              // layer 3
            0x01, 0x00, 0x00, 0x00,                              // touch 1
        ]
        for v in [10.0, 20, 110, 220, 1.5, 0, 0, 0] { withUnsafeBytes(of: v.bitPattern.littleEndian) { expected += $0 } }
        expected += [0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00]  // keysym 0, name "", text ""
        #expect(event.encoded() == expected)
        #expect(Array(event.encoded()[18..<26]) == [0, 0, 0, 0, 0, 0, 0x24, 0x40])   // 10.0
        let inject = ClientMessage.request(id: 2, .injectInput(.touchDown(id: 1, at: Point(x: 110, y: 220))))
        var expectedInject: [UInt8] = [
            0x1B, 0x00, 0x00, 0x00,  0x03, 0x00,  0x00, 0x00,  // frame: body length 27, type 3 (request)
            0x02, 0x00, 0x00, 0x00,                              // request id 2
            0x0A, 0x00,                                          // kind 10 (inject-input)
            0x01,                                                // touch down
            0x01, 0x00, 0x00, 0x00,                              // touch 1
        ]
        for v in [110.0, 220] { withUnsafeBytes(of: v.bitPattern.littleEndian) { expectedInject += $0 } }
        #expect(inject.encoded() == expectedInject)
        // A NaN coordinate is refused when decoded.
        var bad = expectedInject
        bad.replaceSubrange(19..<27, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { Array($0) })
        let (type, body) = Self.split(bad)
        #expect(throws: MessageError.self) { try ClientMessage.decode(type: type, body: body) }
    }

    // docs/protocol.md, "clock": the virtual clock moved to 2.5 s.
    @Test func goldenBytesOfClock() throws {
        let message = ServerMessage.clock(time: 2.5)
        let expected: [UInt8] = [
            0x08, 0x00, 0x00, 0x00,  0x89, 0x00,  0x00, 0x00,  // frame: body length 8, type 0x89 (clock), reserved 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x40,      // f64 2.5
        ]
        #expect(message.encoded() == expected)
        let (type, body) = Self.split(expected)
        #expect(try ServerMessage.decode(type: type, body: body) == message)
        #expect(throws: MessageError.self) { try ServerMessage.decode(type: type, body: body.dropLast()) }
    }

    // docs/protocol.md, "Videos" (sound, 1.7), shows these bytes.
    @Test func goldenBytesOfVideoSound() throws {
        let commit = ClientMessage.commit(Commit(serial: 3, operations: [
            .controlVideo(image: 5, .volume(0.5)), .controlVideo(image: 5, .muted(true)),
        ]))
        var expected: [UInt8] = [
            0x1D, 0x00, 0x00, 0x00,  0x02, 0x00,  0x00, 0x00,  // frame: body length 29, type 2 (commit)
            0x03, 0x00, 0x00, 0x00,                              // serial 3
            0x02, 0x00, 0x00, 0x00,                              // 2 operations
            0x11, 0x05, 0x00, 0x00, 0x00, 0x05,                  // control-video (17), image 5, volume
        ]
        withUnsafeBytes(of: 0.5.bitPattern.littleEndian) { expected += $0 }  // 0.5
        expected += [0x11, 0x05, 0x00, 0x00, 0x00, 0x06, 0x01]   // control-video, image 5, muted, true
        #expect(commit.encoded() == expected)
        #expect(try ClientMessage.decode(type: 2, body: expected.dropFirst(8)) == commit)
        // A volume outside 0…1, or not finite, is refused, naming the field.
        for bad in [1.5, -0.1, Double.nan, Double.infinity] {
            var body = Array(expected.dropFirst(8).prefix(14))
            withUnsafeBytes(of: bad.bitPattern.littleEndian) { body += $0 }
            body[4] = 1
            #expect {
                try ClientMessage.decode(type: 2, body: body[...])
            } throws: { "\($0)".contains("video volume") }
        }
    }

    // docs/protocol.md, "Video" (1.6), shows these bytes.
    @Test func goldenBytesOfVideo() throws {
        let commit = ClientMessage.commit(Commit(serial: 2, operations: [
            .createVideo(image: 5, uri: "/v.webm"), .controlVideo(image: 5, .seek(seconds: 1.5)), .controlVideo(image: 5, .play),
        ]))
        var expected: [UInt8] = [
            0x2C, 0x00, 0x00, 0x00,  0x02, 0x00,  0x00, 0x00,  // frame: body length 44, type 2 (commit)
            0x02, 0x00, 0x00, 0x00,                              // serial 2
            0x03, 0x00, 0x00, 0x00,                              // 3 operations
            0x10, 0x05, 0x00, 0x00, 0x00,                        // create-video (16), image 5
            0x07, 0x00, 0x00, 0x00, 0x2F, 0x76, 0x2E, 0x77, 0x65, 0x62, 0x6D,  // "/v.webm"
            0x11, 0x05, 0x00, 0x00, 0x00, 0x02,                  // control-video (17), image 5, seek
        ]
        withUnsafeBytes(of: 1.5.bitPattern.littleEndian) { expected += $0 }  // 1.5 s
        expected += [0x11, 0x05, 0x00, 0x00, 0x00, 0x00]         // control-video, image 5, play
        #expect(commit.encoded() == expected)
        let ready = ServerMessage.video(image: 5, .ready(width: 64, height: 48, duration: 3))
        var expectedReady: [UInt8] = [
            0x15, 0x00, 0x00, 0x00,  0x8A, 0x00,  0x00, 0x00,  // frame: body length 21, type 0x8A (video)
            0x05, 0x00, 0x00, 0x00,  0x00,                       // image 5, ready
            0x40, 0x00, 0x00, 0x00,  0x30, 0x00, 0x00, 0x00,     // 64 × 48
        ]
        withUnsafeBytes(of: 3.0.bitPattern.littleEndian) { expectedReady += $0 }
        #expect(ready.encoded() == expectedReady)
        #expect(ServerMessage.video(image: 5, .ended).encoded() == [0x05, 0x00, 0x00, 0x00, 0x8A, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x03])
        // Out-of-range controls are refused by the decoder, with the field named.
        for (kind, value) in [(UInt8(2), -1.0), (2, .nan), (3, 0), (3, 17), (3, .infinity)] {
            var body: [UInt8] = [0x01, 0, 0, 0, 0x01, 0, 0, 0, 0x11, 0x05, 0, 0, 0, kind]
            withUnsafeBytes(of: value.bitPattern.littleEndian) { body += $0 }
            #expect(throws: MessageError.self) { try ClientMessage.decode(type: 2, body: body[...]) }
        }
        let unknownControl: [UInt8] = [0x01, 0, 0, 0, 0x01, 0, 0, 0, 0x11, 0x05, 0, 0, 0, 9]
        #expect(throws: MessageError.self) { try ClientMessage.decode(type: 2, body: unknownControl[...]) }
    }

    // docs/protocol.md, "register-font" (1.5), shows these bytes.
    @Test func goldenBytesOfRegisterFont() throws {
        let request = ClientMessage.request(id: 4, .registerFont(byteCount: 70_000))
        #expect(request.encoded() == [
            0x0E, 0x00, 0x00, 0x00,  0x03, 0x00,  0x00, 0x00,  // frame: body length 14, type 3 (request)
            0x04, 0x00, 0x00, 0x00,                              // request id 4
            0x0D, 0x00,                                          // kind 13 (register-font)
            0x70, 0x11, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,      // 70 000 bytes (u64)
        ])
        #expect(Request.registerFont(byteCount: 1).descriptorCount == 1 && Request.stats.descriptorCount == 0)
        let reply = ServerMessage.reply(id: 4, .fontRegistered(families: ["Inter"]))
        #expect(reply.encoded() == [
            0x13, 0x00, 0x00, 0x00,  0x84, 0x00,  0x00, 0x00,  // frame: body length 19, type 0x84 (reply)
            0x04, 0x00, 0x00, 0x00,                              // request id 4
            0x0B, 0x00,                                          // kind 11 (font-registered)
            0x01, 0x00, 0x00, 0x00,                              // 1 family
            0x05, 0x00, 0x00, 0x00, 0x49, 0x6E, 0x74, 0x65, 0x72,  // "Inter"
        ])
        // A family count the rest of the body cannot hold is refused before anything is allocated.
        var bad = reply.encoded()
        bad.replaceSubrange(14..<18, with: [0xFF, 0xFF, 0xFF, 0x7F])
        let (type, body) = Self.split(bad)
        #expect(throws: MessageError.self) { try ServerMessage.decode(type: type, body: body) }
    }

    /// A client that said hello with 1.3 gets a presentation reply without the 1.4 key, and one
    /// of 1.6 without the 1.7 keys (blend, corners, filters, background filters, emitters, scroll and tiled layers, layout, drawing, rich text, app surfaces), so each can decode it.
    @Test func presentationForAnOlderClientLeavesNewerKeysOut() throws {
        for (minor, count) in [(UInt16(3), 68), (6, 69), (7, 104)] {
            let (_, body) = Self.split(ServerMessage.reply(id: 1, .presentation(LayerProperties(), minor: minor)).encoded())
            var r = ByteReader(body)
            _ = try r.u32("id"); _ = try r.u16("kind")
            #expect(try r.u32("count") == UInt32(count), "minor \(minor)")
        }
        #expect(PropertyKey.allCases.count == 104)
    }

    /// A 1.6 client's presentation reply leaves the emitter keys (1.7) out.
    @Test func presentationFor16LeavesEmitterKeysOut() throws {
        let (_, body) = Self.split(ServerMessage.reply(id: 1, .presentation(LayerProperties(), minor: 6)).encoded())
        var r = ByteReader(body)
        _ = try r.u32("id"); _ = try r.u16("kind")
        #expect(try r.u32("count") == 69)
    }

    /// Emitter cells round-trip through the wire, sub-cells included; deep nesting, too many
    /// cells and unknown fields are refused when decoded.
    @Test func emitterCellsOnTheWire() throws {
        var w = ByteWriter()
        w.value(.emitterCells([Self.sparkCell, EmitterCell(name: "plain")]))
        var r = ByteReader(w.bytes)
        #expect(try r.value(.emitterCells, "v") == .emitterCells([Self.sparkCell, EmitterCell(name: "plain")]))
        // Five levels deep: one more than EmitterCell.maximumDepth.
        var deep = EmitterCell(name: "5")
        for level in (1...4).reversed() {
            var c = EmitterCell(name: "\(level)")
            c.emitterCells = [deep]
            deep = c
        }
        var w2 = ByteWriter()
        w2.value(.emitterCells([deep]))
        var r2 = ByteReader(w2.bytes)
        #expect(throws: DecodeError.self) { try r2.value(.emitterCells, "v") }
        // An unknown field number.
        var r3 = ByteReader([1, 0, 0, 0, 1, 0, 0xFF, 0x00])
        #expect(throws: DecodeError.self) { try r3.value(.emitterCells, "v") }
    }

    // docs/protocol.md shows `display off Virtual-1` and its reply byte for byte.
    @Test func goldenBytesOfDisplayPower() throws {
        let request = ClientMessage.request(id: 5, .displayPower(on: false, output: "Virtual-1"))
        let expected: [UInt8] = [
            0x14, 0x00, 0x00, 0x00,  0x03, 0x00,  0x00, 0x00,  // frame: body length 20, type 3 (request), reserved 0
            0x05, 0x00, 0x00, 0x00,                              // request id 5
            0x08, 0x00,                                          // kind 8 (display-power)
            0x00,                                                // off
            0x09, 0x00, 0x00, 0x00, 0x56, 0x69, 0x72, 0x74, 0x75, 0x61, 0x6C, 0x2D, 0x31,  // "Virtual-1"
        ]
        #expect(request.encoded() == expected)
        let reply = ServerMessage.reply(id: 5, .displayPower(backend: "kms", outputs: [OutputPower(name: "Virtual-1", isOn: false)]))
        let expectedReply: [UInt8] = [
            0x1F, 0x00, 0x00, 0x00,  0x84, 0x00,  0x00, 0x00,  // frame: body length 31, type 0x84 (reply), reserved 0
            0x05, 0x00, 0x00, 0x00,                              // request id 5
            0x08, 0x00,                                          // kind 8 (display-power)
            0x03, 0x00, 0x00, 0x00, 0x6B, 0x6D, 0x73,            // backend "kms"
            0x01, 0x00, 0x00, 0x00,                              // 1 output
            0x09, 0x00, 0x00, 0x00, 0x56, 0x69, 0x72, 0x74, 0x75, 0x61, 0x6C, 0x2D, 0x31,  // "Virtual-1"
            0x00,                                                // off
        ]
        #expect(reply.encoded() == expectedReply)
        // An "on" byte other than 0 or 1 is malformed; the connection stays.
        var bad = expected
        bad[14] = 2
        let (type, body) = Self.split(bad)
        #expect(throws: MessageError.self) { try ClientMessage.decode(type: type, body: body) }
    }

    // docs/protocol.md, "Layer kinds" and "Values", shows these bytes.
    @Test func goldenBytesOfKindsListsAndPaths() {
        let commit = ClientMessage.commit(Commit(serial: 2, operations: [
            .create(LayerID(2), kind: .gradient),
            .set(LayerID(2), .locations, .numbers([0, 1])),
            .set(LayerID(2), .path, .path(Path([.moveTo(Point(x: 1, y: 2)), .closeSubpath]))),
        ]))
        let expected: [UInt8] = [
            0x46, 0x00, 0x00, 0x00,  0x02, 0x00,  0x00, 0x00,  // frame: body length 70, type 2 (commit)
            0x02, 0x00, 0x00, 0x00,                              // serial 2
            0x03, 0x00, 0x00, 0x00,                              // 3 operations
            0x0B, 0x02, 0x00, 0x00, 0x00, 0x01,                  // create #2, kind 1 (gradient)
            0x03, 0x02, 0x00, 0x00, 0x00, 0x26, 0x00,            // set #2 locations (key 38) …
            0x02, 0x00, 0x00, 0x00,                              // … 2 numbers
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,      // 0.0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,      // 1.0
            0x03, 0x02, 0x00, 0x00, 0x00, 0x2A, 0x00,            // set #2 path (key 42) …
            0x02, 0x00, 0x00, 0x00,                              // … 2 elements
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xF0, 0x3F,  // move to (1, …
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,      // … 2)
            0x04,                                                // close
        ]
        #expect(commit.encoded() == expected)
    }

    @Test func goldenBytesOfImageOperations() throws {
        let ops: [LaminaProtocol.Operation] = [
            .createImage(image: 5, ImageFormat(width: 2, height: 1, stride: 8, order: .bgra, alpha: .straight, offset: 0)),
            .set(LayerID(1), .contents, .image(5)),
            .updateImage(image: 5, PixelRect(x: 1, y: 0, width: 1, height: 1)),
            .destroyImage(image: 5),
        ]
        let commit = ClientMessage.commit(Commit(serial: 3, operations: ops))
        let expected: [UInt8] = [
            0x48, 0x00, 0x00, 0x00,  0x02, 0x00,  0x00, 0x00,  // frame: body length 72, type 2 (commit)
            0x03, 0x00, 0x00, 0x00,                              // serial 3
            0x04, 0x00, 0x00, 0x00,                              // 4 operations
            0x0C, 0x05, 0x00, 0x00, 0x00,                        // create-image #5 …
            0x02, 0x00, 0x00, 0x00,  0x01, 0x00, 0x00, 0x00,     // … 2 × 1 pixels
            0x08, 0x00, 0x00, 0x00,                              // … stride 8
            0x00, 0x01,                                          // … BGRA, straight alpha
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,      // … offset 0 (takes the frame's first descriptor)
            0x03, 0x01, 0x00, 0x00, 0x00, 0x1B, 0x00,            // set #1 contents (key 27) …
            0x05, 0x00, 0x00, 0x00,                              // … image 5
            0x0D, 0x05, 0x00, 0x00, 0x00,                        // update-image #5 …
            0x01, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,     // … x 1, y 0
            0x01, 0x00, 0x00, 0x00,  0x01, 0x00, 0x00, 0x00,     // … 1 × 1
            0x0E, 0x05, 0x00, 0x00, 0x00,                        // destroy-image #5
        ]
        #expect(commit.encoded() == expected)
        #expect(Commit(serial: 3, operations: ops).descriptorCount == 1)
        let decoded = try ClientMessage.decode(type: 2, body: ArraySlice(expected[8...]))
        #expect(decoded == commit)
        // Unknown pixel formats and alpha modes are refused by name.
        var bad = expected
        bad[33] = 2
        #expect(throws: MessageError.self) { try ClientMessage.decode(type: 2, body: ArraySlice(bad[8...])) }
        bad = expected
        bad[34] = 9
        #expect(throws: MessageError.self) { try ClientMessage.decode(type: 2, body: ArraySlice(bad[8...])) }
    }

    @Test func framesSurviveAnySplitOfTheStream() throws {
        let stream = Self.clientMessages.flatMap { $0.encoded() }
        for chunk in [1, 3, 7, 64, stream.count] {
            var d = FrameDecoder(limit: 1 << 20)
            var got: [ClientMessage] = []
            var i = 0
            while i < stream.count {
                d.append(Array(stream[i..<min(i + chunk, stream.count)]))
                i += chunk
                while let f = try d.next() { got.append(try ClientMessage.decode(type: f.type, body: f.body)) }
            }
            #expect(got == Self.clientMessages)
            #expect(d.bufferedCount == 0)
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        var name: String
        var type: UInt16
        var body: [UInt8]
        var expect: MessageError
        var testDescription: String { name }
    }

    static func body(_ m: ClientMessage) -> [UInt8] { Array(m.encoded().dropFirst(Frame.headerSize)) }

    static let malformed: [Malformed] = {
        let create = body(.commit(Commit(serial: 5, operations: [.create(LayerID(1))])))
        let setOpacity = body(.commit(Commit(serial: 6, operations: [.create(LayerID(1)), .set(LayerID(1), .opacity, .number(1))])))
        var unknownOpcode = create; unknownOpcode[8] = 99
        var unknownKey = setOpacity
        unknownKey[8 + 5 + 5] = 0xEE  // the property number's low byte of operation 1
        var badBool = body(.commit(Commit(serial: 7, operations: [.set(LayerID(1), .isHidden, .bool(true))])))
        badBool[badBool.count - 1] = 7
        var hugeCount = create; hugeCount[4] = 0xFF; hugeCount[5] = 0xFF; hugeCount[6] = 0xFF; hugeCount[7] = 0x7F
        var badColour = body(.commit(Commit(serial: 8, operations: [.set(LayerID(1), .backgroundColor, .color(.red))])))
        badColour.replaceSubrange((badColour.count - 8)..<badColour.count, with: withUnsafeBytes(of: (2.0).bitPattern.littleEndian, Array.init))
        var badKind = body(.commit(Commit(serial: 9, operations: [.create(LayerID(1), kind: .text)])))
        badKind[badKind.count - 1] = 42
        var longList = body(.commit(Commit(serial: 10, operations: [.set(LayerID(1), .locations, .numbers([]))])))
        longList.replaceSubrange((longList.count - 4)..<longList.count, with: [0x01, 0x04, 0x00, 0x00])  // 1025 entries
        var badUTF8 = body(.hello(Hello(clientName: "ab")))
        badUTF8[16] = 0xC3; badUTF8[17] = 0x28
        return [
            Malformed(name: "unknown message type", type: 0x77, body: [], expect: .unknownType(0x77)),
            Malformed(name: "truncated commit", type: 2, body: Array(create.dropLast(2)),
                      expect: .commit(serial: 5, operationIndex: -1, .invalid(field: "commit operation count", reason: "1 operations cannot fit in the 3 bytes that follow"))),
            Malformed(name: "truncated set value", type: 2, body: Array(setOpacity.dropLast(3)),
                      expect: .commit(serial: 6, operationIndex: 1, .truncated(field: "operation 1 value of 'opacity'"))),
            Malformed(name: "unknown opcode", type: 2, body: unknownOpcode,
                      expect: .commit(serial: 5, operationIndex: 0, .invalid(field: "operation 0 opcode", reason: "unknown opcode 99"))),
            Malformed(name: "unknown property", type: 2, body: unknownKey,
                      expect: .commit(serial: 6, operationIndex: 1, .invalid(field: "operation 1 property", reason: "unknown property number 238"))),
            Malformed(name: "bool that is 7", type: 2, body: badBool,
                      expect: .commit(serial: 7, operationIndex: 0, .invalid(field: "operation 0 value of 'hidden'", reason: "a bool must be 0 or 1, not 7"))),
            Malformed(name: "operation count larger than the body", type: 2, body: hugeCount,
                      expect: .commit(serial: 5, operationIndex: -1, .invalid(field: "commit operation count", reason: "2147483647 operations cannot fit in the 5 bytes that follow"))),
            Malformed(name: "colour component out of range", type: 2, body: badColour,
                      expect: .commit(serial: 8, operationIndex: 0, .invalid(field: "operation 0 value of 'backgroundColor'", reason: "colour components must be in [0, 1], got 2.0"))),
            Malformed(name: "unknown layer kind", type: 2, body: badKind,
                      expect: .commit(serial: 9, operationIndex: 0, .invalid(field: "operation 0 kind", reason: "unknown layer kind 42 (0–8)"))),
            Malformed(name: "list longer than the limit", type: 2, body: longList,
                      expect: .commit(serial: 10, operationIndex: 0, .invalid(field: "operation 0 value of 'locations'", reason: "a list of 1025 entries is longer than the limit of 1024"))),
            Malformed(name: "trailing bytes", type: 3, body: body(.request(id: 1, .tree)) + [0],
                      expect: .decode(.trailingBytes(count: 1))),
            Malformed(name: "unknown request kind", type: 3, body: [1, 0, 0, 0, 99, 0],
                      expect: .decode(.invalid(field: "request kind", reason: "unknown request kind 99"))),
            Malformed(name: "hello with a wrong magic", type: 1, body: [1, 2, 3, 4] + Array(body(.hello(Hello(clientName: "x"))).dropFirst(4)),
                      expect: .decode(.invalid(field: "hello magic", reason: "expected 0x4e4d414c (\"LAMN\"), got 0x4030201"))),
            Malformed(name: "client name not UTF-8", type: 1, body: badUTF8,
                      expect: .decode(.invalid(field: "hello client name", reason: "not valid UTF-8"))),
        ]
    }()

    @Test(arguments: malformed)
    func malformedMessagesAreNamed(_ m: Malformed) {
        #expect(throws: m.expect) { try ClientMessage.decode(type: m.type, body: m.body[...]) }
    }

    @Test func frameHeaderErrors() throws {
        var d = FrameDecoder(limit: 1024)
        d.append([0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00])  // 4096-byte body
        #expect(throws: FrameError.tooLarge(length: 4096, limit: 1024)) { try d.next() }
        var e = FrameDecoder(limit: 1024)
        e.append([0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x00])
        #expect(throws: FrameError.reservedBitsSet(1)) { try e.next() }
        var f = FrameDecoder(limit: 1024)
        f.append([0x04, 0x00, 0x00])
        #expect(try f.next() == nil)  // not a whole header yet
    }
}
