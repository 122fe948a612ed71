#if canImport(Glibc)
import Glibc
import CLinux
#endif

/// What a CEC adapter reported on `receive()`.
public enum CECReceived: Sendable, Equatable {
    /// A message from another device (to this one, or broadcast).
    case message(CECMessage)
    /// The outcome of the transmit with this sequence number: acknowledged (`sent`), or why
    /// not; `reply` is the answer where one was asked for and came.
    case transmitted(sequence: UInt32, sent: Bool, status: String, reply: CECMessage?)
}

/// One HDMI-CEC adapter, `/dev/cecN`, through the Linux CEC API (linux/cec.h): thin file
/// access, no policy. Opened non-blocking: nothing here waits for the bus. A transmit is
/// queued and returns; its outcome comes back through `receive()` when `descriptor` is
/// readable, and the adapter's state changes (a physical address gained or lost, a logical
/// address claimed) through `nextEvent()` when it has priority data (EPOLLPRI).
public final class CECAdapter {
    public let path: String
    public let descriptor: FileDescriptor
    /// CEC_ADAP_G_CAPS: the driver ("vivid", "vc4_hdmi", "pulse8-cec") and the adapter's name.
    public let driver: String
    public let name: String
    public let capabilities: UInt32

    /// The role a claimed logical address plays (CEC_LOG_ADDR_TYPE_*).
    public enum Role: Sendable {
        /// A playback device (logical address 4, 8, 9 or 11): what a kiosk player is.
        case playback
        /// The TV (logical address 0): the tests' stand-in for a television.
        case tv
    }

    /// Opens `path` read-write, non-blocking. Throws `SystemError` naming the call (ENOENT: no
    /// such adapter; EACCES: laminad's user may not open it).
    public init(path: String) throws(SystemError) {
        self.path = path
        let fd = try retryingEINTR("open \(path)") { open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC) }
        descriptor = FileDescriptor(owning: fd)
        var driver = [CChar](repeating: 0, count: 32), name = [CChar](repeating: 0, count: 32)
        var caps: UInt32 = 0
        try retryingEINTR("CEC_ADAP_G_CAPS \(path)") { CLinux_cec_caps(fd, &driver, &name, &caps) }
        self.driver = String(decoding: driver.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.name = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        capabilities = caps
    }

    /// Whether this process may claim logical addresses (else the driver or the kernel does:
    /// then the adapter is used with the address it has).
    public var canClaimLogicalAddresses: Bool { capabilities & UInt32(CEC_CAP_LOG_ADDRS) != 0 }

    /// The physical address now (`.invalid` while no sink is connected).
    public func physicalAddress() throws(SystemError) -> CECPhysicalAddress {
        var pa: UInt16 = 0xFFFF
        try retryingEINTR("CEC_ADAP_G_PHYS_ADDR \(path)") { CLinux_cec_physical_address(descriptor.rawValue, &pa) }
        return CECPhysicalAddress(rawValue: pa)
    }

    /// The logical addresses claimed now; empty while unconfigured.
    public func logicalAddresses() throws(SystemError) -> [CECLogicalAddress] {
        var addresses = [UInt8](repeating: 0xFF, count: Int(CEC_MAX_LOG_ADDRS))
        let n = try retryingEINTR("CEC_ADAP_G_LOG_ADDRS \(path)") { CLinux_cec_logical_addresses(descriptor.rawValue, &addresses) }
        return addresses.prefix(Int(n)).compactMap(CECLogicalAddress.init(rawValue:))
    }

    /// Asks for a logical address of `role`, with `osdName` (at most 14 bytes, cut to fit) as
    /// the name a TV shows. Returns at once: the kernel claims it in the background once the
    /// physical address is valid, and a state-change event tells. EBUSY: already configured.
    public func claim(_ role: Role, osdName: String) throws(SystemError) {
        let name = String(decoding: Array(osdName.utf8.prefix(14)), as: UTF8.self)
        let (type, primary, all): (Int32, Int32, Int32) = switch role {
        case .playback: (CEC_LOG_ADDR_TYPE_PLAYBACK, CEC_OP_PRIM_DEVTYPE_PLAYBACK, CEC_OP_ALL_DEVTYPE_PLAYBACK)
        case .tv: (CEC_LOG_ADDR_TYPE_TV, CEC_OP_PRIM_DEVTYPE_TV, CEC_OP_ALL_DEVTYPE_TV)
        }
        try retryingEINTR("CEC_ADAP_S_LOG_ADDRS \(path)") {
            CLinux_cec_claim(descriptor.rawValue, UInt8(type), UInt8(primary), UInt8(all), name)
        }
    }

    /// Makes this descriptor a follower too: messages to this device and broadcasts come to
    /// `receive()` (the kernel still answers the ones it handles itself).
    public func follow() throws(SystemError) {
        try retryingEINTR("CEC_S_MODE \(path)") {
            CLinux_cec_set_mode(descriptor.rawValue, UInt32(CEC_MODE_INITIATOR) | UInt32(CEC_MODE_FOLLOWER))
        }
    }

    /// Queues `message` and returns its sequence number. With `reply`, the kernel waits up to
    /// `replyTimeout` seconds (at most 1) for that opcode from the destination, in the
    /// background; the outcome comes through `receive()`. ENONET: no logical address claimed.
    @discardableResult
    public func transmit(_ message: CECMessage, reply: CECOpcode? = nil, replyTimeout: Double = 1) throws(SystemError) -> UInt32 {
        var sequence: UInt32 = 0
        let bytes = message.bytes
        let timeout = UInt32(min(max(replyTimeout, 0.05), 1) * 1000)
        try retryingEINTR("CEC_TRANSMIT \(path)") {
            CLinux_cec_transmit(descriptor.rawValue, bytes, Int32(bytes.count), reply?.rawValue ?? 0, timeout, &sequence)
        }
        return sequence
    }

    /// The next message or transmit outcome queued for this descriptor; nil when none is.
    public func receive() throws(SystemError) -> CECReceived? {
        var bytes = [UInt8](repeating: 0, count: CECMessage.maximumLength)
        var sequence: UInt32 = 0, tx: UInt32 = 0, rx: UInt32 = 0
        let n = CLinux_cec_receive(descriptor.rawValue, &bytes, &sequence, &tx, &rx)
        if n < 0 {
            let e = errno
            if e == EAGAIN || e == EINTR { return nil }
            throw SystemError("CEC_RECEIVE \(path)", errno: e)
        }
        let message = CECMessage(bytes: Array(bytes.prefix(Int(n))))
        guard sequence != 0 else { return message.map(CECReceived.message) }
        let sent = tx & UInt32(CEC_TX_STATUS_OK) != 0
        let replied = rx & UInt32(CEC_RX_STATUS_OK) != 0 && n > 1
        return .transmitted(sequence: sequence, sent: sent, status: sent ? (rx == 0 || replied ? "ok" : Self.rxStatus(rx)) : Self.txStatus(tx),
                            reply: replied ? message : nil)
    }

    /// A state change: the physical address and the logical addresses claimed now.
    public struct StateChange: Sendable, Equatable {
        public var physicalAddress: CECPhysicalAddress
        public var logicalAddresses: [CECLogicalAddress]
    }

    /// The next state change queued (other events, such as lost messages, are passed over);
    /// nil when none is.
    public func nextStateChange() throws(SystemError) -> StateChange? {
        while true {
            var pa: UInt16 = 0xFFFF, mask: UInt16 = 0
            let kind = CLinux_cec_event(descriptor.rawValue, &pa, &mask)
            if kind < 0 {
                let e = errno
                if e == EAGAIN || e == EINTR { return nil }
                throw SystemError("CEC_DQEVENT \(path)", errno: e)
            }
            guard kind == CEC_EVENT_STATE_CHANGE else { continue }
            let addresses = (0..<15).filter { mask & (1 << $0) != 0 }.compactMap { CECLogicalAddress(rawValue: UInt8($0)) }
            return StateChange(physicalAddress: CECPhysicalAddress(rawValue: pa), logicalAddresses: addresses)
        }
    }

    /// CEC_TX_STATUS_* in words: why a message was not sent.
    static func txStatus(_ s: UInt32) -> String {
        if s & UInt32(CEC_TX_STATUS_NACK) != 0 { return "not acknowledged (no device at the destination)" }
        if s & UInt32(CEC_TX_STATUS_ARB_LOST) != 0 { return "arbitration lost" }
        if s & UInt32(CEC_TX_STATUS_LOW_DRIVE) != 0 { return "low drive on the bus" }
        if s & UInt32(CEC_TX_STATUS_ABORTED) != 0 { return "aborted (the adapter was unconfigured)" }
        if s & UInt32(CEC_TX_STATUS_TIMEOUT) != 0 { return "timed out" }
        return "failed (tx status 0x\(String(s, radix: 16)))"
    }

    /// CEC_RX_STATUS_* in words: why a reply did not come.
    static func rxStatus(_ s: UInt32) -> String {
        if s & UInt32(CEC_RX_STATUS_TIMEOUT) != 0 { return "sent, no reply in time" }
        if s & UInt32(CEC_RX_STATUS_FEATURE_ABORT) != 0 { return "sent, the device refused it (Feature Abort)" }
        if s & UInt32(CEC_RX_STATUS_ABORTED) != 0 { return "sent, the wait for a reply was aborted" }
        return "sent (rx status 0x\(String(s, radix: 16)))"
    }
}
