/// The markers in front of a baseline JPEG's scan, as RFC 2435 Appendix B rebuilds them from a
/// payload's header: SOI, DQT, SOF0 (SOF1 where a table is 16-bit), DRI where there are restart
/// markers, DHT with the standard Huffman tables, and SOS. Three components, Y then Cb and Cr, the
/// chroma halved across (`type` 0, 4:2:2) or both ways (`type` 1, 4:2:0).
struct JPEGHeaderWriter {
    /// The picture, in pixels (RFC 2435 carries each in units of 8).
    var width: Int
    var height: Int
    /// 0 or 1 (the RFC's types 64 and 65 are these with restart markers).
    var type: UInt8
    /// MCUs between restart markers; 0 for none.
    var restartInterval: UInt16
    /// The luminance and chrominance tables, in zigzag order, and whether each is 16-bit.
    var tables: JPEGQuantizationTables

    /// The header, into `out` (emptied first).
    func write(into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out += [0xFF, 0xD8]
        writeQuantizationTables(into: &out)
        let extended = tables.precision != 0
        out += [0xFF, extended ? 0xC1 : 0xC0, 0, 17, 8]
        append16(height, to: &out)
        append16(width, to: &out)
        let chromaTable: UInt8 = tables.chrominance == nil ? 0 : 1
        out += [3, 1, type == 0 ? 0x21 : 0x22, 0, 2, 0x11, chromaTable, 3, 0x11, chromaTable]
        if restartInterval > 0 {
            out += [0xFF, 0xDD, 0, 4]
            // bounded: a widening
            append16(Int(restartInterval), to: &out)
        }
        writeHuffmanTables(into: &out)
        out += [0xFF, 0xDA, 0, 12, 3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]
    }

    private func writeQuantizationTables(into out: inout [UInt8]) {
        for (id, table) in [tables.luminance, tables.chrominance].compactMap({ $0 }).enumerated() {
            out += [0xFF, 0xDB]
            append16(2 + 1 + table.count, to: &out)
            out.append(UInt8(truncatingIfNeeded: (table.count == 128 ? 0x10 : 0) | id))
            out += table
        }
    }

    private func writeHuffmanTables(into out: inout [UInt8]) {
        let tables = JPEGStandardTables.huffman
        out += [0xFF, 0xC4]
        append16(2 + tables.reduce(0) { $0 + 17 + $1.symbols.count }, to: &out)
        for table in tables {
            out.append(table.classAndIdentifier)
            out += table.counts
            out += table.symbols
        }
    }

    private func append16(_ value: Int, to out: inout [UInt8]) {
        out += [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }
}

/// A JPEG's quantization tables, in the zigzag order DQT lists them: 64 bytes each, or 128 where
/// `precision` says a table is 16-bit (bit 0 the luminance's, bit 1 the chrominance's). One table
/// serves every component where a sender sends one (FFmpeg's encoder, when both are the same).
struct JPEGQuantizationTables: Equatable {
    var luminance: [UInt8]
    var chrominance: [UInt8]?
    var precision: UInt8

    /// RFC 2435 Appendix A: the standard tables scaled by a Q factor of 1 to 99, as the IJG library
    /// scales them by a quality.
    init(q: UInt8) {
        // bounded: a widening, and the product of two bytes' worth, clamped to a byte
        let factor = max(1, min(99, Int(q)))
        let scale = factor < 50 ? 5000 / factor : 200 - factor * 2
        func scaled(_ table: [UInt8]) -> [UInt8] {
            // bounded: clamped to 1...255 before the conversion
            JPEGStandardTables.zigzag.map { UInt8(max(1, min(255, (Int(table[$0]) * scale + 50) / 100))) }
        }
        luminance = scaled(JPEGStandardTables.luminanceQuantization)
        chrominance = scaled(JPEGStandardTables.chrominanceQuantization)
        precision = 0
    }

    /// The tables a payload carries (its Quantization Table header's `precision` and data): two,
    /// or one for all; nil where the data is neither.
    init?(precision: UInt8, data: UnsafeRawBufferPointer) {
        let lumaBytes = precision & 1 != 0 ? 128 : 64, chromaBytes = precision & 2 != 0 ? 128 : 64
        if data.count == lumaBytes {
            chrominance = nil
        } else if data.count >= lumaBytes + chromaBytes {
            chrominance = Array(data.view(lumaBytes..<lumaBytes + chromaBytes))
        } else {
            return nil
        }
        luminance = Array(data.view(0..<lumaBytes))
        self.precision = precision & 3
    }

    /// Whether `data` holds these tables as a payload carries them, without copying it.
    func areCarried(in data: UnsafeRawBufferPointer) -> Bool {
        let luma = luminance.count, chroma = chrominance?.count ?? 0
        guard data.count == luma + chroma || (chroma > 0 && data.count > luma + chroma) else { return false }
        return data.view(0..<luma).elementsEqual(luminance)
            && (chrominance.map { data.view(luma..<luma + chroma).elementsEqual($0) } ?? true)
    }
}
