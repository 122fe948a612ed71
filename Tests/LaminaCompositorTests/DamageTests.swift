import Testing
import LaminaTestSupport
import LaminaCore
import LaminaProtocol
import LaminaRaster
@testable import LaminaCompositor

/// What the damage tracker finds between two draw lists, without drawing.
@Suite("Damage between frames")
struct DamageTrackerTests {
    func list(_ commands: [DrawCommand], width: Int = 200, height: Int = 100) -> DrawList {
        DrawList(width: width, height: height, background: .black, commands: commands)
    }

    func square(x: Double, y: Double = 10, size: Double = 20, color: Color = .red) -> DrawCommand {
        DrawCommand(transform: .translation(x: x, y: y), bounds: Rect(x: 0, y: 0, width: size, height: size), color: color, opacity: 1)
    }

    @Test("the first frame, and a frame of another size or background, damage everything")
    func firstFrameIsWhole() {
        var tracker = DamageTracker()
        #expect(tracker.record(list([square(x: 10)])) == nil)
        #expect(tracker.record(list([square(x: 10)])) == DamageRegion())
        #expect(tracker.record(list([square(x: 10)], width: 300)) == nil)
        var other = list([square(x: 10)], width: 300)
        other.background = .white
        #expect(tracker.record(other) == nil)
    }

    @Test("a moved layer damages where it was and where it is, with the antialiasing margin, nothing else")
    func movedLayer() {
        var tracker = DamageTracker()
        tracker.record(list([square(x: 10), square(x: 100, color: .blue), square(x: 150, color: .green)]))
        let d = tracker.record(list([square(x: 10), square(x: 104, color: .blue), square(x: 150, color: .green)]))
        // Old 100…120 and new 104…124 each grown by 2: one box, 98…126 × 8…32.
        #expect(d?.boxes == [PixelBox(x0: 98, y0: 8, x1: 126, y1: 32)])
    }

    @Test("two changes far apart stay two boxes; many merge into at most four")
    func boxesMerge() {
        var tracker = DamageTracker()
        tracker.record(list([square(x: 0, y: 0), square(x: 170, y: 70)]))
        let d = tracker.record(list([square(x: 0, y: 0, color: .blue), square(x: 170, y: 70, color: .blue)]))
        #expect(d?.boxes.count == 2)
        var region = DamageRegion()
        for k in 0..<20 { region.add(PixelBox(x0: Double(k * 50), y0: Double(k * 37 % 400), x1: Double(k * 50 + 5), y1: Double(k * 37 % 400 + 5))) }
        #expect(region.boxes.count <= DamageRegion.maximumBoxes)
    }

    @Test("a reorder damages the layer that moved in the stack, and appear and disappear damage their extent")
    func reorderAppearDisappear() {
        var tracker = DamageTracker()
        let a = square(x: 10), b = square(x: 20, color: .blue), c = square(x: 150, color: .green)
        tracker.record(list([a, b, c]))
        let reordered = tracker.record(list([b, a, c]))
        #expect(reordered?.bounds.x0 ?? 0 >= 8 && reordered?.bounds.x1 ?? 999 <= 42, "\(String(describing: reordered))")
        #expect(reordered?.isEmpty == false)
        let gone = tracker.record(list([b, a]))
        #expect(gone?.boxes == [PixelBox(x0: 148, y0: 8, x1: 172, y1: 32)])
        let back = tracker.record(list([b, a, c]))
        #expect(back?.boxes == [PixelBox(x0: 148, y0: 8, x1: 172, y1: 32)])
    }

    @Test("a shadow's damage reaches as far as its blur")
    func shadowReach() {
        var tracker = DamageTracker()
        var shadow = DrawCommand(kind: .shadow, transform: .translation(x: 50, y: 40), bounds: Rect(x: 0, y: 0, width: 20, height: 20))
        shadow.shadow = DrawShadow(color: .black, opacity: 1, offset: Size(width: 0, height: 5), radius: 8)
        tracker.record(list([shadow]))
        shadow.shadow?.radius = 10
        let d = tracker.record(list([shadow]))
        // Reach 1.5 · 10 + 2 = 17, then 2 more, around the box moved down by 5.
        #expect(d?.bounds == PixelBox(x0: 31, y0: 26, x1: 89, y1: 84))
    }

    @Test("a clip that changes damages what it clips; what it clips is damaged only inside it")
    func clipsAreContext() {
        var tracker = DamageTracker()
        let clip = DrawCommand(kind: .pushClip, transform: .identity, bounds: Rect(x: 0, y: 0, width: 50, height: 100))
        let wide = square(x: 0, size: 100)
        tracker.record(list([clip, wide, DrawCommand(kind: .popClip)]))
        var moved = wide
        moved.color = .blue
        let d = tracker.record(list([clip, moved, DrawCommand(kind: .popClip)]))
        #expect(d?.bounds.x1 == 51, "the change is cut to the clip, grown by 1: \(String(describing: d))")
        var smaller = clip
        smaller.bounds = Rect(x: 0, y: 0, width: 30, height: 100)
        #expect(tracker.record(list([smaller, moved, DrawCommand(kind: .popClip)]))?.isEmpty == false)
    }

    @Test("under more nested clips than the renderer applies, only the innermost ones cut the damage")
    func deepClips() {
        var tracker = DamageTracker()
        let outer = DrawCommand(kind: .pushClip, transform: .identity, bounds: Rect(x: 0, y: 0, width: 10, height: 10))
        let wide = DrawCommand(kind: .pushClip, transform: .identity, bounds: Rect(x: 0, y: 0, width: 200, height: 100))
        let clips = [outer] + Array(repeating: wide, count: DrawCommand.maximumClips)
        let pops = Array(repeating: DrawCommand(kind: .popClip), count: clips.count)
        tracker.record(list(clips + [square(x: 50)] + pops))
        let d = tracker.record(list(clips + [square(x: 100)] + pops))
        // The renderer ignores the outermost (10 × 10) clip: the square shows and moves.
        #expect(d?.bounds.x0 == 48 && d?.bounds.x1 == 122, "\(String(describing: d))")
    }

    @Test("a shadow path's damage follows the blur in display pixels under a non-uniform scale")
    func pathShadowReach() {
        var c = DrawCommand(kind: .pathShadow, transform: Transform3D.scale(x: 8, y: 1, z: 1).concatenating(.translation(x: 100, y: 50)),
                            bounds: Rect(x: 0, y: 0, width: 10, height: 10))
        c.shadow = DrawShadow(color: .black, opacity: 1, offset: .zero, radius: 12)
        c.polygons = [[Point(x: 0, y: 0), Point(x: 10, y: 0), Point(x: 10, y: 10), Point(x: 0, y: 10)]]
        let box = c.pathShadowBox(within: PixelBox(width: 1000, height: 1000))
        // sigma = 6 × √8 display pixels: three of them reach about 51 pixels above and below.
        #expect(box.y0 <= 50 - 50 && box.y1 >= 60 + 50, "\(box)")
    }

    @Test("new pixels in the same image damage the layer that shows it")
    func contentsGeneration() throws {
        var tracker = DamageTracker()
        let image = ImageSource(bitmap: Bitmap(width: 4, height: 4, bytes: [UInt8](repeating: 255, count: 64))!)
        let draw = DrawCommand(kind: .contents, transform: .translation(x: 10, y: 10), bounds: Rect(x: 0, y: 0, width: 4, height: 4),
                               contents: DrawContents(source: image, destination: Rect(x: 0, y: 0, width: 4, height: 4)))
        tracker.record(list([draw]))
        #expect(tracker.record(list([draw])) == DamageRegion())
        image.markChanged(PixelRect(x: 0, y: 0, width: 1, height: 1))
        #expect(tracker.record(list([draw]))?.isEmpty == false)
    }

    @Test("new pixels in part of an image damage only their box, mapped through the draw")
    func contentsChangedRect() throws {
        var tracker = DamageTracker()
        // A 100 × 50 image drawn twice its size (200 × 100 points) at (20, 10).
        let image = ImageSource(bitmap: Bitmap(width: 100, height: 50, bytes: [UInt8](repeating: 255, count: 100 * 50 * 4))!)
        let draw = DrawCommand(kind: .contents, transform: .translation(x: 20, y: 10), bounds: Rect(x: 0, y: 0, width: 200, height: 100),
                               contents: DrawContents(source: image, destination: Rect(x: 0, y: 0, width: 200, height: 100)))
        let other = square(x: 150)
        tracker.record(list([draw, other], width: 400, height: 200))
        image.markChanged(PixelRect(x: 10, y: 5, width: 4, height: 2))
        // Pixels 10…14 × 5…7, grown an image pixel for filtering (9…15 × 4…8), are points
        // 18…30 × 8…16 of the layer, 38…50 × 18…26 on the display, grown a display pixel.
        let damage = tracker.record(list([draw, other], width: 400, height: 200))
        #expect(damage?.boxes == [PixelBox(x0: 37, y0: 17, x1: 51, y1: 27)], "\(String(describing: damage))")
        // Two changes before the next frame: their union, cut to the layer's draw box.
        image.markChanged(PixelRect(x: 0, y: 0, width: 1, height: 1))
        image.markChanged(PixelRect(x: 99, y: 49, width: 1, height: 1))
        #expect(tracker.record(list([draw, other], width: 400, height: 200))?.bounds == PixelBox(x0: 18, y0: 8, x1: 222, y1: 112))
        // A change and a move in the same frame: the whole of both places (their draw boxes,
        // two pixels wider for antialiasing).
        image.markChanged(PixelRect(x: 0, y: 0, width: 1, height: 1))
        let moved = DrawCommand(kind: .contents, transform: .translation(x: 30, y: 10), bounds: Rect(x: 0, y: 0, width: 200, height: 100),
                                contents: DrawContents(source: image, destination: Rect(x: 0, y: 0, width: 200, height: 100)))
        #expect(tracker.record(list([moved, other], width: 400, height: 200))?.bounds == PixelBox(x0: 18, y0: 8, x1: 232, y1: 112))
    }

    @Test("a buffer's damage is the union of the frames since it was drawn; too old or new is whole")
    func bufferAge() {
        var tracker = DamageTracker(historyLength: 3)
        tracker.record(list([square(x: 0), square(x: 100)]))
        tracker.record(list([square(x: 2), square(x: 100)]))
        tracker.record(list([square(x: 2), square(x: 102)]))
        #expect(tracker.damage(bufferAge: 0) == nil)
        #expect(tracker.damage(bufferAge: 1)?.bounds.x0 == 98)
        #expect(tracker.damage(bufferAge: 2)?.bounds == PixelBox(x0: 0, y0: 8, x1: 124, y1: 32))
        #expect(tracker.damage(bufferAge: 3) == nil, "the first frame damaged everything")
        tracker.record(list([square(x: 2), square(x: 102)]))
        #expect(tracker.damage(bufferAge: 3)?.bounds == PixelBox(x0: 0, y0: 8, x1: 124, y1: 32))
        #expect(tracker.damage(bufferAge: 4) == nil, "older than the history")
        tracker.reset()
        #expect(tracker.damage(bufferAge: 1) == nil)
    }
}

/// Damage tracking drawn for real: random animated scenes, stepped frame by frame through two
/// compositors fed the same commits, one redrawing only its damage over 1, 2 or 3 rotating
/// buffers and one drawing every frame whole. Every screenshot of the first (the buffer it
/// presented, as drawn) matches the second's within 2 per channel.
@Suite("Damage-tracked frames equal full redraws", .serialized)
final class DamagePixelTests {
    /// One compositor of the pair, and its one client.
    final class Side {
        let h: CompositorHarness
        let client: ClientID
        var compositor: Compositor { h.compositor }
        /// What the client was sent since its last commit.
        var answers: [ServerMessage] { h.outbox[client] ?? [] }

        init(buffers: Int, damage: Bool) throws {
            let backend = try HeadlessDisplay(width: 160, height: 120, buffers: buffers)
            backend.damageTracking = damage
            // The full redraw draws every shadowed group again: the cache is checked too.
            backend.renderer.cachesGroups = damage
            h = CompositorHarness(presenter: backend.presenter)
            // And every layer walked every frame: the render-list cache is checked too.
            h.compositor.renderCache.isEnabled = damage
            h.compositor.layerRasters = ServerRasterizer()
            client = h.hello("damage")
        }
    }

    /// Layers 1…8 are plain, 9 a text layer, 10 a gradient, 11 a group of 12 and 13, 20 the mask.
    static let plain: [UInt32] = Array(1...8)
    static let topLevel: [UInt32] = Array(1...11)

    func setUp() -> [Operation] {
        var ops: [Operation] = [.settings(TransactionSettings(disableActions: true))]
        func layer(_ n: UInt32, kind: LayerKind = .layer, x: Double, y: Double, w: Double = 30, h: Double = 24, color: Color) {
            let id = LayerID(n)
            ops += [.create(id, kind: kind), .set(id, .bounds, .rect(Rect(x: 0, y: 0, width: w, height: h))),
                    .set(id, .position, .point(Point(x: x, y: y))), .set(id, .backgroundColor, .color(color))]
        }
        for n in Self.plain {
            let k = Double(n)
            layer(n, x: 20 + k * 15, y: 20 + (k * 37).truncatingRemainder(dividingBy: 80),
                  color: Color(red: k / 8, green: 1 - k / 8, blue: 0.5, alpha: n % 3 == 0 ? 0.6 : 1))
        }
        layer(9, kind: .text, x: 80, y: 60, w: 70, h: 20, color: Color(red: 0.1, green: 0.1, blue: 0.3, alpha: 1))
        ops += [.set(LayerID(9), .string, .string("Lamina")), .set(LayerID(9), .fontSize, .number(14))]
        layer(10, kind: .gradient, x: 120, y: 90, w: 50, h: 30, color: .clear)
        ops += [.set(LayerID(10), .colors, .colors([.red, .blue]))]
        layer(11, x: 60, y: 80, w: 60, h: 40, color: Color(red: 0.9, green: 0.9, blue: 0.9, alpha: 1))
        layer(12, x: 10, y: 10, w: 30, h: 20, color: .blue)
        layer(13, x: 45, y: 30, w: 30, h: 20, color: .green)
        layer(20, x: 30, y: 20, w: 40, h: 30, color: .white)
        ops += [.set(LayerID(20), .cornerRadius, .number(12)),
                .insert(parent: LayerID(11), child: LayerID(12), index: .max),
                .insert(parent: LayerID(11), child: LayerID(13), index: .max)]
        for n in Self.topLevel { ops.append(.insert(parent: .root, child: LayerID(n), index: .max)) }
        return ops
    }

    /// One to three random changes, animated or not.
    func changes(_ rng: inout SplitMix) -> [Operation] {
        func unit() -> Double { Double(rng.next() % 1_000_001) / 1_000_000 }
        func pick(_ ids: [UInt32]) -> LayerID { LayerID(ids[Int(rng.next() % UInt64(ids.count))]) }
        let animated = rng.next() % 2 == 0
        var ops: [Operation] = [.settings(TransactionSettings(duration: 0.4, timingFunction: .linear, disableActions: !animated))]
        for _ in 0...(rng.next() % 3) {
            let id = pick(Self.topLevel + [12, 13])
            switch rng.next() % 14 {
            case 0, 1: ops.append(.set(id, .position, .point(Point(x: unit() * 170 - 5, y: unit() * 130 - 5))))
            case 2: ops.append(.set(id, .backgroundColor, .color(Color(red: unit(), green: unit(), blue: unit(), alpha: 0.3 + 0.7 * unit()))))
            case 3: ops.append(.set(id, .opacity, .number(rng.next() % 3 == 0 ? 1 : 0.3 + 0.6 * unit())))
            case 4: ops += [.set(id, .cornerRadius, .number(unit() * 12)), .set(id, .borderWidth, .number(unit() * 4)),
                            .set(id, .borderColor, .color(.white))]
            case 5: ops += [.set(id, .shadowOpacity, .number(rng.next() % 2 == 0 ? 0 : 0.8)), .set(id, .shadowRadius, .number(unit() * 8)),
                            .set(id, .shadowOffset, .size(Size(width: unit() * 6 - 3, height: unit() * 6)))]
            case 6: ops.append(.set(LayerID(11), .masksToBounds, .bool(rng.next() % 2 == 0)))
            case 7: ops.append(.set(LayerID(11), .mask, .layer(rng.next() % 2 == 0 ? 20 : 0)))
            case 8: ops.append(.insert(parent: .root, child: pick(Self.topLevel), index: UInt32(rng.next() % 11)))
            case 9: ops.append(.remove(pick(Self.topLevel)))
            case 10: ops.append(.insert(parent: .root, child: pick(Self.topLevel), index: .max))
            case 11: ops.append(.set(LayerID(9), .string, .string(["Lamina", "damage", "12:04", "ok"][Int(rng.next() % 4)])))
            case 12: ops.append(.set(id, .zPosition, .number(Double(rng.next() % 3))))
            default: ops.append(.set(id, .transform, .transform(.rotation(angle: unit() * 0.6 - 0.3, x: 0, y: 0, z: 1))))
            }
        }
        return ops
    }

    @Test("random scenes, stepped frame by frame", arguments: [1, 2, 3])
    func randomScenes(buffers: Int) throws {
        let tracked = try Side(buffers: buffers, damage: true)
        let whole = try Side(buffers: 1, damage: false)
        var rng = SplitMix(state: 0x5EED + UInt64(buffers))
        var extra = SplitMix(state: 0xF4A3E + UInt64(buffers))
        var serial: UInt32 = 0
        var refused = 0
        func commit(_ ops: [Operation]) {
            serial += 1
            tracked.h.commit(tracked.client, ops, serial: serial)
            whole.h.commit(whole.client, ops, serial: serial)
            if !tracked.answers.contains(.applied(serial: serial)) { refused += 1 }
        }
        commit(setUp())
        #expect(refused == 0, "the scene: \(tracked.answers)")
        var partialFrames = 0
        for step in 0..<60 {
            if step > 0 { commit(changes(&rng)) }
            // laminad also draws a frame after the commit's batch of input, before any advance,
            // as often as not: the damage-tracked side draws such extra frames, the other not.
            if extra.next() % 2 == 0 { try tracked.compositor.flushFrame(always: true) }
            let seconds = Double(rng.next() % 4) * 0.1
            tracked.h.advance(tracked.client, seconds)
            whole.h.advance(whole.client, seconds)
            let a = try tracked.h.screenshot(tracked.client), b = try whole.h.screenshot(whole.client)
            let worst = a.difference(from: b)
            #expect(worst.worst <= 2, "buffers \(buffers), step \(step): \(worst.worst) apart at (\(worst.x), \(worst.y))")
            if worst.worst > 2 { break }
            let stats = tracked.compositor.backend.damageStatistics
            if stats.lastFraction < 1 { partialFrames += 1 }
        }
        #expect(refused < 6, "\(refused) of 60 commits refused")
        let colours = Set(try tracked.h.screenshot(tracked.client).bytes.chunks(4))
        #expect(colours.count > 20, "the last frame shows a scene: \(colours.count) colours")
        // The test proves something only if most frames were drawn in part.
        #expect(partialFrames >= 30, "only \(partialFrames) of 60 frames were drawn in part")
        #expect(whole.compositor.backend.damageStatistics.fullFrames == whole.compositor.backend.damageStatistics.frames)
        let hits = tracked.compositor.statistics().first { $0.name == "groupCache.hits" }?.value ?? 0
        #expect(tracked.compositor.renderCache.hits > 0, "static subtrees were drawn from the render-list cache")
        #expect(hits > 0, "the shadowed group (layer 11) was drawn from the cache at least once")
    }

    /// An app surface as kiosk mode shows one: part of an image (`contentsRect`, as a
    /// `wp_viewport` source crop) magnified about 3.6 times, in a layer turned a quarter (as a
    /// buffer transform), its pixels changed a few at a time (`update-image`, as buffer damage)
    /// inside the crop, outside it and across its edges. The damage-tracked frames equal full
    /// redraws, and most are drawn in part.
    @Test("part of an image, magnified and turned, changed a few pixels at a time", arguments: [1, 2])
    func croppedTurnedImageUpdates(buffers: Int) throws {
        let tracked = try Side(buffers: buffers, damage: true)
        let whole = try Side(buffers: 1, damage: false)
        let (w, h) = (32, 24)
        var rng = SplitMix(state: 0xC0FFEE + UInt64(buffers))
        func pixel(_ x: Int, _ y: Int, _ salt: UInt64) -> [UInt8] {
            let v = UInt64(x * 31 + y * 17) &* 0x9E37_79B9 &+ salt
            return [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16), 255]
        }
        var bytes: [UInt8] = []
        for y in 0..<h { for x in 0..<w { bytes += pixel(x, y, 0) } }
        let memories = [HeapPixelMemory(bytes), HeapPixelMemory(bytes)]
        let one = LayerID(1), back = LayerID(2)
        // Pixels 8…24 × 6…18 (a 16 × 12 crop, x from a half pixel in) in a 44 × 58-point layer
        // turned 90°, so 58 × 44 on screen.
        let quarter = Transform3D(m11: 0, m12: 1, m13: 0, m14: 0, m21: -1, m22: 0, m23: 0, m24: 0,
                                  m31: 0, m32: 0, m33: 1, m34: 0, m41: 0, m42: 0, m43: 0, m44: 1)
        let setUp: [Operation] = [
            .settings(TransactionSettings(disableActions: true)),
            .create(back), .set(back, .bounds, .rect(Rect(x: 0, y: 0, width: 160, height: 120))),
            .set(back, .position, .point(Point(x: 80, y: 60))), .set(back, .backgroundColor, .color(Color(red: 0.2, green: 0.3, blue: 0.4, alpha: 1))),
            .insert(parent: .root, child: back, index: .max),
            .createImage(image: 1, ImageFormat(width: UInt32(w), height: UInt32(h), order: .bgra, alpha: .premultiplied)),
            .create(one), .set(one, .bounds, .rect(Rect(x: 0, y: 0, width: 44, height: 58))),
            .set(one, .position, .point(Point(x: 80.5, y: 60))), .set(one, .contents, .image(1)),
            .set(one, .contentsRect, .rect(Rect(x: 8.5 / Double(w), y: 6 / Double(h), width: 15.5 / Double(w), height: 12 / Double(h)))),
            .set(one, .transform, .transform(quarter)),
            .insert(parent: .root, child: one, index: .max),
        ]
        var serial: UInt32 = 1
        for (side, memory) in zip([tracked, whole], memories) {
            side.h.feed(side.client, .commit(Commit(serial: serial, operations: setUp)), attachments: [.memory(memory)])
            #expect(side.h.take(side.client) == [.applied(serial: serial)])
        }
        var partial = 0
        for step in 0..<40 {
            // A 1 × 1 to 3 × 3 change anywhere, often on the crop's edges (x 8, 24; y 6, 18).
            let edgeX = [7, 8, 23, 24][Int(rng.next() % 4)], edgeY = [5, 6, 17, 18][Int(rng.next() % 4)]
            let x = step % 3 == 0 ? edgeX : Int(rng.next() % UInt64(w - 3)), y = step % 3 == 1 ? edgeY : Int(rng.next() % UInt64(h - 3))
            let cw = 1 + Int(rng.next() % 3), ch = 1 + Int(rng.next() % 3)
            for row in y..<(y + ch) {
                var line: [UInt8] = []
                for column in x..<(x + cw) { line += pixel(column, row, UInt64(step + 1) * 0x5151) }
                for memory in memories { memory.write(line, at: (row * w + x) * 4) }
            }
            serial += 1
            let update = Operation.updateImage(image: 1, PixelRect(x: UInt32(x), y: UInt32(y), width: UInt32(cw), height: UInt32(ch)))
            for side in [tracked, whole] { _ = side.h.commit(side.client, [update], serial: serial) }
            tracked.h.advance(tracked.client, 0)
            whole.h.advance(whole.client, 0)
            let a = try tracked.h.screenshot(tracked.client), b = try whole.h.screenshot(whole.client)
            let worst = a.difference(from: b)
            #expect(worst.worst <= 2, "buffers \(buffers), step \(step), pixels \(x), \(y) (\(cw) × \(ch)): \(worst.worst) apart at (\(worst.x), \(worst.y))")
            if worst.worst > 2 { break }
            if tracked.compositor.backend.damageStatistics.lastFraction < 0.5 { partial += 1 }
        }
        #expect(partial >= 30, "only \(partial) of 40 frames were drawn in part")
    }
}

extension Array {
    /// The array cut into pieces of `n` (the last may be shorter).
    func chunks(_ n: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: n).map { self[$0..<Swift.min($0 + n, count)] }
    }
}
