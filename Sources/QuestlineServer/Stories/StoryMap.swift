import Foundation
import QuestlineCore
import QuestlineL10n

/// Puts tracks on the stories map: an equirectangular projection of the tracks' own bounding
/// box (with a margin) onto a 320 × 200 drawing, so pins never leave the map; the US states
/// (`public/geo/us-states.json`, Natural Earth) drawn with the same projection give it its
/// geography, and pins that would overlap are moved apart.
struct StoryMap {
    let minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    static let width = 320.0, height = 200.0, margin = 20.0
    /// Pins closer than this (in the drawing's units: a pin is 18 across) are moved apart.
    static let pinSpacing = 20.0

    init(tracks: [RaceTrack]) {
        minLat = (tracks.map(\.latitude).min() ?? 0) - 1
        maxLat = (tracks.map(\.latitude).max() ?? 0) + 1
        minLon = (tracks.map(\.longitude).min() ?? 0) - 1
        maxLon = (tracks.map(\.longitude).max() ?? 0) + 1
    }

    func project(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        let x = Self.margin + (longitude - minLon) / max(maxLon - minLon, 0.001) * (Self.width - 2 * Self.margin)
        let y = Self.margin + (maxLat - latitude) / max(maxLat - minLat, 0.001) * (Self.height - 2 * Self.margin)
        return (x, y)
    }

    func point(_ track: RaceTrack) -> (x: Int, y: Int) {
        let (x, y) = project(latitude: track.latitude, longitude: track.longitude)
        return (Int(x.rounded()), Int(y.rounded()))
    }

    /// Where each track's pin goes: its point, moved apart from pins it would overlap (pushed
    /// along the line between them, a few passes; identical points fan out), kept on the map.
    func pins(_ tracks: [RaceTrack]) -> [(x: Int, y: Int)] {
        var points = tracks.map { project(latitude: $0.latitude, longitude: $0.longitude) }
        for _ in 0..<20 {
            var moved = false
            for i in points.indices {
                for j in points.indices where j > i {
                    var dx = points[j].x - points[i].x
                    var dy = points[j].y - points[i].y
                    var distance = (dx * dx + dy * dy).squareRoot()
                    guard distance < Self.pinSpacing else { continue }
                    if distance < 0.01 { (dx, dy, distance) = (1, 0, 1) }
                    let push = (Self.pinSpacing - distance) / 2 + 0.5
                    points[i].x -= dx / distance * push
                    points[i].y -= dy / distance * push
                    points[j].x += dx / distance * push
                    points[j].y += dy / distance * push
                    moved = true
                }
            }
            if !moved { break }
        }
        return points.map { point in
            (
                Int(min(max(point.x, 10), Self.width - 10).rounded()),
                Int(min(max(point.y, 10), Self.height - 10).rounded())
            )
        }
    }

    /// The states as SVG path data in this projection (outside the drawing, clipped by it).
    func statePaths(_ states: USStates) -> [String] {
        states.features.map { feature in
            feature.geometry.polygons.map { polygon in
                polygon.map { ring in
                    ring.enumerated().map { index, position in
                        let (x, y) = project(latitude: position[1], longitude: position[0])
                        return (index == 0 ? "M" : "L") + String(format: "%.1f %.1f", x, y)
                    }.joined() + "Z"
                }.joined()
            }.joined()
        }
    }
}

/// The US states outline the server-drawn map shows (the GeoJSON Leaflet draws too).
struct USStates: Decodable, Sendable {
    struct Feature: Decodable, Sendable {
        let geometry: Geometry
    }

    struct Geometry: Decodable, Sendable {
        let type: String
        let coordinates: Coordinates

        /// Every polygon (its rings), for Polygon and MultiPolygon alike.
        var polygons: [[[[Double]]]] {
            switch coordinates {
            case .polygon(let rings): return [rings]
            case .multi(let polygons): return polygons
            }
        }
    }

    enum Coordinates: Decodable, Sendable {
        case polygon([[[Double]]])
        case multi([[[[Double]]]])

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let multi = try? container.decode([[[[Double]]]].self) {
                self = .multi(multi)
            } else {
                self = .polygon(try container.decode([[[Double]]].self))
            }
        }
    }

    let features: [Feature]

    /// The bundled file, or none (the map then shows the pins alone).
    static func load() -> USStates? {
        guard let data = FileManager.default.contents(atPath: ServerResources.path("public/geo/us-states.json"))
        else { return nil }
        return try? JSONDecoder().decode(USStates.self, from: data)
    }
}
