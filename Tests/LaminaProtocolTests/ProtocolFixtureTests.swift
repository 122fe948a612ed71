import Foundation
import Testing
import LaminaCore
@testable import LaminaProtocol

/// protocol/fixtures/: every file is exactly what this codec encodes for its fixture, decodes
/// back to it, and is listed in index.json with its description (ProtocolFixtures.swift).
@Suite("Protocol fixtures", .serialized)
struct ProtocolFixtureTests {
    static let directory = repositoryRoot.appendingPathComponent("protocol/fixtures")

    /// With `LAMINA_WRITE_PROTOCOL_FIXTURES=1` the tests write the files instead of checking
    /// them (after a deliberate addition; existing fixtures should never change).
    static var writing: Bool { ProcessInfo.processInfo.environment["LAMINA_WRITE_PROTOCOL_FIXTURES"] == "1" }

    /// index.json as it must be: one entry per fixture, in order, one line each.
    static var indexText: String {
        let entries = ProtocolFixtures.all.map { f -> String in
            var fields = [
                "\"file\": \(jsonString(f.name + ".bin"))",
                "\"direction\": \(jsonString(f.direction))",
                "\"type\": \(Int(f.bytes[4]) | Int(f.bytes[5]) << 8)",
                "\"bytes\": \(f.bytes.count)",
            ]
            if f.descriptors > 0 { fields.append("\"descriptors\": \(f.descriptors)") }
            fields.append("\"description\": \(jsonString(f.description))")
            return "    {" + fields.joined(separator: ", ") + "}"
        }
        return "{\n  \"protocol\": \"\(ProtocolVersion.major).\(ProtocolVersion.minor)\",\n"
            + "  \"generatedBy\": \"Tests/LaminaProtocolTests/ProtocolFixtures.swift (LAMINA_WRITE_PROTOCOL_FIXTURES=1)\",\n"
            + "  \"fixtures\": [\n" + entries.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    @Test func fixtureNamesAreUnique() {
        #expect(Set(ProtocolFixtures.all.map(\.name)).count == ProtocolFixtures.all.count)
    }

    @Test func filesHoldExactlyTheEncodedFrames() throws {
        if Self.writing {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            for f in ProtocolFixtures.all {
                try Data(f.bytes).write(to: Self.directory.appendingPathComponent(f.name + ".bin"))
            }
            try Data(Self.indexText.utf8).write(to: Self.directory.appendingPathComponent("index.json"))
        }
        for f in ProtocolFixtures.all {
            let url = Self.directory.appendingPathComponent(f.name + ".bin")
            let data = try #require(FileManager.default.contents(atPath: url.path), "missing \(url.path)")
            #expect([UInt8](data) == f.bytes, "\(f.name).bin differs from what the codec encodes")
        }
    }

    @Test func filesDecodeToTheirMessages() throws {
        for f in ProtocolFixtures.all {
            guard let data = FileManager.default.contents(atPath: Self.directory.appendingPathComponent(f.name + ".bin").path) else {
                Issue.record("missing \(f.name).bin")
                continue
            }
            var decoder = FrameDecoder(limit: 1 << 24)
            decoder.append([UInt8](data))
            let frame = try #require(try decoder.next(), "\(f.name).bin is not a whole frame")
            #expect(decoder.bufferedCount == 0, "\(f.name).bin has bytes after its frame")
            switch f.decoded {
            case .client(let m): #expect(try ClientMessage.decode(type: frame.type, body: frame.body) == m, "\(f.name)")
            case .server(.reply(let id, .presentation(let p, _))):
                // A reply written for an older client decodes with this version's keys at their defaults.
                #expect(try ServerMessage.decode(type: frame.type, body: frame.body) == .reply(id: id, .presentation(p)), "\(f.name)")
            case .server(let m): #expect(try ServerMessage.decode(type: frame.type, body: frame.body) == m, "\(f.name)")
            }
        }
    }

    /// index.json lists every fixture file and nothing else, with the descriptions above.
    @Test func indexListsEveryFileAndNothingElse() throws {
        let index = try #require(FileManager.default.contents(atPath: Self.directory.appendingPathComponent("index.json").path))
        #expect(String(decoding: index, as: UTF8.self) == Self.indexText, "protocol/fixtures/index.json is out of date")
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".bin") }
        #expect(Set(files) == Set(ProtocolFixtures.all.map { $0.name + ".bin" }))
    }
}

/// The repository's root folder, found from this file's path.
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
