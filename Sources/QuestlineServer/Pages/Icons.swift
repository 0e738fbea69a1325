/// Inline SVG icons (24 x 24, drawn with `currentColor`): no icon font or emoji font needed,
/// so they render the same on every machine and offline.
enum Icons {
    static func svg(_ name: String) -> String {
        let paths: String
        switch name {
        case "home": paths = #"<path d="M3 11l9-8 9 8"/><path d="M5 10v10h5v-6h4v6h5V10"/>"#
        case "reading":
            paths =
                #"<path d="M12 6c-2-1.5-5-2-8-1.5V19c3-.5 6 0 8 1.5 2-1.5 5-2 8-1.5V4.5c-3-.5-6 0-8 1.5z"/><path d="M12 6v14.5"/>"#
        case "activity":
            paths =
                #"<path d="M4 20V11"/><path d="M10 20V5"/><path d="M16 20v-6"/><path d="M22 20v-9"/><path d="M2 20h21"/>"#
        case "game":
            paths =
                #"<circle cx="12" cy="12" r="9"/><path d="M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .9-1 1.7v.5"/><path d="M12 17.2v.1"/>"#
        case "family":
            paths =
                #"<circle cx="8" cy="7" r="3"/><circle cx="17" cy="9" r="2.5"/><path d="M2 20c0-3.5 2.7-6 6-6s6 2.5 6 6"/><path d="M14 20c0-2.6 1.3-4.6 3-4.6s4 1.6 4 4.6"/>"#
        case "stories": paths = #"<path d="M5 21V4"/><path d="M5 4h11l-2 4 2 4H5"/>"#
        case "check": paths = #"<path d="M4 12.5l5 5L20 6.5"/>"#
        case "cross": paths = #"<path d="M6 6l12 12"/><path d="M18 6L6 18"/>"#
        case "calendar":
            paths =
                #"<rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18"/><path d="M8 3v4"/><path d="M16 3v4"/>"#
        case "clock": paths = #"<circle cx="12" cy="12" r="9"/><path d="M12 7v5l3 2"/>"#
        case "warning": paths = #"<path d="M12 3l10 18H2z"/><path d="M12 10v5"/><path d="M12 18v.1"/>"#
        default: paths = #"<circle cx="12" cy="12" r="9"/>"#
        }
        return
            #"<svg class="icon" viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">"#
            + paths + "</svg>"
    }
}
