"""A minimal PEP 517 build backend (standard library only) for the ``lamina`` package.

It builds a pure-Python wheel of ``lamina/`` and an sdist, so that
``pip install ./clients/python`` works offline without setuptools. The metadata comes from
``pyproject.toml``'s ``[project]`` table (name, version, description, requires-python).
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "lamina"


def _project():
    """The [project] table's simple string fields (a TOML subset: key = "value")."""
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    section = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S).group(1)
    return dict(re.findall(r'^(\w[\w-]*)\s*=\s*"([^"]*)"', section, re.M))


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"],
             "Summary: %s" % p.get("description", ""), "Requires-Python: %s" % p.get("requires-python", ">=3.9"),
             "License: MIT", "Description-Content-Type: text/markdown", ""]
    readme = os.path.join(HERE, "README.md")
    body = open(readme, encoding="utf-8").read() if os.path.exists(readme) else ""
    return "\n".join(lines) + "\n" + body, p["name"], p["version"]


def _files():
    for base, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".typed")):
                full = os.path.join(base, f)
                yield full, os.path.relpath(full, HERE).replace(os.sep, "/")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _wheel(wheel_directory, editable=False):
    metadata, name, version = _metadata()
    dist = "%s-%s" % (name, version)
    filename = "%s-py3-none-any.whl" % dist
    info = "%s.dist-info" % dist
    entries = []
    if editable:
        entries.append(("%s.pth" % name, (HERE + "\n").encode()))
    else:
        for full, rel in _files():
            with open(full, "rb") as f:
                entries.append((rel, f.read()))
    entries.append(("%s/METADATA" % info, metadata.encode()))
    entries.append(("%s/WHEEL" % info, b"Wheel-Version: 1.0\nGenerator: lamina-backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(n, d) for n, d in entries] + ["%s/RECORD,," % info]
    entries.append(("%s/RECORD" % info, ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in entries:
            z.writestr(zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0)), d)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    _, name, version = _metadata()
    base = "%s-%s" % (name, version)
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "_build/backend.py"]:
            if os.path.exists(os.path.join(HERE, rel)):
                tar.add(os.path.join(HERE, rel), arcname="%s/%s" % (base, rel))
        for full, rel in _files():
            tar.add(full, arcname="%s/%s" % (base, rel))
        pkg_info = _metadata()[0].encode()
        ti = tarfile.TarInfo("%s/PKG-INFO" % base)
        ti.size = len(pkg_info)
        tar.addfile(ti, io.BytesIO(pkg_info))
    return filename
