/// A count, by the name the statistics JSON and the metrics give it, with what it counts: the row
/// of a table both read, so that each is declared once. One counted by kind has each kind's count
/// too (a JSON object; a metric labelled by kind), and their sum as its value. A gauge is a level
/// (the last round trip, a peak), not a count that only grows.
public struct Count: Sendable {
    public var name: String
    public var help: String
    public var value: Int
    public var kinds: [(kind: String, value: Int)]?
    public var isGauge = false

    public init(name: String, help: String, value: Int, gauge: Bool = false) {
        (self.name, self.help, self.value, isGauge) = (name, help, value, gauge)
    }

    public init(name: String, help: String, kinds: [(kind: String, value: Int)]) {
        (self.name, self.help, self.value, self.kinds) = (name, help, kinds.reduce(0) { $0 + $1.value }, kinds)
    }
}

extension Array where Element == Count {
    /// Each count by its name and value: what the report's lines and the JSON's fields read.
    public var fields: [(name: String, value: Int)] { map { ($0.name, $0.value) } }
}
