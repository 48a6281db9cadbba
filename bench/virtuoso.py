"""A private Virtuoso on the loopback (Debian's ``virtuoso-opensource`` 7: ``virtuoso-t`` and
``isql-vt``), for the tests and the benchmarks.

A :class:`VirtuosoServer` lives in a folder of its own: its ``virtuoso.ini`` (the HTTP and SQL
ports on 127.0.0.1, ``CaseMode = 2``, the result-row limits raised above what the tests ask
for), its database files, and ``benchgraph-virtuoso.json`` (its ports and passwords, so that it
restarts on the same folder as the same server). Started the first time, it creates a user with
SPARQL update rights (Virtuoso refuses anonymous updates; its update endpoint, ``/sparql-auth``,
takes HTTP Digest only) and gives the administrator a password of its own. It stops cleanly
(isql's ``shutdown``) or is killed (SIGKILL), as a crash would.

The command line is what CI runs (``.ci/run``)::

    python -m bench.virtuoso install         # apt-get install, the packaged service kept off
    python -m bench.virtuoso start FOLDER    # prints the tests' environment, as `export` lines
    python -m bench.virtuoso stop FOLDER
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from bench.launch import free_port, running

VIRTUOSO = "virtuoso-t"
ISQL = "isql-vt"
PACKAGE = "virtuoso-opensource"
# Where Debian's package keeps what the HTTP server serves beside SPARQL.
SERVER_ROOT = "/var/lib/virtuoso-opensource-7/vsp"
STATE = "benchgraph-virtuoso.json"
INI = "virtuoso.ini"
# Above any answer the tests and benchmarks ask for: the packaged 10000 cuts answers silently
# (HTTP 200 and an X-SPARQL-MaxRows header).
MAX_ROWS = 1_000_000
INSTALL_HINT = (
    "Virtuoso is not installed: `apt-get install virtuoso-opensource` (Debian; as root, "
    "`python -m bench.virtuoso install` keeps its packaged service off)"
)

_INI = """\
[Database]
DatabaseFile = {folder}/virtuoso.db
ErrorLogFile = {folder}/virtuoso.log
LockFile = {folder}/virtuoso.lck
TransactionFile = {folder}/virtuoso.trx
xa_persistent_file = {folder}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {folder}/virtuoso-temp.db
TransactionFile = {folder}/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = 127.0.0.1:{sql_port}
DisableUnixSocket = 1
; Without it, identifiers are upper-cased and ASK answers come back as a one-column SELECT.
CaseMode = 2
MaxClientConnections = 10
CheckpointInterval = 60
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
MaxQueryMem = 500M
; The leaderboard of claims compiles to a plan whose memory pool outgrows the default 400 MB.
MaxMemPoolSize = 2000000000
ThreadsPerQuery = 2
DirsAllowed = .

[HTTPServer]
ServerPort = 127.0.0.1:{http_port}
ServerRoot = {server_root}
MaxClientConnections = 10
ServerThreads = 10
Charset = UTF-8
EnabledDavVSP = 0

[SPARQL]
ResultSetMaxRows = {max_rows}
MaxSortedTopRows = {max_rows}
; Virtuoso's estimate of a leaderboard's or compare's cost (thousands of seconds, varying from
; run to run; up to 2^30 s, and past it negative, wrapped round, for the CompoSET boards joined in
; the order written, as benchgraph asks) is far from what they take (seconds on the founding
; pages): they would be refused before running, past the packaged 400 or any limit a 32-bit
; setting holds. 0 checks no estimate; the time a query may take is bounded below.
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 60
"""


def installed() -> bool:
    """Whether Virtuoso's server and its isql are on the PATH."""
    return shutil.which(VIRTUOSO) is not None and shutil.which(ISQL) is not None


class VirtuosoServer:
    """A private Virtuoso whose files are in ``folder``, on loopback ports (free ones, the
    first time; the same ones again on the same folder), answering SPARQL queries at
    :attr:`url` and updates from :attr:`user` at :attr:`update_url`. ``max_rows`` is its cap
    on the rows of an answer."""

    def __init__(self, folder: Path, *, user: str = "benchgraph", max_rows: int = MAX_ROWS):
        self.folder = Path(folder).resolve()
        self.max_rows = max_rows
        state = self.folder / STATE
        if state.is_file():
            saved = json.loads(state.read_text(encoding="utf-8"))
        else:
            saved = {
                "http_port": free_port(),
                "sql_port": free_port(),
                "user": user,
                "password": secrets.token_hex(12),
                "dba_password": secrets.token_hex(12),
                "set_up": False,
            }
        self._state: dict[str, object] = saved
        self.http_port = int(saved["http_port"])
        self.sql_port = int(saved["sql_port"])
        self.user = str(saved["user"])
        self.password = str(saved["password"])
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    @property
    def url(self) -> str:
        """The query endpoint: what ``--store`` takes."""
        return f"{self.base}/sparql"

    @property
    def update_url(self) -> str:
        """The update endpoint (HTTP Digest, as :attr:`user`)."""
        return f"{self.base}/sparql-auth"

    def env(self) -> dict[str, str]:
        """The settings that point benchgraph at this server, as the environment holds them."""
        return {
            "BENCHGRAPH_UPDATE_URL": self.update_url,
            "BENCHGRAPH_STORE_USER": self.user,
            "BENCHGRAPH_STORE_PASSWORD": self.password,
        }

    def start(self, seconds: float = 120.0) -> VirtuosoServer:
        """Start it (creating its database the first time) and return once it answers SPARQL
        queries and its user exists. Raises RuntimeError, with the end of its log, when it
        does not start."""
        if not installed():
            raise RuntimeError(INSTALL_HINT)
        self.folder.mkdir(parents=True, exist_ok=True)
        ini = self.folder / INI
        ini.write_text(
            _INI.format(
                folder=self.folder,
                sql_port=self.sql_port,
                http_port=self.http_port,
                server_root=SERVER_ROOT,
                max_rows=self.max_rows,
            ),
            encoding="utf-8",
        )
        self._save()
        with (self.folder / "virtuoso.out").open("ab") as out:
            self.process = subprocess.Popen(
                [VIRTUOSO, "+foreground", "+configfile", str(ini)],
                cwd=self.folder,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a Ctrl-C of the tests is not a crash of the server
            )
        self._state["pid"] = self.process.pid
        self._save()
        self._wait(seconds)
        if not self._state.get("set_up"):
            self._set_up()
        return self

    def _wait(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        query = urllib.parse.urlencode({"query": "ASK {}"})
        while True:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"virtuoso-t stopped at start:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}?{query}", timeout=2) as response:
                    response.read()
                return
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"virtuoso-t did not answer at {self.url} within {seconds:g} s:\n"
                        f"{self.log_tail()}"
                    ) from None
                time.sleep(0.1)

    def _set_up(self) -> None:
        """Create the user, with SPARQL update rights, and give the administrator (``dba``,
        password ``dba`` in a new database) a password of its own."""
        user, password = self.user, self.password
        self.isql(
            f"DB.DBA.USER_CREATE('{user}', '{password}');",
            f'GRANT SPARQL_SELECT TO "{user}";',
            f'GRANT SPARQL_UPDATE TO "{user}";',
            f"DB.DBA.USER_SET_OPTION('{user}', 'DISABLED', 0);",
            password="dba",
        )
        listed = self.isql("SELECT DISTINCT id_to_iri(G) FROM DB.DBA.RDF_QUAD;", password="dba")
        self._state["own_graphs"] = _column(listed)
        dba = self._state["dba_password"]
        self.isql(f"DB.DBA.USER_PASSWORD_SET('dba', '{dba}');", password="dba")
        self._state["set_up"] = True
        self._save()

    @property
    def own_graphs(self) -> list[str]:
        """The graphs Virtuoso holds in a new database (its RDF schema, its service
        description, the LDP vocabulary): what :meth:`clear` keeps."""
        return [str(g) for g in self._state.get("own_graphs", [])]  # type: ignore[attr-defined]

    def clear(self) -> None:
        """Remove every graph but Virtuoso's own (SQL, as the administrator)."""
        kept = ", ".join(f"iri_to_id('{g}')" for g in self.own_graphs) or "NULL"
        self.isql(f"DELETE FROM DB.DBA.RDF_QUAD WHERE G NOT IN ({kept});")

    def isql(self, *statements: str, password: str | None = None) -> str:
        """Run SQL ``statements`` as the administrator; return what isql printed. Raises
        RuntimeError when one fails (isql itself exits 0 even then)."""
        secret = password or str(self._state["dba_password"])
        done = subprocess.run(
            [ISQL, f"127.0.0.1:{self.sql_port}", "dba", secret, "EXEC=" + " ".join(statements)],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        printed = done.stdout + done.stderr
        if done.returncode != 0 or "*** Error" in printed:
            raise RuntimeError(f"isql at 127.0.0.1:{self.sql_port} failed: {printed.strip()}")
        return printed

    def stop(self, seconds: float = 120.0) -> None:
        """Shut it down cleanly (a checkpoint, then exit); SIGKILL past ``seconds``."""
        pid = self._pid()
        if pid is None:
            return
        # It may have gone down already; if it does not go down, it is killed below.
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            self.isql("shutdown;")
        if not self._ended(pid, seconds):
            self.kill()
        self._forget()

    def kill(self) -> None:
        """Stop it at once (SIGKILL), as a crash would."""
        pid = self._pid()
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        self._ended(pid, 60)
        self._forget()

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of its log (what it says when it does not start)."""
        log = self.folder / "virtuoso.log"
        if not log.is_file():
            log = self.folder / "virtuoso.out"
        if not log.is_file():
            return "(no log)"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])

    def _pid(self) -> int | None:
        if self.process is not None:
            return self.process.pid
        pid = self._state.get("pid")
        return int(str(pid)) if pid else None

    def _ended(self, pid: int, seconds: float) -> bool:
        """Wait up to ``seconds`` for process ``pid`` to end; whether it did."""
        if self.process is not None:
            try:
                self.process.wait(seconds)
                return True
            except subprocess.TimeoutExpired:
                return False
        deadline = time.monotonic() + seconds
        while running(pid):  # a zombie has ended (nobody may reap it here)
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def _forget(self) -> None:
        self.process = None
        self._state.pop("pid", None)
        self._save()

    def _save(self) -> None:
        (self.folder / STATE).write_text(json.dumps(self._state, indent=1), encoding="utf-8")


def install() -> None:
    """Install Debian's package (as root) unless Virtuoso is installed, so that its packaged
    service never starts: a ``policy-rc.d`` that forbids starting services while it installs,
    then the service disabled. Raises RuntimeError where it cannot."""
    if installed():
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise RuntimeError(INSTALL_HINT)
    policy = Path("/usr/sbin/policy-rc.d")
    ours = not policy.exists()
    if ours:
        policy.write_text("#!/bin/sh\n# no service starts while packages install\nexit 101\n")
        policy.chmod(0o755)
    try:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", PACKAGE], check=True, env=env)
    except subprocess.CalledProcessError as error:
        raise RuntimeError(f"apt-get install {PACKAGE} failed ({error.returncode})") from None
    finally:
        if ours:
            policy.unlink()
    if shutil.which("update-rc.d"):
        subprocess.run(["update-rc.d", "virtuoso-opensource-7", "disable"], check=False)
    if not installed():
        raise RuntimeError(f"apt-get installed {PACKAGE}, but there is no {VIRTUOSO}")


def shared_env(server: VirtuosoServer) -> dict[str, str]:
    """What ``start`` prints for the tests: the server's query and update endpoints, its user
    and password, and its folder (where the rest of what it is, its ports and the
    administrator's password, is kept)."""
    return {
        "BENCHGRAPH_TEST_VIRTUOSO": server.url,
        "BENCHGRAPH_TEST_VIRTUOSO_UPDATE": server.update_url,
        "BENCHGRAPH_TEST_VIRTUOSO_USER": server.user,
        "BENCHGRAPH_TEST_VIRTUOSO_PASSWORD": server.password,
        "BENCHGRAPH_TEST_VIRTUOSO_FOLDER": str(server.folder),
    }


def _column(printed: str) -> list[str]:
    """The values of a one-column answer, as isql prints it (a header, a rule of ``_``, the
    values, a blank line, then ``N Rows.``)."""
    lines = printed.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("____")) + 2
    values = []
    for line in lines[start:]:
        if not line.strip():
            break
        values.append(line.strip())
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.virtuoso", description=__doc__)
    parser.add_argument("command", choices=["install", "start", "stop"])
    parser.add_argument("folder", nargs="?", type=Path, help="the server's folder")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            install()
            return 0
        if args.folder is None:
            parser.error(f"{args.command} needs the server's folder")
        server = VirtuosoServer(args.folder)
        if args.command == "stop":
            server.stop()
            return 0
        server.start()
    except RuntimeError as error:
        print(f"bench.virtuoso: error: {error}", file=sys.stderr)
        return 2
    for name, value in shared_env(server).items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
