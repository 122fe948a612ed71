import Foundation

/// A parsed JSON value that keeps numbers and booleans apart (JSONSerialization on Linux does not).
public indirect enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Parses JSON text; the error says where the syntax is wrong.
    public static func parse(_ data: Data) throws(SceneError) -> JSONValue {
        do {
            return try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(ctx) {
            let underlying = (ctx.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String
            throw SceneError(path: "$", message: "not valid JSON: \(underlying ?? ctx.debugDescription)")
        } catch {
            throw SceneError(path: "$", message: "not valid JSON: \(error)")
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A mistake in a scene file: the JSON path of the offending value and what was expected.
public struct SceneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Like `$.sublayers[2].bounds`.
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}
