/// The dependency descriptor RTP header extension ("RTP Payload Format For AV1", AOMedia,
/// appendix A): in every packet, which frame it belongs to (a 16-bit frame number), whether it
/// starts or ends that frame, and, through a template of the structure (`FrameDependencyStructure`)
/// or fields of its own, the frame's layer, decode target indications and references. A receiver
/// reads from it which frames a lost one damages, without reading the payload.
///
///      0                   1                   2
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |S|E|template_id|         frame_number          |  then, when longer, the extended fields
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct DependencyDescriptor: Sendable {
    /// The extmap URI that names it in an SDP (RFC 8285).
    public static let uri = "https://aomediacodec.github.io/av1-rtp-spec/#dependency-descriptor-rtp-header-extension"

    public var startOfFrame: Bool
    public var endOfFrame: Bool
    public var frameNumber: UInt16
    /// The structure this descriptor carries (template_dependency_structure_present_flag).
    public var structure: FrameDependencyStructure?
    /// The frame's template, with the descriptor's own indications and references in place of
    /// the template's where it gives them.
    public var frame: FrameDependencyStructure.Template

    /// The descriptor in `data`, read against the structure it carries or else `current`; nil when
    /// it is malformed or names a template that neither has.
    public init?(_ data: UnsafeRawBufferPointer, current: FrameDependencyStructure?) {
        var r = BitReader(data)
        guard let s = r.readFlag(), let e = r.readFlag(), let templateID = r.read(6), let number = r.read(16) else { return nil }
        startOfFrame = s
        endOfFrame = e
        frameNumber = UInt16(truncatingIfNeeded: number)
        var custom = (indications: false, references: false, chains: false)
        if data.count > 3 {
            guard let present = r.readFlag(), let activeTargetsPresent = r.readFlag(), let dtis = r.readFlag(),
                  let fdiffs = r.readFlag(), let chains = r.readFlag() else { return nil }
            custom = (dtis, fdiffs, chains)
            if present {
                guard let attached = FrameDependencyStructure(&r) else { return nil }
                structure = attached
            }
            // active_decode_targets_bitmask: which targets the sender still serves; not needed to judge loss.
            if activeTargetsPresent {
                guard let targets = (structure ?? current)?.decodeTargetCount, r.skip(targets) else { return nil }
            }
        }
        guard let using = structure ?? current else { return nil }
        let index = (Int(templateID) + 64 - using.templateIDOffset) % 64  // bounded: six bits each
        guard index < using.templates.count else { return nil }
        frame = using.templates[index]
        guard Self.readFrameFields(&r, custom: custom, structure: using, into: &frame) else { return nil }
    }

    /// frame_dtis, frame_fdiffs and frame_chains, where the descriptor gives its own.
    private static func readFrameFields(_ r: inout BitReader, custom: (indications: Bool, references: Bool, chains: Bool),
                                        structure: FrameDependencyStructure, into frame: inout FrameDependencyStructure.Template) -> Bool {
        if custom.indications {
            guard let indications = FrameDependencyStructure.readIndications(&r, count: structure.decodeTargetCount) else { return false }
            frame.indications = indications
        }
        if custom.references {
            frame.references = FrameReferenceDiffs()
            // next_fdiff_size: the next difference's size in nibbles, 0 when there is none.
            while true {
                guard let nibbles = r.read(2) else { return false }
                if nibbles == 0 { break }
                // bounded: up to three nibbles
                guard let minusOne = r.read(Int(nibbles) * 4), frame.references.append(Int(minusOne) + 1) else { return false }
            }
        }
        return !custom.chains || r.skip(structure.chainCount * 8)
    }
}

extension FrameDependencyStructure.Template {
    /// Whether some decode target needs the frame to decode later frames (an indication of switch
    /// or required): when none does, it may be lost and nothing else with it.
    public var isReferenced: Bool {
        // Each two-bit indication of 2 or 3 has its high bit set.
        indications & 0xAAAA_AAAA_AAAA_AAAA != 0
    }
}
