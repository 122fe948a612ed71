#if canImport(Glibc)
import Glibc
#endif
import LaminaCore
import LaminaPlatform
import LaminaProtocol
import Logging

/// `[[power.cec]]`: an output whose display is a TV reached through an HDMI-CEC adapter.
public struct CECOutputSetting: Sendable, Equatable {
    /// The connector, as the log names it ("HDMI-A-1").
    public var output: String
    /// The adapter ("/dev/cec0").
    public var device: String
    /// The name the TV shows for laminad (at most 14 bytes).
    public var osdName = "Lamina"
    /// Whether blanking the output puts the TV in standby (false: only waking it is sent).
    public var standby = true

    public init(output: String, device: String = "") {
        self.output = output
        self.device = device
    }
}

/// The CEC adapter an output's TV is reached through: `CECAdapter`, or a test's fake.
protocol CECDevice: AnyObject {
    var path: String { get }
    func physicalAddress() throws -> CECPhysicalAddress
    func logicalAddresses() throws -> [CECLogicalAddress]
    /// Queues `message` (asking for `reply` where given) and returns its sequence number.
    func send(_ message: CECMessage, reply: CECOpcode?) throws -> UInt32
}

extension CECAdapter: CECDevice {
    func send(_ message: CECMessage, reply: CECOpcode?) throws -> UInt32 { try transmit(message, reply: reply) }
}

/// HDMI-CEC for the outputs `[[power.cec]]` names: blanking one (`display off`, idle blank)
/// sends its TV <Standby>, lighting it (`display on`, a wake) sends <Image View On> then
/// <Active Source>, and each time <Give Device Power Status> asks the TV what it is now
/// (`stats`' `cec.OUTPUT.*`). Nothing here waits for the bus or is fatal: transmits are queued
/// and their outcomes read when the adapter's descriptor is readable (`handle`); an adapter
/// that is missing, or without a physical address (no TV connected), is a log line.
final class OutputCEC {
    /// What was last sent to a TV (`cec.OUTPUT.lastAction`).
    enum Action: Double { case none = 0, standby = 1, wake = 2 }

    final class Link {
        let setting: CECOutputSetting
        let device: any CECDevice
        var lastAction = Action.none
        /// What the TV last reported (<Report Power Status>); nil before it did.
        var tvPower: CECPowerStatus?
        var acknowledged = 0
        var failed = 0
        /// Transmits on their way, by sequence number: what each was, for the log.
        var pending: [UInt32: CECMessage] = [:]

        init(setting: CECOutputSetting, device: any CECDevice) {
            self.setting = setting
            self.device = device
        }
    }

    private(set) var links: [Link]
    private let logger: Logger
    /// The adapters opened by `open`, kept with the loop that watches them.
    private var watched: [(adapter: CECAdapter, loop: EventLoop)] = []

    init(links: [Link], logger: Logger) {
        self.links = links
        self.logger = logger
    }

    deinit {
        for w in watched { w.loop.remove(w.adapter.descriptor.rawValue) }
    }

    /// Opens each configured adapter, claims a playback device's logical address on it (unless
    /// it has one) and watches it on `loop`. An adapter that cannot be opened is logged and
    /// left out; nil when none is configured.
    static func open(_ settings: [CECOutputSetting], loop: EventLoop, logger: Logger) -> OutputCEC? {
        guard !settings.isEmpty else { return nil }
        let cec = OutputCEC(links: [], logger: logger)
        for setting in settings {
            let adapter: CECAdapter
            do { adapter = try CECAdapter(path: setting.device) } catch {
                logger.error("cec: \(setting.output): cannot use \(setting.device): \(error); its TV will not be switched")
                continue
            }
            let link = Link(setting: setting, device: adapter)
            cec.links.append(link)
            do {
                let pa = try adapter.physicalAddress()
                let claimed = try adapter.logicalAddresses()
                if claimed.isEmpty, adapter.canClaimLogicalAddresses {
                    try adapter.claim(.playback, osdName: setting.osdName)
                }
                let state = claimed.isEmpty ? "claiming a playback device's logical address" : "logical address \(claimed.map(\.description).joined(separator: ", "))"
                logger.info("cec: \(setting.output): \(setting.device) (\(adapter.driver), \(adapter.name)), physical address \(pa), \(state)")
                if !pa.isValid {
                    logger.warning("cec: \(setting.output): \(setting.device) has no physical address (f.f.f.f): no TV is connected to it, or its EDID gave none; messages wait for one")
                }
                try loop.add(adapter.descriptor.rawValue, interest: [.readable, .priority]) { [unowned cec, unowned link] events in
                    cec.drain(link, adapter, gone: events.isDead)
                }
                cec.watched.append((adapter, loop))
            } catch {
                logger.error("cec: \(setting.output): \(setting.device): \(error)")
            }
        }
        return cec
    }

    /// The displays of `outputs` (nil: every output) were lit (`on`) or blanked.
    func displayPowerChanged(on: Bool, outputs: [String]?) {
        for link in links where outputs?.contains(link.setting.output) ?? true {
            if on {
                wake(link)
            } else if link.setting.standby {
                standby(link)
            }
        }
    }

    /// <Image View On> then <Active Source> with the adapter's physical address, then asks
    /// for the TV's power status.
    private func wake(_ link: Link) {
        link.lastAction = .wake
        guard let from = initiator(link, for: "wake the TV") else { return }
        do {
            let pa = try link.device.physicalAddress()
            transmit(.imageViewOn(from: from), on: link)
            if pa.isValid {
                transmit(.activeSource(from: from, physicalAddress: pa), on: link)
            } else {
                logger.warning("cec: \(link.setting.output): no physical address (f.f.f.f): <Active Source> not sent")
            }
            transmit(.giveDevicePowerStatus(from: from), reply: .reportPowerStatus, on: link)
        } catch {
            logger.error("cec: \(link.setting.output): \(error)")
        }
    }

    /// <Standby> to the TV, then asks for its power status.
    private func standby(_ link: Link) {
        link.lastAction = .standby
        guard let from = initiator(link, for: "put the TV in standby") else { return }
        transmit(.standby(from: from), on: link)
        transmit(.giveDevicePowerStatus(from: from), reply: .reportPowerStatus, on: link)
    }

    /// The logical address messages go from; nil (logged) while none is claimed.
    private func initiator(_ link: Link, for what: String) -> CECLogicalAddress? {
        do {
            if let first = try link.device.logicalAddresses().first { return first }
            logger.warning("cec: \(link.setting.output): cannot \(what): \(link.setting.device) has no logical address (no TV connected, physical address \((try? link.device.physicalAddress())?.description ?? "unknown"))")
        } catch {
            logger.error("cec: \(link.setting.output): cannot \(what): \(error)")
        }
        link.failed += 1
        return nil
    }

    private func transmit(_ message: CECMessage, reply: CECOpcode? = nil, on link: Link) {
        do {
            let sequence = try link.device.send(message, reply: reply)
            link.pending[sequence] = message
            // A reply to a request long gone never comes: the table stays small.
            if link.pending.count > 64, let oldest = link.pending.keys.min() { link.pending[oldest] = nil }
            logger.info("cec: \(link.setting.output): sending \(message)")
        } catch {
            link.failed += 1
            logger.error("cec: \(link.setting.output): \(message): \(error)")
        }
    }

    /// What the adapter reported: a transmit's outcome, or a message from the TV.
    func handle(_ received: CECReceived, on link: Link) {
        switch received {
        case .transmitted(let sequence, let sent, let status, let reply):
            let message = link.pending.removeValue(forKey: sequence)
            let what = message?.description ?? "message \(sequence)"
            if sent { link.acknowledged += 1 } else { link.failed += 1 }
            if let power = reply?.reportedPowerStatus {
                link.tvPower = power
                logger.info("cec: \(link.setting.output): the TV reports power \(power)")
            } else if sent, status == "ok" {
                logger.debug("cec: \(link.setting.output): \(what): acknowledged")
            } else {
                logger.warning("cec: \(link.setting.output): \(what): \(status)")
            }
        case .message(let message):
            if let power = message.reportedPowerStatus {
                link.tvPower = power
                logger.info("cec: \(link.setting.output): the TV reports power \(power)")
            }
        }
    }

    /// Everything the adapter has queued: state changes first, then messages and outcomes.
    /// An adapter that went away (a USB adapter unplugged: hang-up, ENODEV) is no longer
    /// watched, so its descriptor does not wake the loop on every turn; messages to it fail
    /// and are logged.
    private func drain(_ link: Link, _ adapter: CECAdapter, gone: Bool) {
        func stopWatching(_ why: String) {
            logger.error("cec: \(link.setting.output): \(adapter.path) \(why): no longer watched (restart laminad once it is back)")
            if let i = watched.firstIndex(where: { $0.adapter === adapter }) {
                watched[i].loop.remove(adapter.descriptor.rawValue)
                watched.remove(at: i)
            }
        }
        guard !gone else { return stopWatching("hung up") }
        do {
            while let change = try adapter.nextStateChange() {
                let addresses = change.logicalAddresses.map(\.description).joined(separator: ", ")
                logger.info("cec: \(link.setting.output): \(adapter.path): physical address \(change.physicalAddress), logical address \(addresses.isEmpty ? "none" : addresses)")
            }
            var count = 0
            while count < 64, let received = try adapter.receive() {
                handle(received, on: link)
                count += 1
            }
        } catch where error.errno == ENODEV {
            stopWatching("is gone (\(error))")
        } catch {
            logger.error("cec: \(link.setting.output): \(error)")
        }
    }

    /// `cec.OUTPUT.lastAction` (0 none, 1 standby, 2 wake), `.tvPower` (0 on, 1 standby,
    /// 2 going on, 3 going to standby; -1 not reported), `.acknowledged`, `.failed`.
    var statistics: [Statistic] {
        links.flatMap { link -> [Statistic] in
            let p = "cec.\(link.setting.output)."
            return [
                Statistic(name: p + "lastAction", value: link.lastAction.rawValue),
                Statistic(name: p + "tvPower", value: link.tvPower.map { Double($0.rawValue) } ?? -1),
                Statistic(name: p + "acknowledged", value: Double(link.acknowledged)),
                Statistic(name: p + "failed", value: Double(link.failed)),
            ]
        }
    }
}
