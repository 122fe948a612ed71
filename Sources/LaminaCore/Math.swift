#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The C maths library is the one platform import LaminaCore allows itself: the standard library
// has no trigonometry. Everything goes through these few wrappers so the rest of Core stays pure.
@inlinable @inline(__always) public func _sin(_ x: Double) -> Double { sin(x) }
@inlinable @inline(__always) public func _cos(_ x: Double) -> Double { cos(x) }
@inlinable @inline(__always) public func _atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inlinable @inline(__always) public func _exp(_ x: Double) -> Double { exp(x) }
@inlinable @inline(__always) public func _acos(_ x: Double) -> Double { acos(x) }
@inlinable @inline(__always) public func _pow(_ x: Double, _ y: Double) -> Double { pow(x, y) }
@inlinable @inline(__always) public func _log(_ x: Double) -> Double { log(x) }

extension SignedInteger where Self: FixedWidthInteger {
    /// An integer from a pixel coordinate that client values may have made huge or NaN (for
    /// GL and DRM rectangles): clamped to the type's range, NaN as 0, never a trap.
    public init(saturating value: Double) {
        if value.isNaN { self = 0 } else if value >= Double(Self.max) { self = .max } else if value <= Double(Self.min) { self = .min } else { self = Self(value) }
    }
}
