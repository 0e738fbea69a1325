"""A local stand-in for Wikipedia's APIs for the browser tests: the three paths the server
uses (title search, random summary, page summary), answering recorded responses from
e2e/wikipedia/ (shaped like the real ones) and 404 for anything else. No test reaches the
internet."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

RECORDED = Path(__file__).resolve().parent / "wikipedia"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/w/rest.php/v1/search/title":
            q = query.get("q", [""])[0].lower()
            file = RECORDED / f"search-{q}.json"
            return self.answer(200, json.loads(file.read_text()) if file.exists() else {"pages": []})
        if url.path == "/api/rest_v1/page/random/summary":
            return self.answer(200, json.loads((RECORDED / "summary-Octopus.json").read_text()))
        prefix = "/api/rest_v1/page/summary/"
        if url.path.startswith(prefix):
            title = urllib.parse.unquote(url.path[len(prefix):]).replace(" ", "_")
            file = RECORDED / f"summary-{title}.json"
            if file.exists():
                return self.answer(200, json.loads(file.read_text()))
        self.answer(404, {"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found", "status": 404})


def start():
    """Serves on a free local port in a background thread; returns (server, base URL)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
