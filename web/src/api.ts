// The page's one connection to the server: gRPC-Web (Connect-Web) to the origin that
// served the page, the same skat.v1 services the bots use.
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { SkatService } from "./gen/skat/v1/skat_pb";
import { HostingService } from "./gen/skat/v1/hosting_pb";

const transport = createGrpcWebTransport({ baseUrl: location.origin });
export const api = createClient(SkatService, transport);
/** Hosted bots: the author's page reads versions, sandboxes and their output. */
export const hosting = createClient(HostingService, transport);
