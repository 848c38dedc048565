"""Building the sandbox image, offline when no registry answers, and checking the engine (doctor)."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import tarfile
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors
from docker.types import LogConfig

from ..errors import InputError, SandboxUnavailableError
from ..types import Limits
from ._docker import IMAGE, LABEL, codebench_containers, connect, hardening, remove_container, sweep_orphans
from ._files import IMAGE_FILES, shipped

DEFAULT_BASE = "python:3.11-slim"
OFFLINE_BASE = "codebench-base:bookworm"

Log = Callable[[str], None]

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REFERENCE = re.compile(  # Docker's reference grammar: [domain[:port]/]path[:tag][@digest]
    rf"(?:(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?\.)*[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?::[0-9]+)?/)?"
    rf"{_COMPONENT}(?:/{_COMPONENT})*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{{0,127}})?(?:@sha256:[0-9a-f]{{64}})?")


def image_digest(root: Path | None = None) -> str:
    """Hash of everything that goes into the image, so a changed supervisor forces a rebuild."""
    return _digest(image_sources(root))


def _digest(sources: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name, data in sources.items():
        digest.update(name.encode() + b"\0" + data)
    return digest.hexdigest()[:16]


def image_sources(root: Path | None = None) -> dict[str, bytes]:
    """The files the image is built from, by path: all a node needs (with codebench and Docker) to build it too.

    Raises:
        SandboxUnavailableError: a file is missing (a broken install).
    """
    return {name: shipped(name, root).read_bytes() for name in IMAGE_FILES}


def _present(client: docker.DockerClient, name: str) -> bool:
    try:
        client.images.get(name)
    except docker.errors.ImageNotFound:
        return False
    return True


def _base_image(client: docker.DockerClient, base: str | None, log: Log, root: Path | None) -> str:
    """The requested base if present or pullable; else the offline Debian base, bootstrapped once."""
    wanted = base or DEFAULT_BASE
    if _present(client, wanted):
        return wanted
    try:
        log(f"pulling {wanted} …")
        client.images.pull(wanted)
        return wanted
    except docker.errors.DockerException as exc:
        if base is not None:
            raise SandboxUnavailableError(f"base image {base} is not here and cannot be pulled ({exc})") from None
        log(f"cannot pull {wanted} (no registry?): using a Debian base bootstrapped offline with debootstrap")
    if not _present(client, OFFLINE_BASE):
        log(f"bootstrapping {OFFLINE_BASE} with debootstrap from Debian's mirror (about a minute) …")
        script = shipped("sandbox_images/bootstrap-base.sh", root)
        done = subprocess.run(["bash", str(script), OFFLINE_BASE], capture_output=True, text=True)
        if done.returncode != 0:
            raise SandboxUnavailableError(f"offline bootstrap failed (needs root and Debian's mirror): {done.stderr[-2000:]}")
    return OFFLINE_BASE


def build_image(base: str | None = None, tag: str = IMAGE, force: bool = False, log: Log = print, root: Path | None = None) -> str:
    """Build the sandbox image from the sources in `root` (default: the package's own) unless an identical one exists;
    returns the tag.

    Raises:
        InputError: `base` is not an image reference.
        SandboxUnavailableError: no engine, no base image obtainable, or the build failed.
    """
    if base is not None and not _REFERENCE.fullmatch(base):
        raise InputError(f"--base {base!r} is not an image reference: give one such as python:3.11-slim "
                         "or registry.example:5000/team/python:3.11")
    client = connect()
    try:
        return _build(client, base, tag, force, log, root)
    except docker.errors.APIError as exc:
        raise SandboxUnavailableError(f"the engine refused the build: {exc.explanation or exc}") from None
    finally:
        client.close()


def _build(client: docker.DockerClient, base: str | None, tag: str, force: bool, log: Log, root: Path | None) -> str:
    sources = image_sources(root)
    digest = _digest(sources)
    if not force and _present(client, tag) and client.images.get(tag).labels.get(f"{LABEL}.digest") == digest:
        log(f"{tag} is up to date ({digest})")
        return tag
    chosen = _base_image(client, base, log, root)
    log(f"building {tag} FROM {chosen} …")
    try:
        client.images.build(fileobj=_context(sources), custom_context=True, dockerfile="Dockerfile.sandbox", tag=tag, rm=True,
                            buildargs={"BASE": chosen}, labels={f"{LABEL}.digest": digest, f"{LABEL}.base": chosen})
    except docker.errors.BuildError as exc:
        raise SandboxUnavailableError(f"image build failed: {exc}") from None
    log(f"built {tag} ({digest})")
    return tag


def _context(sources: dict[str, bytes]) -> io.BytesIO:
    """The build context: a tar of exactly the hashed sources (a checkout's links to them are not sent as links)."""
    context = io.BytesIO()
    with tarfile.open(fileobj=context, mode="w") as tar:
        for name, data in sources.items():
            entry = tarfile.TarInfo(name)
            entry.size, entry.mode = len(data), 0o644
            tar.addfile(entry, io.BytesIO(data))
    context.seek(0)
    return context


def push_image(reference: str, tag: str = IMAGE, log: Log = print) -> str:
    """Tag the local image as `reference` (REGISTRY/REPO[:TAG]) and push it there, for the nodes of a cluster to pull.

    Raises:
        InputError: `reference` is not an image reference.
        SandboxUnavailableError: no engine, no local image, or the registry refused the push.
    """
    repository, version = split_reference(reference)
    client = connect()
    try:
        try:
            client.images.get(tag).tag(repository, version)
        except docker.errors.ImageNotFound:
            raise SandboxUnavailableError(f"image {tag} is missing; build it first: codebench sandbox build") from None
        log(f"pushing {repository}:{version} …")
        for line in client.images.push(repository, tag=version, stream=True, decode=True):
            if "error" in line:
                raise SandboxUnavailableError(f"the registry refused {repository}:{version}: {line['error']}")
    except docker.errors.APIError as exc:
        raise SandboxUnavailableError(f"cannot push {reference}: {exc.explanation or exc}") from None
    finally:
        client.close()
    return f"{repository}:{version}"


def pull_image(reference: str, tag: str = IMAGE) -> str:
    """Pull `reference` and tag it as the sandbox image the backends run.

    Raises:
        InputError: `reference` is not an image reference.
        SandboxUnavailableError: no engine, or the registry does not give the image.
    """
    repository, version = split_reference(reference)
    client = connect()
    try:
        image = client.images.pull(repository, tag=version)
        name, _, label = tag.rpartition(":")
        image.tag(name, label)
    except docker.errors.APIError as exc:
        raise SandboxUnavailableError(f"cannot pull {reference}: {exc.explanation or exc}") from None
    finally:
        client.close()
    return tag


def split_reference(reference: str) -> tuple[str, str]:
    """REGISTRY/REPO[:TAG] as (REGISTRY/REPO, TAG), TAG defaulting to latest."""
    if not _REFERENCE.fullmatch(reference) or "@" in reference:
        raise InputError(f"--registry {reference!r} is not an image reference: give one such as "
                         "registry.example:5000/team/codebench-sandbox:v1")
    repository, colon, version = reference.rpartition(":")
    if not colon or "/" in version:  # no tag (a colon, if any, was the registry's port)
        return reference, "latest"
    return repository, version


def doctor(tag: str = IMAGE) -> list[tuple[str, bool, str]]:
    """(check, passed, detail or fix) for the engine, the image and the limits a container gets."""
    try:
        client = connect()
    except SandboxUnavailableError as exc:
        return [("engine", False, str(exc))]
    try:
        return _doctor(client, tag)
    finally:
        client.close()


def _doctor(client: docker.DockerClient, tag: str) -> list[tuple[str, bool, str]]:
    checks: list[tuple[str, bool, str]] = []
    version = client.version()
    info = client.info()
    checks.append(("engine", True, f"Docker {version.get('Version')}, cgroup v{info.get('CgroupVersion', '?')}, "
                                   f"{info.get('NCPU')} CPUs"))
    if not _present(client, tag):
        return checks + [("image", False, f"{tag} missing; fix: codebench sandbox build")]
    current = client.images.get(tag).labels.get(f"{LABEL}.digest") == image_digest()
    checks.append(("image", current, f"{tag} " + ("up to date" if current else "is stale; fix: codebench sandbox build")))
    probe = ("import os, resource; print(os.getuid(), open('/proc/self/status').read().count('CapEff:\\t0000000000000000'),"
             " resource.getrlimit(resource.RLIMIT_NOFILE)[0])")
    try:
        flags = {**hardening(Limits()), "user": "10001", "log_config": LogConfig(type="json-file")}  # to read its output
        output = client.containers.run(tag, ["python3", "-c", probe], remove=True, **flags)
        uid, no_caps, nofile = output.decode().split()
        checks.append(("limits", uid == "10001" and no_caps == "1" and nofile == "256",
                       f"probe container: uid {uid}, no effective capabilities: {no_caps == '1'}, nofile {nofile}"))
    except docker.errors.DockerException as exc:
        checks.append(("limits", False, f"a hardened container did not start: {exc}"))
    left = codebench_containers(client)
    checks.append(("leftovers", not left, f"{len(left)} codebench containers exist" + ("; fix: codebench sandbox cleanup" if left else "")))
    return checks


def cleanup(everything: bool = False) -> int:
    """Remove codebench containers: orphans only, or every one (`everything`); returns how many."""
    client = connect()
    try:
        if not everything:
            return sweep_orphans(client)
        return sum(remove_container(container) for container in codebench_containers(client))
    finally:
        client.close()
