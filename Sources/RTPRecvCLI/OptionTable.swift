/// One option of the command line: its names, the value it takes (nil: a switch), its lines in
/// `--help`, and what it sets. The parser, `--help` and a config file's settings all read the one
/// table (`Options.sections`), so an option cannot be taken and left undescribed, or described
/// and not taken.
struct OptionSpec: Sendable {
    /// Throws `Options.UsageError` only (a closure's thrown type is not inferred from its context).
    typealias Take = @Sendable (inout Options, inout ArgumentReader) throws -> Void

    let names: [String]
    /// What the value is called in `--help` ("FILE", "N"); nil for an option without one.
    let value: String?
    /// Its text in `--help`, beside and below its names, a line a line there.
    let help: String
    /// What it sets; nil where an option taken in another section is described again for this one.
    let take: Take?

    init(_ names: [String], value: String? = nil, _ help: String, take: Take? = nil) {
        self.names = names
        self.value = value
        self.help = help
        self.take = take
    }

    /// Its names and value as `--help` shows them: "-o, --out FILE".
    var label: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }
}

/// A part of `--help`: a title, a paragraph before and after its options.
struct OptionSection: Sendable {
    let title: String
    let intro: String
    let options: [OptionSpec]
    let outro: String

    init(_ title: String, intro: String = "", outro: String = "", _ options: [OptionSpec]) {
        (self.title, self.intro, self.outro, self.options) = (title, intro, outro, options)
    }

    /// As `--help` prints it: the title, then each line indented, an option's help from column 26.
    /// (The table keeps its texts whole: they are split here, when `--help` is asked for, not at
    /// every start.)
    var text: String {
        let column = 26
        let split = { (text: String) in text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false) }
        var lines = [title] + split(intro).map { "  " + $0 }
        for option in options {
            let label = "  " + option.label
            var help = split(option.help)[...]
            if label.count < column, let first = help.popFirst() {
                lines.append(label + String(repeating: " ", count: column - label.count) + first)
            } else {
                lines.append(label)
            }
            lines += help.map { String(repeating: " ", count: column) + $0 }
        }
        return (lines + split(outro).map { "  " + $0 }).joined(separator: "\n") + "\n"
    }
}

extension Options {
    /// Every option, in `--help`'s order.
    static let sections = inputSections + outputSections + sessionSections

    /// Each option by each of its names: the one that takes it.
    static let optionsByName: [String: OptionSpec] = {
        var byName: [String: OptionSpec] = [:]
        for option in sections.flatMap(\.options) where option.take != nil {
            for name in option.names { byName[name] = option }
        }
        return byName
    }()
}
