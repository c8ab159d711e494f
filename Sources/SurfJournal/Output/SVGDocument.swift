import Foundation

/// A small SVG writer: shapes and text appended in drawing order, text escaped, numbers
/// written with two decimals. It knows how wide its text is likely to be (``estimatedWidth``),
/// so that a layout can keep labels from overlapping without a font engine.
struct SVGDocument {
    let width: Double
    let height: Double
    private var body: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The font every text uses: DejaVu Sans is on every Debian machine, and its glyphs are no
    /// wider on average than ``averageGlyphWidth`` of the font size.
    static let fontFamily = "DejaVu Sans, Verdana, sans-serif"
    /// Width of an average glyph of ``fontFamily`` over its size, rounded up (DejaVu Sans: 0.55
    /// for lower case, 0.68 for capitals and digits).
    static let averageGlyphWidth = 0.62

    /// How wide `text` is at `fontSize`, as a layout should assume.
    static func estimatedWidth(of text: String, fontSize: Double) -> Double {
        Double(text.count) * fontSize * averageGlyphWidth
    }

    /// `text` cut with "…" to fit `width` at `fontSize`.
    static func fitting(_ text: String, width: Double, fontSize: Double) -> String {
        guard estimatedWidth(of: text, fontSize: fontSize) > width else { return text }
        let characters = max(1, Int(width / (fontSize * averageGlyphWidth)) - 1)
        return String(text.prefix(characters)) + "…"
    }

    enum Anchor: String {
        case start, middle, end
    }

    mutating func text(
        _ text: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start, weight: String? = nil,
        fill: String = "#1d2433", rotate: Double? = nil
    ) {
        var attributes = "x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" font-size=\"\(Self.number(size))\" text-anchor=\"\(anchor.rawValue)\" fill=\"\(fill)\""
        if let weight { attributes += " font-weight=\"\(weight)\"" }
        if let rotate { attributes += " transform=\"rotate(\(Self.number(rotate)) \(Self.number(x)) \(Self.number(y)))\"" }
        body.append("<text \(attributes)>\(Self.escaped(text))</text>")
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String = "#5b6475", width: Double = 1) {
        body.append(
            "<line x1=\"\(Self.number(x1))\" y1=\"\(Self.number(y1))\" x2=\"\(Self.number(x2))\" y2=\"\(Self.number(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"/>"
        )
    }

    mutating func rectangle(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil, title: String? = nil) {
        let outline = stroke.map { " stroke=\"\($0)\"" } ?? ""
        let tooltip = title.map { "<title>\(Self.escaped($0))</title>" } ?? ""
        body.append(
            "<rect x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" fill=\"\(fill)\"\(outline)>\(tooltip)</rect>"
        )
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String, title: String? = nil, className: String? = nil) {
        let tooltip = title.map { "<title>\(Self.escaped($0))</title>" } ?? ""
        let kind = className.map { " class=\"\($0)\"" } ?? ""
        body.append(
            "<circle\(kind) cx=\"\(Self.number(x))\" cy=\"\(Self.number(y))\" r=\"\(Self.number(radius))\" fill=\"\(fill)\" fill-opacity=\"0.7\">\(tooltip)</circle>"
        )
    }

    /// A line through `segments` of points (a gap between segments is left open).
    mutating func path(_ segments: [[(x: Double, y: Double)]], stroke: String, width: Double = 1.5) {
        let data = segments.filter { !$0.isEmpty }.map { points in
            "M" + points.map { "\(Self.number($0.x)) \(Self.number($0.y))" }.joined(separator: " L")
        }.joined(separator: " ")
        guard !data.isEmpty else { return }
        body.append("<path d=\"\(data)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\" stroke-linejoin=\"round\"/>")
    }

    /// The whole document.
    var text: String {
        let header =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" font-family=\"\(Self.fontFamily)\">"
        return (["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", header, "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>"] + body + ["</svg>"])
            .joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.2f", rounded)
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            // Not allowed in XML 1.0 at all.
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": result += "\u{FFFD}"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
