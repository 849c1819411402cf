"""Builds the package and, on the way, the gRPC stubs of skat.v1.

The stubs are generated from the repository's proto/ with grpcio-tools into the build
directory (as the top-level package `skat.v1`), never committed: the proto file is the
only source of truth.
"""

import pathlib

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).parent.resolve()
PROTO_ROOT = HERE.parent.parent / "proto"
PROTO = PROTO_ROOT / "skat" / "v1" / "skat.proto"


class BuildWithStubs(build_py):
    """build_py that also runs protoc (from grpcio-tools) on skat.proto."""

    def run(self):
        super().run()
        import grpc_tools
        from grpc_tools import protoc

        if not PROTO.exists():
            raise RuntimeError(f"{PROTO} not found: build from a checkout of the repository")
        out = pathlib.Path(self.build_lib)
        well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{well_known}",
            f"--python_out={out}",
            f"--pyi_out={out}",
            f"--grpc_python_out={out}",
            str(PROTO),
        ]
        if protoc.main(args) != 0:
            raise RuntimeError("protoc failed on " + str(PROTO))
        for package in (out / "skat", out / "skat" / "v1"):
            (package / "__init__.py").touch()


setup(cmdclass={"build_py": BuildWithStubs})
