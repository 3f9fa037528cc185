import RTMPOutput
import RTPCore

/// The command line's arguments one at a time, and the value of the option just read: the rest of
/// `--name=value`, or the next argument.
struct ArgumentReader {
    private var rest: ArraySlice<String>
    private(set) var argument = ""
    /// The option's name, without a `=value` written into it.
    private(set) var name = ""
    private var inlineValue: String?

    init(_ arguments: [String]) {
        rest = arguments[...]
    }

    /// Reads the next argument; false at the end.
    mutating func next() -> Bool {
        guard let argument = rest.popFirst() else { return false }
        (self.argument, name, inlineValue) = (argument, argument, nil)
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        return true
    }

    mutating func value() throws(Options.UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = rest.popFirst() else { throw Options.UsageError(description: "missing value for '\(name)'") }
        return next
    }

    /// A decimal or 0x-hex number in `range`.
    mutating func number<T: FixedWidthInteger>(_ type: T.Type, _ range: ClosedRange<T>) throws(Options.UsageError) -> T {
        let text = try value()
        let parsed: T? = text.lowercased().hasPrefix("0x") ? T(text.dropFirst(2), radix: 16) : T(text)
        guard let parsed, range.contains(parsed) else {
            throw Options.UsageError(description: "invalid value '\(text)' for '\(name)': expected a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return parsed
    }

    /// Seconds above 0, at most `Options.maxSeconds`.
    mutating func seconds() throws(Options.UsageError) -> Double {
        let text = try value()
        guard let parsed = Double(text), parsed > 0, parsed <= Options.maxSeconds else {
            throw Options.UsageError(description: "invalid value '\(text)' for '\(name)': expected seconds greater than 0 "
                                     + "and at most \(Int(Options.maxSeconds))")
        }
        return parsed
    }
}

extension Options {
    /// "500M", "20G", "2T" (powers of 1024, K to T), or bytes; nil for anything else or above 2^62.
    static func size(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        let unit = text.last.flatMap { units[Character($0.uppercased())] }
        guard let number = Double(unit == nil ? text : String(text.dropLast())), number.isFinite, number >= 0 else { return nil }
        let bytes = number * Double(unit ?? 1)
        return bytes < 0x1p62 ? Int64(bytes) : nil
    }

    /// The server to pull from: one rtsp:// URL, anywhere among the options; false for any other argument.
    mutating func takeURL(_ r: inout ArgumentReader) throws(UsageError) -> Bool {
        let argument = r.argument
        guard !argument.hasPrefix("-"), argument.lowercased().hasPrefix("rtsp://") || argument.lowercased().hasPrefix("rtsps://")
        else { return false }
        guard rtsp == nil else { throw UsageError(description: "one rtsp:// URL at a time") }
        do { _ = try RTSPURL(parsing: argument) } catch { throw UsageError(description: error.description) }
        rtsp = argument
        return true
    }
}
