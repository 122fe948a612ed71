/// The geometry of Apple's continuous corner (`cornerCurve = continuous`).
///
/// Apple does not publish the curve. Lamina takes the construction PaintCode reverse-engineered
/// from UIKit's rounded rectangles, iOS 7 and later ("Code for iOS 7 rounded rectangles",
/// paintcodeapp.com): each corner is three cubic Béziers joined by two short lines, symmetric
/// about the corner's diagonal. The outer two ease the curvature in from the straight edges, the
/// middle one follows a circular arc; the curve leaves each edge `reach` (1.52866483) radii
/// before the corner, where a circular corner leaves it one radius before.
///
/// Points are in radii from the rectangle's corner: `a` along the edge the walk starts on, `b`
/// into the rectangle from that edge. The walk runs from the first edge at (reach, 0) to the
/// second at (0, reach).
///
/// Where the full reach does not fit (a radius near half the shorter side: `CornerRadii` holds
/// radii to half of it), the corner is blended towards a circular one until it does, point by
/// point (`smoothing`): a radius of half the side still draws a capsule's round end, as SwiftUI
/// draws its continuous capsules. The renderer's shaders evaluate the same points
/// (`Shaders.continuousCorner`); the blend and the points are defined only here.
public enum ContinuousCorner {
    /// How far from the corner the curve leaves each edge, in radii.
    public static let reach = 1.52866483

    /// The 12 points of the walk (a, b): start, control, control, end of the first cubic; the
    /// end of the first line; control, control, end of the middle cubic; the end of the second
    /// line; control, control, end of the last cubic.
    public static let points: [(a: Double, b: Double)] = [
        (1.52866483, 0), (1.08849323, 0), (0.86840689, 0), (0.66993427, 0.06549600),
        (0.63149399, 0.07491100),
        (0.37282392, 0.16905899), (0.16905899, 0.37282392), (0.07491100, 0.63149399),
        (0.06549600, 0.66993427),
        (0, 0.86840689), (0, 1.08849323), (0, 1.52866483),
    ]

    /// The same walk for a circular corner: the first cubic and line shrink to the point where
    /// the arc starts, the middle cubic is the usual cubic quarter circle (handles 0.55228475
    /// of the radius), the last line and cubic shrink to where it ends.
    public static let circularPoints: [(a: Double, b: Double)] = [
        (1, 0), (1, 0), (1, 0), (1, 0),
        (1, 0),
        (1 - 0.55228475, 0), (0, 1 - 0.55228475), (0, 1),
        (0, 1),
        (0, 1), (0, 1), (0, 1),
    ]

    /// How far a corner of radius `radius` is continuous rather than circular, from 0 to 1:
    /// 1 where its full reach fits within `limit` (half the shorter side of the rectangle),
    /// less as the radius approaches the limit, 0 at the limit (circular).
    public static func smoothing(radius: Double, limit: Double) -> Double {
        guard radius > 0 else { return 1 }
        return Swift.min(1, Swift.max(0, (limit / radius - 1) / (reach - 1)))
    }

    /// The walk's points for a corner of radius 1 with `smoothing` s: each point moved from the
    /// circular corner's towards the continuous one's by s.
    public static func blendedPoints(smoothing s: Double) -> [(a: Double, b: Double)] {
        zip(circularPoints, points).map { c, p in (c.a + (p.a - c.a) * s, c.b + (p.b - c.b) * s) }
    }

    /// How far a corner of radius `radius` reaches along each edge within a rectangle whose
    /// shorter side is twice `limit`.
    public static func reach(radius: Double, limit: Double) -> Double {
        radius * (1 + (reach - 1) * smoothing(radius: radius, limit: limit))
    }
}
