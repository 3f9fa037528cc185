import RTPCore
import SystemIO

/// `--out`: the frames as their codec's elementary stream writes them (`VideoCodec.elementaryStream`):
/// Annex-B as the access units hold it (H.264, H.265), or IVF (VP8). A file takes the form of its
/// first frame; frames of a codec another form would carry are left out of it, and said so once.
final class ElementaryStreamOutput {
    private(set) var file: OutputFile
    /// Memory whose writes wait and go out together (a capture mapped whole), for every file.
    var gathered: UnsafeRawBufferPointer? {
        didSet { if let gathered { file.gather(within: gathered) } }
    }
    private let quiet: Bool
    /// The form of the file, from its first frame.
    private var form: ElementaryStream?
    private var ivf: IVFWriter?
    private(set) var framesLeftOut = 0

    init(file: OutputFile, quiet: Bool) {
        self.file = file
        self.quiet = quiet
    }

    func write(_ accessUnit: AccessUnit) throws {
        let form = self.form ?? accessUnit.codec.elementaryStream
        if self.form == nil {
            self.form = form
            if case .ivf(let fourCC) = form { ivf = IVFWriter(fourCC: fourCC, pictureSize: accessUnit.pictureSize) }
        }
        guard accessUnit.codec.elementaryStream == form else {
            if framesLeftOut == 0 && !quiet {
                Terminal.printError("warning: \(file.displayName): \(accessUnit.codec.name) cannot be written in the "
                                    + "\(describe(form)) this file began as; its frames are left out of it\n")
            }
            framesLeftOut += 1
            return
        }
        if let ivf {
            try ivf.write(accessUnit, to: file)
        } else {
            try file.write(accessUnit.pieces)
        }
    }

    /// Writes on in `next`, a file of its own: a segment, or the path of one moved away. It takes
    /// the form of its first frame.
    func startNextFile(_ next: OutputFile) throws {
        try close()
        file = next
        if let gathered { file.gather(within: gathered) }
        (form, ivf) = (nil, nil)
    }

    /// SIGHUP: Annex-B is appended to the file at the path; an IVF, which cannot be, is written on
    /// while still at its path, and begun anew there when moved away.
    func reopen(_ open: (String, Bool) throws -> OutputFile) throws {
        guard file.path != "-" else { return }
        if ivf != nil {
            if !file.isAtItsPath { try startNextFile(open(file.path, false)) }
            return
        }
        try file.close()
        file = try open(file.path, true)
        if let gathered { file.gather(within: gathered) }
    }

    func close() throws {
        try ivf?.finish(file)
        try file.close()
    }

    private func describe(_ form: ElementaryStream) -> String {
        switch form {
        case .annexB: "Annex-B"
        case .ivf(let fourCC): "IVF of \(fourCC)"
        }
    }
}

/// IVF, the elementary file of VP8, VP9 and AV1 as libvpx and FFmpeg write it: a 32-byte header
/// (signature, version 0, header size, FourCC, picture size, time base, frame count), then each
/// frame behind 12 bytes (its size, and its time in the time base), all little-endian. Times are
/// on the 90 kHz RTP clock, from 0 at the file's first frame.
final class IVFWriter {
    private let fourCC: String
    private let pictureSize: (width: Int, height: Int)?
    private var origin: Int64?
    private var frames = 0
    /// A frame's header and the pieces written after it, kept from frame to frame.
    private var frameHeader = [UInt8](repeating: 0, count: 12)
    private var pieces: [UnsafeRawBufferPointer] = []

    static let timeBase = 90000

    init(fourCC: String, pictureSize: (width: Int, height: Int)?) {
        self.fourCC = fourCC
        self.pictureSize = pictureSize
    }

    func write(_ accessUnit: AccessUnit, to file: OutputFile) throws {
        if origin == nil {
            origin = accessUnit.pts
            try fileHeader(frames: 0).withUnsafeBytes { try file.write($0) }
        }
        let time = accessUnit.pts - (origin ?? 0)
        frameHeader.withUnsafeMutableBytes { header in
            header.storeBytes(of: UInt32(truncatingIfNeeded: accessUnit.byteCount).littleEndian, as: UInt32.self)
            header.storeBytes(of: time.littleEndian, toByteOffset: 4, as: Int64.self)
        }
        try frameHeader.withUnsafeBytes { header in
            pieces.removeAll(keepingCapacity: true)
            pieces.append(header)
            pieces.append(contentsOf: accessUnit.pieces)
            try pieces.withUnsafeBufferPointer { try file.write($0) }
        }
        frames += 1
    }

    /// The frame count goes into the header once the file is done, where it can be rewritten.
    func finish(_ file: OutputFile) throws {
        guard origin != nil, file.isSeekable else { return }
        try file.write(fileHeader(frames: frames), at: 0)
    }

    private func fileHeader(frames: Int) -> [UInt8] {
        var bytes = Array("DKIF".utf8)
        func le16(_ v: Int) { bytes.appendLittleEndian(UInt16(truncatingIfNeeded: v)) }
        func le32(_ v: Int) { bytes.appendLittleEndian(UInt32(truncatingIfNeeded: v)) }
        le16(0)
        le16(32)
        bytes += Array(fourCC.utf8.prefix(4))
        le16(pictureSize?.width ?? 0)
        le16(pictureSize?.height ?? 0)
        le32(Self.timeBase)
        le32(1)
        le32(frames)
        le32(0)
        return bytes
    }
}
