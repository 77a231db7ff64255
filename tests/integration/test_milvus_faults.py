"""Faults on a real Milvus server: kill -9 in the middle of an ingest, a search while it is down (CLI and
app), a restart on the same data, a wrong token and a wrong URI. Every failure is one line that names the
server (never the token); nothing local is damaged; after the restart the same ingest leaves exactly the
points a clean ingest would."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ragkit.index.collections import Collection
from ragkit.index.store import IndexStore
from ragkit.index.vectorstores.milvus_server import TIMEOUT_ENV, TOKEN_ENV
from tests.app.conftest import QUESTION, make_app, texts
from tests.conftest import ROOT
from tests.milvus_server import ROOT_TOKEN

#: ``python -m ragkit`` with the hash embedder in place of MiniLM (no model to load) and, with
#: ``--pause``, a stop after the first document's points are upserted until a line comes on stdin
CLI = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from tests.conftest import FakeEmbedder
    import ragkit.cli.index_cmds as ic, ragkit.cli.query_cmds as qc
    ic.embedder_from_args = qc.embedder_from_args = lambda args, model=None, backend=None: FakeEmbedder()
    args = sys.argv[1:]
    if args[0] == "--pause":
        args = args[1:]
        from ragkit.index.vectorstores.milvus_server import MilvusServerStore
        real = MilvusServerStore.upsert
        def upsert(self, *a, **k):
            real(self, *a, **k)
            if not getattr(MilvusServerStore, "paused", False):
                MilvusServerStore.paused = True
                print("UPSERTED", flush=True)
                sys.stdin.readline()
        MilvusServerStore.upsert = upsert
    from ragkit.cli import main
    sys.exit(main(args))
    """
).format(root=str(ROOT))


def cli(*args: str, pause: bool = False) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-c", CLI, *(["--pause"] if pause else []), *map(str, args)]
    pipe = subprocess.PIPE
    return subprocess.Popen(cmd, stdin=pipe, stdout=pipe, stderr=pipe, text=True)


def run(*args: str) -> tuple[int, str, str]:
    proc = cli(*args)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def one_line(err: str) -> str:
    """The one error line of a command's stderr (progress lines aside), with no traceback."""
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in err and "Exception" not in err, err[-3000:]
    return lines[0]


def documents(folder: Path, prefix: str, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        p = folder / f"{prefix}{i:02d}.txt"
        p.write_text(f"{prefix} document {i}: hotel india tango number {i}. " * (40 + i), encoding="utf-8")
        out.append(p)
    return out


def server_ids(uri: str, collection: str) -> list[str]:
    """Every primary key in the collection, read back from the server itself."""
    from pymilvus import MilvusClient

    client = MilvusClient(uri=uri, token=ROOT_TOKEN, dedicated=True)
    try:
        rows = client.query(collection, filter='id != ""', output_fields=["id"], limit=16_384,
                            consistency_level="Strong")  # fmt: skip
        return sorted(r["id"] for r in rows)
    finally:
        client.close()


def ask_in_the_app(app, question: str) -> tuple[str, str]:
    """Ask on the Ask page; (the answer's text, the errors shown)."""
    app.switch_page(str(ROOT / "app_pages" / "ask.py")).run()
    app.chat_input[0].set_value(question).run()
    assert not app.exception, app.exception
    return texts(app.chat_message[-1].markdown), texts(app.error)


@pytest.mark.slow
def test_kill_9_mid_ingest_then_restart_and_ingest_again_leaves_exactly_a_clean_ingest(
    tmp_path, milvus_server, monkeypatch, evaldata
):
    """Also the app: a collection on the server answers; while the server is down the question is an error
    on the page, which goes on working; after the restart the same page answers again."""
    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    monkeypatch.setenv("RAGKIT_INDEX_ROOT", str(tmp_path / "root"))
    monkeypatch.chdir(ROOT)
    uri, index = milvus_server.uri, tmp_path / "idx"
    app = make_app()
    app.run()
    next(s for s in app.sidebar.selectbox if s.label == "Vectors in").set_value("Milvus server (URI)").run()
    app.sidebar.text_input[0].set_value("shared")
    next(t for t in app.sidebar.text_input if t.label == "Milvus server URI").set_value(uri)
    next(b for b in app.sidebar.button if b.label == "Create").click().run()
    assert not app.exception and not app.error, (app.exception, texts(app.error))
    assert f"Vectors in Milvus server {uri}" in texts(app.sidebar.caption)
    pdf = evaldata / "pdfs" / "docling_multi_page.pdf"
    Collection("shared", tmp_path / "root").add_files([(pdf.name, pdf.read_bytes())])
    answer, errors = ask_in_the_app(app, QUESTION)
    assert "Sholes" in answer and not errors

    monkeypatch.setenv(TIMEOUT_ENV, "5")  # a dead server is given up on after 5 s of retries
    first, more = documents(tmp_path / "a", "first", 3), documents(tmp_path / "b", "more", 6)
    code, _, err = run("ingest", "--index", index, "--store", "milvus", "--uri", uri, "--no-progress", *first)
    assert code == 0, err
    before = IndexStore.open(index)
    # the second ingest upserts its first document's points; the server is killed; it goes on
    proc = cli("ingest", "--index", index, "--no-progress", *more, pause=True)
    assert proc.stdout.readline().strip() == "UPSERTED", proc.stderr.read()
    milvus_server.kill()
    _, err = proc.communicate("go\n", timeout=300)
    assert proc.returncode == 1
    line = one_line(err)
    assert line.startswith(f"error: Milvus server {uri} is unreachable while trying to upsert points"), line
    # nothing local changed: the manifest, documents and chunks are the ones before
    after = IndexStore.open(index)
    assert after.generation == before.generation and after.doc_info == before.doc_info
    assert [c.chunk_id for c in after.chunks] == [c.chunk_id for c in before.chunks]
    # a search while the server is down: one line, naming the server
    code, _, err = run("search", "--index", index, "--retriever", "hybrid", "hotel india")
    assert code == 1 and one_line(err).startswith(f"error: Milvus server {uri} is unreachable"), err
    _, errors = ask_in_the_app(app, QUESTION)  # the page shows the error and stays usable
    assert f"Milvus server {uri} is unreachable" in errors and ROOT_TOKEN not in errors
    assert app.chat_input and not app.chat_input[0].disabled

    milvus_server.start()  # the same data directory, the same URI
    monkeypatch.delenv(TIMEOUT_ENV)  # the default deadline: a restarted server first loads its collections
    again = make_app()  # a new session of the same server process (its cached index and connection)
    again.run()
    assert again.session_state["collection"] == "shared"
    answer, errors = ask_in_the_app(again, QUESTION)
    assert "Sholes" in answer and not errors, errors
    code, _, err = run("ingest", "--index", index, "--no-progress", *more)
    assert code == 0, err
    final = IndexStore.open(index)
    collection = final.store["collection"]
    expected = sorted(final.vector_store.key_of(c.chunk_id) for c in final.chunks)
    assert len(final.documents) == 9 and server_ids(uri, collection) == expected  # no duplicate, no orphan
    assert final.vector_store.count() == len(expected)
    final.close()
    # exactly what a clean ingest of the same files leaves
    code, _, err = run("ingest", "--index", tmp_path / "clean", "--store", "milvus", "--uri", uri,
                       "--no-progress", *first, *more)  # fmt: skip
    assert code == 0, err
    clean = IndexStore.open(tmp_path / "clean")
    assert sorted(clean.vector_store.key_of(c.chunk_id) for c in clean.chunks) == expected
    assert server_ids(uri, clean.store["collection"]) == expected
    clean.close()


def test_a_wrong_token_or_uri_is_one_clear_line(tmp_path, milvus_server, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    docs = documents(tmp_path / "d", "doc", 2)
    index = tmp_path / "idx"
    code, _, err = run("ingest", "--index", index, "--store", "milvus", "--uri", milvus_server.uri,
                       "--no-progress", *docs)  # fmt: skip
    assert code == 0, err
    monkeypatch.setenv(TIMEOUT_ENV, "3")  # what is refused or not there is given up on after 3 s
    monkeypatch.setenv(TOKEN_ENV, "root:not-the-password")
    code, _, err = run("search", "--index", index, "hotel")
    line = one_line(err)
    assert code == 1 and "rejected the credentials" in line and "$MILVUS_TOKEN" in line
    assert "not-the-password" not in err
    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    with socket.socket() as closed:  # a port of this machine that nothing listens on while we hold it
        closed.bind(("127.0.0.1", 0))
        wrong = f"http://127.0.0.1:{closed.getsockname()[1]}"
        code, _, err = run("ingest", "--index", tmp_path / "w", "--store", "milvus", "--uri", wrong,
                           "--no-progress", *docs)  # fmt: skip
    line = one_line(err)
    assert code == 1 and line.startswith(f"error: Milvus server {wrong} is unreachable"), line
    assert not (tmp_path / "w" / "manifest.json").exists()  # no index names points that were never written


@pytest.mark.parametrize("uri_env", [None, "MILVUS_URI"])
def test_a_visitors_milvus_uri_passes_the_fetch_policy_on_connection(milvus_server, monkeypatch, uri_env):
    """In the app a visitor's URI is resolved once through the fetch policy and dialled at the checked
    address; loopback is refused unless it is the administrator's own server ($MILVUS_URI)."""
    import ragkit.ingestion.netpolicy as netpolicy
    from ragkit.core.errors import IndexStoreError
    from ragkit.index.vectorstores.milvus_server import MilvusServerStore

    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    monkeypatch.delenv("RAGKIT_FETCH_ALLOW", raising=False)
    visitor_uri = milvus_server.uri.replace("127.0.0.1", "localhost")
    assert MilvusServerStore(visitor_uri, "nothing_here", 8).count() == 0  # the CLI: used as given
    netpolicy.serve_visitors()
    if uri_env:
        monkeypatch.setenv(uri_env, visitor_uri)
        assert MilvusServerStore(visitor_uri, "nothing_here", 8).count() == 0
    else:
        with pytest.raises(IndexStoreError, match=r"refused by the fetch policy: .*loopback.*MILVUS_URI"):
            MilvusServerStore(visitor_uri, "nothing_here", 8).count()
        monkeypatch.setenv("RAGKIT_FETCH_ALLOW", "localhost")  # an intranet host the administrator opened
        store = MilvusServerStore(visitor_uri, "nothing_here", 8)
        assert store.count() == 0
        assert store._target()[0].startswith("http://127.0.0.1:")  # dialled at the address it checked
