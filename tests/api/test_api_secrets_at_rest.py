"""No secret is stored in plain text: after webhooks are set and their signing secrets rotated,
the raw database (SQLite's files, every PostgreSQL row) holds none of the secrets handed out,
nor the operator key that seals them."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url
from support.processes import TEST_SECRET_KEY, Server

ROTATIONS = 3


def _raw_database(server: Server, pg_cluster_or_none) -> bytes:  # type: ignore[no-untyped-def]
    """Every byte the database keeps: SQLite's file and its journal, or a full pg_dump."""
    url = make_url(server.database_url)
    if url.get_backend_name() == "sqlite":
        path = Path(url.database or "")
        companions = [path, path.with_name(path.name + "-wal")]
        return b"".join(p.read_bytes() for p in companions if p.exists())
    return pg_cluster_or_none.dump(url.database).encode()


def test_the_raw_database_holds_no_secret(server: Server, new_tenant, request) -> None:
    handed_out = []
    for _ in range(2):
        tenant = new_tenant()
        assert (
            tenant.admin.put("/v1/webhook", json={"url": "https://hooks.example.com/x"}).status_code
            == 200
        )
        for overlap_s in (3600, 0, 86400)[:ROTATIONS]:
            rotated = tenant.admin.post("/v1/webhook/secret", json={"overlap_s": overlap_s})
            assert rotated.status_code == 201, rotated.text
            handed_out.append(rotated.json()["secret"])
        shown = tenant.viewer.get("/v1/webhook").json()
        assert handed_out[-1].startswith(shown["secret_hint"]) and len(shown["secret_hint"]) == 10
    backend = make_url(server.database_url).get_backend_name()
    cluster = request.getfixturevalue("pg_cluster") if backend == "postgresql" else None
    raw = _raw_database(server, cluster)
    assert b"tenant_secrets" in raw or b"v1." in raw  # the right database, with sealed rows
    for secret in handed_out:
        random_part = secret.removeprefix("whsec_")
        assert random_part.encode() not in raw, "a signing secret is stored in plain text"
        assert random_part[:16].encode() not in raw
    if backend == "postgresql":
        assert TEST_SECRET_KEY.encode() not in raw
    else:
        key_file = Path(make_url(server.database_url).database or "").with_name("cadenza.db.key")
        key = key_file.read_text().splitlines()[-1]
        assert key.encode() not in raw and key_file.stat().st_mode & 0o777 == 0o600
