import SystemIO

/// One chart of the HTML report as inline SVG: a time axis shared by every chart of the report (0
/// to `duration` seconds), a value axis from 0 to the data's top, and series drawn on them.
struct SVGChart {
    static let width = 960.0
    static let left = 64.0
    static let right = 12.0
    let title: String
    let duration: Double
    let height: Double
    /// The value axis' top, rounded up to a tick, and its unit.
    let top: Double
    let unit: String
    private(set) var body = ""

    private let plotTop = 20.0
    private var plotBottom: Double { height - 22 }

    /// Tick labels show the value plus this: a level drawn from -60 dBFS is offset by -60.
    let labelOffset: Double
    /// Whether the value axis is drawn (not for marks, whose height means nothing).
    let valueAxis: Bool
    /// Time tick labels show the time plus this: the last minute reads from -60 s to 0.
    let timeOffset: Double

    /// `top`: the data's highest value, rounded up to 1, 2 or 5 × 10ⁿ unless `exactTop`.
    init(title: String, duration: Double, top: Double, unit: String, height: Double = 120, exactTop: Bool = false,
         labelOffset: Double = 0, valueAxis: Bool = true, timeOffset: Double = 0) {
        self.title = title
        self.duration = max(duration, 0.001)
        self.unit = unit
        self.height = height
        self.top = top > 0 ? (exactTop ? top : SVGChart.niceStep(top, ticks: 1)) : 1
        self.labelOffset = labelOffset
        self.valueAxis = valueAxis
        self.timeOffset = timeOffset
    }

    func x(_ seconds: Double) -> Double {
        Self.left + (Self.width - Self.left - Self.right) * min(max(seconds / duration, 0), 1)
    }

    func y(_ value: Double) -> Double {
        plotBottom - (plotBottom - plotTop) * min(max(value / top, 0), 1)
    }

    /// A line through `points` (seconds, value).
    mutating func line(_ points: [(Double, Double)], class name: String) {
        guard !points.isEmpty else { return }
        body += "<polyline class=\"\(name)\" points=\""
        body += points.map { "\(Self.number(x($0.0))),\(Self.number(y($0.1)))" }.joined(separator: " ")
        body += "\"/>"
    }

    /// A bar from 0 to `value` at each `(seconds, value, class, attributes)`, `barWidth` seconds wide
    /// (at least a pixel), with a tooltip.
    mutating func bars(_ bars: [(seconds: Double, value: Double, class: String, title: String)], barWidth: Double) {
        let pixels = max(1, x(barWidth) - x(0))
        for b in bars where b.value > 0 {
            let top = y(b.value)
            body += "<rect class=\"\(b.class)\" x=\"\(Self.number(x(b.seconds)))\" y=\"\(Self.number(top))\" "
                + "width=\"\(Self.number(pixels))\" height=\"\(Self.number(plotBottom - top))\">"
                + "<title>\(HTML.escape(b.title))</title></rect>"
        }
    }

    /// A vertical line across the plot at `seconds`, with its tooltip and `data-` attributes.
    mutating func marker(at seconds: Double, class name: String, title: String, data: [(String, String)]) {
        let px = Self.number(x(seconds))
        body += "<line class=\"\(name)\" x1=\"\(px)\" x2=\"\(px)\" y1=\"\(Self.number(plotTop))\" y2=\"\(Self.number(plotBottom))\""
        for (key, value) in data { body += " data-\(key)=\"\(HTML.escape(value))\"" }
        body += "><title>\(HTML.escape(title))</title></line>"
    }

    /// The whole `<svg>`: frame, title, axes with their ticks, then the series.
    var svg: String {
        var s = "<svg class=\"chart\" viewBox=\"0 0 \(Int(Self.width)) \(Int(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        s += "<text class=\"title\" x=\"\(Int(Self.left))\" y=\"13\">\(HTML.escape(title))</text>"
        let step = Self.niceStep(top, ticks: 3)
        for value in stride(from: 0.0, through: top + step / 1000, by: step) where valueAxis {
            let py = Self.number(y(value))
            s += "<line class=\"grid\" x1=\"\(Int(Self.left))\" x2=\"\(Int(Self.width - Self.right))\" y1=\"\(py)\" y2=\"\(py)\"/>"
            s += "<text class=\"tick\" x=\"\(Int(Self.left) - 4)\" y=\"\(py)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
                + "\(Self.label(value + labelOffset))\(value + labelOffset == 0 || unit.isEmpty ? "" : " " + unit)</text>"
        }
        let seconds = Self.niceStep(duration, ticks: 10)
        for t in stride(from: 0.0, through: duration + seconds / 1000, by: seconds) {
            let px = Self.number(x(t))
            s += "<text class=\"tick\" x=\"\(px)\" y=\"\(Self.number(height - 6))\" text-anchor=\"middle\">\(Self.label(t + timeOffset)) s</text>"
        }
        return s + body + "</svg>"
    }

    /// A step of 1, 2 or 5 × 10ⁿ that cuts `range` into about `ticks` parts.
    static func niceStep(_ range: Double, ticks: Int) -> Double {
        guard range > 0, range.isFinite else { return 1 }
        let raw = range / Double(max(1, ticks))
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        for factor in [1.0, 2, 5, 10] where magnitude * factor >= raw { return magnitude * factor }
        return magnitude * 10
    }

    /// A value for a tick: no more decimals than it needs.
    static func label(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        return String((value * 1000).rounded() / 1000)
    }

    /// A coordinate, to a tenth of a pixel.
    static func number(_ value: Double) -> String {
        let tenths = abs(Int((value * 10).rounded()))
        let sign = value < 0 && tenths > 0 ? "-" : ""
        return sign + (tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)")
    }
}

enum HTML {
    /// `text` safe in an element and in a quoted attribute, masked as every message is.
    static func escape(_ text: String) -> String {
        let masked = Terminal.masked(text)
        // Most of a report's text (a tooltip a frame) has nothing to escape: no walk by Character.
        guard masked.utf8.contains(where: { "&<>\"'".utf8.contains($0) }) else { return masked }
        var out = ""
        for c in masked {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}
