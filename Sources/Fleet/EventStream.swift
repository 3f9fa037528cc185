import CNATS
import Glibc

/// The fleet's events in a JetStream stream, one subject a source (`rtprecv.events.<source>`), so
/// that archivers and alerting react to segments and failures without polling files.
public final class EventStream {
    public static let subjectPrefix = "rtprecv.events."
    private let client: NATSClient
    public let name: String

    /// The stream, made when missing; used as it is when it exists.
    public init(_ client: NATSClient, name: String, replicas: Int) throws(NATSError) {
        self.client = client
        self.name = name
        var config = jsStreamConfig()
        _ = jsStreamConfig_Init(&config)
        let subject = strdup(Self.subjectPrefix + ">")
        defer { free(subject) }
        var subjects: [UnsafePointer<CChar>?] = [UnsafePointer(subject)]
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        let status = name.withCString { streamName in
            subjects.withUnsafeMutableBufferPointer { list in
                config.Name = streamName
                config.Subjects = list.baseAddress
                config.SubjectsLen = 1
                config.Replicas = Int64(replicas)
                return js_AddStream(&info, client.jetStream, &config, nil, &code)
            }
        }
        if status == NATS_OK { jsStreamInfo_Destroy(info) }
        // 10058: a stream of that name exists already (another member made it).
        else if code.rawValue != 10058 { throw NATSError("the event stream \(name)", status) }
    }

    /// One event, stored by the stream before this returns. `id` names it for the stream's
    /// de-duplication (Nats-Msg-Id): a publish that timed out after the server stored it, and is
    /// sent again, is stored once.
    public func publish(source: String, _ json: String, id: String) throws(NATSError) {
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        var options = jsPubOptions()
        _ = jsPubOptions_Init(&options)
        let status = id.withCString { messageID in
            options.MsgId = messageID
            return json.withCString {
                js_Publish(&ack, client.jetStream, Self.subjectPrefix + source, $0, Int32(clamping: json.utf8.count), &options, &code)
            }
        }
        try check("publishing an event of \(source)", status)
        jsPubAck_Destroy(ack)
    }

    /// The latest event of `source`, nil when it has none.
    public func last(source: String) throws(NATSError) -> String? {
        var message: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_GetLastMsg(&message, client.jetStream, name, Self.subjectPrefix + source, nil, &code)
        if status == NATS_NOT_FOUND || code.rawValue == 10037 { return nil }
        try check("reading the last event of \(source)", status)
        defer { natsMsg_Destroy(message) }
        let count = Int(max(0, natsMsg_GetDataLength(message)))
        guard let data = natsMsg_GetData(message) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }
}
