import Foundation
import LaminaCore
import Testing

/// Runs a shell script inside a throw-away QEMU guest with a real KMS device
/// (scripts/vm/vmkms.py; shared/vm-kms.md describes the recipe) and collects what it showed.
///
/// The guest sees the host's root read-only, so it runs laminad and laminactl straight from the
/// build folder. Its script asks the host for screendumps with `shot NAME [HEAD]`.
enum VMHarness {
    /// The repository root, two folders above this file.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Where laminad and laminactl were built (next to the test bundle).
    static var buildDirectory: String {
        if let env = ProcessInfo.processInfo.environment["LAMINA_BUILD_DIR"] { return env }
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        return dir.path
    }

    /// The laminactl the guest scripts run (`$L`): `LAMINA_VM_LAMINACTL` where set, else
    /// `shipped("laminactl")`. Under TCG a Swift process's start is most of a request: ~0.5 s
    /// for the static release build against ~1 s for the debug one, and the VM tests make about
    /// 800 requests. `calibrate` times the debug build still, as its reference was measured with it.
    static let controlTool = shipped("laminactl", unless: "LAMINA_VM_LAMINACTL")

    /// The laminad the guest scripts start (`$LAMINAD`): `LAMINA_VM_LAMINAD` where set, else
    /// `shipped("laminad")`. The release build is the one the packages install; under TCG the
    /// debug build's Swift code runs several times slower, and its ~100 MB are read over 9p at
    /// each guest's first start.
    static let daemon = shipped("laminad", unless: "LAMINA_VM_LAMINAD")

    /// `variable`'s path where the environment sets it; else the release build of `product`
    /// that `scripts/package.sh` makes (the Swift runtime linked in, as shipped) where it is
    /// newer than the debug one next to the tests (so built from the same sources); else that one.
    static func shipped(_ product: String, unless variable: String) -> String {
        let debug = buildDirectory + "/" + product
        if let chosen = ProcessInfo.processInfo.environment[variable], !chosen.isEmpty { return chosen }
        let release = repository + "/.build/release/" + product
        let files = FileManager.default
        guard let built = (try? files.attributesOfItem(atPath: release))?[.modificationDate] as? Date,
              let debugBuilt = (try? files.attributesOfItem(atPath: debug))?[.modificationDate] as? Date,
              built > debugBuilt,
              // Linked with the Swift runtime inside: no libswiftCore.so named among its libraries.
              let binary = files.contents(atPath: release), binary.range(of: Data("libswiftCore.so".utf8)) == nil
        else { return debug }
        return release
    }

    /// Shell functions every guest script starts with.
    ///
    /// No wait counts on the machine's speed: each waits for a condition (`poll`), up to a limit
    /// given at the reference speed and scaled by the guest's speed factor `F` (vmkms.py measures
    /// it from the boot, `$LAMINA_VM_FACTOR`, and raises it where the first request to laminad,
    /// `calibrate`, was slower still). A wait for something that must *not* happen (`nap`) is
    /// scaled the same way.
    static var prelude: String {
        """
        B=\(buildDirectory)
        L=\(controlTool)
        LAMINAD=\(daemon)
        F=${LAMINA_VM_FACTOR:-1}
        export LAMINA_SOCKET=/run/lamina.sock
        LOG=/tmp/laminad.log
        : >$LOG
        tail -f $LOG &
        TAIL=$!
        # scaled X: X seconds (or tenths, or a count) at the reference speed, on this guest.
        scaled() { awk -v x="$1" -v f="$F" 'BEGIN { printf "%d", x * f + 0.5 }'; }
        # nap SECONDS: a wait for something not to happen, as long as it takes this guest.
        nap() { sleep "$(awk -v x="$1" -v f="$F" 'BEGIN { printf "%.2f", x * f }')"; }
        # tenths: the guest's uptime in tenths of a second.
        tenths() { read t _ </proc/uptime; t=${t%?}; echo "${t%.*}${t#*.}"; }
        # poll TENTHS COMMAND…: COMMAND until it succeeds, every 0.1 s, for at most TENTHS tenths
        # of a second at the reference speed (a deadline, not a count of tries: a try may itself
        # take long on a slow guest). Fails when the time is up.
        poll() {
            end=$(( $(tenths) + $(scaled $1) )); shift
            until "$@"; do [ "$(tenths)" -lt $end ] || return 1; sleep 0.1; done
        }
        listening() { [ -S $LAMINA_SOCKET ]; }
        gone() { ! kill -0 "$1" 2>/dev/null; }
        # calibrate: once laminad first listens, time what the tests do most (a Swift process
        # started from the host's files, one request): a busy host slows it far more than the
        # boot. vmkms.py answers with the factor, raised if this was slower than the boot said.
        calibrate() {
            [ -z "$CALIBRATED" ] || return 0
            CALIBRATED=1
            t0=$(tenths); "$B/laminactl" stats >/dev/null; t=$(( $(tenths) - t0 ))
            echo "VMKMS_CALIBRATE $((t / 10)).$((t % 10))"; read F
            value vm_factor $F
        }
        # start_laminad ARGS…: laminad on the KMS backend, waiting until it listens. Without the
        # boot handoff (HANDOFF, unless a script empties it): the console's picture would
        # otherwise fade out over the first client frame, and `settle` (which, for scenes that
        # never rest, is content with one new frame) could catch the fade's first frames.
        HANDOFF="--boot-handoff off"
        start_laminad() {
            START=$(cut -d' ' -f1 /proc/uptime)
            "$LAMINAD" --backend kms --socket $LAMINA_SOCKET --log-level debug $HANDOFF "$@" >>$LOG 2>&1 &
            PID=$!
            poll 300 listening || { echo "VMKMS_FAIL laminad did not listen"; exit 3; }
            calibrate
        }
        # shown: the display shows the tree (no frame owed: none due, no flip pending), or, for a
        # scene that never rests (a video, an animation), a frame reached it after SHOWN_FROM was
        # read: the screenshot's frame (it drew the change) or a later one.
        shown() {
            "$L" stats >/tmp/shown || return 1
            [ "$(sed -n 's/^display.frameOwed //p' /tmp/shown)" = 0 ] \\
                || [ "$(sed -n 's/^display.framesPresented //p' /tmp/shown)" -gt "${SHOWN_FROM:-0}" ]
        }
        # settle: the last change has been drawn and its page flip has completed. (The
        # screenshot draws whatever is pending; then the frame must reach the display.)
        settle() {
            "$L" screenshot /tmp/settle.png >/dev/null || echo "VMKMS_FAIL screenshot request failed"
            SHOWN_FROM=$("$L" stats | sed -n 's/^display.framesPresented //p')
            poll 100 shown || echo "VMKMS_FAIL the display did not catch up: $(grep '^display\\.' /tmp/shown | paste -sd' ')"
        }
        # apply FILE: the scene at once (no implicit animations), for exact pixels.
        apply() { "$L" apply --disable-actions "$1" >/dev/null || echo "VMKMS_FAIL apply $1"; }
        shot() { echo "VMKMS_SHOT $1 ${2:-0}"; read _; }
        # crc NAME: the composed frame's checksum (vkms computes one per frame while asked; debugfs
        # must be mounted), as value NAME, once four frames in a row agree.
        DRI=/sys/kernel/debug/dri/0
        crc() {
            echo auto > $DRI/crtc-0/crc/control
            head -n 4 $DRI/crtc-0/crc/data | cut -d' ' -f2 > /tmp/crc
            [ "$(sort -u /tmp/crc | wc -l)" = 1 ] || echo "VMKMS_FAIL the frame was not steady: $(cat /tmp/crc | paste -sd' ')"
            value $1 "$(tail -n 1 /tmp/crc)"
        }
        # overlay NAME (vkms, debugfs mounted): the lit overlay plane's framebuffer size and
        # placement from the atomic state, as value NAME ("none" where no overlay plane is lit;
        # plane 0 is the primary, plane 9 the cursor).
        overlay() {
          awk '/^plane\\[/ { plane = $0 } /^\\tcrtc=crtc-0/ { lit[plane] = 1 }
               /^\\tfb=/ { fb[plane] = $0 } /^\\t\\tsize=/ { size[plane] = $0 }
               /^\\tcrtc-pos=/ { pos[plane] = $0 } /^\\tsrc-pos=/ { src[plane] = $0 }
               END { n = 0; for (p in lit) if (p !~ /plane-0/ && p !~ /plane-9$/) { n++; print p, fb[p], size[p], pos[p], src[p] }
                     if (n == 0) print "none" }' $DRI/state | tr -s '\\t ' ' ' > /tmp/overlay
          value $1 "$(cat /tmp/overlay | paste -sd'|')"
        }
        # pull NAME FILE: a file of the guest's to the host's test folder (Run.file(NAME)).
        pull() { echo "VMKMS_FILE $1 $(base64 -w0 "$2")"; }
        value() { echo "VMKMS_VALUE $1 $2"; }
        logged() { grep -q "$1" $LOG; }
        counted() { [ "$(grep -c "$1" $LOG)" -ge "$2" ]; }
        wait_log() {  # wait_log PATTERN [TENTHS]
            poll ${2:-100} logged "$1" || echo "VMKMS_FAIL no '$1' in the log"
        }
        wait_count() {  # wait_count PATTERN N [TENTHS]: the log has N lines matching PATTERN
            poll ${3:-100} counted "$1" "$2" || echo "VMKMS_FAIL fewer than $2 '$1' in the log"
        }
        stop_laminad() { kill -TERM $PID; wait $PID; value laminad_exit $?; }
        # qmp COMMAND [JSON]: a QMP command run by the host (input-send-event needs --input).
        qmp() { echo "VMKMS_QMP $1 $2"; read _; }
        # start_udev: systemd-udevd, so libinput sees the input devices (it takes only devices
        # udev has tagged) and hears of new ones.
        start_udev() {
            /lib/systemd/systemd-udevd --daemon --resolve-names=never >/tmp/udevd.log 2>&1 || echo "VMKMS_FAIL systemd-udevd did not start"
            # udevadm refuses to trigger in a chroot ("Running in chroot, ignoring request") unless told.
            SYSTEMD_IGNORE_CHROOT=1 udevadm trigger --action=add --subsystem-match=input
            SYSTEMD_IGNORE_CHROOT=1 udevadm settle --timeout=$(scaled 30) || echo "VMKMS_FAIL udevadm settle"
        }
        # input_log: laminad's `input: ` lines, each once and whole, as VMKMS_INPUT lines (the
        # tail of the log may not have reached the console yet when the guest ends).
        input_log() { kill $TAIL 2>/dev/null; wait $TAIL 2>/dev/null; grep " input: " $LOG | sed 's/^/VMKMS_INPUT /'; }
        value vm_factor $F

        """
    }

    /// What one boot produced.
    struct Run {
        let directory: String
        let status: Int32
        let serial: String

        /// Screendump `name`, as RGBA.
        func shot(_ name: String) throws -> Bitmap {
            try PPM.read(path: directory + "/" + name + ".ppm")
        }

        /// A file the guest sent with `pull NAME FILE`.
        func file(_ name: String) -> [UInt8]? {
            FileManager.default.contents(atPath: directory + "/" + name).map { [UInt8]($0) }
        }

        /// laminad's whole log, every line: the script prints the log file again at its end.
        /// (The live copy in `serial`, from `tail -f`, may miss the last lines: tail polls, and
        /// the guest powers off at once.) Look for lines logged near the end here.
        var log: String {
            serial.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("VMKMS_LOG ") }
                .map { $0.dropFirst(10) }.joined(separator: "\n")
        }

        /// Values the guest printed with `value KEY VALUE`.
        var values: [String: String] {
            var result: [String: String] = [:]
            for line in serial.split(whereSeparator: \.isNewline) {
                guard let range = line.range(of: "VMKMS_VALUE ") else { continue }
                let parts = line[range.upperBound...].split(separator: " ", maxSplits: 1)
                if parts.count == 2 { result[String(parts[0])] = String(parts[1]).trimmingCharacters(in: .whitespaces) }
            }
            return result
        }

        /// How many times slower than the reference machine the guest ran (vmkms.py's speed
        /// factor, from its boot; 1 or more): the guest's waits were scaled by it.
        var factor: Double { values["vm_factor"].flatMap(Double.init) ?? 1 }

        /// Failures the guest script reported.
        var failures: [String] {
            serial.split(whereSeparator: \.isNewline).filter { $0.contains("VMKMS_FAIL") && !$0.contains("echo") }.map(String.init)
        }
    }

    /// Boots a guest that runs `script` (after `prelude`), with `files` written beside it.
    /// `input` adds QEMU's virtio keyboard and tablet (driven with `qmp input-send-event`).
    /// `timeout`: seconds the script may take at the reference speed; vmkms.py scales it by the
    /// guest's measured speed factor (and LAMINA_VM_SLOWDOWN), so a slow machine gets longer.
    /// `systemd` boots the host's systemd as PID 1, the script running as a service
    /// (`vmkms.py run --systemd`); its boot counts against the timeout.
    /// Cancels the test (a skip, with the reason) when qemu or the kernel cannot be had here.
    ///
    /// The guest starts once fewer than `GuestSlots.shared.limit` others run, and the test waits
    /// for it on a thread of its own: a test waiting for its guest holds none of Swift Testing's
    /// threads (as many as the machine has cores), which the other suites' tests need meanwhile.
    static func run(
        _ name: String, device: String = "virtio", outputs: Int = 1, vncHead: Int? = nil, input: Bool = false,
        systemd: Bool = false, timeout: Int = 150, files: [String: String] = [:], script: String
    ) async throws -> Run {
        let directory = repository + "/.cache/vm/tests/" + name
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (file, text) in files { try text.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8) }
        let scriptPath = directory + "/guest.sh"
        // The script's status stays its own; the log file follows it whole (`Run.log`).
        let epilogue = "\nstatus=$?\nsed 's/^/VMKMS_LOG /' $LOG\nexit $status\n"
        try ("D=\(directory)\n" + prelude + script + epilogue).write(toFile: scriptPath, atomically: true, encoding: .utf8)

        var arguments = ["python3", repository + "/scripts/vm/vmkms.py", "run", "--script", scriptPath, "--out", directory,
                         "--device", device, "--outputs", String(outputs), "--timeout", String(timeout)]
        if let vncHead { arguments += ["--vnc-head", String(vncHead)] }
        if input { arguments.append("--input") }
        if systemd { arguments.append("--systemd") }
        await GuestSlots.shared.acquire()
        let result = await runOnOwnThread(arguments)
        await GuestSlots.shared.release()
        let (status, stderr) = try result.get()
        if status == 77 {
            let reason = "the KMS VM cannot run here: \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
            // CI (.ci/run sets LAMINA_REQUIRE_VM=1) has everything installed by scripts/deps.sh:
            // there a missing qemu or kernel is a broken install step, not a reason to skip.
            if ProcessInfo.processInfo.environment["LAMINA_REQUIRE_VM"] == "1" {
                Issue.record(Comment(rawValue: reason + " (LAMINA_REQUIRE_VM=1: failing instead of skipping)"))
                throw VMUnavailable(reason: reason)
            }
            try Test.cancel(Comment(rawValue: reason))
        }
        let serial = (try? String(contentsOfFile: directory + "/serial.log", encoding: .utf8)) ?? ""
        let run = Run(directory: directory, status: status, serial: serial)
        // The boot's timing and the factor, for whoever reads the test log.
        let timing = stderr.split(whereSeparator: \.isNewline).filter { $0.contains("booted in") || $0.contains("first request") || $0.contains("guest exited") || $0.contains("timed out") }
        print("VM \(name): \(timing.map { $0.replacingOccurrences(of: "vmkms: ", with: "") }.joined(separator: "; "))")
        #expect(run.status == 0, "the guest script failed (status \(run.status)):\n\(stderr)\n\(serial.suffix(4000))")
        #expect(run.failures.isEmpty, "\(run.failures)\n\(serial.suffix(4000))")
        return run
    }
}

extension VMHarness {
    /// Runs `/usr/bin/env ARGUMENTS` (vmkms.py) to its end on a new thread, not one of the
    /// concurrency pool's: its exit status and standard error.
    static func runOnOwnThread(_ arguments: [String]) async -> Result<(Int32, String), any Error> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                do {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                    process.arguments = arguments
                    let errors = Pipe()
                    process.standardError = errors
                    process.standardOutput = FileHandle.nullDevice
                    try process.run()
                    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    continuation.resume(returning: .success((process.terminationStatus, stderr)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
    }
}

/// How many guests may run at once in this test process: `LAMINA_VM_GUESTS`, or the machine's
/// cores up to 4 (two on a 2-core machine). A guest waits more than it computes, so two at
/// once take about two thirds of the time of one after the other; the serialized VM suites
/// (`KMSVMTests`) wait here for a slot.
actor GuestSlots {
    static let shared = GuestSlots(limit: Int(ProcessInfo.processInfo.environment["LAMINA_VM_GUESTS"] ?? "")
        .map { max(1, $0) } ?? max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)))
    let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the longest waiting guest, or frees it.
    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}

struct VMUnavailable: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Binary PPM (P6), which QEMU's screendump writes.
enum PPM {
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func read(path: String) throws -> Bitmap {
        guard let data = FileManager.default.contents(atPath: path) else { throw Malformed(description: "\(path): no screendump") }
        let bytes = [UInt8](data)
        var fields: [String] = []
        var i = 0
        while fields.count < 4, i < bytes.count {
            while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
            if i < bytes.count, bytes[i] == UInt8(ascii: "#") {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
                continue
            }
            let start = i
            while i < bytes.count, !(bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09) { i += 1 }
            fields.append(String(decoding: bytes[start..<i], as: UTF8.self))
        }
        guard fields.count == 4, fields[0] == "P6", let w = Int(fields[1]), let h = Int(fields[2]), fields[3] == "255" else {
            throw Malformed(description: "\(path): not an 8-bit P6 PPM (\(fields))")
        }
        i += 1
        guard bytes.count >= i + w * h * 3 else { throw Malformed(description: "\(path): truncated") }
        var rgba = [UInt8](repeating: 255, count: w * h * 4)
        for p in 0..<(w * h) {
            rgba[p * 4] = bytes[i + p * 3]
            rgba[p * 4 + 1] = bytes[i + p * 3 + 1]
            rgba[p * 4 + 2] = bytes[i + p * 3 + 2]
        }
        return Bitmap(width: w, height: h, bytes: rgba)!
    }
}

/// Expects the pixel at (x, y) to be `rgb` within `tolerance` per channel.
func expectPixel(_ bitmap: Bitmap, _ x: Int, _ y: Int, _ rgb: (Int, Int, Int), tolerance: Int = 8,
                 _ what: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
    guard x >= 0, y >= 0, x < bitmap.width, y < bitmap.height else {
        Issue.record("(\(x), \(y)) is outside the \(bitmap.width)x\(bitmap.height) screen \(what)", sourceLocation: sourceLocation)
        return
    }
    let p = bitmap.pixel(x: x, y: y)
    let ok = abs(Int(p.r) - rgb.0) <= tolerance && abs(Int(p.g) - rgb.1) <= tolerance && abs(Int(p.b) - rgb.2) <= tolerance
    #expect(ok, "pixel (\(x), \(y)) is \(p.r),\(p.g),\(p.b), expected \(rgb.0),\(rgb.1),\(rgb.2) \(what)", sourceLocation: sourceLocation)
}
