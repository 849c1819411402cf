// Why the server refused a call.
//
// Every refusal carries a google.rpc.ErrorInfo detail (domain "skat.v1") in the standard
// `grpc-status-details-bin` trailer; its `reason` is stable: one of the contract's
// ErrorReason names without the ERROR_REASON_ prefix ("NOT_YOUR_TURN", "MUST_FOLLOW_SUIT",
// "STALE_SEQ"...). Branch on the reason, never on the message:
//
//   catch (e) { if (reason(e) === "STALE_SEQ") { /* the table moved on */ } }

import * as grpc from "@grpc/grpc-js";
import * as protobuf from "protobufjs";

export const DOMAIN = "skat.v1";

// The wire shape of google.rpc.Status, google.protobuf.Any and google.rpc.ErrorInfo
// (field numbers as published by Google), enough to read the detail.
const schema = protobuf.parse(`
  syntax = "proto3";
  package rpcstatus;
  message Any { string type_url = 1; bytes value = 2; }
  message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
  message ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
`).root;
const StatusType = schema.lookupType("rpcstatus.Status");
const ErrorInfoType = schema.lookupType("rpcstatus.ErrorInfo");

export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/** The server's ErrorInfo detail of a refused call, if it has one. */
export function errorInfo(error: unknown): ErrorInfo | undefined {
  const metadata = (error as grpc.ServiceError | undefined)?.metadata;
  if (!(metadata instanceof grpc.Metadata)) return undefined;
  for (const value of metadata.get("grpc-status-details-bin")) {
    if (!Buffer.isBuffer(value)) continue;
    const status = StatusType.toObject(StatusType.decode(value), { defaults: true }) as {
      details: { typeUrl: string; value: Uint8Array }[];
    };
    for (const detail of status.details) {
      if (!detail.typeUrl.endsWith("/google.rpc.ErrorInfo")) continue;
      const info = ErrorInfoType.toObject(ErrorInfoType.decode(detail.value), { defaults: true }) as ErrorInfo;
      if (info.domain === DOMAIN) return info;
    }
  }
  return undefined;
}

/** The refusal's reason, e.g. "NOT_YOUR_TURN"; undefined for errors without one. */
export function reason(error: unknown): string | undefined {
  return errorInfo(error)?.reason;
}
