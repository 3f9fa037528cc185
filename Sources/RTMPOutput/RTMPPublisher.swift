import FFmpeg
import FLV
import Glibc
import RTPCore
import SystemIO

/// `--rtmp URL`: the tags `--flv` would write, published live to an RTMP server from a thread of its
/// own, so that a slow server never holds up receiving. A bounded queue (`--rtmp-queue-ms` of media)
/// sits between: live, when it is full, whole video frames are dropped up to the next keyframe and
/// audio that does not fit; in replay the reader waits instead, since nothing is lost by waiting.
///
/// The server gets nothing before the first keyframe; then the FLV header, onMetaData and the
/// sequence headers, then the keyframe, with tag times counted from it. After a lost connection
/// (with `--reconnect`) the same start is made again at the next keyframe, the times running on.
public final class RTMPPublisher: @unchecked Sendable {
    public struct Configuration {
        public var url: String
        public var queueMilliseconds: Int
        public var reconnect: Bool
        /// Replay: send tags at the pace of their times, and make the reader wait for room.
        public var realtime: Bool
        public var blocksWhenFull: Bool
        public var timeoutSeconds = 10.0
        /// Beside the bound in time, one in bytes, for frames of any size.
        public var maxQueueBytes = 256 << 20
        public var measuresLatency: Bool

        public init(url: String, queueMilliseconds: Int, reconnect: Bool, realtime: Bool, blocksWhenFull: Bool,
                    measuresLatency: Bool) {
            self.url = url
            self.queueMilliseconds = queueMilliseconds
            self.reconnect = reconnect
            self.realtime = realtime
            self.blocksWhenFull = blocksWhenFull
            self.measuresLatency = measuresLatency
        }
    }

    /// Why publishing cannot start.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public struct Statistics: Sendable {
        public var bytesSent = 0
        public var framesSent = 0
        public var keyframesSent = 0
        public var audioFramesSent = 0
        public var framesDropped = 0
        public var audioFramesDropped = 0
        /// Frames skipped after a reconnect while waiting for a keyframe.
        public var framesSkippedForReconnect = 0
        public var reconnects = 0
        public var queuePeakMilliseconds = 0
        public var queuePeakBytes = 0
        public var latency = LatencyHistogram()

        /// Every count of the publishing, declared once: the report, the JSON and the metrics read this.
        public var counts: [Count] {
            [Count(name: "bytes_sent", help: "bytes sent to the RTMP server", value: bytesSent),
             Count(name: "frames_sent", help: "video frames sent", value: framesSent),
             Count(name: "keyframes_sent", help: "keyframes sent", value: keyframesSent),
             Count(name: "audio_frames_sent", help: "audio frames sent", value: audioFramesSent),
             Count(name: "frames_dropped", help: "video frames dropped: the send queue was full", value: framesDropped),
             Count(name: "audio_frames_dropped", help: "audio frames dropped: the send queue was full", value: audioFramesDropped),
             Count(name: "frames_skipped_for_reconnect", help: "frames skipped after a reconnect, waiting for a keyframe",
                   value: framesSkippedForReconnect),
             Count(name: "reconnects", help: "connections to the RTMP server made again", value: reconnects),
             Count(name: "queue_peak_ms", help: "the most media the send queue held", value: queuePeakMilliseconds, gauge: true),
             Count(name: "queue_peak_bytes", help: "the most bytes the send queue held", value: queuePeakBytes, gauge: true)]
        }
    }

    private enum Kind: Equatable {
        case fileHeader, metadata, videoSequenceHeader, audioSequenceHeader, video(keyframe: Bool), audio, end
    }

    private struct Tag {
        var kind: Kind
        var bytes: [UInt8]
        /// The tag's time as the muxer gave it, in ms.
        var time: Int64
        var arrival: Int64
    }

    public let configuration: Configuration
    public let displayURL: String
    let muxer: FLVMuxer
    /// Says what happened to the connection (from the sender thread too): masked by the caller.
    private let say: @Sendable (String) -> Void

    // Shared with the sender thread, under `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [Tag] = []
    private var queueHead = 0
    private var queueBytes = 0
    private var finishing = false
    private var shared = Statistics()
    private var failureText: String?
    private var sender: WorkerThread?
    private var connection: RTMPConnection?

    // The producer's side: whole video frames dropped up to a keyframe once the queue was full.
    private var droppingVideo = false
    private var warnedFull = false
    private var currentArrival: Int64 = 0

    /// Connects (a failure is an error, unless `reconnect`: then it is retried) and starts the sender.
    /// `say` takes its warnings and notes, a line each.
    public init(configuration: Configuration, muxer: FLVMuxer, say: @escaping @Sendable (String) -> Void) throws(Failure) {
        self.configuration = configuration
        self.muxer = muxer
        self.say = say
        displayURL = RTMPURL.masked(configuration.url)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
        do {
            connection = try RTMPConnection(url: configuration.url, timeoutSeconds: configuration.timeoutSeconds)
        } catch {
            let reason = RTMPURL.masking(Self.reason(error), of: configuration.url)
            guard configuration.reconnect else {
                throw Failure(description: "cannot publish to \(displayURL): \(reason)")
            }
            say("warning: cannot publish to \(displayURL): \(reason); retrying (--reconnect)\n")
        }
        // The thread holds the publisher until it has sent everything.
        guard let sender = WorkerThread({ self.send() }) else {
            throw Failure(description: "cannot publish to \(displayURL): no thread for the sender (\(SystemError("pthread_create", "")))")
        }
        self.sender = sender
    }

    deinit {
        pthread_mutex_destroy(mutex)
        pthread_cond_destroy(changed)
        mutex.deallocate()
        changed.deallocate()
    }

    /// Why publishing stopped, when it did for good (without `--reconnect`).
    public var failure: String? { locked { failureText } }

    public var statistics: Statistics { locked { shared } }

    // MARK: The producer: tags from the muxer into the queue

    public func write(_ accessUnit: AccessUnit) throws {
        currentArrival = accessUnit.arrival
        try muxer.write(accessUnit) { enqueue($0) }
    }

    public func write(audio frame: AudioFrame) throws {
        currentArrival = frame.arrival
        try muxer.write(audio: frame) { enqueue($0) }
    }

    /// Sends what is queued (paced, in replay) and closes the connection.
    public func finish() throws {
        try muxer.finish { enqueue($0) }
        locked {
            finishing = true
            pthread_cond_broadcast(changed)
        }
        sender?.join()
    }

    private func enqueue(_ bytes: UnsafeRawBufferPointer) {
        let tag = Self.tag(bytes, arrival: currentArrival)
        locked {
            guard failureText == nil else { return }
            if tag.kind == .video(keyframe: false) && droppingVideo {
                shared.framesDropped += 1
                return
            }
            // Headers are small and needed: they always go in. Frames wait (replay) or go (live).
            let isFrame = tag.kind == .audio || tag.kind == .video(keyframe: true) || tag.kind == .video(keyframe: false)
            while isFrame && wouldOverflow(with: tag) {
                if configuration.blocksWhenFull {
                    pthread_cond_wait(changed, mutex)
                    if failureText != nil { return }
                    continue
                }
                if tag.kind == .audio {
                    shared.audioFramesDropped += 1
                } else {
                    // Whole frames go, up to the next keyframe: what follows would refer to them.
                    droppingVideo = true
                    shared.framesDropped += 1
                }
                warnOnce()
                return
            }
            if case .video(keyframe: true) = tag.kind { droppingVideo = false }
            queue.append(tag)
            queueBytes += tag.bytes.count
            shared.queuePeakBytes = max(shared.queuePeakBytes, queueBytes)
            shared.queuePeakMilliseconds = max(shared.queuePeakMilliseconds, queuedMilliseconds)
            pthread_cond_broadcast(changed)
        }
    }

    private var queuedMilliseconds: Int {
        guard queueHead < queue.count else { return 0 }
        return Int(max(0, queue[queue.count - 1].time - queue[queueHead].time))
    }

    /// Whether queuing `tag` would take the queue past its bounds: the media from its head to `tag`.
    private func wouldOverflow(with tag: Tag) -> Bool {
        guard queueHead < queue.count else { return false }
        return tag.time - queue[queueHead].time > Int64(configuration.queueMilliseconds)
            || queueBytes + tag.bytes.count > configuration.maxQueueBytes
    }

    private func warnOnce() {
        guard !warnedFull else { return }
        warnedFull = true
        say("warning: \(displayURL): the server takes less than the stream: \(configuration.queueMilliseconds) ms "
            + "are queued (--rtmp-queue-ms); whole frames are dropped up to the next keyframe\n")
    }

    /// The tag's kind and time, read from its header: type(8) size(24) time(24) time_ext(8) stream(24).
    private static func tag(_ bytes: UnsafeRawBufferPointer, arrival: Int64) -> Tag {
        let copy = Array(bytes)
        guard copy.count >= 11, copy[0] != UInt8(ascii: "F") else {
            return Tag(kind: .fileHeader, bytes: copy, time: 0, arrival: arrival)
        }
        let time = Int64(copy[4]) << 16 | Int64(copy[5]) << 8 | Int64(copy[6]) | Int64(copy[7]) << 24
        let kind: Kind
        switch copy[0] {
        case 8:
            // AAC's AACPacketType 0 is its sequence header; other sound formats have none.
            kind = copy.count > 12 && copy[11] >> 4 == 10 && copy[12] == 0 ? .audioSequenceHeader : .audio
        case 9:
            let packetType = copy.count > 12 ? copy[12] : 1
            kind = packetType == 0 ? .videoSequenceHeader : packetType == 2 ? .end : .video(keyframe: copy[11] >> 4 == 1)
        default:
            kind = .metadata
        }
        return Tag(kind: kind, bytes: copy, time: time, arrival: arrival)
    }

    // MARK: The sender thread

    /// What a new connection must be sent before the keyframe it starts at.
    private var fileHeader: Tag?
    private var metadata: Tag?
    private var videoSequenceHeader: Tag?
    private var audioSequenceHeader: Tag?
    /// Times are counted from the first keyframe sent.
    private var timeOffset: Int64?
    private var started = false
    private var pacingStart: (wall: Int64, time: Int64)?

    private func send() {
        while let tag = nextTag() {
            switch tag.kind {
            case .fileHeader: fileHeader = tag; continue
            case .metadata: metadata = tag; continue
            // A new SPS/PPS or AAC config goes out as it comes; before the start, it waits for it.
            case .videoSequenceHeader: videoSequenceHeader = tag; if !started { continue }
            case .audioSequenceHeader: audioSequenceHeader = tag; if !started { continue }
            case .video(let keyframe) where !started:
                guard keyframe else {
                    if timeOffset != nil { locked { shared.framesSkippedForReconnect += 1 } }
                    continue
                }
            case .audio where !started:
                // Audio-only sessions start at their first frame; with video, nothing goes before a keyframe.
                guard !muxer.configuration.expectsVideo else { continue }
            case .end where !started: continue
            default: break
            }
            if !started {
                guard ensureConnected() else { continue }
                let offset = timeOffset ?? tag.time
                timeOffset = offset
                let video: Tag? = tag.kind == .audio ? nil : videoSequenceHeader
                let start = [fileHeader, metadata, video, audioSequenceHeader].compactMap { $0 }
                for var header in start {
                    if header.kind != .fileHeader { header.time = tag.time }
                    guard transmit(header) else { break }
                }
                guard connection != nil else { continue }
                started = true
            }
            pace(tag)
            _ = transmit(tag)
        }
        connection?.close()
        connection = nil
    }

    /// The next tag, or nil once the producer finished and the queue is empty (or publishing failed).
    private func nextTag() -> Tag? {
        locked {
            while queueHead == queue.count && !finishing && failureText == nil { pthread_cond_wait(changed, mutex) }
            guard queueHead < queue.count, failureText == nil else { return nil }
            let tag = queue[queueHead]
            queueHead += 1
            queueBytes -= tag.bytes.count
            if queueHead > 1024 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            pthread_cond_broadcast(changed)
            return tag
        }
    }

    /// Replay with `--realtime`: a tag goes out when its time has come on the wall clock.
    private func pace(_ tag: Tag) {
        guard configuration.realtime else { return }
        let now = Terminal.monotonicNanoseconds()
        guard let start = pacingStart else {
            pacingStart = (now, tag.time)
            return
        }
        let due = start.wall + (tag.time - start.time) * 1_000_000
        if due > now + 1_000_000 { Terminal.sleep(nanoseconds: due - now) }
    }

    /// Writes `tag` with its time counted from the first keyframe; false when the connection failed.
    private func transmit(_ tag: Tag) -> Bool {
        guard let connection else { return false }
        var bytes = tag.bytes
        if tag.kind != .fileHeader, let offset = timeOffset {
            let time = UInt32(truncatingIfNeeded: max(0, tag.time - offset))
            bytes[4] = UInt8(time >> 16 & 0xFF)
            bytes[5] = UInt8(time >> 8 & 0xFF)
            bytes[6] = UInt8(time & 0xFF)
            bytes[7] = UInt8(time >> 24)
        }
        do {
            try bytes.withUnsafeBytes { try connection.write($0) }
        } catch {
            lost(error)
            return false
        }
        let written = Terminal.monotonicNanoseconds()
        locked {
            shared.bytesSent += bytes.count
            switch tag.kind {
            case .video(let keyframe):
                shared.framesSent += 1
                if keyframe { shared.keyframesSent += 1 }
                if configuration.measuresLatency { shared.latency.record(nanoseconds: written - tag.arrival) }
            case .audio: shared.audioFramesSent += 1
            default: break
            }
        }
        return true
    }

    /// The connection is gone: give up, or (`--reconnect`) start again at the next keyframe.
    private func lost(_ error: Error) {
        connection?.close()
        connection = nil
        started = false
        let reason = self.reason(error)
        guard configuration.reconnect else {
            locked {
                failureText = "\(displayURL): the connection failed: \(reason)"
                pthread_cond_broadcast(changed)
            }
            return
        }
        say("warning: \(displayURL): the connection failed: \(reason); reconnecting\n")
        locked { shared.reconnects += 1 }
    }

    /// With `--reconnect`, tries until it connects (backing off from 0.25 s to 4 s) or the run ends.
    private func ensureConnected() -> Bool {
        if connection != nil { return true }
        guard configuration.reconnect else { return false }
        var wait = 0.25
        // At the end of the run, what is left is not worth waiting for a server.
        while !locked({ finishing }) {
            do {
                connection = try RTMPConnection(url: configuration.url, timeoutSeconds: configuration.timeoutSeconds)
                say("\(displayURL): connected again; resuming at the next keyframe\n")
                return true
            } catch {
                Terminal.sleep(nanoseconds: Int64(wait * 1e9))
                wait = min(wait * 2, 4)
            }
        }
        return false
    }

    private func reason(_ error: Error) -> String {
        RTMPURL.masking(Self.reason(error), of: configuration.url)
    }

    private static func reason(_ error: Error) -> String {
        var text = (error as? FFmpegError)?.message ?? "\(error)"
        if let detail = RTMPConnection.lastProtocolError, !detail.isEmpty { text += " (\(detail))" }
        return text
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }
}
