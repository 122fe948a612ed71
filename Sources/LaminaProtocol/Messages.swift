import LaminaCore

/// The protocol version this build speaks. A server accepts a client with the same major version.
public enum ProtocolVersion {
    public static let major: UInt16 = 1
    public static let minor: UInt16 = 7
    /// "LAMN" as a little-endian u32: the first field of a hello, so a stray connection that
    /// speaks something else is recognised at once.
    public static let magic: UInt32 = 0x4E4D_414C
}

/// One step of a commit. A commit's operations apply in order, all or none. The cases that
/// carry an animation are boxed (`indirect`), so an operation takes ~140 bytes, not ~630.
public enum Operation: Hashable, Sendable {
    /// Creates a layer of `kind` with Core Animation's default properties, not yet in any tree.
    /// On the wire a plain layer is opcode 1 and any other kind opcode 11, which adds the kind.
    case create(LayerID, kind: LayerKind = .layer)
    /// Destroys a layer; it leaves its superlayer and its sublayers become detached.
    case destroy(LayerID)
    /// Sets one property.
    case set(LayerID, PropertyKey, PropertyValue)
    /// Inserts `child` into `parent`'s sublayers at `index` (`UInt32.max`: at the end; an index
    /// past the end appends too). A child already in a tree is moved.
    case insert(parent: LayerID, child: LayerID, index: UInt32)
    /// Removes the layer from its superlayer (`removeFromSuperlayer`). It still exists.
    case remove(LayerID)
    /// `addAnimation:forKey:`. An empty key adds an unkeyed animation. `tag` (0 for none) is the
    /// client's number for the animation: its start and stop events carry it.
    indirect case addAnimation(LayerID, key: String, tag: UInt32, Animation)
    /// `removeAnimationForKey:`.
    case removeAnimation(LayerID, key: String)
    /// `removeAllAnimations`.
    case removeAllAnimations(LayerID)
    /// Sets (or with `.inherit`, clears) the entry for `key` in the layer's `actions` dictionary
    /// or its `style["actions"]`.
    indirect case setAction(LayerID, dictionary: ActionDictionary, key: String, Action)
    /// The transaction settings for the operations that follow, until the next settings
    /// operation (a nested `CATransaction` with its own settings).
    case settings(TransactionSettings)
    /// Creates the client's image `image` (a number the client chooses, not 0) from the memory
    /// file sent with the commit's frame (SCM_RIGHTS; one descriptor per create-image, in order).
    case createImage(image: UInt32, ImageFormat)
    /// The client rewrote `rect` of the image's memory: the server copies that region again.
    case updateImage(image: UInt32, PixelRect)
    /// Destroys the client's image; layers whose `contents` name it draw no contents.
    case destroyImage(image: UInt32)
    /// Creates a video (protocol 1.6) whose pictures are the client's image `image` (a number of
    /// the same space as create-image's): a layer whose `contents` names it shows the current
    /// frame, with everything that applies to contents. `uri` is an absolute path on laminad's
    /// machine or a URI (`file://`, `http://`, …) GStreamer can read. The video starts paused at
    /// 0, rate 1, not looping; destroy-image of the number stops and frees it.
    case createVideo(image: UInt32, uri: String)
    /// Plays, pauses, seeks, sets the rate of, or loops a video (protocol 1.6).
    case controlVideo(image: UInt32, VideoControl)
    /// Supplies a tile of a tiled layer (protocol 1.7): image `image` (made by create-image,
    /// exactly `tileSize` pixels) becomes the tile at `column`, `row` of level `level` (0 full
    /// resolution, 1 half, −1 twice, …). laminad takes the pixels into the layer's tile cache:
    /// the image stays the client's to destroy (its tile keeps them).
    case supplyTile(LayerID, level: Int32, column: UInt32, row: UInt32, image: UInt32)
    /// Drops every tile of a tiled layer (protocol 1.7; `CATiledLayer`'s `setNeedsDisplay`):
    /// laminad asks again for the tiles in view.
    case dropTiles(LayerID)
    /// Creates the client's image `image` from an encoded file (protocol 1.7): the first
    /// `byteCount` bytes of the memory file sent with the commit's frame (one descriptor, in
    /// order with create-image's). laminad keeps an SVG document and draws it at the scale it is
    /// shown, like a drawing; it decodes a GIF or WebP, animated or still, and plays its frames
    /// on its clock from the commit that made it.
    case createEncodedImage(image: UInt32, EncodedImageFormat, byteCount: UInt64)

    /// The number of memory-file descriptors the operation takes from its frame.
    public var descriptorCount: Int {
        switch self {
        case .createImage, .createEncodedImage: 1
        default: 0
        }
    }

    /// The opcode on the wire.
    public var opcode: UInt8 {
        switch self {
        case .create(_, let kind): kind == .layer ? 1 : 11
        case .destroy: 2
        case .set: 3
        case .insert: 4
        case .remove: 5
        case .addAnimation: 6
        case .removeAnimation: 7
        case .removeAllAnimations: 8
        case .setAction: 9
        case .settings: 10
        case .createImage: 12
        case .updateImage: 13
        case .destroyImage: 14
        case .createVideo: 16
        case .controlVideo: 17
        case .supplyTile: 18
        case .dropTiles: 19
        case .createEncodedImage: 20
        }
    }
}

/// The file format of create-encoded-image's bytes (protocol 1.7), a u8 on the wire.
public enum EncodedImageFormat: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// An SVG document (librsvg), drawn by laminad at the scale it is shown.
    case svg = 0
    /// A GIF, animated or still (giflib).
    case gif = 1
    /// A WebP, animated or still (libwebp).
    case webp = 2

    public var description: String {
        switch self {
        case .svg: "SVG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }
}

/// What control-video does to a video (protocol 1.6; volume and muted 1.7). The wire form is a
/// u8 kind (the raw value) and, for seek, rate and volume, an f64; for loop and muted, a u8 boolean.
public enum VideoControl: Hashable, Sendable {
    /// Media time advances with the server's clock (times the rate).
    case play
    /// Media time stands still; the current frame stays.
    case pause
    /// Shows the frame at this media time (seconds, finite, ≥ 0; past the end: the last frame).
    case seek(seconds: Double)
    /// Media seconds per clock second: finite, > 0 and ≤ 16.
    case rate(Double)
    /// Whether playing past the end starts again from 0.
    case loop(Bool)
    /// The sound's gain: finite, 0 (silent) to 1 (as recorded, the default). Protocol 1.7.
    case volume(Double)
    /// Whether the sound is off (the volume is kept for when it is on again). Protocol 1.7.
    case muted(Bool)

    public var kind: UInt8 {
        switch self {
        case .play: 0
        case .pause: 1
        case .seek: 2
        case .rate: 3
        case .loop: 4
        case .volume: 5
        case .muted: 6
        }
    }
}

/// What the server tells a video's client (protocol 1.6, server message 0x8A).
public enum VideoEvent: Hashable, Sendable {
    /// The first picture is decoded: its size in pixels and the media's length in seconds
    /// (nil, -1 on the wire: unknown, such as a live stream).
    case ready(width: UInt32, height: UInt32, duration: Double?)
    case playing
    case paused
    /// Media time reached the end of a video that does not loop; the last frame stays.
    case ended
    /// The video cannot be played (GStreamer's message, or laminad's); it shows no new frames.
    case error(String)

    public var kind: UInt8 {
        switch self {
        case .ready: 0
        case .playing: 1
        case .paused: 2
        case .ended: 3
        case .error: 4
        }
    }
}

/// Which of a layer's action dictionaries a `setAction` changes.
public enum ActionDictionary: UInt8, Hashable, Sendable {
    /// `CALayer.actions`, searched first.
    case actions = 0
    /// `style["actions"]`, searched second.
    case style = 1
}

/// An entry of an action dictionary.
public enum Action: Hashable, Sendable {
    /// No entry: the search goes on to the next dictionary, then the default.
    case inherit
    /// A null entry (`NSNull`): the search ends with no animation. (Not spelled `.none`: in an
    /// `Action?` that would read as `nil`, which means "keep searching".)
    case noAnimation
    /// Run this animation: its key path defaults to the changed key, and a basic animation with
    /// no from, to or by value runs from the old presentation value to the new model value.
    case animation(Animation)
}

/// `CATransaction`'s settings, in force for the operations after them in a commit.
public struct TransactionSettings: Hashable, Sendable {
    /// `animationDuration`: for implicit animations, and explicit ones whose duration is 0.
    public var duration: Double
    /// `animationTimingFunction`; nil: implicit animations use the `default` curve.
    public var timingFunction: TimingFunction?
    /// `disableActions`: property changes do not look up actions.
    public var disableActions: Bool
    /// The completion groups the following animations join: one per open transaction that has
    /// a completion block. laminad reports `transactionCompleted` for a group once every
    /// animation in it has finished or been removed (at once when it has none).
    public var completionGroups: [UInt32]

    public init(duration: Double = 0.25, timingFunction: TimingFunction? = nil, disableActions: Bool = false,
                completionGroups: [UInt32] = []) {
        self.duration = duration
        self.timingFunction = timingFunction
        self.disableActions = disableActions
        self.completionGroups = completionGroups
    }

    public static let `default` = TransactionSettings()
}

/// Flags a client sends in its hello.
public struct HelloFlags: OptionSet, Hashable, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Keep this session's layers on screen after the connection closes, so a later client that
    /// says hello with the same session name takes them over (laminactl, a kiosk client that
    /// restarts). Without it, a client's layers go when it does.
    public static let keepLayers = HelloFlags(rawValue: 1)
}

/// The first message a client sends.
public struct Hello: Hashable, Sendable {
    public var major: UInt16
    public var minor: UInt16
    /// A name for logs and `stats`.
    public var clientName: String
    /// An optional session name (see `HelloFlags.keepLayers`); empty for none.
    public var session: String
    public var flags: HelloFlags

    public init(major: UInt16 = ProtocolVersion.major, minor: UInt16 = ProtocolVersion.minor,
                clientName: String, session: String = "", flags: HelloFlags = []) {
        self.major = major
        self.minor = minor
        self.clientName = clientName
        self.session = session
        self.flags = flags
    }
}

/// A transaction: operations that become visible together in one frame, or not at all.
public struct Commit: Hashable, Sendable {
    /// Chosen by the client; echoed in the `applied` or `error` answer.
    public var serial: UInt32
    public var operations: [Operation]
    public init(serial: UInt32, operations: [Operation]) {
        self.serial = serial
        self.operations = operations
    }

    /// The descriptors the commit's frame must carry: one per create-image.
    public var descriptorCount: Int { operations.reduce(0) { $0 + $1.descriptorCount } }
}

/// A control request; each gets exactly one reply or error with the same request id.
public enum Request: Hashable, Sendable {
    /// The pixels now on the display.
    case screenshot
    /// The model tree of every client, as JSON.
    case tree
    /// Moves the virtual clock forward and renders exactly the frame at the new time.
    case advanceClock(seconds: Double)
    /// Counters: frames, commits, clients, layers, last frame time.
    case stats
    /// The presentation values of one of this client's layers on screen now (`layer.presentation()`).
    case presentation(LayerID)
    /// The model tree with each animated layer's presentation values beside its model values.
    case presentationTree
    /// Streams every client's animation and transaction events to this connection as `watch`
    /// messages, from now until it closes.
    case watch
    /// Turns displays off (blanked: the CRTC is disabled) or back on: the output named, or
    /// every output when `output` is empty (`laminactl display off|on [OUTPUT]`).
    case displayPower(on: Bool, output: String)
    /// This client's own tree as laminad holds it: the operations that rebuild it, then an
    /// add-animation for each explicit animation on it (protocol 1.3). A client resynchronises
    /// its model with it after a refused commit.
    case snapshot
    /// Feeds an input event through laminad's routing as if a device had sent it; the event
    /// its receiver gets is marked injected (`laminactl input`, protocol 1.4).
    case injectInput(InputInjection)
    /// Gives this client the keyboard focus: key events go to it until another client takes
    /// the focus or receives a press (protocol 1.4).
    case takeKeyboardFocus
    /// Streams the input events laminad delivers to the layers of kept session `session` to
    /// this connection as `watch` lines (`laminactl events`), from now until it closes.
    /// Allowed to the session's owner and to privileged peers (protocol 1.4).
    case listen(session: String)
    /// Registers a font file for text layers: its first `byteCount` bytes are in the memory
    /// file the frame carries (SCM_RIGHTS, one descriptor). Answered with the font's family
    /// names, which text layers then name in `font` (protocol 1.5).
    case registerFont(byteCount: UInt64)
    /// Lists the outputs, or changes the one named (protocol 1.7, `laminactl output`): `name`
    /// is empty with `.none` to list them all.
    case output(name: String, OutputChange)
    /// Creates, updates or removes one of the client's display links (protocol 1.7): laminad
    /// sends `frame` messages while one of them runs. Answered by `done`.
    case displayLink(link: UInt32, DisplayLinkChange)
    /// Manages the Wayland apps laminad hosts, or stops; focuses or closes one (protocol 1.7,
    /// privileged). Answered by `done`; a client that starts managing then gets an `app-surface`
    /// appeared event for each window there is.
    case manageApps(AppsRequest)

    /// The number of memory-file descriptors the request takes from its frame.
    public var descriptorCount: Int { if case .registerFont = self { 1 } else { 0 } }

    public var kind: UInt16 {
        switch self {
        case .screenshot: 1
        case .tree: 2
        case .advanceClock: 3
        case .stats: 4
        case .presentation: 5
        case .presentationTree: 6
        case .watch: 7
        case .displayPower: 8
        case .snapshot: 9
        case .injectInput: 10
        case .takeKeyboardFocus: 11
        case .listen: 12
        case .registerFont: 13
        case .output: 14
        case .displayLink: 15
        case .manageApps: 16
        }
    }

    /// What a privileged request is, for the refusal's message; nil for requests everyone may
    /// make (tree and presentation tree are then limited to the client's own layers).
    public var privilegedPurpose: String? {
        switch self {
        case .screenshot: "screenshot"
        case .advanceClock: "advance-clock (the virtual clock is shared by every client)"
        case .watch: "watch (every client's events)"
        case .displayPower: "display-power"
        case .injectInput: "input injection"
        case .output: "output (the display's configuration is every client's)"
        case .manageApps: "manage-apps (app windows show every user's apps)"
        case .tree, .stats, .presentation, .presentationTree, .snapshot, .takeKeyboardFocus, .listen, .registerFont, .displayLink: nil
        }
    }
}

/// Messages from a client to the server.
public enum ClientMessage: Hashable, Sendable {
    case hello(Hello)
    case commit(Commit)
    case request(id: UInt32, Request)

    public var type: UInt16 {
        switch self {
        case .hello: 1
        case .commit: 2
        case .request: 3
        }
    }
}

/// The clock the server's frames follow.
public enum ClockKind: UInt8, Sendable, CustomStringConvertible {
    /// CLOCK_MONOTONIC, frames at the display's refresh.
    case real = 0
    /// Time moves only when a client asks (`advanceClock`); for tests and offline rendering.
    case virtual = 1

    public var description: String { self == .real ? "real" : "virtual" }
}

/// The server's answer to a hello.
public struct Welcome: Hashable, Sendable {
    public var major: UInt16
    public var minor: UInt16
    /// The server's number for this connection.
    public var clientID: UInt32
    public var displayWidth: UInt32
    public var displayHeight: UInt32
    public var clock: ClockKind
    /// The server's clock now, in seconds.
    public var time: Double
    /// When the hello resumed a kept session: operations that rebuild its layer tree
    /// (creates, property sets that differ from the defaults, inserts). Empty otherwise.
    public var snapshot: [Operation]

    public init(major: UInt16 = ProtocolVersion.major, minor: UInt16 = ProtocolVersion.minor, clientID: UInt32,
                displayWidth: UInt32, displayHeight: UInt32, clock: ClockKind, time: Double, snapshot: [Operation] = []) {
        self.major = major
        self.minor = minor
        self.clientID = clientID
        self.displayWidth = displayWidth
        self.displayHeight = displayHeight
        self.clock = clock
        self.time = time
        self.snapshot = snapshot
    }
}

/// What went wrong, as a number a program can switch on. The message says it for a person.
public enum ErrorCode: UInt16, Sendable, CustomStringConvertible {
    /// The bytes do not form a frame (bad header, reserved bits set). The connection is closed.
    case malformedFrame = 1
    /// A frame's length is over the limit. The connection is closed.
    case frameTooLarge = 2
    /// The message type is not one this version knows. The frame is skipped.
    case unknownMessage = 3
    /// The hello's magic or major version is wrong. The connection is closed.
    case unsupportedVersion = 4
    /// Something other than hello came first, or a second hello. The connection is closed.
    case notHello = 5
    /// A message's body could not be decoded (truncated, unknown opcode, bad value).
    case malformedMessage = 6
    /// An operation names a layer this client does not have.
    case unknownLayer = 7
    /// A create names a layer number already in use by this client.
    case duplicateLayer = 8
    /// An insert would make a layer its own ancestor.
    case cycle = 9
    /// A property value is the wrong type, not finite, or out of range.
    case invalidProperty = 10
    /// The hello names a session another connected client holds.
    case sessionInUse = 11
    /// The request cannot be served (advancing a real clock, say).
    case invalidRequest = 12
    /// A per-client limit (layers, operations in a commit) would be exceeded.
    case limitExceeded = 13
    /// The server failed while serving a valid request (a GL error, say).
    case internalError = 14
    /// The operation is not allowed on this layer (destroying the client's root, say).
    case notAllowed = 15
    /// An animation (added, or in an action) is not well formed: the message names the field.
    case invalidAnimation = 16
    /// An image number the client has not created (or destroyed).
    case unknownImage = 17
    /// create-image with a number in use.
    case duplicateImage = 18
    /// An image layout that does not fit its memory file, an unusable descriptor, or a frame
    /// whose descriptors do not match its create-image and create-encoded-image operations.
    case invalidImage = 19
    /// The connection's user may not make this request: screenshots, other clients' trees and
    /// events, display power, the virtual clock, and another user's kept session are for
    /// privileged peers (laminad's own user, root, the configured group). Since 1.2.
    case permissionDenied = 20

    public var description: String {
        switch self {
        case .malformedFrame: "malformed-frame"
        case .frameTooLarge: "frame-too-large"
        case .unknownMessage: "unknown-message"
        case .unsupportedVersion: "unsupported-version"
        case .notHello: "not-hello"
        case .malformedMessage: "malformed-message"
        case .unknownLayer: "unknown-layer"
        case .duplicateLayer: "duplicate-layer"
        case .cycle: "cycle"
        case .invalidProperty: "invalid-property"
        case .sessionInUse: "session-in-use"
        case .invalidRequest: "invalid-request"
        case .limitExceeded: "limit-exceeded"
        case .internalError: "internal-error"
        case .notAllowed: "not-allowed"
        case .invalidAnimation: "invalid-animation"
        case .unknownImage: "unknown-image"
        case .duplicateImage: "duplicate-image"
        case .invalidImage: "invalid-image"
        case .permissionDenied: "permission-denied"
        }
    }
}

/// An error the server reports to a client.
public struct ErrorMessage: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ErrorCode
    /// What the error answers: 1 a commit, 2 a request, 0 neither (framing, hello).
    public var subject: Subject
    /// The commit serial or request id; 0 when `subject` is `.none`.
    public var serial: UInt32
    /// The index of the offending operation in a commit; -1 when not about one operation.
    public var operationIndex: Int32
    /// A sentence naming what was wrong.
    public var message: String

    public enum Subject: UInt8, Sendable {
        case none = 0, commit = 1, request = 2
    }

    public init(code: ErrorCode, subject: Subject = .none, serial: UInt32 = 0, operationIndex: Int32 = -1, message: String) {
        self.code = code
        self.subject = subject
        self.serial = serial
        self.operationIndex = operationIndex
        self.message = message
    }

    public var description: String {
        var s = "\(code)"
        switch subject {
        case .commit: s += " in commit \(serial)"
        case .request: s += " in request \(serial)"
        case .none: break
        }
        if operationIndex >= 0 { s += " at operation \(operationIndex)" }
        return s + ": " + message
    }
}

/// `animationDidStart:` / `animationDidStop:finished:` for a tagged animation.
public struct AnimationNotice: Hashable, Sendable {
    public var layer: LayerID
    public var tag: UInt32
    /// True for a start, false for a stop.
    public var started: Bool
    /// For a stop: whether the animation ran to the end of its active span.
    public var finished: Bool
    public init(layer: LayerID, tag: UInt32, started: Bool, finished: Bool) {
        self.layer = layer
        self.tag = tag
        self.started = started
        self.finished = finished
    }
}

/// One named counter in a `stats` reply.
public struct Statistic: Hashable, Sendable {
    public var name: String
    public var value: Double
    public init(name: String, value: Double) { self.name = name; self.value = value }
}

/// One output's power state in a `displayPower` reply.
public struct OutputPower: Hashable, Sendable {
    /// The connector name ("Virtual-1", "HDMI-A-1").
    public var name: String
    /// False while the output is blanked.
    public var isOn: Bool
    public init(name: String, isOn: Bool) { self.name = name; self.isOn = isOn }
}

/// The answer to a `Request`.
public enum Reply: Hashable, Sendable {
    case screenshot(Bitmap)
    /// JSON text (docs/protocol.md describes its shape).
    case tree(String)
    /// The clock's new time and how many frames the server has rendered in all.
    case advanced(time: Double, framesRendered: UInt64)
    case stats([Statistic])
    /// Every property's presentation value, in key order: the keys of protocol minor version
    /// `minor` and before (the asking client's hello), so an older client can decode it.
    case presentation(LayerProperties, minor: UInt16 = ProtocolVersion.minor)
    /// Acknowledges `watch`: events follow as `watch` messages.
    case watching
    /// Answers `displayPower`: the backend's name and every output's state after the request
    /// (none for a backend without physical outputs, such as headless).
    case displayPower(backend: String, outputs: [OutputPower])
    /// Answers `snapshot`: operations as in a commit.
    case snapshot([Operation])
    /// Answers a request that has nothing to report (input injection, taking the focus).
    case done
    /// Answers `registerFont`: the families the font file provides (protocol 1.5).
    case fontRegistered(families: [String])
    /// Answers `output`: the backend's name and every output, after the change asked for
    /// (protocol 1.7).
    case outputs(backend: String, [OutputState])

    public var kind: UInt16 {
        switch self {
        case .screenshot: 1
        case .tree: 2
        case .advanced: 3
        case .stats: 4
        case .presentation: 5
        case .watching: 7
        case .displayPower: 8
        case .snapshot: 9
        case .done: 10
        case .fontRegistered: 11
        case .outputs: 12
        }
    }
}

/// Messages from the server to a client.
public enum ServerMessage: Hashable, Sendable {
    case welcome(Welcome)
    /// The commit with this serial was applied; its changes show in the next frame.
    case applied(serial: UInt32)
    case error(ErrorMessage)
    case reply(id: UInt32, Reply)
    /// An animation this client added with a tag started or stopped.
    case animationEvent(AnimationNotice)
    /// Every animation of a completion group finished or was removed: run its completion blocks.
    case transactionCompleted(group: UInt32)
    /// A line of JSON describing an event anywhere on the display, for `watch`ers.
    case watch(String)
    /// An input event for one of this client's layers, or for the client (keys, focus).
    case input(InputEvent)
    /// The virtual clock moved (protocol 1.5): its new time, sent to every client but the one
    /// that moved it (which has it in its `advanced` reply), so `CACurrentMediaTime` follows it.
    case clock(time: Double)
    /// Something happened to one of this client's videos (protocol 1.6; only to clients of 1.6
    /// or later): `image` is the video's number.
    case video(image: UInt32, VideoEvent)
    /// laminad scrolled one of this client's scroll layers (protocol 1.7; only to clients of
    /// 1.7 or later).
    case scroll(ScrollEvent)
    /// The outputs changed (a mode, a display plugged in or out): the desktop's new size and
    /// where each output shows it (protocol 1.7; only to clients of 1.7 or later).
    case displayChanged(DisplayLayout)
    /// A frame is being prepared: the display links named run their callbacks (protocol 1.7;
    /// only while one of the client's links runs, at most one unanswered at a time).
    case frame(DisplayLinkFrame)
    /// laminad wants tiles of one of this client's tiled layers (protocol 1.7).
    case tilesWanted(TilesWanted)
    /// An app window appeared, changed or went (protocol 1.7; to clients managing apps).
    case appSurface(AppSurfaceEvent)

    public var type: UInt16 {
        switch self {
        case .welcome: 0x81
        case .applied: 0x82
        case .error: 0x83
        case .reply: 0x84
        case .animationEvent: 0x85
        case .transactionCompleted: 0x86
        case .watch: 0x87
        case .input: 0x88
        case .clock: 0x89
        case .video: 0x8A
        case .scroll: 0x8B
        case .displayChanged: 0x8C
        case .frame: 0x8D
        case .appSurface: 0x8E
        case .tilesWanted: 0x8F
        }
    }
}

// MARK: - Input (protocol 1.4)

/// An input event as laminad delivers it to the client that owns the layer it concerns.
public struct InputEvent: Hashable, Sendable {
    public enum Kind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
        case touchDown = 1, touchMove = 2, touchUp = 3
        /// The touch ends without completing (the session switched away, the client's layer
        /// went, the device was removed): undo what the down started.
        case touchCancel = 4
        case pointerEnter = 5, pointerLeave = 6, pointerMove = 7
        case buttonPress = 8, buttonRelease = 9
        case scroll = 10
        case keyPress = 11, keyRelease = 12
        /// The client got or lost the keyboard focus.
        case focusIn = 13, focusOut = 14
        /// A button press in flight will not complete (the session switched away): no click.
        case pointerCancel = 15

        public var description: String {
            switch self {
            case .touchDown: "touchDown"
            case .touchMove: "touchMove"
            case .touchUp: "touchUp"
            case .touchCancel: "touchCancel"
            case .pointerEnter: "pointerEnter"
            case .pointerLeave: "pointerLeave"
            case .pointerMove: "pointerMove"
            case .buttonPress: "buttonPress"
            case .buttonRelease: "buttonRelease"
            case .scroll: "scroll"
            case .keyPress: "keyPress"
            case .keyRelease: "keyRelease"
            case .focusIn: "focusIn"
            case .focusOut: "focusOut"
            case .pointerCancel: "pointerCancel"
            }
        }

        public var isKeyboard: Bool { self == .keyPress || self == .keyRelease || self == .focusIn || self == .focusOut }
    }

    public var kind: Kind
    /// Injected by a client (`laminactl input`), not from a device.
    public var injected: Bool
    /// The layer hit (or holding the touch or button). Keyboard and focus events name the
    /// client's root layer (0): keys go to a client, not a layer.
    public var layer: LayerID
    /// The touch's number for touch events, the evdev button code for buttons (BTN_LEFT 0x110),
    /// the evdev key code for keys; 0 otherwise.
    public var id: Int32
    /// The point in the layer's own (bounds) coordinates.
    public var location: Point
    /// The point in display (layout) points.
    public var screen: Point
    /// laminad's clock when it routed the event (the clock animations run on).
    public var time: Double
    /// The kernel's timestamp of the device event (CLOCK_MONOTONIC seconds); 0 when injected.
    public var deviceTime: Double
    /// Scroll distance in points (positive: towards the bottom and the right of the content).
    public var delta: Point
    /// Keys: the keysym, its name ("a", "Return") and the UTF-8 text typed (may be empty).
    public var keysym: UInt32
    public var keyName: String
    public var text: String

    public init(kind: Kind, injected: Bool = false, layer: LayerID = .root, id: Int32 = 0, location: Point = .zero,
                screen: Point = .zero, time: Double = 0, deviceTime: Double = 0, delta: Point = .zero,
                keysym: UInt32 = 0, keyName: String = "", text: String = "") {
        self.kind = kind
        self.injected = injected
        self.layer = layer
        self.id = id
        self.location = location
        self.screen = screen
        self.time = time
        self.deviceTime = deviceTime
        self.delta = delta
        self.keysym = keysym
        self.keyName = keyName
        self.text = text
    }
}

/// An input event a privileged client injects (`laminactl input`), in display points.
public enum InputInjection: Hashable, Sendable {
    case touchDown(id: Int32, at: Point)
    case touchMotion(id: Int32, to: Point)
    case touchUp(id: Int32)
    case touchCancel(id: Int32)
    case pointerMotion(to: Point)
    /// An evdev button code (BTN_LEFT 0x110, BTN_RIGHT 0x111, BTN_MIDDLE 0x112).
    case pointerButton(code: UInt32, pressed: Bool)
    case pointerAxis(horizontal: Double, vertical: Double)
    /// A key by its keysym name ("a", "Return", "space"), translated through laminad's keymap.
    case key(name: String, pressed: Bool)

    public var opcode: UInt8 {
        switch self {
        case .touchDown: 1
        case .touchMotion: 2
        case .touchUp: 3
        case .touchCancel: 4
        case .pointerMotion: 5
        case .pointerButton: 6
        case .pointerAxis: 7
        case .key: 8
        }
    }
}
