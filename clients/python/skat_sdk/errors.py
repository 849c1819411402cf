"""Why the server refused a call.

Every refusal carries a ``google.rpc.ErrorInfo`` detail (domain ``skat.v1``) whose
``reason`` is stable: one of the contract's ``ErrorReason`` names without the
``ERROR_REASON_`` prefix (``NOT_YOUR_TURN``, ``MUST_FOLLOW_SUIT``, ``STALE_SEQ``...). Branch
on the reason, never on the message::

    try:
        stub.PlayCard(request, metadata=md)
    except grpc.RpcError as e:
        if errors.reason(e) == "STALE_SEQ":
            ...  # the table moved on: wait for the next event
"""

from typing import Dict, Optional

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from skat.v1 import skat_pb2 as pb

DOMAIN = "skat.v1"


def error_info(error: grpc.RpcError) -> Optional[error_details_pb2.ErrorInfo]:
    """The server's ErrorInfo detail of a refused call, if it has one."""
    status = rpc_status.from_call(error) if isinstance(error, grpc.Call) else None
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            if info.domain == DOMAIN:
                return info
    return None


def reason(error: grpc.RpcError) -> Optional[str]:
    """The refusal's reason, e.g. ``"NOT_YOUR_TURN"``; None for errors without one."""
    info = error_info(error)
    return info.reason if info is not None else None


def reason_value(error: grpc.RpcError) -> Optional[int]:
    """The reason as the generated enum value (``pb.ERROR_REASON_NOT_YOUR_TURN``)."""
    name = reason(error)
    if name is None:
        return None
    try:
        return pb.ErrorReason.Value("ERROR_REASON_" + name)
    except ValueError:
        return None


def metadata(error: grpc.RpcError) -> Dict[str, str]:
    """The refusal's public facts (``to_move``, ``current_seq``, ``after_seq``...)."""
    info = error_info(error)
    return dict(info.metadata) if info is not None else {}


#: The trailer in which a replica that does not own a table names the one that does.
OWNER_METADATA = "skat-owner"


def redirect(error: grpc.RpcError) -> Optional[str]:
    """The owner's address when a call was answered with the redirect (NOT_FOUND with the
    ``skat-owner`` trailer: another replica owns the table), else None."""
    if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.NOT_FOUND:
        return None
    for key, value in error.trailing_metadata() or ():
        if key == OWNER_METADATA:
            return value if isinstance(value, str) else value.decode()
    return None
