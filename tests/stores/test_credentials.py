"""Credentials for a remote store: HTTP Basic or Digest as the server's challenge asks (or as
BENCHGRAPH_STORE_AUTH says), from the environment or a netrc file, never printed, and a clear
exit 2 naming the endpoint and the user when they are wrong.

The server is a real Oxigraph behind a proxy that checks credentials as a gateway would
(tests/oxiserver.py: Basic, or Digest with MD5 and qop=auth, verified as RFC 7616 says).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import EXAMPLES, PATIENCE, REPO
from support.live import fetch, query_url
from support.oxiserver import FaultProxy

from bench.launch import Served
from benchgraph.store import StoreError, credentials
from benchgraph.store.credentials import Credentials, CredentialsError
from benchgraph.store.remote import Endpoints, RemoteStore
from ingest.loader import ingest_file

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
SECRET = "s3cret-Zq9"


@pytest.fixture(params=["Basic", "Digest"])
def guarded(request: pytest.FixtureRequest, remote: object) -> Iterator[FaultProxy]:
    """The shared server, emptied, behind a proxy asking for user curator in each scheme."""
    proxy = _guard(remote, str(request.param))
    yield proxy
    proxy.close()


@pytest.fixture
def basic(remote: object) -> Iterator[FaultProxy]:
    """The same, asking for Basic."""
    proxy = _guard(remote, "Basic")
    yield proxy
    proxy.close()


def _guard(remote: object, scheme: str) -> FaultProxy:
    proxy = FaultProxy(remote.url)  # type: ignore[attr-defined]
    remote.clear()  # type: ignore[attr-defined]
    proxy.faults.user, proxy.faults.password, proxy.faults.scheme = "curator", SECRET, scheme
    return proxy


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``benchgraph`` in its own process with only the credentials of ``env``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("BENCHGRAPH_STORE_")}
    return subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", *args],
        capture_output=True,
        text=True,
        env={**base, "BENCHGRAPH_STORE_RETRIES": "0", **env},
        cwd=REPO,
        timeout=PATIENCE,
    )


def test_the_scheme_the_server_asks_for_is_answered(guarded: FaultProxy) -> None:
    store = RemoteStore(Endpoints.of(guarded.url), credentials=Credentials("curator", SECRET))
    assert ingest_file(store, LAION).status == "loaded"
    assert len(store.named_graphs()) == 3  # the page, its report, the versions catalogue
    seen = set(guarded.faults.authorizations)
    assert seen == {guarded.faults.scheme}  # Digest is never downgraded to Basic
    assert guarded.faults.challenged > 0  # auto: sent as asked, after a challenge


def test_basic_sent_unasked_saves_the_challenge(basic: FaultProxy) -> None:
    found = Credentials("curator", SECRET, "basic")
    store = RemoteStore(Endpoints.of(basic.url), credentials=found)
    assert ingest_file(store, LAION).status == "loaded"
    assert basic.faults.challenged == 0
    assert set(basic.faults.authorizations) == {"Basic"}


def test_digest_only_never_sends_the_password_in_the_clear(basic: FaultProxy) -> None:
    found = Credentials("curator", SECRET, "digest")
    with pytest.raises(StoreError, match=r"it asks for Basic.*BENCHGRAPH_STORE_AUTH=digest"):
        RemoteStore(Endpoints.of(basic.url), credentials=found)
    assert basic.faults.authorizations == []


def test_no_credentials_says_which_settings_give_them(guarded: FaultProxy) -> None:
    done = cli({}, "query", "papers", "--store", guarded.url)
    assert done.returncode == 2
    assert f"benchgraph: error: {guarded.url} refused answering a query (401" in done.stderr
    assert "BENCHGRAPH_STORE_USER and BENCHGRAPH_STORE_PASSWORD" in done.stderr


def test_wrong_credentials_exit_2_naming_the_endpoint_and_the_user(guarded: FaultProxy) -> None:
    env = {"BENCHGRAPH_STORE_USER": "curator", "BENCHGRAPH_STORE_PASSWORD": "wrong-Xy7"}
    done = cli(env, "ingest", str(LAION), "--store", guarded.url)
    assert done.returncode == 2
    assert f"{guarded.url} refused" in done.stderr
    assert "(401 Unauthorized; it asks for" in done.stderr
    assert "for user 'curator'" in done.stderr
    assert "wrong-Xy7" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    env["BENCHGRAPH_STORE_PASSWORD"] = SECRET
    done = cli(env, "ingest", str(LAION), "--store", guarded.url)
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stderr + done.stdout


def test_a_netrc_file_gives_the_account_of_the_host(guarded: FaultProxy, tmp_path: Path) -> None:
    accounts = tmp_path / "netrc"
    accounts.write_text(
        f"machine elsewhere.example login other password nope\n"
        f"machine 127.0.0.1 login curator password {SECRET}\n"
    )
    accounts.chmod(0o600)
    done = cli({"BENCHGRAPH_STORE_NETRC": str(accounts)}, "query", "papers", "--store", guarded.url)
    assert done.returncode == 0, done.stderr
    accounts.write_text("machine 127.0.0.1 login curator password wrong-Xy7\n")
    done = cli({"BENCHGRAPH_STORE_NETRC": str(accounts)}, "query", "papers", "--store", guarded.url)
    assert done.returncode == 2
    assert f"for user 'curator': check the user and password (from the netrc file {accounts})" in (
        done.stderr
    )
    assert "wrong-Xy7" not in done.stderr


def test_the_server_in_front_never_logs_the_password(guarded: FaultProxy, tmp_path: Path) -> None:
    env = {"BENCHGRAPH_STORE_USER": "curator", "BENCHGRAPH_STORE_PASSWORD": SECRET}
    assert cli(env, "ingest", str(LAION), "--store", guarded.url).returncode == 0
    log = tmp_path / "serve.log"
    server = Served(guarded.url, log=log, env={**os.environ, **env})
    try:
        papers = fetch(f"{server.url}queries/papers", Accept="application/json")
        assert papers.status == 200 and papers.json()["results"]["bindings"]
        assert fetch(query_url(f"{server.url}sparql", query="SELECT ?x WHERE {")).status == 400
    finally:
        assert server.stop() == 0
    assert "warming" in log.read_text()  # the log is there, and holds no password
    assert SECRET not in log.read_text()
    wrong = {**os.environ, **env, "BENCHGRAPH_STORE_PASSWORD": "wrong-Xy7"}
    with pytest.raises(RuntimeError, match="did not start") as refused:
        Served(guarded.url, log=tmp_path / "refused.log", env=wrong)
    assert "for user 'curator'" in str(refused.value)
    assert "wrong-Xy7" not in str(refused.value)


def test_a_url_holding_credentials_is_refused_without_echoing_them() -> None:
    done = cli({}, "query", "papers", "--store", f"http://curator:{SECRET}@127.0.0.1:9/query")
    assert done.returncode == 2
    assert "holds credentials" in done.stderr
    assert "http://127.0.0.1:9/query" in done.stderr
    assert SECRET not in done.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("machine 127.0.0.1 login curator pasword hunter2\n", "at line 1: not netrc syntax"),
        ("machine other.example login x password y\n", "has no login for 127.0.0.1"),
    ],
)
def test_a_netrc_file_that_cannot_serve_is_named(text: str, said: str, tmp_path: Path) -> None:
    accounts = tmp_path / "netrc"
    accounts.write_text(text)
    values = {"store_netrc": str(accounts)}
    with pytest.raises(CredentialsError, match=f"the netrc file {accounts} .*{said}") as caught:
        credentials.from_settings(values, "http://127.0.0.1:7878/query")
    assert "hunter2" not in str(caught.value)  # a token of the file is never quoted
    with pytest.raises(CredentialsError, match="does not exist"):
        credentials.from_settings({"store_netrc": str(tmp_path / "none")}, "http://h/query")


def test_a_challenge_of_another_scheme_is_named(remote: object) -> None:
    proxy = _guard(remote, "Bearer")
    try:
        with pytest.raises(StoreError, match=r"cannot send .* not support .* scheme: 'Bearer'"):
            RemoteStore(Endpoints.of(proxy.url), credentials=Credentials("curator", SECRET))
    finally:
        proxy.close()


def test_the_scheme_setting_takes_only_its_choices(basic: FaultProxy) -> None:
    env = {"BENCHGRAPH_STORE_USER": "curator", "BENCHGRAPH_STORE_AUTH": "ntlm"}
    done = cli(env, "query", "papers", "--store", basic.url)
    assert done.returncode == 2
    assert (
        "benchgraph: error: setting store_auth (from BENCHGRAPH_STORE_AUTH): 'ntlm' is not "
        "one of auto, basic, digest" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert basic.faults.authorizations == []  # nothing was sent


def test_the_password_is_never_shown() -> None:
    found = credentials.from_settings({"store_user": "u", "store_password": SECRET}, "http://h/q")
    assert found is not None and found.password == SECRET
    assert SECRET not in repr(found) and SECRET not in str(found)
    assert credentials.from_settings({}, "http://h/q") is None
