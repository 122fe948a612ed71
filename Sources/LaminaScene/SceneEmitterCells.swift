import Lamina
import LaminaCore

// `"emitterCells": [{…}]` on an emitter layer: each cell an object of `EmitterCell` fields by
// their Core Animation names, `contents` the path of a PNG, JPEG, WebP or GIF file (relative to the scene
// file), `emitterCells` its own cells.

extension SceneLayer {
    /// Sets each cell's `contents` to the image loaded for its file (`cellContentsFiles`); the
    /// images used, to keep alive with the layer.
    @MainActor
    func emitterCells(_ cells: [EmitterCell], images: [String: Image]) -> (cells: [EmitterCell], used: [Image]) {
        var cells = cells, used: [Image] = []
        for (path, file) in cellContentsFiles.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            guard let image = images[file] else { continue }
            Self.setContents(image.number, at: path[...], in: &cells)
            used.append(image)
        }
        return (cells, used)
    }

    private static func setContents(_ number: UInt32, at path: ArraySlice<Int>, in cells: inout [EmitterCell]) {
        guard let i = path.first, cells.indices.contains(i) else { return }
        if path.count == 1 { cells[i].contents = number } else { setContents(number, at: path.dropFirst(), in: &cells[i].emitterCells) }
    }
}

enum SceneEmitterCellParser {
    /// The cells of `json` and the contents file of each cell that names one, by its index path.
    static func cells(_ json: JSONValue, path: String, depth: Int = 1, indices: [Int] = [],
                      files: inout [[Int]: String]) throws(SceneError) -> [EmitterCell] {
        guard case .array(let items) = json else {
            throw SceneError(path: path, message: "expected an array of emitter cells, like [{\"name\": \"flake\", \"birthRate\": 10}]")
        }
        guard depth <= EmitterCell.maximumDepth || items.isEmpty else {
            throw SceneError(path: path, message: "emitter cells nest at most \(EmitterCell.maximumDepth) deep")
        }
        var out: [EmitterCell] = []
        for (i, item) in items.enumerated() {
            out.append(try cell(item, path: "\(path)[\(i)]", depth: depth, indices: indices + [i], files: &files))
        }
        var seen: [String: Int] = [:]
        for (i, c) in out.enumerated() where !c.name.isEmpty {
            if let j = seen[c.name] {
                throw SceneError(path: "\(path)[\(i)].name", message: "'\(c.name)' is also the name of \(path)[\(j)]; key paths find cells by name")
            }
            seen[c.name] = i
        }
        return out
    }

    private static func cell(_ json: JSONValue, path: String, depth: Int, indices: [Int],
                             files: inout [[Int]: String]) throws(SceneError) -> EmitterCell {
        guard case .object(let fields) = json else { throw SceneError(path: path, message: "an emitter cell must be an object, not \(json.typeName)") }
        var cell = EmitterCell()
        for key in fields.keys.sorted() {
            let value = fields[key]!
            let p = path + "." + key
            if key == "emitterCells" {
                cell.emitterCells = try cells(value, path: p, depth: depth + 1, indices: indices, files: &files)
                continue
            }
            guard let field = EmitterCellField(name: key) else {
                let known = EmitterCellField.allNames + ["emitterCells"]
                let hint = Suggestion.closest(to: key, among: known).map { "; did you mean '\($0)'?" } ?? " (docs/scene-format.md lists a cell's keys)"
                throw SceneError(path: p, message: "unknown emitter cell property '\(key)'\(hint)")
            }
            if field == .contents {
                switch value {
                case .null: break
                case .string(let f) where !f.isEmpty: files[indices] = f
                default: throw SceneError(path: p, message: "expected the path of a PNG, JPEG, WebP or GIF file (relative to the scene file), or null")
                }
                continue
            }
            let v = try SceneParser.value(value, type: field.valueType, key: .emitterCells, path: p)
            if case .string(let s) = v, let names = field.allowedNames, !names.contains(s) {
                throw SceneError(path: p, message: "'\(s)' is not one of \(names.joined(separator: ", "))\(Suggestion.phrase(for: s, among: names))")
            }
            guard v.isFinite else { throw SceneError(path: p, message: "must be finite") }
            cell.store(field, v)
        }
        do throws(PropertyError) { try EmitterCell.validate([cell], depth: depth, path: "emitterCells") } catch {
            throw SceneError(path: path, message: error.description)
        }
        return cell
    }
}
