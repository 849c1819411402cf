"""The package as a stranger installs it: an sdist built from the repository carries the
generated stubs, and a wheel built from that sdist alone (no repository, no
``../../proto``) installs into a fresh virtual environment and works."""

import pathlib
import subprocess
import sys
import tarfile

PACKAGE = pathlib.Path(__file__).resolve().parents[1]


def test_the_sdist_builds_a_working_wheel_without_the_repository(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--outdir", str(dist), str(PACKAGE)], check=True, capture_output=True)
    (sdist,) = dist.glob("skat_sdk-*.tar.gz")
    with tarfile.open(sdist) as t:
        names = t.getnames()
    assert any(n.endswith("skat/v1/skat_pb2.py") for n in names), "the sdist carries the generated stubs"
    assert not any("/proto/" in n for n in names), "and not the repository's proto files"
    # A wheel from the sdist alone, in a directory with no repository around it.
    away = tmp_path / "elsewhere"
    away.mkdir()
    wheels = away / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(sdist)], check=True, cwd=away)
    (wheel,) = wheels.glob("skat_sdk-*.whl")
    venv = away / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], check=True, cwd=away)
    check = (
        "import skat_sdk, skat_bot; from skat.v1 import skat_pb2 as pb; "
        "k = skat_sdk.Knowledge(seat=0); "
        "k.apply(pb.Event(seq=1, deal_started=pb.DealStarted(number=0, position_seats=[0, 1, 2], hand=[pb.CARD_CJ]))); "
        "print(k.to_dict()['hand'], k.position.name)"
    )
    out = subprocess.run([str(python), "-c", check], check=True, cwd=away, capture_output=True, text=True)
    assert out.stdout.split() == ["['CJ']", "FOREHAND"]
