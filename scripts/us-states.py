#!/usr/bin/env python3
"""Makes the stories map's offline geography, Sources/QuestlineServer/Resources/public/geo/us-states.json.

Source: Natural Earth's 1:50m admin-1 states and provinces (public domain,
https://www.naturalearthdata.com/about/terms-of-use/), as packaged by Debian in
r-cran-rnaturalearthdata 0.1.0-2 (CC0; the `states50` data set). The script downloads that
package from Debian's archive, reads the R data set without R (the `rdata` package from PyPI),
keeps the 50 states and the District of Columbia, simplifies each outline (Douglas-Peucker,
0.02 degrees, about 2 km) and writes GeoJSON with each state's name and postal code.

Run it again only to change the simplification: the output is committed.
"""
import gzip, json, lzma, math, pathlib, subprocess, sys, tempfile, warnings

try:
    import rdata
except ImportError:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "rdata"], check=True)
    import rdata
from rdata.parser import RObjectType as T

warnings.simplefilter("ignore")
OUT = pathlib.Path(__file__).resolve().parent.parent / "Sources/QuestlineServer/Resources/public/geo/us-states.json"
TOLERANCE = 0.02


def package_data(folder):
    subprocess.run(["apt-get", "download", "r-cran-rnaturalearthdata"], cwd=folder, check=True)
    deb = next(pathlib.Path(folder).glob("r-cran-rnaturalearthdata_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), folder], check=True)
    return pathlib.Path(folder) / "usr/lib/R/site-library/rnaturalearthdata/data"


def lazy_object(data, name):
    """One object of an R lazy-load database: the index (.rdx, gzip) gives its offset and length
    in the .rdb; each entry is a 4-byte length, a compression byte ('Z': raw LZMA2) and the data."""
    index = rdata.conversion.convert(rdata.parser.parse_data(gzip.decompress((data / "Rdata.rdx").read_bytes())))
    offset, length = (int(x) for x in index["variables"][name])
    entry = (data / "Rdata.rdb").read_bytes()[offset : offset + length]
    assert entry[4:5] == b"Z", entry[:5]
    raw = lzma.decompress(entry[5:], format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA2, "preset": 9}])
    return rdata.parser.parse_data(raw).object


def deref(x):
    while x is not None and x.info.type == T.REF:
        x = x.referenced_object
    return x


def attributes(x):
    out, a = {}, x.attributes
    while a is not None and a.info.type == T.LIST:
        out[deref(a.tag).value.value.decode()] = deref(a.value[0])
        a = a.value[1]
    return out


def text(b):
    try:
        return b.decode("utf8")
    except UnicodeDecodeError:
        return b.decode("latin1")


def value(x):
    x = deref(x)
    if x.info.type == T.STR:
        return [None if c.value is None else text(c.value) for c in x.value]
    if x.info.type == T.INT and x.attributes is not None and "levels" in attributes(x):
        levels = value(attributes(x)["levels"])
        return [levels[i - 1] if i > 0 else None for i in x.value]
    if x.info.type in (T.REAL, T.INT, T.LGL):
        return list(x.value)
    if x.info.type == T.VEC:
        return [deref(y) for y in x.value]
    raise ValueError(x.info.type)


def simplify(points, tolerance):
    """Douglas-Peucker on a closed ring (first point == last)."""
    if len(points) < 5:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        a, b = stack.pop()
        (x1, y1), (x2, y2) = points[a], points[b]
        dx, dy = x2 - x1, y2 - y1
        norm = math.hypot(dx, dy)
        far, index = 0.0, None
        for i in range(a + 1, b):
            x, y = points[i]
            d = math.hypot(x - x1, y - y1) if norm == 0 else abs(dy * x - dx * y + x2 * y1 - y2 * x1) / norm
            if d > far:
                far, index = d, i
        if index is not None and far > tolerance:
            keep[index] = True
            stack += [(a, index), (index, b)]
    return [p for p, k in zip(points, keep) if k]


def main():
    with tempfile.TemporaryDirectory() as folder:
        states = lazy_object(package_data(folder), "states50")
    slots = attributes(states)
    frame = slots["data"]
    columns = dict(zip(value(attributes(frame)["names"]), (value(c) for c in value(frame))))
    polygons = value(slots["polygons"])
    features = []
    for row, admin in enumerate(columns["admin"]):
        if admin != "United States of America":
            continue
        rings = []
        for polygon in value(attributes(polygons[row])["Polygons"]):
            slot = attributes(polygon)
            if value(slot["hole"])[0]:
                continue
            flat = value(slot["coords"])
            n = len(flat) // 2
            ring = [(flat[i], flat[n + i]) for i in range(n)]  # an R matrix is stored column by column
            ring = simplify(ring, TOLERANCE)
            if len(ring) >= 4:
                rings.append([[round(x, 3), round(y, 3)] for x, y in ring])
        features.append({
            "type": "Feature",
            "properties": {"name": columns["name"][row], "postal": columns["postal"][row]},
            "geometry": {"type": "MultiPolygon", "coordinates": [[ring] for ring in rings]},
        })
    features.sort(key=lambda f: f["properties"]["postal"])
    collection = {
        "type": "FeatureCollection",
        "source": "Natural Earth 1:50m admin-1 states (public domain), via Debian's r-cran-rnaturalearthdata (CC0); simplified by scripts/us-states.py",
        "features": features,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(collection, separators=(",", ":")) + "\n")
    print(f"{len(features)} states, {OUT.stat().st_size // 1024} KB -> {OUT}")


if __name__ == "__main__":
    main()
