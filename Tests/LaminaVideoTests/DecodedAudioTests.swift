import Testing
@testable import LaminaVideo

/// The decoded sound a decoder keeps by media sample (`DecodedAudio`): samples in order, gaps
/// as silence, a jump starts afresh, what is asked for beyond what is kept is silence, and at
/// most `limit` samples are kept.
@Suite("decoded audio")
struct DecodedAudioTests {
    /// `n` stereo samples whose left and right are `value`.
    func pairs(_ n: Int, _ value: Int16) -> [Int16] { [Int16](repeating: value, count: n * 2) }

    func copy(_ d: DecodedAudio, _ from: Int64, _ n: Int) -> [Int16] {
        var out: [Int16] = []
        d.copy(from: from, count: n, into: &out)
        return out
    }

    @Test func keepsSamplesInOrderAndFillsGapsWithSilence() {
        var d = DecodedAudio()
        pairs(100, 1).withUnsafeBufferPointer { d.append(at: 1000, $0) }
        pairs(100, 2).withUnsafeBufferPointer { d.append(at: 1100, $0) }
        #expect(d.start == 1000 && d.end == 1200)
        // 100 samples later than the last: a gap of silence.
        pairs(10, 3).withUnsafeBufferPointer { d.append(at: 1300, $0) }
        #expect(d.end == 1310)
        #expect(copy(d, 1195, 10) == pairs(5, 2) + pairs(5, 0))
        #expect(copy(d, 990, 20) == pairs(10, 0) + pairs(10, 1), "before what is kept: silence")
        #expect(copy(d, 1305, 10) == pairs(5, 3) + pairs(5, 0), "after it: silence")
        d.dropBefore(1150)
        #expect(d.start == 1150 && copy(d, 1150, 1) == pairs(1, 2))
        // A jump back (a flush the decoder did not see): afresh.
        pairs(5, 4).withUnsafeBufferPointer { d.append(at: 0, $0) }
        #expect(d.start == 0 && d.end == 5)
    }

    @Test func keepsAtMostItsLimit() {
        var d = DecodedAudio()
        let second = pairs(48_000, 7)
        for k in 0..<10 { second.withUnsafeBufferPointer { d.append(at: Int64(k) * 48_000, $0) } }
        #expect(d.count == DecodedAudio.limit && d.end == 480_000 && d.start == 480_000 - Int64(DecodedAudio.limit))
    }
}
