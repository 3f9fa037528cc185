import CNATS

/// A JetStream key-value bucket whose entries expire `ttl` after their last write: a claim or a
/// member's heartbeat lives only while its owner keeps writing it.
public final class ClaimBucket {
    let store: OpaquePointer
    public let name: String

    /// The bucket, made when missing (one value a key, each expiring after `ttlMilliseconds`,
    /// kept on `replicas` servers); bound as it is when it exists with other settings.
    public init(_ client: NATSClient, name: String, ttlMilliseconds: Int64, replicas: Int) throws(NATSError) {
        self.name = name
        var store: OpaquePointer?
        var config = kvConfig()
        _ = kvConfig_Init(&config)
        let created = name.withCString { bucket -> natsStatus in
            config.Bucket = bucket
            config.History = 1
            config.TTL = ttlMilliseconds * 1_000_000  // in nanoseconds, as JetStream's max age
            config.Replicas = Int32(clamping: replicas)
            return js_CreateKeyValue(&store, client.jetStream, &config)
        }
        if created != NATS_OK {
            let failure = NATSError("the bucket \(name)", created)
            guard js_KeyValue(&store, client.jetStream, name) == NATS_OK else { throw failure }
        }
        self.store = store!
    }

    public enum Outcome: Equatable {
        /// Written; the entry's new revision.
        case written(UInt64)
        /// Another wrote the key first (create), or since `revision` (update).
        case taken
    }

    /// The key made ours if nobody holds it.
    public func create(_ key: String, _ value: String) throws(NATSError) -> Outcome {
        var revision: UInt64 = 0
        let status = value.withCString { kvStore_Create(&revision, store, key, $0, Int32(clamping: value.utf8.count)) }
        return try outcome("claiming \(key)", status, revision)
    }

    /// The key written again if nobody wrote it since `revision`.
    public func update(_ key: String, _ value: String, revision last: UInt64) throws(NATSError) -> Outcome {
        var revision: UInt64 = 0
        let status = value.withCString { kvStore_Update(&revision, store, key, $0, Int32(clamping: value.utf8.count), last) }
        return try outcome("renewing \(key)", status, revision)
    }

    /// The key written whatever it held.
    public func put(_ key: String, _ value: String) throws(NATSError) {
        var revision: UInt64 = 0
        try check("writing \(key)", value.withCString { kvStore_Put(&revision, store, key, $0, Int32(clamping: value.utf8.count)) })
    }

    /// The key's value and revision; nil when it has none (never written, deleted or expired).
    public func get(_ key: String) throws(NATSError) -> (value: String, revision: UInt64)? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, store, key)
        if status == NATS_NOT_FOUND { return nil }
        try check("reading \(key)", status)
        defer { kvEntry_Destroy(entry) }
        return (Self.value(of: entry), kvEntry_Revision(entry))
    }

    /// An entry's value as text.
    static func value(of entry: OpaquePointer?) -> String {
        let count = Int(max(0, kvEntry_ValueLen(entry)))
        let bytes = kvEntry_Value(entry).map { UnsafeRawBufferPointer(start: $0, count: count) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    public func delete(_ key: String) throws(NATSError) {
        try check("deleting \(key)", kvStore_Delete(store, key))
    }

    /// Every key that holds a value now.
    public func keys() throws(NATSError) -> [String] {
        var list = kvKeysList()
        let status = kvStore_Keys(&list, store, nil)
        if status == NATS_NOT_FOUND { return [] }
        try check("listing \(name)", status)
        defer { kvKeysList_Destroy(&list) }
        return (0..<Int(max(0, list.Count))).compactMap { list.Keys[$0].map { String(cString: $0) } }
    }

    /// A write that lost a race is `.taken`; anything else that failed is thrown.
    private func outcome(_ what: String, _ status: natsStatus, _ revision: UInt64) throws(NATSError) -> Outcome {
        if status == NATS_OK { return .written(revision) }
        var last = natsStatus(0)
        let detail = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        // JetStream's "wrong last sequence" (10071): the key was written by another first.
        if detail.contains("wrong last sequence") || detail.contains("10071") { return .taken }
        throw NATSError(what, status)
    }

    deinit { kvStore_Destroy(store) }
}
