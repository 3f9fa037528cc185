/// The parameter sets a decoder configuration record lists (`AVCDecoderConfigurationRecord`,
/// `HEVCDecoderConfigurationRecord`): one for each id, the last sent under it, in the order the ids
/// first came, so that every count fits the record; a set whose id does not read, or longer than
/// the record's 16-bit length, is left out.
func latestParameterSets(_ sets: [[UInt8]], id: (UnsafeRawBufferPointer) -> Int?) -> [[UInt8]] {
    var latest: [Int: [UInt8]] = [:], order: [Int] = []
    for nal in sets where nal.count <= 0xFFFF {
        guard let key = nal.withUnsafeBytes(id) else { continue }
        if latest.updateValue(nal, forKey: key) == nil { order.append(key) }
    }
    return order.map { latest[$0]! }
}
