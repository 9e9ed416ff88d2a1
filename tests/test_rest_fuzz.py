"""Property-based fuzzing of the REST API from its own OpenAPI spec (schemathesis).

A live uvicorn server on loopback, an admin key, some real data; every operation gets generated
requests (valid and invalid). No answer may be a 5xx, and every answer must conform to the spec:
a documented status, a documented content type, a body matching the documented schema.
Bounded: a few examples per operation, so the whole run stays well under a minute.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings

schemathesis = pytest.importorskip("schemathesis")

from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ogmemory.config import Settings
from ogmemory.interfaces.rest import create_app
from ogmemory.interfaces.rest.keys import KeyStore
from ogmemory.interfaces.rest.server import BackgroundServer

#: The live server's body limit (small, so oversized bodies stay cheap to send).
LIMIT = 256 * 1024
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str]]]:
    home: Path = tmp_path_factory.mktemp("fuzz") / "home"
    _, token = KeyStore(home).create("fuzz", "main", label="fuzzer", admin=True)
    headers = {"Authorization": f"Bearer {token}"}
    settings = Settings(home=home, embedder="none", max_body_bytes=LIMIT)
    with BackgroundServer(create_app(settings)) as server:
        with httpx.Client(base_url=server.url, headers=headers, timeout=60) as http:
            for text in (
                "I switched from JavaScript to TypeScript last week.",
                "My manager is Alice Chen; we decided to use PostgreSQL.",
            ):
                http.post("/v1/sessions/s1/messages", json={"role": "user", "content": text})
                http.post("/v1/sessions/s1/messages", json={"role": "assistant", "content": "Ok."})
                http.post("/v1/sessions/s1/commit")
            http.post("/v1/sleep", json={"mode": "deep"}).raise_for_status()
            http.post("/v1/memories", json={"text": "I prefer green tea."}).raise_for_status()
        yield server.url, headers


def _spec() -> dict[str, Any]:
    # The app's own spec; building the app touches no file (the test checks the server serves
    # exactly this). Loaded at import so pytest can parametrize by operation.
    return create_app(Settings(home=Path("/nonexistent/ogmem-fuzz"), embedder="none")).openapi()


SPEC = _spec()
schema = schemathesis.openapi.from_dict(SPEC)


def test_the_fuzzed_spec_is_the_served_one(live: tuple[str, dict[str, str]]) -> None:
    assert httpx.get(live[0] + "/openapi.json", headers=live[1]).json() == SPEC


@schema.parametrize()
@settings(max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_spec(case: Any, live: tuple[str, dict[str, str]]) -> None:
    url, headers = live
    case.call_and_validate(base_url=url, headers=headers, checks=CHECKS, timeout=60)


def test_oversized_bodies_conform_to_the_spec(live: tuple[str, dict[str, str]]) -> None:
    """Every operation that takes a body, sent one byte over the limit: a documented 413 with
    problem details, never a 5xx (streamed bodies: test_rest_hardening)."""
    url, headers = live
    sent = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.definition.raw.get("requestBody") is None:
            continue
        if operation.path.startswith("/v1/import/"):
            continue  # history uploads have a larger limit of their own (imports.MAX_UPLOAD)
        path_parameters = {p.name: "s1" for p in operation.path_parameters}
        case = operation.Case(
            path_parameters=path_parameters,
            headers=headers,
            body={"text": "x" * (LIMIT + 1)},
            media_type="application/json",
        )
        response = case.call_and_validate(base_url=url, headers=headers, checks=CHECKS, timeout=60)
        assert response.status_code == 413, (operation.label, response.status_code)
        assert response.json()["type"] == "urn:ogmemory:problem:payload-too-large"
        sent += 1
    assert sent >= 8
