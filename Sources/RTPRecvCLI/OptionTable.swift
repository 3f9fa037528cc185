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
    /// Its lines in `--help`, beside and below its names.
    let help: [String]
    /// What it sets; nil where an option taken in another section is described again for this one.
    let take: Take?

    init(_ names: [String], value: String? = nil, _ help: String, take: Take? = nil) {
        self.names = names
        self.value = value
        self.help = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        self.take = take
    }

    /// Its names and value as `--help` shows them: "-o, --out FILE".
    var label: String { names.joined(separator: ", ") + (value.map { " " + $0 } ?? "") }
}

/// A part of `--help`: a title, a paragraph before and after its options.
struct OptionSection: Sendable {
    let title: String
    let intro: [String]
    let options: [OptionSpec]
    let outro: [String]

    init(_ title: String, intro: String = "", outro: String = "", _ options: [OptionSpec]) {
        self.title = title
        let lines = { (text: String) in text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        (self.intro, self.outro, self.options) = (lines(intro), lines(outro), options)
    }

    /// As `--help` prints it: the title, then each line indented, an option's help from column 26.
    var text: String {
        let column = 26
        var lines = [title] + intro.map { "  " + $0 }
        for option in options {
            let label = "  " + option.label
            var help = option.help[...]
            if label.count < column, let first = help.popFirst() {
                lines.append(label + String(repeating: " ", count: column - label.count) + first)
            } else {
                lines.append(label)
            }
            lines += help.map { String(repeating: " ", count: column) + $0 }
        }
        return (lines + outro.map { "  " + $0 }).joined(separator: "\n") + "\n"
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
