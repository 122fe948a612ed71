import LaminaCore
import LaminaProtocol
import LaminaCompositor
import Testing

/// The render list's structure: which commands a layer gives, in which order.
@Suite("Render list builder")
struct RenderListBuilderTests {
    /// Commits layers (parent index, properties) to a fresh display and builds the list.
    /// Parent −1 is the client's root; layers are numbered from 1 in array order.
    func list(_ layers: [(parent: Int, configure: (inout LayerProperties) -> Void)]) throws -> DrawList {
        var display = ModelTree(width: 200, height: 200)
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "builder-tests"))
        var ops: [Operation] = []
        for (i, layer) in layers.enumerated() {
            let id = LayerID(rawValue: UInt32(i + 1))
            var p = LayerProperties()
            p.frame = Rect(x: 10, y: 10, width: 50, height: 50)
            p.backgroundColor = .red
            layer.configure(&p)
            ops.append(.create(id))
            for key in p.changedKeys(from: .defaults) { ops.append(.set(id, key, p[key])) }
            let parent = layer.parent < 0 ? LayerID.root : LayerID(rawValue: UInt32(layer.parent + 1))
            ops.append(.insert(parent: parent, child: id, index: .max))
        }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
        return display.drawList()
    }

    func kinds(_ l: DrawList) -> [DrawCommand.Kind] { l.commands.map(\.kind) }

    @Test("separate layout: a root sublayer named after an output is drawn in that output's coordinates")
    func separateOutputRoots() throws {
        var display = ModelTree(width: 2304, height: 800)
        display.outputRoots = ["Virtual-1": Rect(x: 0, y: 0, width: 1280, height: 800),
                               "Virtual-2": Rect(x: 1280, y: 0, width: 1024, height: 768)]
        let client = ClientID(rawValue: 1)
        _ = try display.attach(client, hello: Hello(clientName: "separate"))
        var ops: [Operation] = []
        // #1 "Virtual-2" with a child #2 at (100, 100) in it; #3 unnamed at (100, 100).
        for (id, name, parent) in [(1, "Virtual-2", 0), (2, "", 1), (3, "", 0)] {
            let layer = LayerID(rawValue: UInt32(id))
            ops.append(.create(layer))
            ops.append(.set(layer, .bounds, .rect(Rect(x: 0, y: 0, width: 50, height: 50))))
            ops.append(.set(layer, .position, .point(Point(x: 125, y: 125))))
            ops.append(.set(layer, .backgroundColor, .color(.red)))
            if !name.isEmpty { ops.append(.set(layer, .name, .string(name))) }
            ops.append(.insert(parent: parent == 0 ? .root : LayerID(rawValue: UInt32(parent)), child: layer, index: .max))
        }
        _ = try display.apply(ops, from: client, limits: ClientLimits())
        let l = display.drawList()
        #expect(l.commands.count == 3)
        func origin(_ c: DrawCommand) -> Point { c.transform.apply(to: Point(x: 0, y: 0)).map { Point(x: $0.x, y: $0.y) } ?? Point(x: -1, y: -1) }
        #expect(origin(l.commands[0]) == Point(x: 1380, y: 100), "the output root moves to Virtual-2's origin")
        #expect(origin(l.commands[1]) == Point(x: 1480, y: 200), "its sublayers move with it")
        #expect(origin(l.commands[2]) == Point(x: 100, y: 100), "other layers stay in desktop coordinates")
        #expect(display.json(clock: .virtual, time: 0).contains(#""outputs":[{"name":"Virtual-1","frame":[0,0,1280,800]},{"name":"Virtual-2","frame":[1280,0,1024,768]}]"#))
        display.outputRoots = [:]
        #expect(origin(display.drawList().commands[0]) == Point(x: 100, y: 100), "one desktop: the name means nothing")
    }

    @Test("a plain layer is one command with its corners, clamped to half the shorter side")
    func plainLayer() throws {
        let l = try list([(-1, { $0.cornerRadius = 40; $0.maskedCorners = [.minXMinY, .maxXMaxY] })])
        #expect(kinds(l) == [.layer])
        #expect(l.commands[0].cornerRadii == CornerRadii(minXMinY: 25, maxXMinY: 0, maxXMaxY: 25, minXMaxY: 0))
    }

    @Test("the border of a layer with sublayers is drawn after them, and clips enclose the sublayers")
    func borderAndClip() throws {
        let l = try list([
            (-1, { $0.borderWidth = 2; $0.masksToBounds = true }),
            (0, { _ in }),
        ])
        #expect(kinds(l) == [.layer, .pushClip, .layer, .popClip, .layer])
        #expect(l.commands[0].borderWidth == 0)
        #expect(l.commands[4].borderWidth == 2 && l.commands[4].color == .clear)
    }

    @Test("group opacity wraps a translucent layer with sublayers; without it opacity multiplies")
    func groups() throws {
        let grouped = try list([(-1, { $0.opacity = 0.5 }), (0, { $0.opacity = 0.5 })])
        #expect(kinds(grouped) == [.beginGroup, .layer, .layer, .endGroup])
        #expect(grouped.commands[0].opacity == 0.5)
        #expect(grouped.commands[1].opacity == 1 && grouped.commands[2].opacity == 0.5)

        let flat = try list([(-1, { $0.opacity = 0.5; $0.allowsGroupOpacity = false }), (0, { $0.opacity = 0.5 })])
        #expect(kinds(flat) == [.layer, .layer])
        #expect(flat.commands[1].opacity == 0.25)

        // A translucent leaf needs no group.
        #expect(kinds(try list([(-1, { $0.opacity = 0.5 })])) == [.layer])
    }

    @Test("a leaf's shadow is drawn from its shape; a shadow of sublayers from a group's pixels")
    func shadows() throws {
        let leaf = try list([(-1, { $0.shadowOpacity = 0.5 })])
        #expect(kinds(leaf) == [.shadow, .layer])
        let parent = try list([(-1, { $0.shadowOpacity = 0.5 }), (0, { _ in })])
        #expect(kinds(parent) == [.beginGroup, .layer, .layer, .endGroup])
        #expect(parent.commands[0].shadow?.radius == 3)
        // A translucent fill under an opaque border has no single alpha: pixels, not shape.
        let bordered = try list([(-1, {
            $0.shadowOpacity = 1; $0.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 0.5); $0.borderWidth = 3
        })])
        #expect(kinds(bordered) == [.beginGroup, .layer, .endGroup])
        // masksToBounds clips the layer's own shadow away.
        #expect(kinds(try list([(-1, { $0.shadowOpacity = 1; $0.masksToBounds = true })])) == [.layer])
    }

    @Test("empty groups and clips are left out, and back faces are culled with their subtree")
    func pruning() throws {
        let hiddenChild = try list([(-1, { $0.masksToBounds = true; $0.opacity = 0.5 }), (0, { $0.isHidden = true })])
        #expect(kinds(hiddenChild) == [.layer])
        let back = try list([(-1, { $0.transform = .rotation(angle: .pi, x: 0, y: 1, z: 0); $0.isDoubleSided = false }),
                             (0, { _ in })])
        #expect(back.commands.isEmpty)
    }

    @Test("an ordinary layer flattens its sublayers' depth into its plane")
    func flattening() throws {
        // A sublayer pushed 100 points towards the viewer, inside a layer turned a quarter about
        // y: flattened first, it stays in the layer's plane, seen edge on (zero width).
        let l = try list([(-1, { $0.transform = .rotation(angle: .pi / 2, x: 0, y: 1, z: 0) }),
                          (0, { $0.zPosition = 100 })])
        let child = l.commands[1].transform
        let a = try #require(child.apply(to: Point(x: 0, y: 0))), b = try #require(child.apply(to: Point(x: 50, y: 0)))
        #expect(abs(a.x - b.x) < 1e-9)
        #expect(abs(a.x - 35) < 1e-9)  // the superlayer's centre line, not 100 points off it
    }

    @Test("maskedCorners takes a whole number from 0 to 15")
    func cornerMaskValidation() throws {
        var p = LayerProperties()
        try p.set(.maskedCorners, .number(5))
        #expect(p.maskedCorners == [.minXMinY, .minXMaxY])
        #expect(throws: PropertyError.self) { try p.set(.maskedCorners, .number(16)) }
        #expect(throws: PropertyError.self) { try p.set(.maskedCorners, .number(1.5)) }
        #expect(PropertyKey(name: "isGeometryFlipped") == .isGeometryFlipped)
        #expect(LayerProperties.defaults.allowsGroupOpacity)
    }
}
