import LaminaProtocol

/// One connection's protocol state: its frame decoder, and whether it has said hello.
struct Session {
    enum State { case awaitingHello, ready, closed }

    let id: ClientID
    var state = State.awaitingHello
    var decoder: FrameDecoder
    var name = ""
    /// The minor protocol version of the client's hello: nothing newer is sent to it.
    var minor = ProtocolVersion.minor
    var peer: PeerIdentity
    /// Stream bytes received so far, and bytes of the frames handled so far.
    var received = 0
    var consumed = 0
    /// Descriptors received and not yet taken by a commit, oldest first, each with the stream
    /// range of the read that brought it: it belongs to a frame that starts in that range.
    var attachments: [(attachment: MemoryAttachment, start: Int, end: Int)] = []
    /// A request of this client's waits for the next frame (`FrameWaiter`): its later frames
    /// wait too, so that replies keep their order and the request sees the state it was sent in.
    var waitsForFrame = false

    init(id: ClientID, frameLimit: Int, peer: PeerIdentity) {
        self.id = id
        self.peer = peer
        decoder = FrameDecoder(limit: frameLimit)
    }
}
