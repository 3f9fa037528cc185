/// don_diff(m, n) of RFC 6184 §5.5: how far NAL unit n follows NAL unit m in decoding order, from
/// their 16-bit decoding order numbers. Positive: n comes later; negative: n comes first.
///
/// A distance of exactly 32768 counts forward when the numbers wrapped (m > n) and backward when
/// they did not, as the section's five cases say; a plain 16-bit signed difference gets the first
/// of these wrong.
@inline(__always)
public func donDiff(_ m: UInt16, _ n: UInt16) -> Int {
    let m = Int(m), n = Int(n)
    if m == n { return 0 }
    if m < n { return n - m < 32768 ? n - m : -(m + 65536 - n) }
    return m - n >= 32768 ? 65536 - m + n : -(m - n)
}
