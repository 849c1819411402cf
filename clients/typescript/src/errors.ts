// Why the server refused a call.
//
// Every refusal carries a google.rpc.ErrorInfo detail (domain "skat.v1") in the standard
// `grpc-status-details-bin` trailer; its `reason` is stable: one of the contract's
// ErrorReason names without the ERROR_REASON_ prefix ("NOT_YOUR_TURN", "MUST_FOLLOW_SUIT",
// "STALE_SEQ"...). Branch on the reason, never on the message:
//
//   catch (e) { if (reason(e) === "STALE_SEQ") { /* the table moved on */ } }

import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "./gen/google/rpc/error_info_pb";

export { Code, ConnectError };

/** The domain of the server's refusals. */
export const DOMAIN = "skat.v1";

/** A refusal's machine-readable detail. */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/** The server's ErrorInfo detail of a refused call, if it has one. */
export function errorInfo(error: unknown): ErrorInfo | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  for (const info of error.findDetails(ErrorInfoSchema)) {
    if (info.domain === DOMAIN) return { reason: info.reason, domain: info.domain, metadata: { ...info.metadata } };
  }
  return undefined;
}

/** The refusal's reason, e.g. "NOT_YOUR_TURN"; undefined for errors without one. */
export function reason(error: unknown): string | undefined {
  return errorInfo(error)?.reason;
}

/** The gRPC status code of an error (undefined for anything that is not a call's error). */
export function codeOf(error: unknown): Code | undefined {
  return error instanceof ConnectError ? error.code : undefined;
}

/** Whether a call failed on the way rather than being refused: the connection broke or
 * the server went away (a restart, a drain, a replica that died). UNAVAILABLE, UNKNOWN,
 * INTERNAL and CANCELED, and ABORTED without a reason: Node reports a connection reset
 * (`read ECONNRESET`, a server killed mid-stream) as ABORTED, while the server's own
 * ABORTED is a refusal that always carries its reason (STALE_SEQ). */
export function brokenConnection(error: unknown): boolean {
  if (!(error instanceof ConnectError)) return false;
  if (error.code === Code.Aborted) return errorInfo(error) === undefined;
  return [Code.Unavailable, Code.Unknown, Code.Internal, Code.Canceled].includes(error.code);
}
