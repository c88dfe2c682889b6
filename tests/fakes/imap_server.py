"""A real IMAP server for the tests: pymap (in memory, with IDLE), started on 127.0.0.1
on a free port with a certificate of a test CA made here, the way the suite starts
its embedded Postgres.

pymap speaks STARTTLS only; IMAP over TLS from the first byte (imaps://, what mail
providers offer) is the same pymap started by this module, its listening socket
wrapped in TLS by asyncio (`python -m tests.fakes.imap_server CERT KEY -- ARGS`).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from imapclient import IMAPClient

ROOT = Path(__file__).resolve().parents[2]  # `-m tests.fakes.imap_server` from anywhere
USER = "brain@example.net"
PASSWORD = "mail-pass-1"


@dataclass
class ImapServer:
    """One pymap process; `url` is what BRAINBOT_IMAP_URL would say."""

    root: Path
    tls: bool  # True: TLS from the first byte; False: STARTTLS
    idle: bool = True  # False: a server without IDLE
    # While this file exists, the server refuses to change flags (STORE answers NO).
    refuse_flags_while: Path | None = None
    port: int = 0
    process: subprocess.Popen[bytes] | None = None
    ca_file: str = ""
    log: list[Path] = field(default_factory=list)

    @property
    def url(self) -> str:
        scheme = "imaps" if self.tls else "imap"
        return f"{scheme}://brain%40example.net:{PASSWORD}@127.0.0.1:{self.port}/INBOX"

    def start(self) -> None:
        """Start (again, on the same port after `stop`); returns once it answers."""
        if not self.port:
            self.port = _free_port()
        cert, key = self.root / "server.pem", self.root / "server.key"
        if not cert.exists():
            self.ca_file = str(_certificates(self.root))
        self.ca_file = str(self.root / "ca.pem")
        pymap = [
            "--pid-file",
            str(self.root / f"pymap-{self.port}.pid"),
            "--port",
            str(self.port),
            "--host",
            "127.0.0.1",
        ]
        backend = ["dict", "--demo-user", USER, "--demo-password", PASSWORD]
        args = [sys.executable, "-m", "tests.fakes.imap_server", str(cert), str(key), "--"]
        if self.tls:
            args += [*pymap, "--no-tls", *backend]
        else:
            args += [*pymap, "--cert", str(cert), "--key", str(key), *backend]
        out = self.root / f"pymap-{len(self.log)}.log"
        self.log.append(out)
        with out.open("wb") as sink:
            env = {**os.environ, **({} if self.idle else {"PYMAP_NO_IDLE": "1"})}
            if self.refuse_flags_while is not None:
                env["PYMAP_REFUSE_FLAGS_WHILE"] = str(self.refuse_flags_while)
            self.process = subprocess.Popen(
                args, stdout=sink, stderr=subprocess.STDOUT, env=env, cwd=ROOT
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"pymap ended: {out.read_text()[-2000:]}")
            try:
                with self.client():
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("pymap did not answer within 20 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def client(self) -> IMAPClient:
        """A logged-in client of the test's own, to put mail in and look at flags."""
        context = ssl.create_default_context(cafile=self.ca_file)
        client = IMAPClient("127.0.0.1", self.port, ssl=self.tls, ssl_context=context, timeout=10)
        if not self.tls:
            client.starttls(context)
        client.login(USER, PASSWORD)
        return client

    def append(self, message: EmailMessage | bytes, folder: str = "INBOX") -> None:
        raw = message if isinstance(message, bytes) else message.as_bytes()
        with self.client() as client:
            client.append(folder, raw)

    def flags(self, folder: str = "INBOX") -> dict[str, bool]:
        """Each mail's Message-ID (or subject) and whether it is \\Seen."""
        with self.client() as client:
            client.select_folder(folder, readonly=True)
            uids = client.search(["ALL"])
            if not uids:
                return {}
            found = client.fetch(uids, ["FLAGS", "BODY.PEEK[HEADER.FIELDS (MESSAGE-ID)]"])
        out = {}
        for data in found.values():
            header = data[b"BODY[HEADER.FIELDS (MESSAGE-ID)]"].decode().strip()
            key = header.partition(":")[2].strip().strip("<>")
            out[key] = b"\\Seen" in data[b"FLAGS"]
        return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _certificates(root: Path) -> Path:
    """A test CA (ca.pem) and a certificate for 127.0.0.1 it signed (server.pem/.key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("brainbot test CA"))
        .issuer_name(name("brainbot test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([x509.OID_SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    (root / "ca.pem").write_bytes(ca.public_bytes(pem))
    (root / "server.pem").write_bytes(cert.public_bytes(pem))
    (root / "server.key").write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return root / "ca.pem"


def _serve() -> None:
    """pymap; with `--no-tls` (it would offer no STARTTLS), its listening socket is
    wrapped in TLS instead (imaps)."""
    import asyncio
    import functools

    from pymap.main import main

    cert, key, _, *args = sys.argv[1:]
    if os.environ.get("PYMAP_NO_IDLE"):  # a server without IDLE, to be polled
        import pymap.config

        init = pymap.config.BackendCapability.__init__

        def no_idle(self: pymap.config.BackendCapability, **given: Any) -> None:
            init(self, **{**given, "idle": False})

        pymap.config.BackendCapability.__init__ = no_idle  # type: ignore[method-assign]
    refuse_flags = os.environ.get("PYMAP_REFUSE_FLAGS_WHILE")
    if refuse_flags:  # a mail can be filed but not marked read while this file exists
        from pymap.imap.state import ConnectionState
        from pymap.parsing.response import ResponseNo

        store = ConnectionState.do_store

        async def refused(self: ConnectionState, cmd: Any) -> Any:
            if os.path.exists(refuse_flags):  # noqa: ASYNC240 (a test server)
                return ResponseNo(cmd.tag, b"Flags cannot be changed now."), None
            return await store(self, cmd)

        ConnectionState.do_store = refused  # type: ignore[method-assign]
    if "--no-tls" in args:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        wrapped = functools.partial(asyncio.start_server, ssl=context)
        asyncio.start_server = wrapped  # type: ignore[assignment]
    sys.argv = ["pymap", *args]
    main()


if __name__ == "__main__":
    _serve()
