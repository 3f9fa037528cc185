/// The handshake messages in a DTLS datagram (RFC 6347 §4.1, §4.2.2), read in the clear: only those of
/// epoch 0, which come before the keys change, and only whole ones (not fragments of a message split
/// over datagrams). A datagram may hold several records, a record several messages.
///
///     record:    type(1) version(2) epoch(2) sequence_number(6) length(2) fragment
///     handshake: msg_type(1) length(3) message_seq(2) fragment_offset(3) fragment_length(3) body
public enum DTLSHandshakeMessages {
    /// RFC 7983 §7: a first byte of 20 to 63 is DTLS beside RTP, RTCP and STUN on one port.
    public static func isDTLS(_ datagram: UnsafeRawBufferPointer) -> Bool {
        datagram.count >= 13 && (20...63).contains(datagram[0])
    }

    /// Calls `body` with each whole handshake message of epoch 0: its type and body.
    public static func forEach(in datagram: UnsafeRawBufferPointer, _ body: (_ type: UInt8, _ message: UnsafeRawBufferPointer) -> Void) {
        // bounded: lengths of 16 and 24 bits, widened; the cursors check them against what is there.
        var records = ByteCursor(datagram)
        while let type = records.readUInt8(), let version = records.readUInt16(), let epoch = records.readUInt16(),
              records.skip(6), let length = records.readUInt16(), let fragment = records.readSlice(Int(length)) { // bounded: widened
            // 22: handshake; 0xFEFF is DTLS 1.0, 0xFEFD DTLS 1.2.
            guard type == 22, version >= 0xFEFD, epoch == 0 else { continue }
            var messages = ByteCursor(fragment)
            while let messageType = messages.readUInt8(), let total = messages.readUInt24(), messages.skip(2),
                  let offset = messages.readUInt24(), let count = messages.readUInt24(), let part = messages.readSlice(Int(count)) { // bounded: widened
                if offset == 0 && count == total { body(messageType, part) }
            }
        }
    }
}
