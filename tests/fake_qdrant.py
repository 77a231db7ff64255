"""A loopback server speaking Qdrant's REST API for the calls ragkit's server store makes, so the real
``qdrant-client`` is driven over HTTP (no Qdrant server can be installed on this machine).

Endpoints (shapes as in Qdrant's OpenAPI spec): ``GET /collections/{c}/exists``, ``PUT /collections/{c}``,
``GET /collections/{c}``, ``PUT /collections/{c}/index``, ``PUT /collections/{c}/points``,
``POST /collections/{c}/points/delete``, ``POST /collections/{c}/points/query``,
``POST /collections/{c}/points`` (retrieve) and ``POST /collections/{c}/points/count``. Search is exact
cosine over the stored vectors; filters support ``must``/``must_not`` with ``match.any``/``match.value``.
With ``api_key`` set, requests without that ``api-key`` header get 401, as from a real server.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np

from tests.fake_servers import _Handler, _Server


class FakeQdrant(_Server):
    def __init__(self, api_key: str | None = None) -> None:
        super().__init__(_QdrantHandler)
        self.api_key = api_key
        self.collections: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.calls: list[str] = []


def _matches(payload: dict[str, Any], cond: dict[str, Any]) -> bool:
    if "must" in cond or "must_not" in cond or "should" in cond:
        return _passes(payload, cond)
    value = payload.get(cond["key"])
    match = cond.get("match", {})
    if "any" in match:
        return value in match["any"]
    if "value" in match:
        return value == match["value"]
    raise ValueError(f"unsupported condition {cond}")


def _passes(payload: dict[str, Any], flt: dict[str, Any] | None) -> bool:
    if not flt:
        return True
    must = flt.get("must") or []
    must_not = flt.get("must_not") or []
    return all(_matches(payload, c) for c in must) and not any(_matches(payload, c) for c in must_not)


def _ok(result: Any) -> dict[str, Any]:
    return {"result": result, "status": "ok", "time": 0.0001}


class _QdrantHandler(_Handler):
    def _route(self, method: str) -> None:
        owner: FakeQdrant = self.owner
        path, _, _query = self.path.partition("?")
        owner.calls.append(f"{method} {path}")
        if owner.api_key is not None and self.headers.get("api-key") != owner.api_key:
            self._json(401, {"status": {"error": "Unauthorized: invalid API key"}, "time": 0})
            return
        m = re.fullmatch(r"/collections/([^/]+)(/.*)?", path)
        if not m:
            self._json(404, {"status": {"error": f"Not found: {path}"}, "time": 0})
            return
        name, rest = m.group(1), m.group(2) or ""
        body = self._body() if method in ("PUT", "POST") else {}
        with owner.lock:
            status, result = self._dispatch(owner, method, name, rest, body)
        if status == 200:
            self._json(200, _ok(result))
        else:
            self._json(status, {"status": {"error": result}, "time": 0})

    def _dispatch(self, owner: FakeQdrant, method: str, name: str, rest: str, body: dict[str, Any]):
        cols = owner.collections
        if method == "GET" and rest == "/exists":
            return 200, {"exists": name in cols}
        if method == "PUT" and rest == "":
            if name in cols:
                return 409, f"Wrong input: Collection `{name}` already exists!"
            vectors = body["vectors"]
            cols[name] = {"size": vectors["size"], "distance": vectors["distance"], "points": {}}
            return 200, True
        if name not in cols:
            return 404, f"Not found: Collection `{name}` doesn't exist!"
        col = cols[name]
        points: dict[str, dict[str, Any]] = col["points"]
        if method == "GET" and rest == "":
            return 200, {
                "status": "green",
                "optimizer_status": "ok",
                "segments_count": 1,
                "points_count": len(points),
                "config": {
                    "params": {"vectors": {"size": col["size"], "distance": col["distance"]}},
                    "hnsw_config": {"m": 16, "ef_construct": 100, "full_scan_threshold": 10000},
                    "optimizer_config": {"default_segment_number": 0, "flush_interval_sec": 5},
                },
                "payload_schema": {},
            }
        if method == "PUT" and rest == "/index":
            return 200, {"operation_id": 0, "status": "completed"}
        if method == "PUT" and rest == "/points":
            for p in body["points"]:
                vec = p["vector"]
                if len(vec) != col["size"]:
                    return 400, (
                        f"Wrong input: Vector dimension error: expected dim: {col['size']}, got {len(vec)}"
                    )
                points[str(p["id"])] = {"vector": vec, "payload": p.get("payload") or {}}
            return 200, {"operation_id": 1, "status": "completed"}
        if method == "POST" and rest == "/points/delete":
            if "points" in body:
                gone = [str(i) for i in body["points"]]
            else:
                gone = [pid for pid, p in points.items() if _passes(p["payload"], body.get("filter"))]
            for pid in gone:
                points.pop(pid, None)
            return 200, {"operation_id": 2, "status": "completed"}
        if method == "POST" and rest == "/points/query":
            ids = [pid for pid, p in points.items() if _passes(p["payload"], body.get("filter"))]
            if not ids:
                return 200, {"points": []}
            mat = np.asarray([points[i]["vector"] for i in ids], dtype=np.float32)
            query = body["query"]
            q = np.asarray(query["nearest"] if isinstance(query, dict) else query, dtype=np.float32)
            if col["distance"] == "Cosine":
                mat = mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)
                q = q / max(float(np.linalg.norm(q)), 1e-12)
            scores = mat @ q
            order = np.argsort(-scores, kind="stable")[: body.get("limit", 10)]
            return 200, {
                "points": [
                    {
                        "id": ids[i],
                        "version": 1,
                        "score": float(scores[i]),
                        "payload": _select(points[ids[i]]["payload"], body.get("with_payload")),
                    }
                    for i in order
                ]
            }
        if method == "POST" and rest == "/points":
            out = []
            for pid in body["ids"]:
                p = points.get(str(pid))
                if p is not None:
                    rec = {"id": str(pid), "payload": _select(p["payload"], body.get("with_payload"))}
                    if body.get("with_vector"):
                        rec["vector"] = p["vector"]
                    out.append(rec)
            return 200, out
        if method == "POST" and rest == "/points/count":
            n = sum(_passes(p["payload"], body.get("filter")) for p in points.values())
            return 200, {"count": n}
        return 404, f"Not found: {method} {rest}"

    def do_GET(self) -> None:
        self._route("GET")

    def do_PUT(self) -> None:
        self._route("PUT")

    def do_POST(self) -> None:
        self._route("POST")


def _select(payload: dict[str, Any], with_payload: Any) -> dict[str, Any] | None:
    if with_payload in (None, False):
        return None
    if with_payload is True:
        return payload
    if isinstance(with_payload, list):
        return {k: v for k, v in payload.items() if k in with_payload}
    if isinstance(with_payload, dict) and "include" in with_payload:
        return {k: v for k, v in payload.items() if k in with_payload["include"]}
    return payload
