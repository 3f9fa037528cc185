import CYAML

/// A place in a YAML text, counted from 1 as editors and messages count.
public struct YAMLMark: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        (self.line, self.column) = (line, column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A node of a YAML document, where it begins, and for a scalar whether it was written plain
/// (unquoted): only a plain `true` is a boolean, a quoted "true" is text.
public struct YAMLNode {
    public indirect enum Value {
        case scalar(String, plain: Bool)
        case sequence([YAMLNode])
        case mapping([(key: YAMLNode, value: YAMLNode)])
    }

    public var value: Value
    public var mark: YAMLMark
}

/// What is wrong with a YAML text, and where; `mark` is nil when libyaml itself could not be loaded.
public struct YAMLError: Error, CustomStringConvertible {
    public var mark: YAMLMark?
    public var message: String

    public var description: String { mark.map { "\($0): \(message)" } ?? message }
}

/// YAML 1.1 texts through libyaml's loader, as trees of `YAMLNode`. Aliases are followed, so a
/// small text can stand for a large tree (or a cycle): the tree is bounded in nodes and depth.
public enum YAML {
    public struct Limits: Sendable {
        public var maxNodes = 100_000
        public var maxDepth = 64
        public init() {}
    }

    /// The one document of `text`; nil when it holds none (empty, or only comments).
    public static func parse(_ text: [UInt8], limits: Limits = Limits()) throws(YAMLError) -> YAMLNode? {
        // libyaml asserts that its input is not a null pointer, which an empty array's may be.
        guard !text.isEmpty else { return nil }
        var loadMessage = [CChar](repeating: 0, count: 512)
        guard rtprecv_yaml_load(&loadMessage, loadMessage.count) == 0 else {
            throw YAMLError(mark: nil, message: String(decoding: loadMessage.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) != 0 else { throw YAMLError(mark: nil, message: "libyaml could not start a parser") }
        defer { yaml_parser_delete(&parser) }
        return try text.withUnsafeBufferPointer { (buffer) throws(YAMLError) -> YAMLNode? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var document = yaml_document_t()
            try load(&parser, into: &document, text: buffer)
            defer { yaml_document_delete(&document) }
            guard let root = yaml_document_get_root_node(&document) else { return nil }
            var converter = Converter(document: &document, limits: limits)
            let tree = try converter.node(root, depth: 0)
            var next = yaml_document_t()
            try load(&parser, into: &next, text: buffer)
            defer { yaml_document_delete(&next) }
            if let second = yaml_document_get_root_node(&next) {
                throw YAMLError(mark: mark(second.pointee.start_mark), message: "a second YAML document: the file holds one")
            }
            return tree
        }
    }

    private static func load(_ parser: inout yaml_parser_t, into document: inout yaml_document_t,
                             text: UnsafeBufferPointer<UInt8>) throws(YAMLError) {
        guard yaml_parser_load(&parser, &document) != 0 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "not YAML"
            let context = parser.context.map { String(cString: $0) + ": " } ?? ""
            // The reader (bad UTF-8, control characters) says where by byte offset alone.
            let at = parser.error == YAML_READER_ERROR ? mark(offset: parser.problem_offset, in: text) : mark(parser.problem_mark)
            throw YAMLError(mark: at, message: context + problem)
        }
    }

    private static func mark(offset: Int, in text: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        var m = YAMLMark(line: 1, column: 1)
        for byte in text.prefix(max(0, offset)) {
            if byte == UInt8(ascii: "\n") {
                (m.line, m.column) = (m.line + 1, 1)
            } else if byte & 0xC0 != 0x80 {
                m.column += 1
            }
        }
        return m
    }

    fileprivate static func mark(_ m: yaml_mark_t) -> YAMLMark {
        // libyaml counts from 0; a count past Int's range cannot come from a file that fits in memory.
        YAMLMark(line: Int(clamping: m.line) &+ 1, column: Int(clamping: m.column) &+ 1)
    }

    /// libyaml's nodes (an array the document owns, linked by index) into the tree, counted.
    private struct Converter {
        let document: UnsafeMutablePointer<yaml_document_t>
        let limits: Limits
        var nodes = 0

        init(document: UnsafeMutablePointer<yaml_document_t>, limits: Limits) {
            (self.document, self.limits) = (document, limits)
        }

        mutating func node(_ n: UnsafeMutablePointer<yaml_node_t>, depth: Int) throws(YAMLError) -> YAMLNode {
            let at = YAML.mark(n.pointee.start_mark)
            nodes += 1
            guard nodes <= limits.maxNodes else {
                throw YAMLError(mark: at, message: "more than \(limits.maxNodes) nodes (aliases repeat what they name)")
            }
            guard depth < limits.maxDepth else { throw YAMLError(mark: at, message: "nested deeper than \(limits.maxDepth)") }
            switch n.pointee.type {
            case YAML_SCALAR_NODE:
                let s = n.pointee.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
                return YAMLNode(value: .scalar(text, plain: s.style == YAML_PLAIN_SCALAR_STYLE), mark: at)
            case YAML_SEQUENCE_NODE:
                var items: [YAMLNode] = []
                var item = n.pointee.data.sequence.items.start
                while let i = item, i != n.pointee.data.sequence.items.top {
                    items.append(try child(i.pointee, depth: depth, at: at))
                    item = i + 1
                }
                return YAMLNode(value: .sequence(items), mark: at)
            case YAML_MAPPING_NODE:
                var pairs: [(key: YAMLNode, value: YAMLNode)] = []
                var pair = n.pointee.data.mapping.pairs.start
                while let p = pair, p != n.pointee.data.mapping.pairs.top {
                    pairs.append((try child(p.pointee.key, depth: depth, at: at), try child(p.pointee.value, depth: depth, at: at)))
                    pair = p + 1
                }
                return YAMLNode(value: .mapping(pairs), mark: at)
            default:
                throw YAMLError(mark: at, message: "an empty node")
            }
        }

        private mutating func child(_ index: Int32, depth: Int, at: YAMLMark) throws(YAMLError) -> YAMLNode {
            guard let n = yaml_document_get_node(document, index) else { throw YAMLError(mark: at, message: "a node libyaml lost") }
            return try node(n, depth: depth + 1)
        }
    }
}
