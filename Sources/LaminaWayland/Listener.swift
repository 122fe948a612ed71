import CWlroots

/// A `wl_listener` that calls a Swift closure: libwayland's signals (new surface, commit,
/// destroy) hold a C function pointer and the listener's address, so the closure's box sits
/// right after the `wl_listener` in one allocation, and the one C callback finds it there.
final class Listener {
    private let storage: UnsafeMutableRawPointer
    private let handler: (UnsafeMutableRawPointer?) -> Void
    private(set) var isAttached = false

    private static let boxOffset = MemoryLayout<wl_listener>.stride

    init(_ handler: @escaping (UnsafeMutableRawPointer?) -> Void) {
        self.handler = handler
        storage = UnsafeMutableRawPointer.allocate(byteCount: Self.boxOffset + MemoryLayout<UnsafeRawPointer>.stride,
                                                   alignment: MemoryLayout<wl_listener>.alignment)
        let listener = storage.bindMemory(to: wl_listener.self, capacity: 1)
        listener.initialize(to: wl_listener())
        listener.pointee.notify = { listener, data in
            guard let listener else { return }
            let box = UnsafeMutableRawPointer(listener).advanced(by: Listener.boxOffset).load(as: UnsafeRawPointer.self)
            // Held for the call: a handler may drop the last reference to its own listener
            // (a destroy handler forgetting the object that owns it).
            let owner = Unmanaged<Listener>.fromOpaque(box).takeUnretainedValue()
            withExtendedLifetime(owner) { owner.handler(data) }
        }
        (storage + Self.boxOffset).storeBytes(of: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()), as: UnsafeRawPointer.self)
    }

    /// Listens to `signal` (one signal at a time).
    func attach(to signal: UnsafeMutablePointer<wl_signal>) {
        detach()
        wl_signal_add(signal, storage.assumingMemoryBound(to: wl_listener.self))
        isAttached = true
    }

    /// Listens through a registration function that takes the `wl_listener` (libwayland's
    /// `wl_display_add_client_created_listener` and the like).
    func attach(_ register: (UnsafeMutablePointer<wl_listener>) -> Void) {
        detach()
        register(storage.assumingMemoryBound(to: wl_listener.self))
        isAttached = true
    }

    /// Stops listening; a destroy signal's handler calls it before the signal's owner goes.
    func detach() {
        guard isAttached else { return }
        wl_list_remove(&storage.assumingMemoryBound(to: wl_listener.self).pointee.link)
        isAttached = false
    }

    deinit {
        detach()
        storage.deallocate()
    }
}
