/// "Did you mean …?" for a misspelt name: the closest of the known names by edit distance.
public enum Suggestion {
    /// The candidate closest to `word` (ignoring case), if it is close enough to be a likely
    /// misspelling: at most a third of the word's length in edits (at least 1, at most 3).
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let w = Array(word.lowercased())
        let limit = min(3, max(1, w.count / 3))
        var best: (name: String, distance: Int)?
        for c in candidates {
            let d = distance(w, Array(c.lowercased()))
            if d <= limit, d < (best?.distance ?? .max) { best = (c, d) }
        }
        return best?.name
    }

    /// `"; did you mean 'x'?"`, or `""` when nothing is close.
    public static func phrase(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    /// `phrase(for:among:)` for a value that must be one of a key's names: also matched without
    /// dashes and underscores, and without Core Image's "BlendMode" suffix, so the W3C and CSS
    /// spellings of a blend mode ("soft-light", "multiply") point to Core Animation's
    /// ("softLightBlendMode", "multiplyBlendMode").
    public static func phrase(for value: String, amongNames names: [String]) -> String {
        var aliases: [String: String] = [:]
        for n in names where !n.isEmpty {
            aliases[n] = n
            if n.hasSuffix("BlendMode") { aliases[String(n.dropLast("BlendMode".count))] = n }
        }
        let word = String(value.filter { $0 != "-" && $0 != "_" })
        return closest(to: word, among: aliases.keys.sorted()).flatMap { aliases[$0] }.map { "; did you mean '\($0)'?" } ?? ""
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours each cost 1 (a swap is the commonest typo, "opactiy").
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, previous2[j - 2] + 1) }
                current[j] = d
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
