import Foundation

/// A bar chart drawn on the server as SVG (no script, so it prints and works offline): one
/// group of bars per label, one bar per series, with the values written on the bars and in
/// the chart's description for screen readers.
struct BarChart {
    struct Series {
        let name: String
        /// A class of app.css that colours the bars (`bar--a`, `bar--b`).
        let style: String
        let values: [Int]
    }

    let title: String
    let labels: [String]
    let series: [Series]

    static let width = 340.0
    static let height = 180.0
    static let top = 18.0
    static let bottom = 24.0

    var svg: String {
        let peak = max(series.flatMap(\.values).max() ?? 0, 1)
        let plot = Self.height - Self.top - Self.bottom
        let group = Self.width / Double(max(labels.count, 1))
        let barWidth = min(28, (group - 8) / Double(max(series.count, 1)))
        var bars = ""
        for (index, label) in labels.enumerated() {
            let groupX = Double(index) * group + (group - barWidth * Double(series.count)) / 2
            for (s, line) in series.enumerated() {
                let value = index < line.values.count ? line.values[index] : 0
                let h = plot * Double(value) / Double(peak)
                let x = groupX + Double(s) * barWidth
                let y = Self.top + plot - h
                bars +=
                    #"<rect class="bar \#(line.style)" x="\#(f(x))" y="\#(f(y))" width="\#(f(barWidth - 2))" height="\#(f(h))"><title>\#(HTML.escaped(line.name)) \#(HTML.escaped(label)): \#(value)</title></rect>"#
                if value > 0 {
                    bars +=
                        #"<text class="bar__value" x="\#(f(x + (barWidth - 2) / 2))" y="\#(f(y - 3))" text-anchor="middle">\#(value)</text>"#
                }
            }
            bars +=
                #"<text class="bar__label" x="\#(f(Double(index) * group + group / 2))" y="\#(f(Self.height - 6))" text-anchor="middle">\#(HTML.escaped(label))</text>"#
        }
        let description = series.map { line in
            line.name + ": " + zip(labels, line.values).map { "\($0) \($1)" }.joined(separator: ", ")
        }.joined(separator: "; ")
        return
            #"<svg class="chart" viewBox="0 0 \#(f(Self.width)) \#(f(Self.height))" role="img" aria-labelledby="\#(id)-title \#(id)-desc" xmlns="http://www.w3.org/2000/svg"><title id="\#(id)-title">\#(HTML.escaped(title))</title><desc id="\#(id)-desc">\#(HTML.escaped(description))</desc><line class="chart__axis" x1="0" y1="\#(f(Self.top + plot))" x2="\#(f(Self.width))" y2="\#(f(Self.top + plot))"/>\#(bars)</svg>"#
    }

    private var id: String {
        "chart-" + title.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
    }

    /// A horizontal version for a funnel: one bar a step, each with its count and its share of
    /// the step before (the labels are too long to stand under vertical bars).
    var funnelSVG: String {
        let values = series.first?.values ?? []
        let peak = Double(max(values.max() ?? 0, 1))
        let row = 34.0
        let labelWidth = 120.0
        let plot = Self.width - labelWidth - 70
        var rows = ""
        for (index, label) in labels.enumerated() {
            let value = index < values.count ? values[index] : 0
            let y = Double(index) * row
            let w = max(plot * Double(value) / peak, value > 0 ? 2 : 0)
            let previous = index > 0 && index - 1 < values.count ? values[index - 1] : nil
            let share = previous.map { $0 > 0 ? " (\(value * 100 / $0)%)" : "" } ?? ""
            rows +=
                #"<text class="bar__label" x="0" y="\#(f(y + 21))">\#(HTML.escaped(label))</text><rect class="bar bar--a" x="\#(f(labelWidth))" y="\#(f(y + 6))" width="\#(f(w))" height="20"><title>\#(HTML.escaped(label)): \#(value)\#(share)</title></rect><text class="bar__value" x="\#(f(labelWidth + w + 4))" y="\#(f(y + 21))">\#(value)\#(share)</text>"#
        }
        let description = zip(labels, values).map { "\($0) \($1)" }.joined(separator: ", ")
        let height = row * Double(max(labels.count, 1))
        return
            #"<svg class="chart" viewBox="0 0 \#(f(Self.width)) \#(f(height))" role="img" aria-labelledby="\#(id)-title \#(id)-desc" xmlns="http://www.w3.org/2000/svg"><title id="\#(id)-title">\#(HTML.escaped(title))</title><desc id="\#(id)-desc">\#(HTML.escaped(description))</desc>\#(rows)</svg>"#
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

}
