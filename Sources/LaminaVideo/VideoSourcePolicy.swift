import CGStreamer
import Glibc
import LaminaCompositor

/// Which sources a video may come from and how a client's text names one. An absolute path or
/// a `file:` URI must be a readable regular file, a `v4l2:` URI a character device (both are
/// opened in a state change on laminad's loop thread, where a FIFO would block every client),
/// and any other scheme needs a GStreamer source element. A source then has `[video]
/// open_timeout` seconds to give its first picture (`OpenAlarm`).
enum VideoSourcePolicy {
    /// A URI GStreamer can open: an absolute path becomes a file URI; a file (by path or
    /// file URI) must be a regular file (a FIFO would block the loop thread in `open`); any
    /// other scheme needs a GStreamer source element.
    static func resolve(_ text: String) throws(VideoOpenError) -> String {
        _ = gstreamerReady
        guard !text.isEmpty, text.utf8.count <= 4096, !text.utf8.contains(0) else {
            throw VideoOpenError("the video's URI is empty, longer than 4096 bytes or holds a NUL byte")
        }
        var path: String?
        var uri = text
        if text.hasPrefix("/") {
            path = text
        } else {
            guard gst_uri_is_valid(text) != 0 else {
                throw VideoOpenError("'\(text)' is neither an absolute path nor a URI (scheme:…)")
            }
            guard let protocolName = gst_uri_get_protocol(text) else { throw VideoOpenError("'\(text)' has no scheme") }
            let scheme = String(cString: protocolName)
            g_free(protocolName)
            if scheme == "file" {
                guard let location = gst_uri_get_location(text) else { throw VideoOpenError("'\(text)' names no file") }
                path = String(cString: location)
                g_free(location)
            } else if scheme == "v4l2" {
                // v4l2src opens the device in the state change laminad's loop thread makes: a
                // FIFO or anything else that is not a character device could block it there.
                guard let location = gst_uri_get_location(text) else { throw VideoOpenError("'\(text)' names no V4L2 device") }
                let device = String(cString: location)
                g_free(location)
                var info = stat()
                guard stat(device, &info) == 0 else { throw VideoOpenError("\(device): \(String(cString: strerror(errno)))") }
                guard info.st_mode & S_IFMT == S_IFCHR else {
                    throw VideoOpenError("\(device) is not a V4L2 device (a character device such as /dev/video0)")
                }
            } else if gst_uri_protocol_is_supported(GST_URI_SRC, scheme) == 0 {
                throw VideoOpenError("'\(text)': GStreamer has no source for URIs of scheme '\(scheme)'")
            }
        }
        if let path {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw VideoOpenError("\(path): \(String(cString: strerror(errno)))")
            }
            guard info.st_mode & S_IFMT == S_IFREG else { throw VideoOpenError("\(path) is not a regular file") }
            guard access(path, R_OK) == 0 else { throw VideoOpenError("\(path): \(String(cString: strerror(errno)))") }
            if text.hasPrefix("/") {
                var error: UnsafeMutablePointer<GError>?
                guard let u = gst_filename_to_uri(path, &error) else {
                    defer { if error != nil { g_error_free(error) } }
                    throw VideoOpenError("\(path): \(error.map { String(cString: $0.pointee.message) } ?? "not a file name")")
                }
                uri = String(cString: u)
                g_free(u)
            }
        }
        return uri
    }

    /// Whether `uri` names a V4L2 device (`v4l2:///dev/video0`): a camera, whose pictures are
    /// opaque whatever their layout says and which never counts as stalled.
    static func isCamera(_ uri: String) -> Bool {
        guard let name = gst_uri_get_protocol(uri) else { return false }
        defer { g_free(name) }
        return String(cString: name) == "v4l2"
    }
}

/// The wait on GStreamer's system clock that writes the wake-up when a source's open deadline
/// passes, so the loop thread looks at the decoder even when the source stays silent and its
/// bus with it. Unscheduled when released (the first picture came, or the decoder closed).
final class OpenAlarm {
    private let clock: UnsafeMutablePointer<GstClock>
    private let id: GstClockID

    /// An alarm `seconds` from now that writes `wakeup`; nil when the system clock cannot
    /// schedule one.
    init?(after seconds: Double, wakeup: Int32) {
        guard let clock = gst_system_clock_obtain() else { return nil }
        let at = gst_clock_get_time(clock) &+ GstClockTime(max(0, seconds) * 1e9)
        guard let id = gst_clock_new_single_shot_id(clock, at) else {
            gst_object_unref(clock)
            return nil
        }
        let armed = gst_clock_id_wait_async(id, { _, _, _, data in
            wake(data)
            return 1
        }, wakeupContext(wakeup), nil)
        guard armed == GST_CLOCK_OK else {
            gst_clock_id_unref(id)
            gst_object_unref(clock)
            return nil
        }
        self.clock = clock
        self.id = id
    }

    deinit {
        gst_clock_id_unschedule(id)
        gst_clock_id_unref(id)
        gst_object_unref(clock)
    }
}
