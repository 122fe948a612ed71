import Testing
@testable import LaminaCore

/// A tree of numbered layers for the hit tester, with model values.
struct NumberedTree: HitTestTree {
    var layers: [Int: LayerProperties] = [:]
    var children: [Int: [Int]] = [:]

    func values(of node: Int, parentTime: Double) -> (properties: HitGeometry, time: Double, sublayers: [Int])? {
        layers[node].map { (HitGeometry($0), parentTime, children[node] ?? []) }
    }

    /// Adds layer `id` under `parent` (-1: none) with `frame` and changes.
    mutating func add(_ id: Int, under parent: Int, frame: Rect, kind: LayerKind = .layer,
                      _ change: (inout LayerProperties) -> Void = { _ in }) {
        var p = LayerProperties(kind: kind)
        p.frame = frame
        change(&p)
        layers[id] = p
        if parent >= 0 { children[parent, default: []].append(id) }
    }

    func hit(_ x: Double, _ y: Double) -> (Int, Point)? {
        var t = HitTester(tree: self)
        return t.hitTest(Point(x: x, y: y), root: 0).map { ($0.node, $0.location) }
    }
}

private func near(_ a: Point, _ b: Point) -> Bool { abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 }

@Suite("Hit testing (Core Animation's rules, hand-computed points)")
struct HitTestingTests {
    /// A child turned 90°, scaled 2× and lifted to zPosition 100 inside a parent whose
    /// sublayerTransform has m34 = −1/500: the perspective enlarges it by 500/(500 − 100) = 1.25.
    /// By hand, the child's point (x, y) lands on the display at (100 − 2.5 (y − 25), 100 + 2.5 (x − 50)).
    @Test func rotatedScaledLayerUnderPerspective() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 200, height: 200)) {
            var s = Transform3D.identity
            s.m34 = -1.0 / 500
            $0.sublayerTransform = s
        }
        t.add(1, under: 0, frame: Rect(x: 50, y: 75, width: 100, height: 50)) {
            $0.transform = Transform3D.scale(x: 2, y: 2).concatenating(.rotation(angle: .pi / 2))
            $0.zPosition = 100
        }
        let centre = t.hit(100, 100)
        #expect(centre?.0 == 1 && near(centre!.1, Point(x: 50, y: 25)))
        let below = t.hit(100, 125)   // x − 50 = 25 / 2.5
        #expect(below?.0 == 1 && near(below!.1, Point(x: 60, y: 25)))
        let left = t.hit(40, 100)     // y − 25 = 60 / 2.5
        #expect(left?.0 == 1 && near(left!.1, Point(x: 50, y: 49)))
        // (170, 100) is y = −3 in the child: outside it, inside the parent.
        let outside = t.hit(170, 100)
        #expect(outside?.0 == 0 && near(outside!.1, Point(x: 170, y: 100)))
        // Without the perspective the same child point is 2× out, not 2.5×.
        t.layers[0]!.sublayerTransform = .identity
        let flat = t.hit(100, 120)
        #expect(flat?.0 == 1 && near(flat!.1, Point(x: 60, y: 25)))
    }

    @Test func masksToBoundsClipsHits() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 400, height: 400))
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 100, height: 100)) { $0.masksToBounds = true }
        t.add(2, under: 1, frame: Rect(x: 50, y: 0, width: 100, height: 100))
        // Inside both: the child, in its own coordinates.
        #expect(t.hit(75, 50)?.0 == 2)
        #expect(near(t.hit(75, 50)!.1, Point(x: 25, y: 50)))
        // The child's part outside its clipping superlayer is not hit: the root is.
        #expect(t.hit(120, 50)?.0 == 0)
        t.layers[1]!.masksToBounds = false
        #expect(t.hit(120, 50)?.0 == 2)
        #expect(near(t.hit(120, 50)!.1, Point(x: 70, y: 50)))
        // contains() is half-open: the max edges are out.
        #expect(t.hit(150, 50)?.0 == 0)
        #expect(t.hit(149.999, 99.999)?.0 == 2)
    }

    @Test func hiddenSubtreesAndOptedOutLayersPassHitsThrough() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 400, height: 400))
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 200, height: 200))
        t.add(2, under: 1, frame: Rect(x: 0, y: 0, width: 100, height: 100))
        t.add(3, under: 0, frame: Rect(x: 0, y: 0, width: 50, height: 50))   // in front of 1 and 2
        #expect(t.hit(10, 10)?.0 == 3)
        #expect(t.hit(60, 60)?.0 == 2)
        t.layers[1]!.isHidden = true     // hides 2 as well
        #expect(t.hit(60, 60)?.0 == 0)
        t.layers[1]!.isHidden = false
        t.layers[3]!.isUserInteractionEnabled = false
        #expect(t.hit(10, 10)?.0 == 2)
        t.layers[1]!.isUserInteractionEnabled = false   // the subtree too
        #expect(t.hit(10, 10)?.0 == 0)
        // Opacity does not matter, as in Core Animation.
        t.layers[1]!.isUserInteractionEnabled = true
        t.layers[2]!.opacity = 0
        #expect(t.hit(60, 60)?.0 == 2)
    }

    @Test func frontMostFirstByZPositionThenOrder() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 400, height: 400))
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 100, height: 100))
        t.add(2, under: 0, frame: Rect(x: 50, y: 50, width: 100, height: 100))
        #expect(t.hit(75, 75)?.0 == 2)        // later sibling in front
        t.layers[1]!.zPosition = 1
        #expect(t.hit(75, 75)?.0 == 1)        // higher zPosition in front
        t.layers[2]!.zPosition = 1
        #expect(t.hit(75, 75)?.0 == 2)        // equal: array order again
        #expect(t.hit(25, 25)?.0 == 1)
    }

    /// A transform layer is never hit itself; its sublayers share its 3D space and the one
    /// drawn in front (nearer centre) wins, whatever the array order.
    @Test func transformLayerSublayersByDepth() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 400, height: 400))
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 200, height: 200), kind: .transform)
        t.add(2, under: 1, frame: Rect(x: 0, y: 0, width: 100, height: 100)) { $0.zPosition = 10 }
        t.add(3, under: 1, frame: Rect(x: 50, y: 50, width: 100, height: 100)) { $0.zPosition = -10 }
        #expect(t.hit(75, 75)?.0 == 2)
        #expect(t.hit(125, 125)?.0 == 3)
        #expect(t.hit(175, 25)?.0 == 0)       // inside the transform layer only: it is not hit
    }

    /// A replicator's copies are pictures: only the sublayer itself is hit.
    @Test func replicatorCopiesAreNotHit() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 400, height: 400))
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 400, height: 100), kind: .replicator) {
            $0.instanceCount = 3
            $0.instanceTransform = .translation(x: 100, y: 0)
        }
        t.add(2, under: 1, frame: Rect(x: 0, y: 0, width: 50, height: 50))
        #expect(t.hit(25, 25)?.0 == 2)
        #expect(t.hit(125, 25)?.0 == 1)       // copy 1 is drawn here; the replicator is hit
    }

    @Test func geometryFlipAndEdgeOnPlanes() {
        var t = NumberedTree()
        t.add(0, under: -1, frame: Rect(x: 0, y: 0, width: 100, height: 100)) { $0.isGeometryFlipped = true }
        t.add(1, under: 0, frame: Rect(x: 0, y: 0, width: 100, height: 20))
        // Flipped: the child's frame is at the bottom of the display.
        #expect(t.hit(50, 90)?.0 == 1)
        #expect(near(t.hit(50, 90)!.1, Point(x: 50, y: 10)))
        #expect(t.hit(50, 10)?.0 == 0)
        // Turned edge-on (90° about y): nothing of it can be hit.
        t.layers[1]!.transform = .rotation(angle: .pi / 2, x: 0, y: 1, z: 0)
        #expect(t.hit(50, 90)?.0 == 0)
    }

    @Test func unprojectInvertsProject() {
        var m = Transform3D.rotation(angle: 0.4, x: 1, y: 0.5, z: 0).concatenating(.translation(x: 30, y: 40, z: -20))
        m.m34 = -1.0 / 400
        let p = Point(x: 12, y: -7)
        let q = m.project(p)!
        let back = m.unproject(q)!
        #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
    }
}
