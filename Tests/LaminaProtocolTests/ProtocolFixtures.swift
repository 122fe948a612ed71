import LaminaCore
@testable import LaminaProtocol

/// The golden frames in protocol/fixtures/: each one a message encoded by this codec, so that
/// clients in other languages can check their encoders and decoders byte for byte
/// (clients/python/tests/test_fixtures.py does). `ProtocolFixtureTests` checks the files against
/// these values; `LAMINA_WRITE_PROTOCOL_FIXTURES=1 swift test --filter ProtocolFixtureTests`
/// writes them (and protocol/fixtures/index.json) after a deliberate change.
///
/// Fixtures are only ever added: a client's test names every fixture it knows, and a file that
/// changes under it means the wire changed.
enum ProtocolFixtures {
    enum Message: Sendable {
        case client(ClientMessage)
        case server(ServerMessage)
    }

    struct Fixture: Sendable {
        /// The file name without `.bin`.
        var name: String
        /// What the frame holds, for protocol/fixtures/index.json.
        var description: String
        var message: Message

        var direction: String {
            if case .client = message { "client" } else { "server" }
        }
        var bytes: [UInt8] {
            switch message {
            case .client(let m): m.encoded()
            case .server(let m): m.encoded()
            }
        }
        /// The SCM_RIGHTS descriptors the frame travels with (one per create-image).
        var descriptors: Int {
            if case .client(.commit(let c)) = message { c.descriptorCount } else { 0 }
        }

        /// The message as decoding gives it back: a presentation reply written for an older
        /// minor version decodes as this version's, the keys it lacks at their defaults.
        var decoded: Message {
            if case .server(.reply(let id, .presentation(let p, _))) = message { return .server(.reply(id: id, .presentation(p))) }
            return message
        }
    }

    static let fade = Animation.basic(BasicAnimation(keyPath: "opacity", from: .number(1), to: .number(0),
                                                     duration: 0.5, timingFunction: .easeIn))

    static let all: [Fixture] = client + server

    /// The emitter fixture's cell: a number, a colour, an image and a sub-cell with a bool.
    static let snowCell: EmitterCell = {
        var snow = EmitterCell(name: "snow")
        snow.birthRate = 10
        snow.lifetime = 2
        snow.color = Color(red: 1, green: 0.5, blue: 0, alpha: 1)
        snow.contents = 3
        var spark = EmitterCell(name: "spark")
        spark.velocity = 5
        spark.isEnabled = false
        snow.emitterCells = [spark]
        return snow
    }()

    static let client: [Fixture] = [
        Fixture(name: "hello", description: "hello: protocol 1.4, client name \"python-example\", session \"kiosk\", flags keep-layers",
                // The version is written out: a fixture never changes when the protocol grows.
                message: .client(.hello(Hello(major: 1, minor: 4, clientName: "python-example", session: "kiosk", flags: .keepLayers)))),
        Fixture(name: "commit-properties",
                description: "commit serial 1: create #1, create-kind #2 gradient, create-kind #3 shape, then one set of every value type "
                    + "(#1 bounds (0, 0, 100, 50), position (200, 300), backgroundColor (1, 0.5, 0, 1), opacity 0.5, "
                    + "transform [2,0,0,0, 0,3,0,0, 0,0,1,0, 10,20,0,1], masksToBounds true, name \"box\", shadowOffset (4, 5), "
                    + "contents image 7, mask layer #3; #2 colors [(1,0,0,1), (0,0,1,1)], locations [0, 0.25, 1], type \"radial\"; "
                    + "#3 path moveTo (0,0), lineTo (10,0), quadCurveTo (15,5) (10,10), curveTo (5,15) (0,15) (0,10), close), "
                    + "insert #1 into #0 at 0xFFFFFFFF, insert #2 into #1 at 0",
                message: .client(.commit(Commit(serial: 1, operations: [
                    .create(LayerID(1)),
                    .create(LayerID(2), kind: .gradient),
                    .create(LayerID(3), kind: .shape),
                    .set(LayerID(1), .bounds, .rect(Rect(x: 0, y: 0, width: 100, height: 50))),
                    .set(LayerID(1), .position, .point(Point(x: 200, y: 300))),
                    .set(LayerID(1), .backgroundColor, .color(Color(red: 1, green: 0.5, blue: 0, alpha: 1))),
                    .set(LayerID(1), .opacity, .number(0.5)),
                    .set(LayerID(1), .transform, .transform(Transform3D(rowMajor: [2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 1, 0, 10, 20, 0, 1])!)),
                    .set(LayerID(1), .masksToBounds, .bool(true)),
                    .set(LayerID(1), .name, .string("box")),
                    .set(LayerID(1), .shadowOffset, .size(Size(width: 4, height: 5))),
                    .set(LayerID(1), .contents, .image(7)),
                    .set(LayerID(1), .mask, .layer(3)),
                    .set(LayerID(2), .colors, .colors([Color(red: 1, green: 0, blue: 0, alpha: 1), Color(red: 0, green: 0, blue: 1, alpha: 1)])),
                    .set(LayerID(2), .locations, .numbers([0, 0.25, 1])),
                    .set(LayerID(2), .gradientType, .string("radial")),
                    .set(LayerID(3), .path, .path(Path([
                        .moveTo(Point(x: 0, y: 0)), .lineTo(Point(x: 10, y: 0)),
                        .quadCurveTo(control: Point(x: 15, y: 5), end: Point(x: 10, y: 10)),
                        .curveTo(control1: Point(x: 5, y: 15), control2: Point(x: 0, y: 15), end: Point(x: 0, y: 10)),
                        .closeSubpath,
                    ]))),
                    .insert(parent: .root, child: LayerID(1), index: .max),
                    .insert(parent: LayerID(1), child: LayerID(2), index: 0),
                ])))),
        Fixture(name: "commit-transaction",
                description: "commit serial 2: settings (duration 0.5, easeIn, disableActions, completion group 1), set #1 opacity 0, "
                    + "add-animation #1 key \"fade\" tag 1: basic opacity from 1 to 0, duration 0.5, easeIn "
                    + "(docs/protocol.md's worked example), remove-animation #1 \"old\", remove-all-animations #2, "
                    + "settings (defaults: 0.25 s, no timing function, actions on, no groups), set #2 opacity 1",
                message: .client(.commit(Commit(serial: 2, operations: [
                    .settings(TransactionSettings(duration: 0.5, timingFunction: .easeIn, disableActions: true, completionGroups: [1])),
                    .set(LayerID(1), .opacity, .number(0)),
                    .addAnimation(LayerID(1), key: "fade", tag: 1, fade),
                    .removeAnimation(LayerID(1), key: "old"),
                    .removeAllAnimations(LayerID(2)),
                    .settings(.default),
                    .set(LayerID(2), .opacity, .number(1)),
                ])))),
        Fixture(name: "commit-animations",
                description: "commit serial 3: add-animation #1 \"move\" tag 0: keyframe position, values (0,0) (100,0) (100,50), keyTimes "
                    + "[0, 0.5, 1], timingFunctions [easeIn, easeOut], calculationMode paced, duration 2, repeatCount 2, autoreverses, "
                    + "fillMode both; add-animation #1 \"bounce\" tag 2: spring position.x from 0 to 100, mass 2, stiffness 300, "
                    + "damping 20, initialVelocity 1, beginTime 1, removedOnCompletion false, fillMode forwards; add-animation #1 "
                    + "\"group\" tag 0: group (duration 3, repeatCount +infinity) of a basic cornerRadius by 10 (additive) and a "
                    + "basic transform to 3.14 (valueFunction rotateZ, speed 2, timeOffset 0.5, repeatDuration 4); add-animation "
                    + "#1 \"transition\" tag 0: transition push fromRight, startProgress 0.25, endProgress 1, duration 0.75; "
                    + "add-animation #1 \"along\" tag 0: keyframe position along a path moveTo (0,0) curveTo (10,0) (20,10) (20,20), "
                    + "rotationMode auto, calculationMode cubicPaced; set-action #1 actions \"opacity\" none; set-action #1 style "
                    + "\"position\" animation basic (empty key path, duration 1, easeOut); set-action #1 actions \"bounds\" inherit; "
                    + "destroy #4",
                message: .client(.commit(Commit(serial: 3, operations: [
                    .addAnimation(LayerID(1), key: "move", tag: 0, .keyframe(KeyframeAnimation(
                        keyPath: "position", values: [.point(Point(x: 0, y: 0)), .point(Point(x: 100, y: 0)), .point(Point(x: 100, y: 50))],
                        keyTimes: [0, 0.5, 1], timingFunctions: [.easeIn, .easeOut], calculationMode: .paced,
                        timing: MediaTiming(duration: 2, repeatCount: 2, autoreverses: true, fillMode: .both)))),
                    .addAnimation(LayerID(1), key: "bounce", tag: 2, .spring(SpringAnimation(
                        keyPath: "position.x", fromValue: .number(0), toValue: .number(100),
                        timing: MediaTiming(beginTime: 1, fillMode: .forwards), isRemovedOnCompletion: false,
                        mass: 2, stiffness: 300, damping: 20, initialVelocity: 1))),
                    .addAnimation(LayerID(1), key: "group", tag: 0, .group(AnimationGroup(
                        animations: [
                            .basic(BasicAnimation(keyPath: "cornerRadius", byValue: .number(10), isAdditive: true)),
                            .basic(BasicAnimation(keyPath: "transform", toValue: .number(3.14),
                                                  timing: MediaTiming(speed: 2, timeOffset: 0.5, repeatDuration: 4),
                                                  valueFunction: .rotateZ)),
                        ],
                        timing: MediaTiming(duration: 3, repeatCount: .infinity)))),
                    .addAnimation(LayerID(1), key: "transition", tag: 0, .transition(Transition(
                        type: .push, subtype: .fromRight, startProgress: 0.25, endProgress: 1, timing: MediaTiming(duration: 0.75)))),
                    .addAnimation(LayerID(1), key: "along", tag: 0, .keyframe(KeyframeAnimation(
                        keyPath: "position",
                        path: Path([.moveTo(Point(x: 0, y: 0)),
                                    .curveTo(control1: Point(x: 10, y: 0), control2: Point(x: 20, y: 10), end: Point(x: 20, y: 20))]),
                        calculationMode: .cubicPaced, rotationMode: .auto))),
                    .setAction(LayerID(1), dictionary: .actions, key: "opacity", .noAnimation),
                    .setAction(LayerID(1), dictionary: .style, key: "position",
                               .animation(.basic(BasicAnimation(keyPath: "", duration: 1, timingFunction: .easeOut)))),
                    .setAction(LayerID(1), dictionary: .actions, key: "bounds", .inherit),
                    .destroy(LayerID(4)),
                ])))),
        Fixture(name: "commit-images",
                description: "commit serial 3, sent with 1 file descriptor: create-image #5 (2 x 1, stride 8, BGRA, straight alpha, "
                    + "offset 0), set #1 contents image 5, update-image #5 (x 1, y 0, 1 x 1), destroy-image #5 "
                    + "(docs/protocol.md's worked example)",
                message: .client(.commit(Commit(serial: 3, operations: [
                    .createImage(image: 5, ImageFormat(width: 2, height: 1, stride: 8, order: .bgra, alpha: .straight, offset: 0)),
                    .set(LayerID(1), .contents, .image(5)),
                    .updateImage(image: 5, PixelRect(x: 1, y: 0, width: 1, height: 1)),
                    .destroyImage(image: 5),
                ])))),
        Fixture(name: "commit-remove", description: "commit serial 4: remove #2, set #2 hidden true, insert #2 into #1 at 3",
                message: .client(.commit(Commit(serial: 4, operations: [
                    .remove(LayerID(2)), .set(LayerID(2), .isHidden, .bool(true)), .insert(parent: LayerID(1), child: LayerID(2), index: 3),
                ])))),
        Fixture(name: "commit-emitter",
                description: "commit serial 5 (protocol 1.7): create-kind #4 emitter, emitterShape \"rectangle\", renderMode \"additive\", "
                    + "emitterSize (100, 20), seed 7, emitterCells [{name \"snow\", birthRate 10, lifetime 2, color (1, 0.5, 0, 1), "
                    + "contents image 3, emitterCells [{name \"spark\", velocity 5, enabled false}]}]",
                message: .client(.commit(Commit(serial: 5, operations: [
                    .create(LayerID(4), kind: .emitter),
                    .set(LayerID(4), .emitterShape, .string("rectangle")),
                    .set(LayerID(4), .renderMode, .string("additive")),
                    .set(LayerID(4), .emitterSize, .size(Size(width: 100, height: 20))),
                    .set(LayerID(4), .seed, .number(7)),
                    .set(LayerID(4), .emitterCells, .emitterCells([snowCell])),
                ])))),
        Fixture(name: "request-screenshot", description: "request id 1: screenshot",
                message: .client(.request(id: 1, .screenshot))),
        Fixture(name: "request-tree", description: "request id 2: tree",
                message: .client(.request(id: 2, .tree))),
        Fixture(name: "request-advance-clock", description: "request id 3: advance-clock by 0.25 s",
                message: .client(.request(id: 3, .advanceClock(seconds: 0.25)))),
        Fixture(name: "request-stats", description: "request id 4: stats",
                message: .client(.request(id: 4, .stats))),
        Fixture(name: "request-presentation", description: "request id 5: presentation of layer #1",
                message: .client(.request(id: 5, .presentation(LayerID(1))))),
        Fixture(name: "request-presentation-tree", description: "request id 6: presentation-tree",
                message: .client(.request(id: 6, .presentationTree))),
        Fixture(name: "request-watch", description: "request id 7: watch",
                message: .client(.request(id: 7, .watch))),
        Fixture(name: "request-display-power", description: "request id 8: display-power off, output \"Virtual-1\"",
                message: .client(.request(id: 8, .displayPower(on: false, output: "Virtual-1")))),
        Fixture(name: "request-snapshot", description: "request id 9: snapshot",
                message: .client(.request(id: 9, .snapshot))),
        Fixture(name: "request-inject-touch", description: "request id 10: inject-input touch down, touch 1 at (110, 220)",
                message: .client(.request(id: 10, .injectInput(.touchDown(id: 1, at: Point(x: 110, y: 220)))))),
        Fixture(name: "request-inject-key", description: "request id 11: inject-input key \"Return\" pressed",
                message: .client(.request(id: 11, .injectInput(.key(name: "Return", pressed: true))))),
        Fixture(name: "request-take-keyboard-focus", description: "request id 12: take-keyboard-focus",
                message: .client(.request(id: 12, .takeKeyboardFocus))),
        Fixture(name: "request-listen", description: "request id 13: listen to session \"kiosk\"",
                message: .client(.request(id: 13, .listen(session: "kiosk")))),
        Fixture(name: "request-register-font", description: "request id 14: register-font of 70 000 bytes (protocol 1.5; the frame carries one memory-file descriptor)",
                message: .client(.request(id: 14, .registerFont(byteCount: 70_000)))),
        Fixture(name: "request-output-list", description: "request id 15: output, no name, change none: list the outputs (protocol 1.7)",
                message: .client(.request(id: 15, .output(name: "", .none)))),
        Fixture(name: "request-output-mode", description: "request id 16: output \"headless\", change mode 800x600, refresh 0 (any) (protocol 1.7)",
                message: .client(.request(id: 16, .output(name: "headless", .mode(OutputMode(width: 800, height: 600)))))),
        Fixture(name: "request-output-transform", description: "request id 17: output \"HDMI-A-1\", change transform \"90\" (protocol 1.7)",
                message: .client(.request(id: 17, .output(name: "HDMI-A-1", .transform("90"))))),
        Fixture(name: "request-output-position", description: "request id 18: output \"HDMI-A-1\", change position 1920, 0 (protocol 1.7)",
                message: .client(.request(id: 18, .output(name: "HDMI-A-1", .position(x: 1920, y: 0))))),
        Fixture(name: "request-output-disable", description: "request id 19: output \"DP-1\", change disable (protocol 1.7)",
                message: .client(.request(id: 19, .output(name: "DP-1", .enabled(false))))),
        Fixture(name: "request-output-brightness", description: "request id 20: output \"eDP-1\", change brightness 40 % (protocol 1.7)",
                message: .client(.request(id: 20, .output(name: "eDP-1", .brightness(40))))),
        Fixture(name: "request-display-link",
                description: "request id 17: display-link 2, set, running, range minimum 20, maximum 60, preferred 30, output \"\" (the fastest) (protocol 1.7)",
                message: .client(.request(id: 17, .displayLink(link: 2, .set(isPaused: false, range: FrameRateRange(minimum: 20, maximum: 60, preferred: 30), output: ""))))),
        Fixture(name: "request-display-link-remove", description: "request id 18: display-link 2, remove (protocol 1.7)",
                message: .client(.request(id: 18, .displayLink(link: 2, .remove)))),
        Fixture(name: "request-manage-apps", description: "request id 21: manage-apps manage (protocol 1.7)",
                message: .client(.request(id: 21, .manageApps(.manage)))),
        Fixture(name: "request-manage-apps-focus", description: "request id 22: manage-apps focus app window 7 (protocol 1.7)",
                message: .client(.request(id: 22, .manageApps(.focus(app: 7))))),
        Fixture(name: "commit-app-surface",
                description: "commit serial 11 (protocol 1.7): set #1 appSurface 7, appSizing \"app\", appExitContents \"clear\"",
                message: .client(.commit(Commit(serial: 11, operations: [
                    .set(LayerID(1), .appSurface, .number(7)), .set(LayerID(1), .appSizing, .string("app")),
                    .set(LayerID(1), .appExitContents, .string("clear")),
                ])))),
        Fixture(name: "commit-video",
                description: "commit serial 9 (protocol 1.6): create-video image 5 \"/srv/clip.webm\", control-video 5 loop true, "
                    + "rate 2, seek 1.5, play, pause, then destroy-image 5",
                message: .client(.commit(Commit(serial: 9, operations: [
                    .createVideo(image: 5, uri: "/srv/clip.webm"), .controlVideo(image: 5, .loop(true)), .controlVideo(image: 5, .rate(2)),
                    .controlVideo(image: 5, .seek(seconds: 1.5)), .controlVideo(image: 5, .play), .controlVideo(image: 5, .pause),
                    .destroyImage(image: 5),
                ])))),
        Fixture(name: "commit-video-sound",
                description: "commit serial 10 (protocol 1.7): control-video 5 volume 0.5, muted true, muted false",
                message: .client(.commit(Commit(serial: 10, operations: [
                    .controlVideo(image: 5, .volume(0.5)), .controlVideo(image: 5, .muted(true)), .controlVideo(image: 5, .muted(false)),
                ])))),
        Fixture(name: "commit-layout",
                description: "commit serial 3 (protocol 1.7 layout): create #1, set #1 autoresizingMask 18 (widthSizable | heightSizable), "
                    + "set #1 constraints [midX = superlayer.midX × 1 + 0, minY = \"title\".maxY × 0.5 + 8]",
                message: .client(.commit(Commit(serial: 3, operations: [
                    .create(LayerID(1)),
                    .set(LayerID(1), .autoresizingMask, .number(18)),
                    .set(LayerID(1), .constraints, .constraints([
                        LayoutConstraint(attribute: .midX),
                        LayoutConstraint(attribute: .minY, relativeTo: "title", sourceAttribute: .maxY, scale: 0.5, offset: 8),
                    ])),
                ])))),
        Fixture(name: "commit-blend-corners",
                description: "commit serial 10 (protocol 1.7): set #1 compositingFilter \"multiplyBlendMode\", "
                    + "set #1 cornerCurve \"continuous\", set #2 compositingFilter \"\" (none)",
                message: .client(.commit(Commit(serial: 10, operations: [
                    .set(LayerID(1), .compositingFilter, .string("multiplyBlendMode")),
                    .set(LayerID(1), .cornerCurve, .string("continuous")),
                    .set(LayerID(2), .compositingFilter, .string("")),
                ])))),
        Fixture(name: "commit-scroll-layer",
                description: "commit serial 10 (protocol 1.7): create-kind #4 scroll, set #4 scrollMode \"vertically\", "
                    + "scrollsOnTouch true, scrollContentSize (320, 2000), pagingEnabled true, bounds (0, 120, 320, 240)",
                message: .client(.commit(Commit(serial: 10, operations: [
                    .create(LayerID(4), kind: .scroll), .set(LayerID(4), .scrollMode, .string("vertically")),
                    .set(LayerID(4), .scrollsOnTouch, .bool(true)),
                    .set(LayerID(4), .scrollContentSize, .size(Size(width: 320, height: 2000))),
                    .set(LayerID(4), .pagingEnabled, .bool(true)),
                    .set(LayerID(4), .bounds, .rect(Rect(x: 0, y: 120, width: 320, height: 240))),
                ])))),
        Fixture(name: "commit-tiled-layer",
                description: "commit serial 12 (protocol 1.7): create-kind #5 tiled, set #5 tileSize (512, 256), "
                    + "levelsOfDetail 4, levelsOfDetailBias 2, tileFadeDuration 0.5, supply-tile #5 level -1 column 3 "
                    + "row 7 image 9, drop-tiles #5",
                message: .client(.commit(Commit(serial: 12, operations: [
                    .create(LayerID(5), kind: .tiled), .set(LayerID(5), .tileSize, .size(Size(width: 512, height: 256))),
                    .set(LayerID(5), .levelsOfDetail, .number(4)), .set(LayerID(5), .levelsOfDetailBias, .number(2)),
                    .set(LayerID(5), .tileFadeDuration, .number(0.5)),
                    .supplyTile(LayerID(5), level: -1, column: 3, row: 7, image: 9), .dropTiles(LayerID(5)),
                ])))),
        Fixture(name: "commit-encoded-images",
                description: "commit serial 13 (protocol 1.7): create-encoded-image 7 SVG 1234 bytes, "
                    + "create-encoded-image 8 GIF 56 bytes, create-encoded-image 9 WebP 78 bytes (each with a memory file)",
                message: .client(.commit(Commit(serial: 13, operations: [
                    .createEncodedImage(image: 7, .svg, byteCount: 1234), .createEncodedImage(image: 8, .gif, byteCount: 56),
                    .createEncodedImage(image: 9, .webp, byteCount: 78),
                ])))),
        Fixture(name: "tiles-wanted",
                description: "tiles-wanted (protocol 1.7): layer #5, level 2, tiles (0, 1) at (0, 1024, 2048, 1024) "
                    + "and (1, 1) at (2048, 1024, 2048, 1024)",
                message: .server(.tilesWanted(TilesWanted(layer: LayerID(5), level: 2, tiles: [
                    TilesWanted.Tile(column: 0, row: 1, rect: Rect(x: 0, y: 1024, width: 2048, height: 1024)),
                    TilesWanted.Tile(column: 1, row: 1, rect: Rect(x: 2048, y: 1024, width: 2048, height: 1024)),
                ])))),
        Fixture(name: "commit-filters",
                description: "commit serial 11 (protocol 1.7): set #1 filters [gaussianBlur \"soft\" inputRadius 8, "
                    + "saturate \"grey\" inputAmount 0.5, invert \"neg\", colorMatrix \"swap\" inputMatrix "
                    + "(R ← G, G ← R, B, A; bias 0.1 on blue)]",
                message: .client(.commit(Commit(serial: 11, operations: [
                    .set(LayerID(1), .filters, .filters([
                        .gaussianBlur("soft", radius: 8), .amount("grey", .saturate, 0.5), LayerFilter(name: "neg", type: .invert),
                        .colorMatrix("swap", [0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.1, 0]),
                    ])),
                ])))),
        Fixture(name: "commit-background-filters",
                description: "commit serial 12 (protocol 1.7): set #1 backgroundFilters [gaussianBlur \"frost\" inputRadius 12, "
                    + "saturate \"pale\" inputAmount 1.5]",
                message: .client(.commit(Commit(serial: 12, operations: [
                    .set(LayerID(1), .backgroundFilters, .filters([.gaussianBlur("frost", radius: 12), .amount("pale", .saturate, 1.5)])),
                ])))),
        Fixture(name: "commit-drawing",
                description: "commit serial 12 (protocol 1.7): set #1 drawing [setFillColor (1, 0, 0, 1), fillRect (0, 0, 10, 10), "
                    + "addPath \"M 0 0 L 10 10\", setLineWidth 2, strokePath, showText at (2, 14) size 12 \"Hi\" font \"Helvetica\"]",
                message: .client(.commit(Commit(serial: 12, operations: [
                    .set(LayerID(1), .drawing, .drawing(Drawing([
                        DrawingCommand(.setFillColor, [1, 0, 0, 1]), DrawingCommand(.fillRect, [0, 0, 10, 10]),
                        DrawingCommand(.addPath, [], ["M 0 0 L 10 10"]), DrawingCommand(.setLineWidth, [2]),
                        DrawingCommand(.strokePath), DrawingCommand(.showText, [2, 14, 12], ["Hi", "Helvetica"]),
                    ]))),
                ])))),
        Fixture(name: "commit-attributed-string",
                description: "commit serial 12 (protocol 1.7): set #1 attributedString [\"Sale \" weight 700 colour #FF0000, "
                    + "\"today\" font \"DejaVu Serif\" size 20 italic underline strikethrough, background #FFFF0080, kerning 1.5, "
                    + "baselineOffset -2, \"😀\"], set #1 lineSpacing 4",
                message: .client(.commit(Commit(serial: 12, operations: [
                    .set(LayerID(1), .attributedString, .attributedString([
                        TextRun("Sale ", weight: 700, color: .red),
                        TextRun("today", font: "DejaVu Serif", fontSize: 20, italic: true,
                                backgroundColor: Color(red: 1, green: 1, blue: 0, alpha: 128.0 / 255), underline: true,
                                strikethrough: true, kerning: 1.5, baselineOffset: -2),
                        TextRun("😀"),
                    ])),
                    .set(LayerID(1), .lineSpacing, .number(4)),
                ])))),
    ]

    static let server: [Fixture] = [
        Fixture(name: "welcome", description: "welcome: protocol 1.4, client 3, display 320 x 240, virtual clock at 12.5 s, empty snapshot",
                message: .server(.welcome(Welcome(major: 1, minor: 4, clientID: 3, displayWidth: 320, displayHeight: 240, clock: .virtual, time: 12.5)))),
        Fixture(name: "applied", description: "applied: commit serial 7",
                message: .server(.applied(serial: 7))),
        Fixture(name: "error", description: "error invalid-property (10) about commit serial 7, operation 2, message "
                    + "\"layer #1 property 'opacity' must be finite (got NaN or infinity)\"",
                message: .server(.error(ErrorMessage(code: .invalidProperty, subject: .commit, serial: 7, operationIndex: 2,
                                                     message: "layer #1 property 'opacity' must be finite (got NaN or infinity)")))),
        Fixture(name: "error-request", description: "error permission-denied (20) about request id 4, no operation (-1), message \"screenshot: uid 1000 is not privileged\"",
                message: .server(.error(ErrorMessage(code: .permissionDenied, subject: .request, serial: 4, operationIndex: -1,
                                                     message: "screenshot: uid 1000 is not privileged")))),
        Fixture(name: "reply-screenshot", description: "reply to request 1: screenshot 2 x 1, RGBA pixels (255, 0, 0, 255) (0, 128, 255, 255)",
                message: .server(.reply(id: 1, .screenshot(Bitmap(width: 2, height: 1, bytes: [255, 0, 0, 255, 0, 128, 255, 255])!)))),
        Fixture(name: "reply-tree", description: "reply to request 2: tree JSON {\"display\":{\"width\":320,\"height\":240},\"clients\":[]}",
                message: .server(.reply(id: 2, .tree("{\"display\":{\"width\":320,\"height\":240},\"clients\":[]}")))),
        Fixture(name: "reply-advance-clock", description: "reply to request 3: advanced to time 1.5, 90 frames rendered",
                message: .server(.reply(id: 3, .advanced(time: 1.5, framesRendered: 90)))),
        Fixture(name: "reply-stats", description: "reply to request 4: stats frames = 3, layers = 10",
                message: .server(.reply(id: 4, .stats([Statistic(name: "frames", value: 3), Statistic(name: "layers", value: 10)])))),
        Fixture(name: "reply-presentation",
                description: "reply to request 5: presentation of every property (1-73, in order) with the defaults except "
                    + "bounds (0, 0, 40, 40), position (100, 100), opacity 0.25, backgroundColor (1, 1, 1, 1), name \"box\", "
                    + "hidden true, colors [(1, 0, 0, 1)], path moveTo (1, 2) close, mask 3, contents 5",
                // Written for 1.6 (the version is written out: a fixture never changes when the
                // protocol grows); it decodes with 1.7's later keys at their defaults.
                message: .server(.reply(id: 5, .presentation(presentationSample, minor: 6)))),
        Fixture(name: "reply-watching", description: "reply to request 7: watching (acknowledges watch or listen)",
                message: .server(.reply(id: 7, .watching))),
        Fixture(name: "reply-display-power", description: "reply to request 8: display-power backend \"kms\", outputs \"Virtual-1\" off",
                message: .server(.reply(id: 8, .displayPower(backend: "kms", outputs: [OutputPower(name: "Virtual-1", isOn: false)])))),
        Fixture(name: "reply-snapshot", description: "reply to request 9: snapshot create #2, set #2 opacity 0.25, insert #2 into #0 at 0",
                message: .server(.reply(id: 9, .snapshot([.create(LayerID(2)), .set(LayerID(2), .opacity, .number(0.25)),
                                                          .insert(parent: .root, child: LayerID(2), index: 0)])))),
        Fixture(name: "reply-done", description: "reply to request 10: done",
                message: .server(.reply(id: 10, .done))),
        Fixture(name: "reply-font-registered", description: "reply to request 14: font-registered, families [\"Inter\"] (protocol 1.5)",
                message: .server(.reply(id: 14, .fontRegistered(families: ["Inter"])))),
        Fixture(name: "reply-outputs",
                description: "reply to request 16: outputs, backend \"kms\", one output \"Virtual-1\" at (0, 0) 640x400 points, scale 2, "
                    + "transform \"90\", mode 800x1280@60, on, modes 800x1280@60 and 1024x768@59.94 (protocol 1.7)",
                message: .server(.reply(id: 16, .outputs(backend: "kms", [
                    OutputState(name: "Virtual-1", frame: Rect(x: 0, y: 0, width: 640, height: 400), scale: 2, transform: "90",
                                mode: OutputMode(width: 800, height: 1280, refresh: 60), modes: [
                                    OutputMode(width: 800, height: 1280, refresh: 60), OutputMode(width: 1024, height: 768, refresh: 59.94),
                                ], isOn: true),
                ])))),
        Fixture(name: "animation-started", description: "animation-event: layer #1, tag 1, did start",
                message: .server(.animationEvent(AnimationNotice(layer: LayerID(1), tag: 1, started: true, finished: false)))),
        Fixture(name: "animation-stopped", description: "animation-event: layer #1, tag 1, did stop, finished",
                message: .server(.animationEvent(AnimationNotice(layer: LayerID(1), tag: 1, started: false, finished: true)))),
        Fixture(name: "transaction-completed", description: "transaction-completed: completion group 1",
                message: .server(.transactionCompleted(group: 1))),
        Fixture(name: "watch", description: "watch line {\"event\":\"commit\",\"client\":1,\"serial\":7,\"operations\":12,\"time\":2.5}",
                message: .server(.watch("{\"event\":\"commit\",\"client\":1,\"serial\":7,\"operations\":12,\"time\":2.5}"))),
        Fixture(name: "clock", description: "clock: the virtual clock moved to 2.5 s (protocol 1.5)",
                message: .server(.clock(time: 2.5))),
        Fixture(name: "video-ready", description: "video: image 5 ready, 64 x 48, duration 3 s (protocol 1.6)",
                message: .server(.video(image: 5, .ready(width: 64, height: 48, duration: 3)))),
        Fixture(name: "video-ended", description: "video: image 5 ended (protocol 1.6)",
                message: .server(.video(image: 5, .ended))),
        Fixture(name: "video-error", description: "video: image 6 error \"no such file\" (protocol 1.6)",
                message: .server(.video(image: 6, .error("no such file")))),
        Fixture(name: "scroll-began", description: "scroll: layer #4 began by touch at offset (0, 120), at rest, time 1.5 (protocol 1.7)",
                message: .server(.scroll(ScrollEvent(layer: LayerID(4), phase: .began, source: .touch, offset: Point(x: 0, y: 120), time: 1.5)))),
        Fixture(name: "scroll-moved",
                description: "scroll: layer #4 moved by touch to offset (0, 180.5), velocity (0, 1200) points per second, time 1.75 (protocol 1.7)",
                message: .server(.scroll(ScrollEvent(layer: LayerID(4), phase: .moved, source: .touch, offset: Point(x: 0, y: 180.5),
                                                     velocity: Point(x: 0, y: 1200), time: 1.75)))),
        Fixture(name: "scroll-ended", description: "scroll: layer #4 ended (wheel) at offset (0, 480), time 2.25 (protocol 1.7)",
                message: .server(.scroll(ScrollEvent(layer: LayerID(4), phase: .ended, source: .wheel, offset: Point(x: 0, y: 480), time: 2.25)))),
        Fixture(name: "display-changed",
                description: "display-changed: desktop 1824x600; \"DP-1\" at (0, 0) 800x600, scale 1, \"normal\", 60 Hz; "
                    + "\"HDMI-A-1\" at (800, 0) 1024x576, scale 1.875, \"flipped-270\", 50 Hz (protocol 1.7)",
                message: .server(.displayChanged(DisplayLayout(width: 1824, height: 600, outputs: [
                    DisplayLayout.Output(name: "DP-1", frame: Rect(x: 0, y: 0, width: 800, height: 600), refresh: 60),
                    DisplayLayout.Output(name: "HDMI-A-1", frame: Rect(x: 800, y: 0, width: 1024, height: 576), scale: 1.875,
                                         transform: "flipped-270", refresh: 50),
                ])))),
        Fixture(name: "app-surface-appeared",
                description: "app-surface: appeared, window 7, app id \"foot\", title \"foot\", pid 4242, 1280x720 points (protocol 1.7)",
                message: .server(.appSurface(AppSurfaceEvent(kind: .appeared, id: 7, appID: "foot", title: "foot", pid: 4242,
                                                             width: 1280, height: 720)))),
        Fixture(name: "app-surface-gone",
                description: "app-surface: gone, window 7, app id \"foot\", title \"foot\", pid 4242, 1280x720 points, reason exited (protocol 1.7)",
                message: .server(.appSurface(AppSurfaceEvent(kind: .gone, id: 7, appID: "foot", title: "foot", pid: 4242,
                                                             width: 1280, height: 720, reason: .exited)))),
        Fixture(name: "frame",
                description: "frame: links 1 and 3 fire; timestamp 1.5, target 1.5 + 1/60, duration 1/60 (protocol 1.7)",
                message: .server(.frame(DisplayLinkFrame(links: [1, 3], timestamp: 1.5, targetTimestamp: 1.5 + 1.0 / 60, duration: 1.0 / 60)))),
        Fixture(name: "input-touch-down",
                description: "input: touch down, injected, layer #3, touch 1, location (10, 20), screen (110, 220), time 1.5 "
                    + "(docs/protocol.md's worked example)",
                message: .server(.input(InputEvent(kind: .touchDown, injected: true, layer: LayerID(3), id: 1,
                                                   location: Point(x: 10, y: 20), screen: Point(x: 110, y: 220), time: 1.5)))),
        Fixture(name: "input-key-press",
                description: "input: key press, layer #0, key code 30, time 2, device time 1.25, keysym 0x61, name \"a\", text \"a\"",
                message: .server(.input(InputEvent(kind: .keyPress, id: 30, time: 2, deviceTime: 1.25,
                                                   keysym: 0x61, keyName: "a", text: "a")))),
        Fixture(name: "input-scroll",
                description: "input: scroll, layer #9, location (1, 2), screen (3, 4), time 5, device time 6, delta (0, -15)",
                message: .server(.input(InputEvent(kind: .scroll, layer: LayerID(9), location: Point(x: 1, y: 2), screen: Point(x: 3, y: 4),
                                                   time: 5, deviceTime: 6, delta: Point(x: 0, y: -15))))),
        Fixture(name: "reply-presentation-1.7",
                description: "reply to request 5 (protocol 1.7): presentation of every property (1-71, in order) with the "
                    + "defaults except bounds (0, 0, 40, 40), compositingFilter \"screenBlendMode\", cornerCurve \"continuous\"",
                message: .server(.reply(id: 5, .presentation(presentationSample17, minor: 7)))),
    ]

    static var presentationSample17: LayerProperties {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        p.compositingFilter = .screen
        p.cornerCurve = .continuous
        return p
    }

    static var presentationSample: LayerProperties {
        var p = LayerProperties()
        p.bounds = Rect(x: 0, y: 0, width: 40, height: 40)
        p.position = Point(x: 100, y: 100)
        p.opacity = 0.25
        p.backgroundColor = Color(red: 1, green: 1, blue: 1, alpha: 1)
        p.name = "box"
        p.isHidden = true
        p.colors = [Color(red: 1, green: 0, blue: 0, alpha: 1)]
        p.path = Path([.moveTo(Point(x: 1, y: 2)), .closeSubpath])
        p.mask = 3
        p.contents = 5
        return p
    }
}
