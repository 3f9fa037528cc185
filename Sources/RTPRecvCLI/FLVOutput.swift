import FLV
import RTPCore
import SystemIO

/// FLV through `FLVMuxer`; duration and size are rewritten in onMetaData when the file can seek.
final class FLVOutput {
    private(set) var file: OutputFile
    /// The next segment's file, from the cut to the keyframe that starts it (the muxer holds
    /// frames for their decode times).
    private var next: OutputFile?
    private let quiet: Bool
    /// Frames of a codec the FLV does not carry were said to be left out.
    private var saidLeftOut = false
    let muxer: FLVMuxer

    /// `codec`: the video's, when the SDP or --codec says it before any frame: one FLV cannot carry
    /// is said at once.
    init(file: OutputFile, configuration: FLVMuxer.Configuration, quiet: Bool, codec: VideoCodec?) {
        self.file = file
        self.quiet = quiet
        if let codec, !FLVMuxer.carries(codec) {
            if !quiet { Terminal.printError("warning: \(file.displayName): " + Self.leftOut(codec) + "\n") }
            saidLeftOut = true
        }
        muxer = FLVMuxer(configuration: configuration)
        muxer.onFileEnd = { [unowned self] patches in
            try patchAndClose(patches)
            self.file = next!
            next = nil
        }
    }

    func write(audio frame: AudioFrame) throws {
        let notCarried = muxer.statistics.audioFramesNotCarried
        try muxer.write(audio: frame) { try file.write($0) }
        if notCarried == 0 && muxer.statistics.audioFramesNotCarried > 0 && !quiet {
            let reason = FLVAudioHeader(frame.track) == nil ? "\(frame.track.codec.name) has no FLV sound format (--wav decodes it)"
                : "the audio changed codec to \(frame.track.description); FLV keeps the first"
            Terminal.printError("warning: \(file.displayName): \(reason); that audio is left out of the FLV\n")
        }
    }

    func write(_ accessUnit: AccessUnit) throws {
        let (tooLarge, otherCodec) = (muxer.statistics.droppedTooLarge, muxer.statistics.droppedOtherCodec)
        try muxer.write(accessUnit) { try file.write($0) }
        guard !quiet else { return }
        if tooLarge == 0 && muxer.statistics.droppedTooLarge > 0 {
            Terminal.printError("warning: \(file.displayName): a frame larger than an FLV tag holds (16 MiB) "
                                + "is left out of the FLV, with the frames that refer to it up to the next keyframe\n")
        }
        if otherCodec == 0 && muxer.statistics.droppedOtherCodec > 0 && !saidLeftOut {
            saidLeftOut = true
            Terminal.printError("warning: \(file.displayName): " + Self.leftOut(accessUnit.codec) + "\n")
        }
    }

    /// Why frames of `codec` are not in the FLV.
    static func leftOut(_ codec: VideoCodec) -> String {
        FLVMuxer.carries(codec) ? "the video changed codec to \(codec.name); FLV keeps the first, and leaves its frames out"
            : "FLV does not carry \(codec.name) (it carries H.264 and H.265); its frames are left out of the FLV"
    }

    func finish() throws {
        try muxer.finish { try file.write($0) }
        try patchAndClose(muxer.metadataPatches())
        // A segment whose keyframe never came out: its file, made at its first bytes, never was.
        try next?.close()
    }

    /// The file written to once the keyframe of a cut comes out: the next one, or this one.
    var latestFile: OutputFile { next ?? file }

    /// A segment ends: the file is finished at the next keyframe, which begins `next`, a whole FLV
    /// of its own.
    func startNextFile(_ next: OutputFile) throws {
        // Two cuts before a keyframe came out: the first one's file was never made.
        try self.next?.close()
        self.next = next
        muxer.cutBeforeNextKeyframe()
    }

    private func patchAndClose(_ patches: [FLVMuxer.Patch]) throws {
        if file.isSeekable {
            for patch in patches { try file.write(patch.bytes, at: patch.offset) }
        }
        try file.close()
    }

}
