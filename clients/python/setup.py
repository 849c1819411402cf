"""Builds the package and, on the way, the gRPC stubs of skat.v1.

From a checkout of the repository the stubs are generated from `../../proto` with
grpcio-tools into `skat/v1/` beside the SDK (as the top-level package `skat.v1`, which
the generated modules import each other by); they are not committed (the proto file is
the only source of truth), but every sdist carries them, so that a wheel builds from the
sdist alone, anywhere, without the repository.
"""

import pathlib

from setuptools import setup

HERE = pathlib.Path(__file__).parent.resolve()
PROTO_ROOT = HERE.parent.parent / "proto"
PROTO = PROTO_ROOT / "skat" / "v1" / "skat.proto"
OUT = HERE / "skat" / "v1"


def generate():
    """Writes the stubs into skat/v1/ from the repository's proto; outside a checkout
    (building from an sdist) the stubs it carries are used as they are."""
    if not PROTO.exists():
        if not (OUT / "skat_pb2.py").exists():
            raise RuntimeError(f"{PROTO} not found and no generated stubs in {OUT}: build from the repository or an sdist")
        return
    import grpc_tools
    from grpc_tools import protoc

    OUT.mkdir(parents=True, exist_ok=True)
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={HERE}",
        f"--pyi_out={HERE}",
        f"--grpc_python_out={HERE}",
        str(PROTO),
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + str(PROTO))
    for package in (HERE / "skat", OUT):
        (package / "__init__.py").touch()


# Before setuptools looks for the packages (egg_info runs before build_py and sdist).
generate()
setup()
