import LaminaProtocol

/// One connection's protocol state: its frame decoder, and whether it has said hello.
struct Session {
    enum State { case awaitingHello, ready, closed }

    let id: ClientID
    var state = State.awaitingHello
    var decoder: FrameDecoder
    var name = ""

    init(id: ClientID, frameLimit: Int) {
        self.id = id
        decoder = FrameDecoder(limit: frameLimit)
    }
}
