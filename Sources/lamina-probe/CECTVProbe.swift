#if canImport(Glibc)
import Glibc
#endif
import LaminaPlatform

/// `lamina-probe cec-tv DEVICE [SECONDS]`: a stand-in for a television on an HDMI-CEC bus, for
/// the KMS VM test (vivid's emulated adapters): claims the TV's logical address (0) on DEVICE,
/// prints "cec-tv: ready …" once it has it, then one line per message it receives
/// ("cec-tv: received Standby 4→0"), and answers <Give Device Power Status> with the power
/// state the messages so far left it in (<Standby>: standby; <Image View On>: on). Runs for
/// SECONDS (default 600), or until killed.
func runCECTV(device: String, seconds: Double) -> Int32 {
    func say(_ line: String) {
        print("cec-tv: " + line)
        fflush(nil)
    }
    let adapter: CECAdapter
    do {
        adapter = try CECAdapter(path: device)
        say("\(device) (\(adapter.driver), \(adapter.name)), physical address \(try adapter.physicalAddress())")
        if try adapter.logicalAddresses().isEmpty { try adapter.claim(.tv, osdName: "Lamina TV") }
        try adapter.follow()
    } catch {
        say("cannot use \(device): \(error)")
        return 1
    }
    var power = CECPowerStatus.on
    var ready = false
    let end = monotonicSeconds() + seconds
    while monotonicSeconds() < end {
        if !ready, let addresses = try? adapter.logicalAddresses(), addresses.contains(.tv) {
            ready = true
            say("ready, logical address 0, physical address \((try? adapter.physicalAddress())?.description ?? "?")")
        }
        var fds = pollfd(fd: adapter.descriptor.rawValue, events: Int16(POLLIN | POLLPRI), revents: 0)
        _ = poll(&fds, 1, 100)
        do {
            while try adapter.nextStateChange() != nil {}
            while let received = try adapter.receive() {
                guard case .message(let message) = received else { continue }
                say("received \(message)")
                switch message.knownOpcode {
                case .standby: power = .standby
                case .imageViewOn: power = .on
                case .giveDevicePowerStatus where !message.isBroadcast:
                    try adapter.transmit(.reportPowerStatus(from: .tv, to: message.initiator, power))
                    say("answered power \(power)")
                default: break
                }
            }
        } catch {
            say("error: \(error)")
        }
    }
    return 0
}

/// `lamina-probe cec-list`: each CEC adapter, one line each: "/dev/cec0 vivid vivid-000-vid-cap0
/// 0.0.0.0" (path, driver, adapter name, physical address), or one that cannot be opened and why.
func runCECList() -> Int32 {
    let names = ((try? Files.list("/dev")) ?? []).filter { $0.hasPrefix("cec") && $0.dropFirst(3).allSatisfy(\.isNumber) }
    for name in names.sorted(by: { ($0.count, $0) < ($1.count, $1) }) {
        let path = "/dev/" + name
        do {
            let adapter = try CECAdapter(path: path)
            print("\(path) \(adapter.driver) \(adapter.name) \(try adapter.physicalAddress())")
        } catch {
            print("\(path) unusable: \(error)")
        }
    }
    return 0
}
