"""Index commands: ``ingest`` files and URLs, ``info`` on an index, ``copy`` it into another vector
store, ``remove`` documents."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ragkit.app.presentation import counted, split_notes
from ragkit.cli.common import (
    add_model_args,
    add_store_args,
    check_store_args,
    embedder_from_args,
    index_backend,
    progress_bar,
    say,
    store_from_args,
)
from ragkit.cli.flags import add_chunker_flags, add_option, chunker_settings, config_from_args
from ragkit.ingestion.chunkers import OPTIONS as CHUNKER_OPTIONS
from ragkit.ingestion.parsing import OPTIONS as PARSE_OPTIONS
from ragkit.ingestion.reading import DEFAULT_MAX_MB


def add_commands(sub: Any) -> None:
    p = sub.add_parser(
        "ingest",
        help="add PDF/TXT/MD/HTML/DOCX files, Q&A CSV/JSONL and http(s) URLs to an index (incremental)",
    )
    p.add_argument("--index", required=True, help="index directory (created if missing)")
    p.add_argument("--config", default=None, help="a pipeline config JSON: its chunker and settings")
    g = p.add_argument_group("chunker (default: the index's own, or sliding for a new index)")
    add_option(g, CHUNKER_OPTIONS[0], "f_chunker")
    add_chunker_flags(g)
    g = p.add_argument_group("PDF parsing (default: layout, OCR where the text layer is not usable)")
    for o in PARSE_OPTIONS:
        add_option(g, o, f"f_{o.key}")
    p.add_argument(
        "--max-mb",
        type=float,
        default=DEFAULT_MAX_MB,
        help=f"skip files larger than this (MB; {DEFAULT_MAX_MB:g})",
    )
    p.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read symbolic links that lead outside the folder they were named in (refused by default)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="open a host, host:port, IP or CIDR to URL fetches (the fetch policy refuses loopback, "
        "private and link-local addresses; also RAGKIT_FETCH_ALLOW)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    add_store_args(p, new=True)
    add_model_args(p, backend="how chunks are embedded: the index's own backend (an existing index "
                   "refuses another), the config's, or the default for a new index")  # fmt: skip
    p.add_argument(
        "files", nargs="+", help="files, folders (every supported file inside) and http(s):// URLs to ingest"
    )
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("info", help="summarise an index")
    p.add_argument("--index", required=True)
    p.add_argument("--json", action="store_true")
    add_store_args(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser(
        "copy",
        help="copy an index into a new one whose vectors live elsewhere (e.g. Qdrant), no re-embedding",
    )
    p.add_argument("--index", required=True, help="the index to copy")
    p.add_argument("--to", required=True, help="the new index directory")
    add_store_args(p, new=True)
    p.set_defaults(func=cmd_copy)

    p = sub.add_parser("remove", help="remove documents (by file name or id) from an index")
    p.add_argument("--index", required=True)
    add_store_args(p)
    p.add_argument("documents", nargs="+")
    p.set_defaults(func=cmd_remove)


def chunker_from_args(args: argparse.Namespace) -> Any:
    """The chunker the flags (or ``--config``) ask for; None: the index's own (or the default)."""
    from ragkit.ingestion.chunkers import chunker_for, make_chunker

    if args.config:
        return chunker_for(config_from_args(args))
    settings = chunker_settings(args, args.f_chunker)
    if args.f_chunker is None:
        return None
    return make_chunker(args.f_chunker, **(settings or {}))


def parse_settings_from_args(args: argparse.Namespace) -> Any:
    """The PDF parser and OCR the flags (or ``--config``) ask for."""
    from ragkit.ingestion.parsing import ParseSettings

    base = ParseSettings.of(config_from_args(args)) if args.config else ParseSettings()
    given = {o.key: getattr(args, f"f_{o.key}") for o in PARSE_OPTIONS}
    return ParseSettings(**{**base.__dict__, **{k: v for k, v in given.items() if v is not None}})


def cmd_ingest(args: argparse.Namespace) -> int:
    from ragkit.index.ingest import ingest_paths, open_or_create

    if args.allow_host:  # this process's fetches only (the policy reads the environment)
        from ragkit.ingestion.netpolicy import ALLOW_ENV, FetchPolicy

        opened = ",".join([os.environ.get(ALLOW_ENV, ""), *args.allow_host]).strip(",")
        os.environ[ALLOW_ENV] = opened
        FetchPolicy.from_env()  # an unreadable entry fails here, before any work
    chunker = chunker_from_args(args)
    backend = index_backend(args.index)  # an index keeps its own (a flag asking for another is refused)
    if backend is None and args.config:
        backend = config_from_args(args).embedding_backend
    embedder = embedder_from_args(args, backend=backend)  # loaded when a chunk needs embedding, if ever
    store, chunker = open_or_create(args.index, embedder, chunker, store_from_args(args))
    progress, close = progress_bar(not args.no_progress and not args.json)
    try:
        report = ingest_paths(
            store,
            args.files,
            chunker,
            embedder,
            args.max_mb,
            progress,
            follow_symlinks=args.follow_symlinks,
            on_wait=say,
            settings=parse_settings_from_args(args),
        )
    finally:
        close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
        return 1 if report.failed else 0
    for f in report.files:
        if f.status == "error":
            print(f"error  {f.error}")
            continue
        print(
            f"ok     {f.file}: {f.action}, {counted(f.pages, 'page')}, {counted(f.chunks, 'chunk')}, "
            f"{counted(f.tables, 'table')}, {counted(f.new_embeddings, 'new embedding')}"
        )
        notes, warnings = split_notes(f.warnings)
        for w in notes:
            print(f"       note: {w}")
        for w in warnings:
            print(f"       warning: {w}")
    t = report.totals()
    print(
        f"{t['files']} files, {t['failed']} failed, {t['chunks']} chunks, "
        f"{t['new_embeddings']} new embeddings -> {store.path} "
        f"({len(store.documents)} documents, {len(store.chunks)} chunks)"
    )
    return 1 if report.failed else 0


def cmd_info(args: argparse.Namespace) -> int:
    from ragkit.index.lexical import is_text_only
    from ragkit.index.manifest import read_manifest
    from ragkit.index.vectorstores import describe_store

    m = read_manifest(args.index)
    check_store_args(args, args.index)
    if args.json:
        print(json.dumps(m, indent=2, ensure_ascii=False))
        return 0
    emb, ch = m["embedding"], m["chunker"]
    params = ", ".join(f"{k}={v}" for k, v in ch.get("config", {}).items())
    print(f"index      {args.index}")
    print(
        f"model      {emb['model']} (dimension {emb['dimension']}, {emb.get('dtype', 'float32')}, "
        f"backend {emb.get('backend', 'torch')})"
    )
    print(f"chunker    {ch['name']}({params})")
    text_only = is_text_only(m)
    print(f"vectors    {'none: text only, for BM25 alone' if text_only else describe_store(m.get('store'))}")
    print(f"documents  {m['counts']['documents']}    chunks {m['counts']['chunks']}")
    print(f"updated    {m['updated_at']} (ragkit {m['ragkit_version']}, schema {m['schema_version']})")
    for d in m["documents"]:
        extra = f", pages without text: {d['empty_pages']}" if d.get("empty_pages") else ""
        print(
            f"  {d['source']}: {counted(d['pages'], 'page')}, {counted(d['chunks'], 'chunk')}, "
            f"{counted(d.get('tables', 0), 'table')}{extra}"
        )
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    from ragkit.index.maintenance import copy_index

    store = copy_index(args.index, args.to, store_from_args(args))
    print(
        f"copied {len(store.documents)} documents, {len(store.chunks)} chunks -> {store.path} "
        f"(vectors in {store.store_description})"
    )
    store.close()
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from ragkit.index.store import IndexStore

    check_store_args(args, args.index)
    store = IndexStore.open(args.index)
    missing = []
    with store.lock(on_wait=say):
        store.reload()  # another writer may have saved since it was opened: remove from that state
        for name in args.documents:
            if not store.remove(name):
                missing.append(name)
        if len(missing) < len(args.documents):
            store.save()
    for name in missing:
        print(f"error  {name}: not in index {args.index}", file=sys.stderr)
    print(f"{len(args.documents) - len(missing)} removed; {len(store.documents)} documents remain")
    return 1 if missing else 0
