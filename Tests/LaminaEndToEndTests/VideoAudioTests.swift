import Foundation
import Testing
import Lamina
import LaminaCore
import LaminaProtocol

/// A clip with sound, made with gst-launch-1.0: two seconds of 64×48 VP8 at 10 frames a
/// second, black for [0, 1) and white for [1, 2), and 48 kHz stereo 16-bit PCM, silent for
/// [0, 1) and a 440 Hz sine at half of full scale for [1, 2), in Matroska (the PCM stays
/// sample-exact, so the tone's onset is exactly 1 s).
enum SoundClips {
    static func toneClip(in directory: String) throws -> String {
        let path = directory + "/tone.mkv"
        let picture = "video/x-raw,width=64,height=48,framerate=10/1"
        let sound = "audio/x-raw,rate=48000,channels=2"
        let arguments = ["-q", "matroskamux", "name=m", "!", "filesink", "location=\(path)",
                         "concat", "name=v", "!", "videoconvert", "!", "vp8enc", "deadline=1", "!", "m.",
                         "videotestsrc", "pattern=black", "num-buffers=10", "!", picture, "!", "v.",
                         "videotestsrc", "pattern=white", "num-buffers=10", "!", picture, "!", "v.",
                         "concat", "name=a", "!", "audioconvert", "!", "audio/x-raw,format=S16LE,rate=48000,channels=2", "!", "m.",
                         "audiotestsrc", "wave=silence", "num-buffers=10", "samplesperbuffer=4800", "!", sound, "!", "a.",
                         "audiotestsrc", "wave=sine", "freq=440", "volume=0.5", "num-buffers=10", "samplesperbuffer=4800", "!", sound, "!", "a."]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        p.arguments = arguments
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw DaemonError("gst-launch-1.0 \(arguments.joined(separator: " ")) failed") }
        return path
    }
}

/// A WAV file's left channel (16-bit PCM), read independently of laminad's writer.
struct WAVFile {
    let rate: Int
    let channels: Int
    let left: [Int16]

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        func u16(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        guard bytes.count >= 44, String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF" else { throw DaemonError("\(path): not a RIFF file") }
        var i = 12, rate = 0, channels = 0, bits = 0
        var data: ArraySlice<UInt8>?
        while i + 8 <= bytes.count {
            let id = String(decoding: bytes[i..<(i + 4)], as: UTF8.self), size = u32(i + 4)
            if id == "fmt " {
                channels = u16(i + 10)
                rate = u32(i + 12)
                bits = u16(i + 22)
            } else if id == "data" {
                data = bytes[(i + 8)..<min(bytes.count, i + 8 + size)]
            }
            i += 8 + size + (size & 1)
        }
        guard let data, bits == 16, channels > 0 else { throw DaemonError("\(path): no 16-bit PCM data (\(bits) bits, \(channels) channels)") }
        let d = Array(data)
        let frames = d.count / (2 * channels)
        left = (0..<frames).map { Int16(bitPattern: UInt16(d[$0 * 2 * channels]) | UInt16(d[$0 * 2 * channels + 1]) << 8) }
        self.rate = rate
        self.channels = channels
    }

    var seconds: Double { Double(left.count) / Double(rate) }

    func samples(_ from: Double, _ to: Double) -> ArraySlice<Int16> {
        left[min(left.count, Int(from * Double(rate)))..<min(left.count, Int(to * Double(rate)))]
    }

    /// The largest magnitude in [from, to).
    func peak(_ from: Double, _ to: Double) -> Int { samples(from, to).map { abs(Int($0)) }.max() ?? 0 }

    /// The root mean square in [from, to).
    func rms(_ from: Double, _ to: Double) -> Double {
        let s = samples(from, to)
        guard !s.isEmpty else { return 0 }
        return (s.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(s.count)).squareRoot()
    }

    /// The frequency in [from, to) from its rising zero crossings (each placed by linear
    /// interpolation between the samples either side).
    func frequency(_ from: Double, _ to: Double) -> Double {
        let start = Int(from * Double(rate)), end = min(left.count, Int(to * Double(rate)))
        var crossings: [Double] = []
        for k in max(1, start)..<end where left[k - 1] < 0 && left[k] >= 0 {
            let a = Double(left[k - 1]), b = Double(left[k])
            crossings.append(Double(k - 1) + (-a) / (b - a))
        }
        guard crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
    }

    /// When the sound first goes past `threshold` (seconds), or nil.
    func onset(above threshold: Int) -> Double? {
        left.firstIndex { abs(Int($0)) > threshold }.map { Double($0) / Double(rate) }
    }
}

/// Videos' sound over a real laminad on the virtual clock, through a file sink
/// (`[audio] sink = "wavenc ! filesink location=…"`): the samples written are the clip's for
/// the media time each clock step advanced, at the video's volume; a sink of "none" or one
/// that cannot open leaves the video playing silent, with why in `stats`.
/// (The time limit only guards against a hang: a test takes seconds alone, minutes on a
/// 2-core machine running the KMS guests beside it.)
@Suite("video sound end to end", .serialized, .timeLimit(.minutes(10)))
@MainActor
struct VideoAudioTests {
    /// A layer showing `video` at (10, 10), red behind it (so a black picture is told from none).
    func show(_ video: VideoSource, on c: Connection) {
        let layer = Layer()
        layer.frame = Rect(x: 10, y: 10, width: 64, height: 48)
        layer.backgroundColor = Color(red: 1, green: 0, blue: 0, alpha: 1)
        layer.video = video
        c.rootLayer.addSublayer(layer)
    }

    /// The picture's grey level at the layer's centre, or nil when it is not grey (the red
    /// background: no picture).
    func grey(_ shot: Bitmap) -> Int? {
        let p = shot.pixel(x: 42, y: 34)
        guard abs(Int(p.0) - Int(p.1)) < 40, abs(Int(p.1) - Int(p.2)) < 40 else { return nil }
        return Int(p.1)
    }

    /// A laminad whose sound goes to a WAV file in its own folder, and that file's path.
    func wavSinkDaemon() throws -> (DaemonProcess, wav: String) {
        let directory = NSTemporaryDirectory() + "lamina-sound-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let wav = directory + "/out.wav"
        return (try DaemonProcess(extra: ["--audio-sink", "wavenc ! filesink location=\(wav)"], directory: directory), wav)
    }

    func stat(_ c: Connection, _ name: String) async throws -> Double? {
        try await c.stats().first { $0.name == name }?.value
    }

    @Test("the tone plays at 440 Hz from media time 1 s, in step with the picture; volume 0.5 halves it; muted is silent")
    func toneInStepWithThePicture() async throws {
        let (daemon, wav) = try wavSinkDaemon()
        let directory = daemon.directory
        let clip = try SoundClips.toneClip(in: directory)
        let c = try Connection.connect(to: daemon.socket, name: "sound")

        // 1. Full volume: twenty steps of 0.1 s, the picture black at 0.9 and white at 1.1.
        var video = try VideoSource(contentsOfFile: clip, connection: c)
        show(video, on: c)
        video.play()
        try await c.sync()
        let ready = await video.nextEvent(where: isReady)
        if case let .ready(w, h, d) = ready {
            #expect(w == 64 && h == 48 && d.map { abs($0 - 2) < 0.05 } == true, "\(ready)")
        }
        for step in 1...20 {
            _ = try await c.advanceClock(by: 0.1)
            if step == 9 { #expect(grey(try await c.screenshot()).map { $0 < 40 } == true, "black at 0.9 s") }
            if step == 11 { #expect(grey(try await c.screenshot()).map { $0 > 215 } == true, "white at 1.1 s") }
        }
        #expect(try await stat(c, "video.audio.playing") == 1)
        #expect(try await stat(c, "audio.outputs") == 1)
        video.destroy()
        try await c.sync()
        #expect(try await stat(c, "audio.outputs") == 0)
        let full = try WAVFile(path: wav)
        #expect(full.rate == 48000 && full.channels == 2)
        #expect(abs(full.left.count - 96000) <= 48, "2 s of clock: \(full.left.count) samples")
        #expect(full.peak(0, 0.9) < 50, "silent before the tone: peak \(full.peak(0, 0.9))")
        let frequency = full.frequency(1.2, 1.8)
        #expect(abs(frequency - 440) <= 2, "the tone: \(frequency) Hz")
        let onset = full.onset(above: 1000)
        #expect(onset.map { abs($0 - 1) <= 0.01 } == true, "the tone starts at \(onset ?? -1) s")
        let loud = full.rms(1.2, 1.8)
        #expect(loud > 5000, "the tone at half of full scale: rms \(loud)")
        print("sound: \(full.left.count) samples, \(frequency) Hz, onset \(onset ?? -1) s, rms \(loud)")

        // 2. Volume 0.5 through seek, pause and play: clock [0, 0.3) plays media [1, 1.3) (the
        // tone), [0.3, 0.7) is paused (silence), [0.7, 1) plays media [1.3, 1.6), then a seek to
        // 0 plays [0, 0.5) (silent) over clock [1, 1.5), and a seek to 1.5 plays the rest.
        video = try VideoSource(contentsOfFile: clip, connection: c)
        video.volume = 0.5
        show(video, on: c)
        try video.seek(to: 1)
        video.play()
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        for _ in 0..<3 { _ = try await c.advanceClock(by: 0.1) }
        video.pause()
        try await c.sync()
        for _ in 0..<4 { _ = try await c.advanceClock(by: 0.1) }
        video.play()
        try await c.sync()
        for _ in 0..<3 { _ = try await c.advanceClock(by: 0.1) }
        try video.seek(to: 0)
        try await c.sync()
        #expect(grey(try await c.screenshot()).map { $0 < 40 } == true, "black after the seek to 0")
        for _ in 0..<5 { _ = try await c.advanceClock(by: 0.1) }
        try video.seek(to: 1.5)
        try await c.sync()
        #expect(grey(try await c.screenshot()).map { $0 > 215 } == true, "white after the seek to 1.5")
        for _ in 0..<5 { _ = try await c.advanceClock(by: 0.1) }
        video.destroy()
        try await c.sync()
        #expect(try await stat(c, "audio.outputs") == 0)
        let half = try WAVFile(path: wav)
        #expect(abs(half.left.count - 96000) <= 48, "2 s of clock: \(half.left.count) samples")
        for (from, to) in [(0.02, 0.28), (0.72, 0.98), (1.52, 1.98)] {
            #expect(half.peak(from, to) > 4000, "the tone in [\(from), \(to)): peak \(half.peak(from, to))")
        }
        for (from, to) in [(0.32, 0.68), (1.02, 1.48)] {
            #expect(half.peak(from, to) < 50, "silence in [\(from), \(to)): peak \(half.peak(from, to))")
        }
        let resumed = Double(half.samples(0.5, 2).firstIndex { abs(Int($0)) > 500 } ?? 0) / 48000
        #expect(abs(resumed - 0.7) <= 0.01, "the tone again when play resumed: \(resumed) s")
        #expect(abs(half.frequency(1.55, 1.95) - 440) <= 2, "\(half.frequency(1.55, 1.95)) Hz")
        let ratio = half.rms(0.75, 0.95) / loud
        #expect(abs(ratio - 0.5) <= 0.025, "volume 0.5: \(ratio) of the full volume's rms")
        print("sound: volume 0.5 gives \(ratio) of full; the tone again at \(resumed) s after the pause")

        // 3. Muted: silence throughout, the picture as ever.
        video = try VideoSource(contentsOfFile: clip, connection: c)
        video.isMuted = true
        show(video, on: c)
        video.play()
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        for _ in 0..<15 { _ = try await c.advanceClock(by: 0.1) }
        #expect(grey(try await c.screenshot()).map { $0 > 215 } == true, "white at 1.5 s")
        video.destroy()
        try await c.sync()
        #expect(try await stat(c, "audio.outputs") == 0)
        let muted = try WAVFile(path: wav)
        #expect(abs(muted.left.count - 72000) <= 48 && muted.peak(0, muted.seconds) == 0,
                "muted: \(muted.left.count) samples, peak \(muted.peak(0, muted.seconds))")
        c.close()
    }

    @Test("a scene's \"volume\" and \"muted\"; laminactl video NAME volume V, mute, unmute change the sound from their clock time on")
    func sceneAndLaminactl() async throws {
        let (daemon, wav) = try wavSinkDaemon()
        let directory = daemon.directory
        _ = try SoundClips.toneClip(in: directory)
        let scene = directory + "/scene.json", empty = directory + "/empty.json"
        try #"{"sublayers": [{"name": "tone", "frame": [10, 10, 64, 48], "video": "tone.mkv", "playing": true, "volume": 0.5}]}"#
            .write(toFile: scene, atomically: true, encoding: .utf8)
        try #"{"sublayers": []}"#.write(toFile: empty, atomically: true, encoding: .utf8)
        var r = try daemon.laminactl(["apply", scene])
        #expect(r.status == 0, "\(r.output)")
        let c = try Connection.connect(to: daemon.socket, name: "look")
        // Clock [0, 1.2): media [0, 1.2) at volume 0.5; [1.2, 1.5) muted; [1.5, 1.9) unmuted at volume 1.
        for _ in 0..<12 { _ = try await c.advanceClock(by: 0.1) }
        r = try daemon.laminactl(["video", "tone", "mute"])
        #expect(r.status == 0, "\(r.output)")
        for _ in 0..<3 { _ = try await c.advanceClock(by: 0.1) }
        r = try daemon.laminactl(["video", "tone", "unmute"])
        #expect(r.status == 0, "\(r.output)")
        r = try daemon.laminactl(["video", "tone", "volume", "1"])
        #expect(r.status == 0, "\(r.output)")
        for _ in 0..<4 { _ = try await c.advanceClock(by: 0.1) }
        r = try daemon.laminactl(["video", "tone", "volume", "1.5"])
        #expect(r.status != 0 && r.output.contains("from 0 to 1"), "\(r.output)")
        // Applying an empty scene stops the video: its output ends, the file is complete.
        #expect(try daemon.laminactl(["apply", empty]).status == 0)
        #expect(try await stat(c, "audio.outputs") == 0)
        let sound = try WAVFile(path: wav)
        #expect(abs(sound.left.count - Int(1.9 * 48000)) <= 48, "1.9 s of clock: \(sound.left.count) samples")
        let half = sound.rms(1.02, 1.18), full = sound.rms(1.52, 1.88)
        #expect(sound.peak(1.2, 1.5) == 0, "muted from the mute on: peak \(sound.peak(1.2, 1.5))")
        #expect(half > 3000 && abs(half / full - 0.5) <= 0.025, "the scene's volume 0.5, then laminactl's 1: rms \(half), \(full)")
        let unmuted = Double(sound.samples(1.3, 1.9).firstIndex { abs(Int($0)) > 1000 } ?? 0) / 48000
        #expect(abs(unmuted - 1.5) <= 0.01, "the sound again from the unmute on: \(unmuted) s")
        c.close()
    }

    @Test("a looping video's sound runs on across the wrap: the tone to the end, then the clip's silent start")
    func loopingSound() async throws {
        let (daemon, wav) = try wavSinkDaemon()
        let directory = daemon.directory
        let clip = try SoundClips.toneClip(in: directory)
        let c = try Connection.connect(to: daemon.socket, name: "sound")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        video.loops = true
        show(video, on: c)
        video.play()
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        // Steps of 0.15 s: the wrap at 2 s falls inside the step from 1.95 to 2.1.
        for _ in 0..<22 { _ = try await c.advanceClock(by: 0.15) }
        video.destroy()
        try await c.sync()
        #expect(try await stat(c, "audio.outputs") == 0)
        let sound = try WAVFile(path: wav)
        #expect(abs(sound.left.count - Int(3.3 * 48000)) <= 48, "3.3 s of clock: \(sound.left.count) samples")
        #expect(sound.peak(1.9, 1.999) > 4000, "the tone up to the wrap: peak \(sound.peak(1.9, 1.999))")
        #expect(sound.peak(2.001, 2.98) < 50, "the clip's silent start again: peak \(sound.peak(2.001, 2.98))")
        let again = Double(sound.samples(2.5, 3.3).firstIndex { abs(Int($0)) > 1000 } ?? 0) / 48000
        #expect(abs(again - 3) <= 0.01, "the tone again one loop later: \(again) s; peaks \((0..<8).map { sound.peak(2.5 + Double($0) * 0.1, 2.6 + Double($0) * 0.1) })")
        c.close()
    }

    @Test("[audio] sink = \"none\": no sound is decoded, the video plays, stats say it is silent and why")
    func noSink() async throws {
        let daemon = try DaemonProcess(extra: ["--audio-sink", "none"])
        let clip = try SoundClips.toneClip(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "sound")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        show(video, on: c)
        video.play()
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        for _ in 0..<12 { _ = try await c.advanceClock(by: 0.1) }
        #expect(grey(try await c.screenshot()).map { $0 > 215 } == true, "white at 1.2 s")
        #expect(try await stat(c, "audio.sinkNone") == 1)
        #expect(try await stat(c, "audio.outputs") == 0)
        #expect(try await stat(c, "video.audio.silent.noSink") == 1)
        #expect(!video.events.contains(where: isError))
        c.close()
    }

    /// A file that cannot be made, an ALSA device that does not exist (or, without
    /// gstreamer1.0-alsa, an element that does not), and whatever autoaudiosink finds here:
    /// on a machine without sound (CI, this one) it finds nothing that opens.
    nonisolated static let failingSinks = ["wavenc ! filesink location=/nonexistent-lamina-dir/x.wav", "alsasink device=hw:99"]
        + (FileManager.default.fileExists(atPath: "/dev/snd") || getenv("PULSE_SERVER") != nil ? [] : ["auto"])

    @Test("a sink that cannot open: the video plays silent, stats and the log say why, the client hears no error",
          arguments: failingSinks)
    func sinkThatCannotOpen(sink: String) async throws {
        let daemon = try DaemonProcess(extra: ["--audio-sink", sink])
        let clip = try SoundClips.toneClip(in: daemon.directory)
        let c = try Connection.connect(to: daemon.socket, name: "sound")
        let video = try VideoSource(contentsOfFile: clip, connection: c)
        show(video, on: c)
        video.play()
        try await c.sync()
        _ = await video.nextEvent(where: isReady)
        for step in 1...12 {
            _ = try await c.advanceClock(by: 0.1)
            if step == 9 { #expect(grey(try await c.screenshot()).map { $0 < 40 } == true, "black at 0.9 s") }
        }
        #expect(grey(try await c.screenshot()).map { $0 > 215 } == true, "white at 1.2 s")
        #expect(try await stat(c, "video.audio.silent.sinkFailed") == 1)
        #expect(try await stat(c, "audio.outputs") == 0)
        #expect(!video.events.contains(where: isError))
        #expect(FileManager.default.fileExists(atPath: "/nonexistent-lamina-dir/x.wav") == false)
        #expect(daemon.logText.contains("plays silent"), "the log says why")
        c.close()
    }
}
