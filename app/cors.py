"""Cross-origin requests to the capture API from a page in a browser (docs/api.md's
bookmarklet): answered only for the origins BRAINBOT_API_CORS_ORIGINS lists, each
matched exactly. Never a wildcard and never credentials (the API's token is a header
the page sends, not a cookie): a page of any other site gets no `Access-Control-*`
header, so its browser neither sends the capture nor shows it the answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

# A route's handler that answers with a whole response (the capture API's, and a
# preflight's), which the API wraps with its CORS headers.
Handler = Callable[[web.Request], Awaitable[web.Response]]
# What the API reads from a request besides its body, and how long a browser may keep
# a preflight's answer.
HEADERS = "Authorization, Content-Type, Idempotency-Key"
MAX_AGE = "600"


class Cors:
    """The origins whose pages may call the API (see the module doc)."""

    def __init__(self, origins: Iterable[str] = ()) -> None:
        self.origins = frozenset(origins)

    def preflight(self, methods: str) -> Handler:
        """The answer to a browser's `OPTIONS` before it sends `methods` to a route."""

        async def answer(request: web.Request) -> web.Response:
            origin = request.headers.get("Origin", "")
            asked = request.headers.get("Access-Control-Request-Method", "")
            if origin not in self.origins or asked not in methods.split(", "):
                refused = f"{origin or 'a page'} may not call this: the origins listed in "
                refused += "BRAINBOT_API_CORS_ORIGINS may"
                return web.json_response({"error": refused}, status=403, headers={"Vary": "Origin"})
            headers = {
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Methods": methods,
                "Access-Control-Allow-Headers": HEADERS,
                "Access-Control-Max-Age": MAX_AGE,
                "Vary": "Origin",
            }
            return web.Response(status=204, headers=headers)

        return answer

    def mark(self, request: web.Request, response: web.StreamResponse) -> None:
        """Let the page of a listed origin read `response` (an error too)."""
        response.headers["Vary"] = "Origin"
        origin = request.headers.get("Origin", "")
        if origin in self.origins:
            response.headers["Access-Control-Allow-Origin"] = origin
