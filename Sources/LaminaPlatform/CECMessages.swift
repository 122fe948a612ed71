/// The HDMI-CEC messages laminad sends and reads to put a TV to sleep and wake it (HDMI 1.4b,
/// supplement 1, CEC 1.4): pure, so tests check them byte for byte without an adapter.
///
/// A message is a header block (initiator in the high nibble, destination in the low one; 15
/// as destination is broadcast), then an opcode and its operands. A header alone is a poll.

/// A logical address (CEC table 5): who a device is on the bus.
public struct CECLogicalAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init?(rawValue: UInt8) {
        guard rawValue <= 15 else { return nil }
        self.rawValue = rawValue
    }
    private init(_ value: UInt8) { rawValue = value }

    public static let tv = CECLogicalAddress(0)
    public static let playbackDevice1 = CECLogicalAddress(4)
    /// As destination: every device. As initiator: a device without an address of its own.
    public static let broadcast = CECLogicalAddress(15)

    public var description: String { "\(rawValue)" }
}

/// A physical address a.b.c.d (CEC 8.7): where a device hangs in the HDMI tree below the TV
/// (0.0.0.0); a source on the TV's first input is 1.0.0.0. f.f.f.f: none (no sink connected,
/// or the sink's EDID gave none).
public struct CECPhysicalAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let invalid = CECPhysicalAddress(rawValue: 0xFFFF)
    public var isValid: Bool { self != .invalid }

    /// "1.0.0.0".
    public var description: String {
        [12, 8, 4, 0].map { String((rawValue >> $0) & 0xF, radix: 16) }.joined(separator: ".")
    }

    /// Parses "a.b.c.d", each a hexadecimal digit.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt16 = 0
        for p in parts {
            guard p.count == 1, let d = UInt16(p, radix: 16) else { return nil }
            value = value << 4 | d
        }
        rawValue = value
    }
}

/// The opcodes used here (CEC table 8 onwards).
public enum CECOpcode: UInt8, Sendable {
    case featureAbort = 0x00
    case imageViewOn = 0x04
    case standby = 0x36
    case activeSource = 0x82
    /// What the kernel broadcasts for a device once it has claimed its logical address.
    case reportPhysicalAddress = 0x84
    case giveDevicePowerStatus = 0x8F
    case reportPowerStatus = 0x90

    /// The message's name in the CEC specification, for the log.
    public var name: String {
        switch self {
        case .featureAbort: "Feature Abort"
        case .imageViewOn: "Image View On"
        case .standby: "Standby"
        case .activeSource: "Active Source"
        case .reportPhysicalAddress: "Report Physical Address"
        case .giveDevicePowerStatus: "Give Device Power Status"
        case .reportPowerStatus: "Report Power Status"
        }
    }
}

/// [Power Status] (CEC table 29): the operand of <Report Power Status>.
public enum CECPowerStatus: UInt8, Sendable, CustomStringConvertible {
    case on = 0
    case standby = 1
    case goingOn = 2
    case goingToStandby = 3

    public var description: String {
        switch self {
        case .on: "on"
        case .standby: "standby"
        case .goingOn: "going on"
        case .goingToStandby: "going to standby"
        }
    }
}

/// One CEC message: header, opcode (nil: a poll) and operands.
public struct CECMessage: Hashable, Sendable, CustomStringConvertible {
    public var initiator: CECLogicalAddress
    public var destination: CECLogicalAddress
    /// The opcode byte; one this file does not name is kept as it came.
    public var opcode: UInt8?
    public var operands: [UInt8]

    /// The longest message: a header, an opcode and 14 operands.
    public static let maximumLength = 16

    public init(from initiator: CECLogicalAddress, to destination: CECLogicalAddress, _ opcode: CECOpcode?, _ operands: [UInt8] = []) {
        self.initiator = initiator
        self.destination = destination
        self.opcode = opcode?.rawValue
        self.operands = operands
    }

    /// A message as it came off the bus; nil when empty or longer than 16 bytes, or operands
    /// without an opcode (cannot be).
    public init?(bytes: [UInt8]) {
        guard let header = bytes.first, bytes.count <= Self.maximumLength else { return nil }
        initiator = CECLogicalAddress(rawValue: header >> 4)!
        destination = CECLogicalAddress(rawValue: header & 0xF)!
        opcode = bytes.count > 1 ? bytes[1] : nil
        operands = Array(bytes.dropFirst(2))
    }

    /// The bytes on the bus.
    public var bytes: [UInt8] {
        [initiator.rawValue << 4 | destination.rawValue] + (opcode.map { [$0] + operands } ?? [])
    }

    public var isBroadcast: Bool { destination == .broadcast }
    public var knownOpcode: CECOpcode? { opcode.flatMap(CECOpcode.init(rawValue:)) }

    // MARK: The messages laminad sends

    /// <Standby> (0x36): the TV (directed) or every device (broadcast) goes to standby.
    public static func standby(from initiator: CECLogicalAddress, to destination: CECLogicalAddress = .tv) -> CECMessage {
        CECMessage(from: initiator, to: destination, .standby)
    }

    /// <Image View On> (0x04), to the TV: it leaves standby and shows a picture (One Touch Play).
    public static func imageViewOn(from initiator: CECLogicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .tv, .imageViewOn)
    }

    /// <Active Source> (0x82) [Physical Address], broadcast: the TV switches to this input.
    public static func activeSource(from initiator: CECLogicalAddress, physicalAddress: CECPhysicalAddress) -> CECMessage {
        CECMessage(from: initiator, to: .broadcast, .activeSource, Self.operands(physicalAddress))
    }

    /// <Give Device Power Status> (0x8F): the destination answers <Report Power Status>.
    public static func giveDevicePowerStatus(from initiator: CECLogicalAddress, to destination: CECLogicalAddress = .tv) -> CECMessage {
        CECMessage(from: initiator, to: destination, .giveDevicePowerStatus)
    }

    /// <Report Power Status> (0x90) [Power Status].
    public static func reportPowerStatus(from initiator: CECLogicalAddress, to destination: CECLogicalAddress, _ status: CECPowerStatus) -> CECMessage {
        CECMessage(from: initiator, to: destination, .reportPowerStatus, [status.rawValue])
    }

    // MARK: Reading

    /// <Active Source>'s physical address; nil for another message or too few operands.
    public var activeSourceAddress: CECPhysicalAddress? {
        guard knownOpcode == .activeSource, operands.count >= 2 else { return nil }
        return CECPhysicalAddress(rawValue: UInt16(operands[0]) << 8 | UInt16(operands[1]))
    }

    /// <Report Power Status>'s status; nil for another message or a value CEC 1.4 does not define.
    public var reportedPowerStatus: CECPowerStatus? {
        guard knownOpcode == .reportPowerStatus, let first = operands.first else { return nil }
        return CECPowerStatus(rawValue: first)
    }

    private static func operands(_ address: CECPhysicalAddress) -> [UInt8] {
        [UInt8(address.rawValue >> 8), UInt8(address.rawValue & 0xFF)]
    }

    /// "Active Source 4→15 [10 00]": name, initiator → destination, operands in hex.
    public var description: String {
        let name = knownOpcode?.name ?? opcode.map { "opcode 0x" + hex($0) } ?? "Poll"
        let tail = operands.isEmpty ? "" : " [" + operands.map(hex).joined(separator: " ") + "]"
        return "\(name) \(initiator)→\(destination)\(tail)"
    }
}

private func hex(_ b: UInt8) -> String {
    let s = String(b, radix: 16)
    return s.count == 1 ? "0" + s : s
}
