"""Credentials for a remote store: where they come from, how they are answered, and that they
are never shown.

They come from the environment (``BENCHGRAPH_STORE_USER`` and ``BENCHGRAPH_STORE_PASSWORD``) or
from a netrc file (``BENCHGRAPH_STORE_NETRC``: the entry of the endpoint's host, so that one file
holds the accounts of several servers), never from a flag or the store's URL: a flag or a URL
shows in process lists, shell histories and logs.

``BENCHGRAPH_STORE_AUTH`` says how they are sent:

- ``auto`` (the default): as the server asks, by its 401 challenge: HTTP Basic or Digest
  (Virtuoso's ``/sparql-auth`` asks for Digest). Each request is sent without credentials first.
- ``basic``: HTTP Basic with every request, unasked (one round trip fewer; the only way to reach
  a server that never challenges).
- ``digest``: Digest only; a server asking for Basic is refused rather than sent the password in
  the clear.

A password is held only here: the dataclass does not show it, and no message names it.
"""

from __future__ import annotations

import netrc
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

Scheme = Literal["auto", "basic", "digest"]


class CredentialsError(ValueError):
    """Credentials that cannot be used: the message names where they came from, never the
    password."""


@dataclass(frozen=True)
class Credentials:
    """A user and password for the servers at ``hosts`` (``scheme://host:port``), and how to
    send them."""

    user: str
    password: str = field(repr=False)
    scheme: Scheme = "auto"
    source: str = "BENCHGRAPH_STORE_USER and BENCHGRAPH_STORE_PASSWORD"

    def handlers(self, urls: tuple[str, ...]) -> list[urllib.request.BaseHandler]:
        """The urllib handlers that answer a challenge from the servers of ``urls`` (or, with
        ``basic``, send the credentials unasked), and only from them."""
        manager = urllib.request.HTTPPasswordMgrWithPriorAuth()
        for origin in sorted({_origin(url) for url in urls}):
            manager.add_password(
                None, origin, self.user, self.password, is_authenticated=self.scheme == "basic"
            )
        found: list[urllib.request.BaseHandler] = []
        if self.scheme != "basic":
            found.append(urllib.request.HTTPDigestAuthHandler(manager))
        if self.scheme != "digest":
            found.append(urllib.request.HTTPBasicAuthHandler(manager))
        return found


def from_settings(values: Mapping[str, object], url: str) -> Credentials | None:
    """The credentials the remote settings ``values`` give for the store at ``url`` (None: no
    user is set), its ``store_user``, ``store_password``, ``store_netrc`` and ``store_auth``.

    Raises CredentialsError for a URL holding credentials, or a netrc file that cannot be read
    or has no entry for the host."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise CredentialsError(
            f"the store URL {_without_userinfo(url)} holds credentials: give the user and "
            "password in BENCHGRAPH_STORE_USER and BENCHGRAPH_STORE_PASSWORD, or in a netrc file "
            "named by BENCHGRAPH_STORE_NETRC (a URL shows in process lists and logs)"
        )
    scheme = cast(Scheme, values.get("store_auth") or "auto")  # one of them: a setting's choices
    user, password = str(values.get("store_user") or ""), str(values.get("store_password") or "")
    if user:
        return Credentials(user, password, scheme)
    netrc_file = str(values.get("store_netrc") or "")
    if not netrc_file:
        return None
    user, password = _from_netrc(Path(netrc_file), parts.hostname or "")
    return Credentials(user, password, scheme, f"the netrc file {netrc_file}")


def _from_netrc(path: Path, host: str) -> tuple[str, str]:
    """The login and password of ``host`` (or the default entry) in the netrc file ``path``."""
    try:
        entries = netrc.netrc(str(path))
    except FileNotFoundError:
        raise CredentialsError(
            f"the netrc file {path} (BENCHGRAPH_STORE_NETRC) does not exist"
        ) from None
    except netrc.NetrcParseError as error:  # its message may quote a token: a password, say
        raise CredentialsError(
            f"the netrc file {path} (BENCHGRAPH_STORE_NETRC) cannot be read at line "
            f"{error.lineno}: not netrc syntax (machine HOST login USER password PASSWORD)"
        ) from None
    except OSError as error:
        raise CredentialsError(
            f"the netrc file {path} (BENCHGRAPH_STORE_NETRC) cannot be read: {error.strerror}"
        ) from None
    found = entries.authenticators(host)
    if found is None or not found[0]:
        raise CredentialsError(
            f"the netrc file {path} (BENCHGRAPH_STORE_NETRC) has no login for {host} (and no "
            "default entry)"
        )
    login, _, password = found
    return login, password or ""


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def _without_userinfo(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit(parts._replace(netloc=host))
